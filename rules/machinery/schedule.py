"""Order of service and the limit of loads (Decreto 017/2026, Nova Lacerda, art. 3 and 9).

- art. 3 caput and §1-§2: public interest, protocol order, available machines and staff;
  a regional schedule by zone; inside a zone the protocol order, finishing one locality before
  moving to the next; a request moves ahead only for urgency or public relevance, justified;
- the period of a booking (art. 3, III: machines and staff as available): a job of many hours takes
  consecutive working days of one machine and its operator (docs/LEITURAS.md, seção 8);
- art. 4, I-II and Anexo I: machines and vehicles serve the items of their kind (a bus does not dig),
  so a booking offers only the machines of the request's items;
- art. 9 §1: at most 5 loads of earth or gravel per property/requester per stage of the schedule;
  §2: more loads wait for a new request, served in a later stage.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from rules.base import Decision, Finding, Level, RuleError
from rules.calendar import LegalCalendar
from rules.fmt import count, plural
from rules.machinery.prices import ANEXO_I, CATALOGUE, DECREE
from rules.machinery.quote import InvalidQuantity, QuantityNotPositive
from rules.params import ParameterBook

ART_3 = f"{DECREE}, art. 3"
ART_9 = f"{DECREE}, art. 9"
PROPERTY_OR_REQUESTER = "property_or_requester"
PROPERTY_AND_REQUESTER = "property_and_requester"
MAX_PERIOD_DAYS = 31  # a guard against typing errors: one booking spans at most a month


class PeriodRefused(RuleError):
    """A booking period that ends before it starts or spans more than :data:`MAX_PERIOD_DAYS`."""


def booking_days(first: date, last: date, calendar: LegalCalendar) -> tuple[date, ...]:
    """The days a booking from ``first`` to ``last`` takes: the first day as the clerk chose it, then
    the business days (LegalCalendar: no weekends or holidays) up to ``last``."""
    reference = f"{ART_3}, III"
    if last < first:
        raise PeriodRefused("O último dia do agendamento não pode ser anterior ao primeiro", (first, last), reference)
    if (last - first).days + 1 > MAX_PERIOD_DAYS:
        raise PeriodRefused(f"Um agendamento abrange no máximo {MAX_PERIOD_DAYS} dias; agende o restante depois",
                            (first, last), reference)
    following = (first + timedelta(days=n) for n in range(1, (last - first).days + 1))
    return (first, *(day for day in following if calendar.is_business_day(day)))


@dataclass(frozen=True)
class SkippedDay:
    """A day inside a booking's period that the booking does not take, and why."""

    day: date
    reason: str  # "sábado", "domingo", "feriado nacional: Tiradentes", "feriado municipal: …"


def skipped_days(first: date, last: date, calendar: LegalCalendar) -> tuple[SkippedDay, ...]:
    """The days after the first up to ``last`` that :func:`booking_days` leaves out (art. 3, III: the
    business days after the first), each with its reason: weekend, national, state or municipal
    holiday (the municipal ones are the parameters' ``municipal_holidays``)."""
    following = (first + timedelta(days=n) for n in range(1, (last - first).days + 1))
    return tuple(SkippedDay(day, calendar.day_off(day) or "") for day in following
                 if not calendar.is_business_day(day))

# Anexo I, column "tipo de serviço/máquina": the items each kind of municipal asset serves (the dump
# truck also carries the loads of earth or gravel of item 12, Anexo I obs. 3).
ITEMS_OF_KIND = {
    "retroescavadeira": ("01",), "motoniveladora": ("02",), "pa_carregadeira": ("03",), "escavadeira": ("04",),
    "caminhao_basculante": ("05", "06", "07", "12"), "prancha": ("08", "09"), "onibus": ("10",),
    "micro_onibus_van": ("11",),
}


def assets_fit(items: Collection[str], assets: Iterable[tuple[str, str]]) -> Decision:
    """Each booked (identifier, kind) must serve one of the request's Anexo I ``items``."""
    findings = []
    codes = [code for code in sorted(set(items)) if code in CATALOGUE]
    wanted = plural(len(codes), "do item", "dos itens") + " " + ", ".join(
        f"{code} ({CATALOGUE[code].machine.lower()})" for code in codes)
    for identifier, kind in assets:
        served = set(ITEMS_OF_KIND.get(kind, ()))
        if served & set(items):
            findings.append(Finding(True, f"{identifier} atende o pedido", ANEXO_I, Level.INFO))
        else:
            # Anexo I: the machine or vehicle is the one of the item quoted
            findings.append(Finding(False, f"{identifier} não serve para este pedido: os serviços orçados são "
                                           f"{wanted}", ANEXO_I))
    return Decision(tuple(findings))


@dataclass(frozen=True)
class LoadRecord:
    """Loads already granted in a stage of the schedule."""

    requester_id: str
    property_id: str
    stage: str
    loads: int


@dataclass(frozen=True)
class LoadAllowance:
    """Loads granted now and loads that need a new request in a later stage."""

    granted: int
    deferred: int
    decision: Decision


def _counts(record: LoadRecord, requester_id: str, property_id: str, counting: str) -> bool:
    if counting == PROPERTY_AND_REQUESTER:
        return record.requester_id == requester_id and record.property_id == property_id
    return record.requester_id == requester_id or record.property_id == property_id


def loads_allowance(
    requester_id: str, property_id: str, stage: str, requested: int,
    granted_in_stage: Iterable[LoadRecord], on: date, book: ParameterBook,
) -> LoadAllowance:
    """How many of the requested loads fit in the stage's limit (art. 9, §1); the rest wait (§2)."""
    if isinstance(requested, bool) or not isinstance(requested, int):
        raise InvalidQuantity("Número de cargas deve ser inteiro", requested, f"{ART_9}, §1")
    if requested <= 0:
        raise QuantityNotPositive("Número de cargas deve ser maior que zero", requested, f"{ART_9}, §1")
    limit = int(book.get("loads_per_stage_limit", on))
    counting = book.get("load_limit_counting", on)
    already = sum(r.loads for r in granted_in_stage
                  if r.stage == stage and _counts(r, requester_id, property_id, counting))
    granted = min(requested, max(0, limit - already))
    deferred = requested - granted
    findings = [Finding(True, f"{count(granted, 'carga', 'cargas')} nesta etapa "
                                     f"({count(already, 'já atendida', 'já atendidas')}; limite {limit})",
                        f"{ART_9}, §1", Level.INFO)]
    if deferred:
        # Art. 9, §2: a new request, served in the next stage of the schedule
        findings.append(Finding(False, f"{count(deferred, 'carga', 'cargas')} acima do limite de {limit} por etapa: "
                                       "apresentar nova solicitação para a próxima etapa",
                                f"{ART_9}, §1 e §2", Level.ERROR if granted == 0 else Level.WARNING))
    return LoadAllowance(granted, deferred, Decision(tuple(findings)))


@dataclass(frozen=True)
class QueuedRequest:
    """An accepted request waiting for service."""

    protocol: str
    protocolled_at: datetime
    zone: str
    locality: str
    urgent: bool = False
    justification: str = ""
    resources_available: bool = True


@dataclass(frozen=True)
class OrderEntry:
    position: int
    request: QueuedRequest
    reason: str
    reference: str


@dataclass(frozen=True)
class ServiceOrder:
    """The sequence to serve, and the requests held for lack of machines or staff."""

    sequence: tuple[OrderEntry, ...]
    held: tuple[OrderEntry, ...]


def _protocol_key(request: QueuedRequest) -> tuple[datetime, str]:
    return request.protocolled_at, request.protocol


@dataclass(frozen=True)
class QueueGroup:
    """The requests of one locality waiting in the regular order: how many, and the protocol key
    (instant, number) of the earliest. What the schedule board keeps per locality, so that it can
    place a page of the queue without reading every request."""

    zone: str
    locality: str
    first: tuple[datetime, str]
    count: int = 0


def group_order(groups: Iterable[QueueGroup], zone_order: Sequence[str] = ()) -> list[QueueGroup]:
    """The localities in the order of service (art. 3, §1-§2); inside each, the protocol order."""
    groups = list(groups)
    zone_first: dict[str, tuple[datetime, str]] = {}
    for group in groups:
        zone_first[group.zone] = min(zone_first.get(group.zone, group.first), group.first)
    rank = {zone: n for n, zone in reversed(list(enumerate(zone_order)))}

    def key(group: QueueGroup) -> tuple:
        # Art. 3, §1: zones in the regional schedule's order, then the others by their first protocol;
        # Art. 3, §2: finish a locality (in order of its first protocol) before the next
        return (rank.get(group.zone, len(zone_order)), zone_first[group.zone], group.zone, group.first,
                group.locality)

    return sorted(groups, key=key)


def _by_zone_and_locality(requests: list[QueuedRequest], zone_order: Sequence[str]) -> list[QueuedRequest]:
    places: dict[tuple[str, str], list[QueuedRequest]] = {}
    for request in sorted(requests, key=_protocol_key):
        places.setdefault((request.zone, request.locality), []).append(request)
    groups = [QueueGroup(zone, locality, _protocol_key(waiting[0]), len(waiting))
              for (zone, locality), waiting in places.items()]
    return [request for group in group_order(groups, zone_order) for request in places[(group.zone, group.locality)]]


def entry_reason(request: QueuedRequest) -> tuple[str, str]:
    """Why the request stands where it does in the queue, and the provision that says so."""
    if justified(request):
        return (f"Antecipado por urgência ou relevância pública: {request.justification.strip()}", f"{ART_3}, §2")
    reason = f"Zona {request.zone}, localidade {request.locality}, ordem de protocolo"
    if request.urgent:
        reason += "; urgência sem justificativa registrada não antecipa o atendimento"
    return reason, f"{ART_3}, II e §1-§2"


def justified(request: QueuedRequest) -> bool:
    """Urgency or public relevance with a recorded justification (art. 3, §2)."""
    return request.urgent and bool(request.justification.strip())


def order_of_service(requests: Iterable[QueuedRequest], zone_order: Sequence[str] = ()) -> ServiceOrder:
    """Justified urgencies first, then by zone, locality and protocol order (art. 3)."""
    pending = list(requests)
    # Art. 3, III: without available machines and staff the request is held
    held = [OrderEntry(0, r, "Aguardando disponibilidade de máquinas e servidores", f"{ART_3}, III")
            for r in sorted(pending, key=_protocol_key) if not r.resources_available]
    ready = [r for r in pending if r.resources_available]
    # Art. 3, §2: only urgency or public relevance with a recorded justification moves ahead
    ahead = sorted((r for r in ready if justified(r)), key=_protocol_key)
    # one pass, not ``r not in ahead``: comparing each request with every urgent one made the Agenda's
    # board take 0,6–0,9 s with 2.952 requests waiting (issue 21, scale 100; 0,2–0,3 s now)
    regular = _by_zone_and_locality([r for r in ready if not justified(r)], zone_order)
    entries = [OrderEntry(0, r, *entry_reason(r)) for r in (*ahead, *regular)]
    sequence = tuple(OrderEntry(n, e.request, e.reason, e.reference) for n, e in enumerate(entries, start=1))
    return ServiceOrder(sequence, tuple(held))
