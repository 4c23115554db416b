"""Platform obligations as dates and verdicts: periodic lists, reconciliation of a list against the
register, trip data requests within 24 hours, trip rows with the minimum fields, ISSQN per vehicle.

References:
- Chapada dos Guimarães, Decreto 06/2026: art. 5º, VIII (list every 60 days); art. 11, caput and
  §1º I–VI (trip data fields), §2º (24 hours from the notification); art. 19 (monthly ISSQN per
  vehicle); art. 30 (service without authorization is transporte ilegal, gravíssima).
- Matupá, Lei 1.552/2025: art. 5º, IX and art. 10 (monthly list and report of trip values);
  art. 4º, §1º I–VI and §2º (trip data in 24 hours); art. 10 (monthly ISSQN per vehicle);
  art. 12, XXV and art. 26, III, d (operating without a valid authorization, gravíssima).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from rules.base import Finding, cents
from rules.calendar import LegalCalendar, add_hours, add_months
from rules.fmt import day
from rules.ridehailing.catalogue import TripDataField
from rules.ridehailing.lifecycle import AuthorizationState, Status
from rules.ridehailing.platforms import DATA_REQUEST_HOURS, ListPeriod

MINUTE = timedelta(minutes=1)
RATING_RANGE = (1, 5)


# ---- periodic lists (CG art. 5º, VIII: every 60 days; MP art. 5º, IX: monthly) ----

@dataclass(frozen=True)
class ListDue:
    """When the platform's next list is due and whether it is late on the day asked."""

    due: date
    late: bool
    finding: Finding


def list_due(received: Iterable[date], credentialed_on: date, on: date, period: ListPeriod,
             calendar: LegalCalendar, ref: str) -> ListDue:
    """The next list falls due one period after the last list received up to ``on`` (or after the
    credentialing when none was); it is late from the day after that date."""
    last = max((d for d in received if d <= on), default=credentialed_on)
    due = period.next_due(last, calendar)
    if on <= due:
        return ListDue(due, False, Finding(True, f"Próxima relação até {day(due)}", ref))
    return ListDue(due, True, Finding(False, f"Relação atrasada desde {day(due + timedelta(days=1))} "
                                             f"(vencia em {day(due)})", ref))


# ---- data requests (CG art. 11 §2º; MP art. 4º §2º: 24 hours from the notification) ----

def data_request_deadline(notified_at: datetime) -> datetime:
    """The instant the trip data are due: 24 hours counted from the notification, to the minute."""
    return add_hours(notified_at, DATA_REQUEST_HOURS)


def _minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def data_request_late(notified_at: datetime, answered_at: datetime | None, now: datetime) -> bool:
    """Late once the minute after the deadline begins: unanswered by then, or answered after it.
    An answer within the deadline's own minute is on time."""
    deadline = _minute(data_request_deadline(notified_at))
    if answered_at is not None:
        return _minute(answered_at) > deadline
    return _minute(now) > deadline


# ---- reconciliation (CG art. 30; MP art. 12, XXV and art. 26, III, d) ----

@dataclass(frozen=True)
class Registered:
    """One stored authorization of the register and its status on the list's date."""

    driver_cpf: str
    plate: str
    number: str
    state: AuthorizationState


ENDED_TEXT = {
    Status.EXPIRED: "vencida", Status.REVOKED: "revogada", Status.CASSADA: "cassada",
    Status.REFUSED: "indeferida", Status.REQUESTED: "ainda não expedida (requerida)",
    Status.AWAITING_INSPECTION: "ainda não expedida (aguardando vistoria)",
    Status.AWAITING_FEE: "ainda não expedida (aguardando a taxa)",
    Status.BLOCKED: "bloqueada por pendência de vistoria",
}


def reconcile_row(cpf: str, plate: str, register: Iterable[Registered], ref: str) -> Finding:
    """Whether the driver of ``cpf`` may serve with the vehicle of ``plate``: only an active
    authorization of that very pair is valid. Otherwise the finding says what the register shows."""
    pair = [r for r in register if r.driver_cpf == cpf and r.plate == plate]
    if any(r.state.status is Status.ACTIVE for r in pair):
        number = next(r.number for r in pair if r.state.status is Status.ACTIVE)
        return Finding(True, f"Autorização {number} ativa", ref)
    if pair:
        latest = pair[-1]
        if latest.state.status is Status.SUSPENDED:
            until = f" até {day(latest.state.deadline)}" if latest.state.deadline else ""
            return Finding(False, f"Autorização {latest.number} suspensa{until}", ref)
        text = ENDED_TEXT.get(latest.state.status, latest.state.label.lower())
        return Finding(False, f"Autorização {latest.number} {text}", ref)
    others = [r for r in register if (r.driver_cpf == cpf or r.plate == plate) and r.state.status is Status.ACTIVE]
    if others:
        other = others[0]
        if other.driver_cpf == cpf:
            return Finding(False, f"Condutor autorizado com outro veículo (placa {other.plate}); este veículo "
                                  "não tem autorização", ref)
        return Finding(False, "Veículo autorizado para outro condutor; este condutor não tem autorização", ref)
    return Finding(False, "Condutor e veículo sem autorização no cadastro do Município", ref)


# ---- trip data rows (CG art. 11 §1º I–VI; MP art. 4º §1º I–VI) ----

@dataclass(frozen=True)
class TripColumn:
    """A column of the trip CSV and the minimum field of the law it carries."""

    name: str
    label: str
    field_code: str
    required: bool = True


TRIP_COLUMNS = (
    TripColumn("data_hora", "Data e hora do início", "origin_destination"),
    TripColumn("origem", "Origem", "origin_destination"),
    TripColumn("destino", "Destino", "origin_destination"),
    TripColumn("duracao_min", "Duração (min)", "duration_distance"),
    TripColumn("distancia_km", "Distância (km)", "duration_distance"),
    TripColumn("mapa", "Mapa do trajeto", "route_map"),
    TripColumn("cpf_condutor", "CPF do condutor", "driver"),
    TripColumn("placa", "Placa", "driver"),
    TripColumn("valor_total", "Valor pago (R$)", "fare"),
    TripColumn("composicao_valor", "Composição do valor", "fare"),
    TripColumn("avaliacao", "Avaliação (1 a 5)", "rating", required=False),
)


def _positive(raw: str, label: str, integer: bool = False) -> tuple[Decimal | None, str | None]:
    text = raw.strip().replace(".", "").replace(",", ".") if "," in raw else raw.strip()
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None, f"{label}: informe um número"
    if not value.is_finite() or value <= 0 or (integer and value != value.to_integral_value()):
        return None, f"{label}: informe um número maior que zero" + (" e inteiro" if integer else "")
    return value, None


def _moment(raw: str) -> datetime | None:
    for pattern in ("%d/%m/%Y %H:%M", "%d/%m/%Y %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S",
                    "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(raw.strip(), pattern)
        except ValueError:
            continue
    return None


def trip_errors(row: Mapping[str, str], fields: tuple[TripDataField, ...], now_local: datetime) -> list[tuple[str, str]]:
    """(column label, pt-BR message with the article) of every problem of one trip row. The CPF and
    plate are checked by the caller (their formats are the register's). ``now_local`` bounds the date."""
    refs = {f.code: f.reference for f in fields}
    errors: list[tuple[str, str]] = []
    for column in TRIP_COLUMNS:
        raw = str(row.get(column.name) or "").strip()
        ref = refs.get(column.field_code, "")
        if not raw:
            if column.required:
                errors.append((column.label, f"campo obrigatório ({ref})"))
            continue
        if column.name == "data_hora":
            moment = _moment(raw)
            if moment is None:
                errors.append((column.label, "use dd/mm/aaaa hh:mm"))
            elif moment > now_local:
                errors.append((column.label, "a viagem não pode ser posterior a agora"))
        elif column.name in ("duracao_min", "distancia_km", "valor_total"):
            value, error = _positive(raw, column.label, integer=column.name == "duracao_min")
            if error:
                errors.append((column.label, error.split(": ", 1)[1]))
            elif column.name == "valor_total" and value != cents(value):
                errors.append((column.label, "informe reais e centavos"))
        elif column.name == "avaliacao":
            if raw not in {str(n) for n in range(RATING_RANGE[0], RATING_RANGE[1] + 1)}:
                errors.append((column.label, f"nota de {RATING_RANGE[0]} a {RATING_RANGE[1]} ({ref})"))
    return errors


def trip_moment(raw: str) -> datetime:
    """The trip's local start as typed (validated by :func:`trip_errors`)."""
    moment = _moment(raw)
    if moment is None:
        raise ValueError(raw)
    return moment


def trip_value(raw: str) -> Decimal:
    value, error = _positive(raw, "valor")
    if error:
        raise ValueError(error)
    return value


# ---- ISSQN per vehicle and month (CG art. 19; MP art. 10) ----

def issqn_amount(trips: Iterable[tuple[date, Decimal]], rate_on) -> Decimal:
    """ISSQN of one vehicle in one month: each reported trip value times the rate in force on the
    trip's day (``rate_on(day)``), summed and rounded half up to centavos at the end."""
    return cents(sum((value * Decimal(rate_on(on)) for on, value in trips), Decimal("0")))


def issqn_due(competence: date, due_day: int, calendar: LegalCalendar) -> date:
    """The month's ISSQN falls due on ``due_day`` of the following month, on a business day."""
    following = add_months(competence.replace(day=1), 1)
    return calendar.next_business_day(following.replace(day=min(due_day, 28)))


ISSQN_PAID, ISSQN_OVERDUE, ISSQN_OPEN = "pago", "vencido", "a vencer"


def issqn_situation(due: date, paid_on: date | None, on: date) -> str:
    """Paid, overdue (unpaid after the due date) or still open on ``on``."""
    if paid_on is not None and paid_on <= on:
        return ISSQN_PAID
    return ISSQN_OVERDUE if on > due else ISSQN_OPEN
