"""Figures for the mayor's office (issue 14): what the services did, what they collected, what is late.

Per municipality and period (first and last day, inclusive, dates of America/Cuiaba), with the
previous period of the same length and, for revenue, the same period of the previous year. Each
collection is read once with a projection of the fields the figures need (no query per record); the
authorizations are folded by the municipality's rule set with one parameter load for all. Only
aggregates leave this module: no name, CPF, plate or document number (``services.shared.privacy`` hides
small cells when they are shown).

What each figure means (the same words the page shows):

- Autorizações ativas: Ativa on the last day of the period. Suspensas: suspended on that day.
- Novas: the authorization issued (its fee paid) within the period; renovadas: the renewal fee paid
  within it; cassadas: the cassação decided within it.
- A vencer em 30 dias: active on the last day and its validity ends within the 30 days after it.
- Condutores e veículos cadastrados: registered up to the last day.
- Vistorias realizadas e reprovadas: performed within the period. Em atraso: authorizations whose
  inspection term (presentation, fix, annual or convocation) had passed on the last day.
- Tempo médio até a autorização: calendar days from protocol to the fee paid, of those issued in
  the period.
- DAM emitidos: by issue date, cancelled ones excluded; pagos: by payment date, the amount received;
  vencidos: issued, due before the last day and not paid by it. The difference between the face
  value and the amount received of the DAMs paid is split into paid short, paid over and paid late.
- Autos: lavrados (drafts left out) with the infraction committed in the period, by severity and stage.
- Agendamentos (Nova Lacerda): requests protocolled in the period by zone, service and stage; waiting
  from request to the start of execution (median, 90th percentile by nearest rank) of those started
  in it; machine hours (hour meter) of executions ended in it; days booked over business days per
  machine; discounts of the quotes made in it; balances due before the last day and unpaid by it;
  credits of completed requests not yet returned on the last day.
"""
from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Iterable

from pymongo.database import Database

from rules.base import RuleError
from rules.ridehailing.concepts import EventKind, InsurancePolicy, Platform
from rules.ridehailing.lifecycle import LABELS, Status
from services.dam import dams, payments
from services.shared import clock, municipalities
from services.shared.auth import Actor, authorize
from services.shared.errors import ValidationFailed
from services.store import decode, encode, parse_date

ZERO = Decimal("0.00")
EXPIRING_DAYS = 30
INSPECTION_TERMS = ("presentation", "failed_inspection", "annual_inspection", "convocation")


# ---- periods ----

def _year_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


@dataclass(frozen=True)
class Period:
    """From ``start`` to ``end``, both included."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValidationFailed({"end": "Período: a data final é anterior à inicial."})

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def previous(self) -> Period:
        """The period of the same length that ends the day before this one starts."""
        end = self.start - timedelta(days=1)
        return Period(end - timedelta(days=self.days - 1), end)

    def year_before(self) -> Period:
        return Period(_year_before(self.start), _year_before(self.end))

    def __contains__(self, day: object) -> bool:
        return isinstance(day, date) and self.start <= day <= self.end

    def months(self) -> list[date]:
        """The first day of every month the period touches."""
        months, month = [], self.start.replace(day=1)
        while month <= self.end:
            months.append(month)
            month = (month + timedelta(days=32)).replace(day=1)
        return months


# ---- figures ----

@dataclass(frozen=True)
class Kpi:
    """A headline figure and the same figure in the previous period of the same length."""

    key: str
    label: str
    value: int | Decimal | None
    previous: int | Decimal | None
    unit: str = "count"  # "count", "brl" or "days"

    @property
    def change(self) -> int | Decimal | None:
        if self.value is None or self.previous is None:
            return None
        return self.value - self.previous


@dataclass(frozen=True)
class PlatformCompliance:
    """A platform (a company, not a person) and its obligations on the last day of the period."""

    name: str
    insurance: bool | None
    lists: bool | None
    issqn: bool | None


@dataclass(frozen=True)
class RideHailingFigures:
    active: int = 0
    new: int = 0
    renewed: int = 0
    expiring: int = 0
    suspended: int = 0
    cassadas: int = 0
    drivers: int = 0
    vehicles: int = 0
    inspections_done: int = 0
    inspections_failed: int = 0
    inspections_overdue: int = 0
    average_days_to_authorization: Decimal | None = None
    by_status: dict[str, int] = field(default_factory=dict)
    platforms: tuple[PlatformCompliance, ...] = ()


@dataclass(frozen=True)
class RevenueLine:
    """One revenue kind in one month: issued (by issue date), paid (by payment date, amount received)
    and overdue on the period's last day (by due date)."""

    kind: str
    month: date
    issued_count: int = 0
    issued: Decimal = ZERO
    paid_count: int = 0
    paid: Decimal = ZERO
    overdue_count: int = 0
    overdue: Decimal = ZERO


@dataclass(frozen=True)
class PaymentDifferences:
    """Why the amount received differs from the face value of the DAMs paid in the period."""

    paid_count: int = 0
    face_value: Decimal = ZERO
    received: Decimal = ZERO
    short_count: int = 0
    short: Decimal = ZERO  # face value minus amount received, of those paid short
    over_count: int = 0
    over: Decimal = ZERO  # amount received minus face value, of those paid over
    late_count: int = 0
    late: Decimal = ZERO  # amount received of those paid after the due date

    @property
    def difference(self) -> Decimal:
        return self.received - self.face_value


@dataclass(frozen=True)
class Revenue:
    lines: tuple[RevenueLine, ...] = ()
    differences: PaymentDifferences = PaymentDifferences()

    def total(self, measure: str) -> int | Decimal:
        """Sum of ``measure`` (``issued``, ``paid_count``…) over every line."""
        start: int | Decimal = 0 if measure.endswith("count") else ZERO
        return sum((getattr(line, measure) for line in self.lines), start)

    def by_kind(self) -> dict[str, RevenueLine]:
        """The lines summed per revenue kind (month dropped)."""
        kinds: dict[str, RevenueLine] = {}
        for line in self.lines:
            kinds[line.kind] = _add(kinds.get(line.kind) or RevenueLine(line.kind, line.month), line)
        return kinds

    def by_month(self, measure: str) -> dict[date, Decimal | int]:
        months: dict[date, Any] = defaultdict(lambda: 0 if measure.endswith("count") else ZERO)
        for line in self.lines:
            months[line.month] += getattr(line, measure)
        return dict(months)


@dataclass(frozen=True)
class FinesFigures:
    """Autos de infração by severity and stage, and the fines' DAMs (revenue kind ``multa``)."""

    by_severity: dict[str, int] = field(default_factory=dict)
    by_stage: dict[str, int] = field(default_factory=dict)
    issued_count: int = 0
    issued: Decimal = ZERO
    paid_count: int = 0
    paid: Decimal = ZERO
    overdue_count: int = 0
    overdue: Decimal = ZERO


@dataclass(frozen=True)
class BookingsFigures:
    """Nova Lacerda's machinery bookings of the period (services.machinery.bookings)."""

    by_zone: dict[str, int] = field(default_factory=dict)
    by_service: dict[str, int] = field(default_factory=dict)
    by_stage: dict[str, int] = field(default_factory=dict)
    waiting_median_days: Decimal | None = None
    waiting_p90_days: Decimal | None = None
    hours_per_asset: dict[str, Decimal] = field(default_factory=dict)
    utilization_per_asset: dict[str, Decimal] = field(default_factory=dict)
    discounts_count_by_criterion: dict[str, int] = field(default_factory=dict)
    discounts: Decimal = ZERO
    balances_overdue: Decimal = ZERO
    credits_to_return: Decimal = ZERO


@dataclass(frozen=True)
class Summary:
    municipality: str
    municipality_name: str
    period: Period
    previous: Period
    year_before: Period
    kpis: tuple[Kpi, ...]
    revenue: Revenue
    revenue_year_before: Revenue
    ride_hailing: RideHailingFigures | None
    fines: FinesFigures | None
    bookings: BookingsFigures | None

    def kpi(self, key: str) -> Kpi:
        return next(k for k in self.kpis if k.key == key)


def summary(db: Database, actor: Actor, municipality: str, start: date, end: date) -> Summary:
    """Every figure of the mayor's office for the municipality and period (see the module)."""
    authorize(actor, "summary", municipality)
    period = Period(start, end)
    previous, year_before = period.previous(), period.year_before()
    mun = municipalities.get(db, municipality)
    dam_docs = _dam_docs(db, municipality, min(previous.start, year_before.start))
    revenue, revenue_before = _revenue(dam_docs, period), _revenue(dam_docs, previous)
    ride = ride_before = fines = None
    if "transporte" in mun.modules:
        ride, ride_before = _ride_hailing(db, municipality, (period, previous))
        fines = _fines(db, municipality, period, dam_docs)
    bookings = bookings_before = None
    if "maquinas" in mun.modules:
        bookings, bookings_before = _bookings(db, municipality, period), _bookings(db, municipality, previous)
    return Summary(
        municipality=municipality, municipality_name=mun.name, period=period, previous=previous,
        year_before=year_before, kpis=_kpis(revenue, revenue_before, ride, ride_before, bookings, bookings_before),
        revenue=revenue, revenue_year_before=_revenue(dam_docs, year_before),
        ride_hailing=ride, fines=fines, bookings=bookings,
    )


def report_pdf(db: Database, actor: Actor, municipality: str, start: date, end: date) -> bytes:
    """The one-page "Relatório gerencial" of the period on the municipal letterhead (KPIs, two charts)."""
    from services.summary.report_pdf import render_management_report

    figures = summary(db, actor, municipality, start, end)
    mun = municipalities.get(db, municipality)
    return render_management_report(figures, mun.secretariat, mun.address, head=municipalities.letterhead(db, municipality))


def data_version(db: Database, actor: Actor, municipality: str) -> str:
    """The instant of the municipality's latest audited write: every write of the panel leaves one, so
    figures computed under the same version are still right (one indexed query)."""
    authorize(actor, "summary", municipality)
    latest = db["audit"].find_one({"municipality": municipality}, {"at": 1}, sort=[("at", -1)])
    return decode(latest["at"]).isoformat() if latest else ""


def _kpis(revenue: Revenue, before: Revenue, ride: RideHailingFigures | None,
          ride_before: RideHailingFigures | None, bookings: BookingsFigures | None = None,
          bookings_before: BookingsFigures | None = None) -> tuple[Kpi, ...]:
    kpis = [
        Kpi("paid", "Arrecadado (DAM pagos)", revenue.total("paid"), before.total("paid"), "brl"),
        Kpi("issued", "DAM emitidos (valor)", revenue.total("issued"), before.total("issued"), "brl"),
        Kpi("overdue", "DAM vencidos no fim do período", revenue.total("overdue"), before.total("overdue"), "brl"),
    ]
    if ride is not None and ride_before is not None:
        kpis += [
            Kpi("active", "Autorizações ativas", ride.active, ride_before.active),
            Kpi("new", "Autorizações novas", ride.new, ride_before.new),
            Kpi("renewed", "Renovações", ride.renewed, ride_before.renewed),
            Kpi("inspections_done", "Vistorias realizadas", ride.inspections_done, ride_before.inspections_done),
            Kpi("inspections_overdue", "Vistorias em atraso", ride.inspections_overdue,
                ride_before.inspections_overdue),
            Kpi("days_to_authorization", "Dias do protocolo à autorização (média)",
                ride.average_days_to_authorization, ride_before.average_days_to_authorization, "days"),
        ]
    if bookings is not None and bookings_before is not None:
        kpis += [
            Kpi("requests", "Pedidos de serviço protocolados", sum(bookings.by_zone.values()),
                sum(bookings_before.by_zone.values())),
            Kpi("waiting", "Espera até a execução (mediana)", bookings.waiting_median_days,
                bookings_before.waiting_median_days, "days"),
            Kpi("balances_overdue", "Saldos de serviços vencidos", bookings.balances_overdue,
                bookings_before.balances_overdue, "brl"),
        ]
    return tuple(kpis)


# ---- revenue ----

DAM_FIELDS = {"status": 1, "revenue_kind": 1, "amount": 1, "issued_on": 1, "due_on": 1,
              "payment.paid_on": 1, "payment.amount": 1, "payment.flags": 1}


def _dam_docs(db: Database, municipality: str, since: date) -> list[dict]:
    """The DAMs any period from ``since`` needs, in one query: issued or paid since then, or still
    unpaid (overdue on a last day); only the fields the figures read."""
    since_text = since.isoformat()
    query = {"municipality": municipality, "$or": [
        {"issued_on": {"$gte": since_text}}, {"payment.paid_on": {"$gte": since_text}}, {"status": dams.ISSUED}]}
    docs = []
    for raw in db[dams.COLLECTION].find(query, DAM_FIELDS):
        doc = decode(raw)
        payment = doc.get("payment") or {}
        docs.append({
            "status": doc["status"], "kind": dams.REVENUE_KINDS.get(doc.get("revenue_kind"), "Outras receitas"),
            "revenue_kind": doc.get("revenue_kind"), "amount": doc["amount"],
            "issued_on": parse_date(doc["issued_on"]), "due_on": parse_date(doc["due_on"]),
            "paid_on": parse_date(payment.get("paid_on")) if payment else None,
            "paid": payment.get("amount") if payment else None, "flags": tuple(payment.get("flags") or ()),
        })
    return docs


def _overdue_on(doc: dict, day: date) -> bool:
    """Issued, due before ``day`` and not paid by it (a DAM paid later was overdue then)."""
    if doc["status"] == dams.CANCELLED or doc["issued_on"] > day or doc["due_on"] >= day:
        return False
    return doc["status"] == dams.ISSUED or (doc["paid_on"] is not None and doc["paid_on"] > day)


def _revenue(docs: Iterable[dict], period: Period) -> Revenue:
    lines: dict[tuple[str, date], Counter] = defaultdict(Counter)
    diff: Counter = Counter()
    for doc in docs:
        kind = doc["kind"]
        if doc["status"] != dams.CANCELLED and doc["issued_on"] in period:
            cell = lines[(kind, doc["issued_on"].replace(day=1))]
            cell["issued_count"] += 1
            cell["issued"] += doc["amount"]
        if doc["status"] == dams.PAID and doc["paid_on"] in period:
            received = doc["paid"] if doc["paid"] is not None else doc["amount"]
            cell = lines[(kind, doc["paid_on"].replace(day=1))]
            cell["paid_count"] += 1
            cell["paid"] += received
            _explain(diff, doc["amount"], received, payments.FLAG_LATE in doc["flags"])
        if _overdue_on(doc, period.end):
            cell = lines[(kind, doc["due_on"].replace(day=1))]
            cell["overdue_count"] += 1
            cell["overdue"] += doc["amount"]
    return Revenue(
        tuple(RevenueLine(kind, month, **{k: (_money(v) if not k.endswith("count") else v) for k, v in c.items()})
              for (kind, month), c in sorted(lines.items(), key=lambda item: (item[0][1], item[0][0]))),
        PaymentDifferences(**{k: (_money(v) if not k.endswith("count") else v) for k, v in diff.items()}),
    )


def _explain(diff: Counter, face: Decimal, received: Decimal, late: bool) -> None:
    diff["paid_count"] += 1
    diff["face_value"] += face
    diff["received"] += received
    if received < face:
        diff["short_count"] += 1
        diff["short"] += face - received
    elif received > face:
        diff["over_count"] += 1
        diff["over"] += received - face
    if late:
        diff["late_count"] += 1
        diff["late"] += received


def _money(value: Decimal | int) -> Decimal:
    return Decimal(value).quantize(Decimal("0.01"), ROUND_HALF_UP)


def _add(total: RevenueLine, line: RevenueLine) -> RevenueLine:
    return RevenueLine(total.kind, total.month, **{
        name: getattr(total, name) + getattr(line, name)
        for name in ("issued_count", "issued", "paid_count", "paid", "overdue_count", "overdue")})


# ---- ride-hailing ----

AUTH_FIELDS = {"protocol_date": 1, "events": 1, "protocol": 1, "number": 1, "driver_cpf": 1, "plate": 1}


def _ride_hailing(db: Database, municipality: str,
                  periods: tuple[Period, ...]) -> tuple[RideHailingFigures, ...]:
    """The ride-hailing figures of each period: one query per collection for all of them."""
    from services.ridehailing import registry

    scope = registry.Scope(db, municipality)
    docs = [decode(raw) for raw in db["authorizations"].find({"municipality": municipality}, AUTH_FIELDS)]
    earliest = min(p.start for p in periods).isoformat()
    inspections = [decode(raw) for raw in db["inspections"].find(
        {"municipality": municipality, "performed_on": {"$gte": earliest}}, {"performed_on": 1, "result": 1})]
    platform_docs = [decode(raw) for raw in db["platforms"].find({"municipality": municipality}, PLATFORM_FIELDS)]
    reports = [decode(raw) for raw in db["platform_reports"].find(
        {"municipality": municipality}, {"platform_cnpj": 1, "kind": 1, "on": 1})]
    return tuple(_ride_period(db, municipality, scope, docs, inspections, platform_docs, reports, p) for p in periods)


def _ride_period(db: Database, municipality: str, scope: Any, docs: list[dict], inspections: list[dict],
                 platform_docs: list[dict], reports: list[dict], period: Period) -> RideHailingFigures:
    end = period.end
    statuses: Counter[Status] = Counter()
    counts: Counter[str] = Counter()
    waits: list[int] = []
    terms = {scope.rules.ref(term) for term in INSPECTION_TERMS}
    for doc in docs:
        events = [(e["kind"], parse_date(e["on"])) for e in doc.get("events", [])]
        if not events or min(on for _, on in events) > end:
            continue  # not yet requested on the last day
        state = scope.state(doc, end)
        statuses[state.status] += 1
        if state.status is Status.ACTIVE and state.valid_until and state.valid_until <= end + timedelta(EXPIRING_DAYS):
            counts["expiring"] += 1
        if _inspection_late(state, end, terms):
            counts["inspections_overdue"] += 1
        for kind, on in events:
            if on not in period:
                continue
            if kind == EventKind.FEE_PAID.value:
                counts["new"] += 1
                waits.append((on - parse_date(doc["protocol_date"])).days)
            elif kind == EventKind.RENEWAL_FEE_PAID.value:
                counts["renewed"] += 1
            elif kind == EventKind.CASSADA.value:
                counts["cassadas"] += 1
    done = [i for i in inspections if parse_date(i["performed_on"]) in period]
    average = (Decimal(sum(waits)) / len(waits)).quantize(Decimal("0.1"), ROUND_HALF_UP) if waits else None
    return RideHailingFigures(
        active=statuses[Status.ACTIVE], new=counts["new"], renewed=counts["renewed"], expiring=counts["expiring"],
        suspended=statuses[Status.SUSPENDED], cassadas=counts["cassadas"],
        drivers=_registered(db, "drivers", municipality, end), vehicles=_registered(db, "vehicles", municipality, end),
        inspections_done=len(done), inspections_failed=sum(1 for i in done if i.get("result") == "failed"),
        inspections_overdue=counts["inspections_overdue"], average_days_to_authorization=average,
        by_status={LABELS[status]: count for status, count in statuses.most_common()},
        platforms=_platforms(db, municipality, scope, platform_docs, reports, end),
    )


def _inspection_late(state: Any, on: date, terms: set[str]) -> bool:
    """Whether a term to show the vehicle for inspection had passed on ``on``."""
    if state.status in (Status.AWAITING_INSPECTION, Status.BLOCKED):
        return state.deadline is not None and state.deadline < on
    return state.status is Status.ACTIVE and any(not f.ok and f.reference in terms for f in state.findings)


def _registered(db: Database, collection: str, municipality: str, day: date) -> int:
    """Records registered up to the end of ``day`` (local time): one count in the store."""
    until = datetime.combine(day + timedelta(days=1), time.min, clock.LOCAL_TZ)
    return db[collection].count_documents({"municipality": municipality, "created_at": {"$lt": encode(until)}})


PLATFORM_FIELDS = {"name": 1, "cnpj": 1, "credentialed_on": 1, "insurer": 1, "insurance_coverage": 1,
                   "insurance_valid_from": 1, "insurance_valid_until": 1}


def _platforms(db: Database, municipality: str, scope: Any, platform_docs: list[dict], reports: list[dict],
               on: date) -> tuple[PlatformCompliance, ...]:
    """Each platform credentialed by ``on``: APP insurance, lists and ISSQN, as the rule set judges them."""
    rows = []
    for doc in sorted(platform_docs, key=lambda d: d.get("name") or ""):
        credentialed = parse_date(doc.get("credentialed_on"))
        if credentialed is None or credentialed > on:
            continue
        mine = [(r["kind"], parse_date(r["on"])) for r in reports if r.get("platform_cnpj") == doc.get("cnpj")]
        policy = None
        if all(doc.get(name) not in (None, "") for name in PLATFORM_FIELDS if name.startswith("insur")):
            policy = InsurancePolicy(doc["insurer"], Decimal(str(doc["insurance_coverage"])),
                                     parse_date(doc["insurance_valid_from"]), parse_date(doc["insurance_valid_until"]))
        platform = Platform(
            name=doc["name"], cnpj=doc["cnpj"], credentialed_on=credentialed, insurance=policy,
            credentialing=doc.get("status") or "ativo",
            lists_submitted=tuple(d for k, d in mine if k == "lista" and d <= on),
            issqn_paid_competences=tuple(d.replace(day=1) for k, d in mine if k == "issqn" and d <= on))
        try:
            decision = scope.rules.platform_compliance(platform, on, scope.book, scope.calendar(on))
        except RuleError:
            rows.append(PlatformCompliance(doc["name"], None, None, None))
            continue
        # credentialing (art. 6º) comes first and is already required above; the last three are the obligations
        insurance, lists, issqn = (f.ok for f in decision.findings[-3:])
        rows.append(PlatformCompliance(doc["name"], insurance, lists, issqn))
    return tuple(rows)


# ---- fines and bookings ----

def _fines(db: Database, municipality: str, period: Period, dam_docs: list[dict]) -> FinesFigures:
    """Autos lavrados in the period by severity and stage, and the fines' DAMs (revenue kind ``multa``)."""
    revenue = _revenue([d for d in dam_docs if d["revenue_kind"] == "multa"], period)
    by_severity, by_stage = _autos(db, municipality, period)
    return FinesFigures(
        by_severity=by_severity, by_stage=by_stage,
        issued_count=revenue.total("issued_count"), issued=revenue.total("issued"),
        paid_count=revenue.total("paid_count"), paid=revenue.total("paid"),
        overdue_count=revenue.total("overdue_count"), overdue=revenue.total("overdue"))


def _autos(db: Database, municipality: str, period: Period) -> tuple[dict[str, int], dict[str, int]]:
    """Autos lavrados in the period (committed then; drafts left out) by severity and by stage: one query."""
    from services.ridehailing.enforcement import autos

    query = {"municipality": municipality, "stage": {"$ne": "rascunho"},
             "committed_on": {"$gte": period.start.isoformat(), "$lte": period.end.isoformat()}}
    severities: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    for doc in db[autos.COLLECTION].find(query, {"severity": 1, "stage": 1}):
        severities[(doc.get("severity") or "sem gravidade").capitalize()] += 1
        stages[autos.STAGES.get(doc.get("stage"), doc.get("stage") or "")] += 1
    return dict(severities.most_common()), dict(stages.most_common())


def _percentile(values: list[int], share: float) -> Decimal:
    """The nearest-rank percentile: the smallest value with ``share`` of the values at or below it."""
    ordered = sorted(values)
    rank = max(1, -(-round(share * 100) * len(ordered) // 100))
    return Decimal(ordered[rank - 1])


def _bookings(db: Database, municipality: str, period: Period) -> BookingsFigures:
    """Nova Lacerda's machinery bookings of the period: one query per collection (see the module)."""
    from rules.machinery.discounts import DiscountCriterion
    from services.machinery import bookings
    from services.shared import entities, parameters

    fields = {"requested_on": 1, "zone": 1, "services": 1, "status": 1, "execution.started_on": 1,
              "execution.ended_on": 1, "execution.meters": 1, "quote.on": 1, "quote.discount_total": 1,
              "quote.discount.criterion": 1, "settlement": 1}
    zones: Counter[str] = Counter()
    services_: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    criteria: Counter[str] = Counter()
    waits: list[int] = []
    hours: dict[str, Decimal] = defaultdict(Decimal)
    discounts = overdue = credits = Decimal("0")
    for raw in db[bookings.REQUESTS].find({"municipality": municipality}, fields):
        doc = decode(raw)
        requested = parse_date(doc.get("requested_on"))
        if requested in period:
            zones[doc.get("zone") or "Sem zona"] += 1
            stages[bookings.STATUS.get(doc.get("status"), doc.get("status") or "")] += 1
            for kind in {s.get("kind") for s in doc.get("services") or []}:
                services_[bookings.SERVICE_KINDS.get(kind, kind)] += 1
        execution = doc.get("execution") or {}
        started = parse_date(execution.get("started_on"))
        if started in period and requested is not None:
            waits.append((started - requested).days)
        if parse_date(execution.get("ended_on")) in period:
            for meter in execution.get("meters") or []:
                if meter.get("start") is not None and meter.get("end") is not None:
                    hours[str(meter.get("asset_id"))] += Decimal(str(meter["end"])) - Decimal(str(meter["start"]))
        quote = doc.get("quote") or {}
        if parse_date(quote.get("on")) in period and Decimal(str(quote.get("discount_total") or 0)) > 0:
            discounts += Decimal(str(quote["discount_total"]))
            name = (quote.get("discount") or {}).get("criterion") or ""
            criteria[DiscountCriterion[name].value if name in DiscountCriterion.__members__ else name or "—"] += 1
        settlement = doc.get("settlement") or {}
        due, paid = parse_date(settlement.get("due")), parse_date(settlement.get("paid_on"))
        if Decimal(str(settlement.get("amount_due") or 0)) > 0 and due and due < period.end and (
                paid is None or paid > period.end):
            overdue += Decimal(str(settlement["amount_due"]))
        completed, returned = parse_date(settlement.get("completed_on")), parse_date(settlement.get("credit_returned_on"))
        if Decimal(str(settlement.get("credit_to_return") or 0)) > 0 and completed and completed <= period.end and (
                returned is None or returned > period.end):
            credits += Decimal(str(settlement["credit_to_return"]))
    kinds = dict(entities.SPECS[bookings.ASSETS].field("kind").choices)
    assets = {str(a["_id"]): f"{kinds.get(a.get('kind'), a.get('kind') or '')} {a.get('identifier', '')}".strip()
              for a in db[bookings.ASSETS].find({"municipality": municipality}, {"kind": 1, "identifier": 1})}
    booked: Counter[str] = Counter()
    for row in db[bookings.BOOKINGS].find({"municipality": municipality, "day": {
            "$gte": period.start.isoformat(), "$lte": period.end.isoformat()}}, {"asset_id": 1}):
        booked[str(row.get("asset_id"))] += 1
    calendar = parameters.calendar(db, municipality, period.end)
    business = sum(1 for i in range(period.days) if calendar.is_business_day(period.start + timedelta(days=i)))
    return BookingsFigures(
        by_zone=dict(zones.most_common()), by_service=dict(services_.most_common()), by_stage=dict(stages.most_common()),
        waiting_median_days=Decimal(str(statistics.median(waits))) if waits else None,
        waiting_p90_days=_percentile(waits, 0.9) if waits else None,
        hours_per_asset={assets.get(k, k): v for k, v in sorted(hours.items())},
        utilization_per_asset={assets.get(k, k): (Decimal(n * 100) / business).quantize(Decimal("0.1"), ROUND_HALF_UP)
                               for k, n in sorted(booked.items())} if business else {},
        discounts_count_by_criterion=dict(criteria.most_common()), discounts=_money(discounts),
        balances_overdue=_money(overdue), credits_to_return=_money(credits),
    )


# ---- tables (what the page, the exports and the PDF show) ----

MONTHS = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")


def month_label(month: date) -> str:
    """``jan/2026``: the month as the panel writes it."""
    return f"{MONTHS[month.month - 1]}/{month.year}"


def shown(kpi: Kpi, value: int | Decimal | None) -> str:
    """A KPI value as text: R$ for money, days with one decimal, counts with thousands."""
    from rules import fmt

    if value is None:
        return "—"
    if kpi.unit == "brl":
        return fmt.brl(value)
    if kpi.unit == "days":
        return f"{fmt.number(value, 1)} dias"
    return fmt.number(value)


def change_text(kpi: Kpi) -> str | None:
    """The change against the previous period, signed ("+R$ 10,00", "-2", "+1,5 dias"); None if unknown."""
    change = kpi.change
    if change is None:
        return None
    sign = "-" if change < 0 else "+" if change > 0 else ""
    return sign + shown(kpi, abs(change))


def _compliance(ok: bool | None) -> str:
    return {True: "Em dia", False: "Pendente", None: "Sem dados"}[ok]


def tables(figures: Summary) -> dict[str, list[dict[str, Any]]]:
    """Every table of the summary as export rows (pt-BR headers, typed cells), counts of a breakdown
    shown as "< 3" when 1 or 2 (aggregates only: nothing here names a person)."""
    from rules import fmt
    from services.shared.privacy import cell

    out: dict[str, list[dict[str, Any]]] = {
        "Indicadores": [{"Indicador": k.label, "Período": shown(k, k.value), "Período anterior": shown(k, k.previous),
                         "Variação": change_text(k) or "—"} for k in figures.kpis],
    }
    before = figures.revenue_year_before.by_kind()
    kinds = figures.revenue.by_kind()
    out["Arrecadação por receita"] = [{
        "Receita": kind, "Emitidos (qtd.)": cell(line.issued_count), "Emitidos (R$)": line.issued,
        "Pagos (qtd.)": cell(line.paid_count), "Pagos (R$)": line.paid,
        "Vencidos (qtd.)": cell(line.overdue_count), "Vencidos (R$)": line.overdue,
        "Pagos no mesmo período do ano anterior (R$)": before[kind].paid if kind in before else ZERO,
    } for kind, line in sorted(kinds.items())]
    paid, issued, overdue = (figures.revenue.by_month(m) for m in ("paid", "issued", "overdue"))
    paid_before = figures.revenue_year_before.by_month("paid")
    out["Arrecadação por mês"] = [{
        "Mês": month_label(month), "Emitidos (R$)": issued.get(month, ZERO), "Pagos (R$)": paid.get(month, ZERO),
        "Vencidos (R$)": overdue.get(month, ZERO),
        "Pagos no mesmo mês do ano anterior (R$)": paid_before.get(_year_before(month), ZERO),
    } for month in figures.period.months()]
    d = figures.revenue.differences
    out["Valor emitido × valor pago"] = [
        {"Item": "Valor emitido dos DAM pagos", "DAM (qtd.)": cell(d.paid_count), "Valor (R$)": d.face_value},
        {"Item": "Pagos a menor (falta)", "DAM (qtd.)": cell(d.short_count), "Valor (R$)": -d.short},
        {"Item": "Pagos a maior (excesso)", "DAM (qtd.)": cell(d.over_count), "Valor (R$)": d.over},
        {"Item": "Valor recebido", "DAM (qtd.)": cell(d.paid_count), "Valor (R$)": d.received},
        {"Item": "dos quais pagos após o vencimento", "DAM (qtd.)": cell(d.late_count), "Valor (R$)": d.late},
    ]
    ride = figures.ride_hailing
    if ride is not None:
        average = ride.average_days_to_authorization
        out["Indicadores do transporte"] = [{"Indicador": label, "Valor": value} for label, value in (
            ("Autorizações ativas no último dia", ride.active), ("Autorizações novas", ride.new),
            ("Renovações", ride.renewed), (f"A vencer em {EXPIRING_DAYS} dias", ride.expiring),
            ("Suspensas no último dia", ride.suspended), ("Cassadas no período", ride.cassadas),
            ("Condutores cadastrados", ride.drivers), ("Veículos cadastrados", ride.vehicles),
            ("Vistorias realizadas", ride.inspections_done), ("Vistorias reprovadas", ride.inspections_failed),
            ("Vistorias em atraso no último dia", ride.inspections_overdue),
            ("Dias do protocolo à autorização (média)", "—" if average is None else str(average).replace(".", ",")),
        )]
        out["Autorizações por situação"] = [{"Situação": label, "Quantidade": cell(count)}
                                            for label, count in ride.by_status.items()]
        out["Plataformas"] = [{"Plataforma": p.name, "Seguro APP": _compliance(p.insurance),
                               "Relações de condutores e veículos": _compliance(p.lists),
                               "ISSQN": _compliance(p.issqn)} for p in ride.platforms]
    fines = figures.fines
    if fines is not None:
        out["Multas"] = [
            {"Situação": "Emitidas", "Quantidade": cell(fines.issued_count), "Valor (R$)": fines.issued},
            {"Situação": "Pagas", "Quantidade": cell(fines.paid_count), "Valor (R$)": fines.paid},
            {"Situação": "Vencidas no último dia", "Quantidade": cell(fines.overdue_count), "Valor (R$)": fines.overdue},
        ] + [{"Situação": f"Autos — gravidade {k}", "Quantidade": cell(v), "Valor (R$)": None}
             for k, v in fines.by_severity.items()] + [
            {"Situação": f"Autos — fase: {k}", "Quantidade": cell(v), "Valor (R$)": None}
            for k, v in fines.by_stage.items()]
    bookings = figures.bookings
    if bookings is not None:
        out["Pedidos de serviço por zona"] = [{"Zona": k, "Pedidos": cell(v)} for k, v in bookings.by_zone.items()]
        out["Pedidos por serviço"] = [{"Serviço": k, "Pedidos": cell(v)} for k, v in bookings.by_service.items()]
        out["Pedidos por etapa"] = [{"Etapa": k, "Pedidos": cell(v)} for k, v in bookings.by_stage.items()]
        out["Máquinas: horas e uso"] = [
            {"Máquina ou veículo": name, "Horas trabalhadas": str(bookings.hours_per_asset.get(name, "—")).replace(".", ","),
             "Dias agendados / dias úteis (%)": str(bookings.utilization_per_asset.get(name, "—")).replace(".", ",")}
            for name in sorted({*bookings.hours_per_asset, *bookings.utilization_per_asset})]
        median, p90 = bookings.waiting_median_days, bookings.waiting_p90_days
        out["Agendamentos: prazos e valores"] = [
            {"Indicador": "Espera do protocolo à execução — mediana (dias)", "Valor": "—" if median is None else str(median).replace(".", ",")},
            {"Indicador": "Espera do protocolo à execução — 90º percentil (dias)", "Valor": "—" if p90 is None else str(p90).replace(".", ",")},
            {"Indicador": "Descontos concedidos (R$)", "Valor": fmt.brl(bookings.discounts)},
            {"Indicador": "Saldos vencidos (R$)", "Valor": fmt.brl(bookings.balances_overdue)},
            {"Indicador": "Créditos a devolver (R$)", "Valor": fmt.brl(bookings.credits_to_return)},
        ] + [{"Indicador": f"Descontos — {k}", "Valor": cell(v)} for k, v in bookings.discounts_count_by_criterion.items()]
    return out


def difference_text(d: PaymentDifferences) -> str:
    """Why "arrecadado" differs from the face value of the DAMs paid, in one pt-BR sentence."""
    from rules import fmt

    if not d.paid_count:
        return "Nenhum DAM pago no período."
    text = (f"Os DAM pagos no período somam {fmt.brl(d.face_value)} de valor emitido e {fmt.brl(d.received)} "
            f"recebidos")
    if d.difference == 0:
        text += ": não há diferença de valor."
    else:
        parts = []
        if d.short_count:
            parts.append(f"pagamentos a menor faltaram {fmt.brl(d.short)}")
        if d.over_count:
            parts.append(f"pagamentos a maior excederam {fmt.brl(d.over)}")
        text += f" (diferença de {fmt.brl(d.difference)}): " + "; ".join(parts) + "."
    if d.late_count:
        text += f" Pagos após o vencimento: {fmt.brl(d.late)}."
    return text
