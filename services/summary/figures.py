"""Figures for the mayor's office (issue 14): what each figure is, as frozen dataclasses.

Per municipality and period (first and last day, inclusive, dates of America/Cuiaba), with the
previous period of the same length and, for revenue, the same period of the previous year
(``services.summary.periods``). Only aggregates: no name, CPF, plate or document number; of the
figures about people, ``services.summary.report_tables`` hides small cells from the gabinete
(``services.shared.privacy``); the headline figures (revenue, registers, workload) never are.
``services.summary.summary`` computes them; ``revenue``, ``ride_hailing``, ``fines`` and ``machinery``
collect each service's part.

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
- Tendências: month by month over the period, beside the same month of the year before: authorizations
  Ativa on the month's last day; autos lavrados in the month, decided in it, and those waiting on its
  last day for the notification or the defence term, for the decision on a defence, for the decision
  on an appeal; requests served (execution ended) in the month and waiting on its last day (protocolled,
  not refused, not started).
- Aguardando decisão (today): defences and appeals filed and not decided, requests waiting for the
  technical visit, the social report or the quote; how many, the oldest and the average age in days.
- Débitos (the charges of ``services.dam.charges``): what is still owed today (em aberto, pago a
  menor, inscrito em dívida ativa) by how long it is overdue (a vencer, 1–30, 31–90, 91–365, more than
  365 days); and of the charges issued in the period (cancelled ones left out), the value charged
  (principal and the multa and juros of the DAMs paid), what was paid of it (an excess owed back to
  the taxpayer is not counted) and the share paid.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from services.summary.periods import Period

ZERO = Decimal("0.00")
EXPIRING_DAYS = 30  # "a vencer em 30 dias"


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
    notices_by_channel: dict[str, int] = field(default_factory=dict)  # the autos' notices sent, by channel

    @property
    def electronic_share(self) -> Decimal | None:
        """The share (%) of the period's notices that went through the electronic domicile or another
        electronic means; None without notices."""
        total = sum(self.notices_by_channel.values())
        if not total:
            return None
        return (Decimal(100) * self.notices_by_channel.get("eletronico", 0) / total).quantize(Decimal("0.1"), ROUND_HALF_UP)


@dataclass(frozen=True)
class BookingsFigures:
    """Nova Lacerda's machinery bookings of the period (services.machinery.booking_requests)."""

    by_zone: dict[str, int] = field(default_factory=dict)
    by_service: dict[str, int] = field(default_factory=dict)
    by_stage: dict[str, int] = field(default_factory=dict)
    waiting_median_days: Decimal | None = None
    waiting_p90_days: Decimal | None = None
    waiting_count: int = 0  # the requests the waiting stands on
    hours_per_asset: dict[str, Decimal] = field(default_factory=dict)
    utilization_per_asset: dict[str, Decimal] = field(default_factory=dict)
    discounts_count_by_criterion: dict[str, int] = field(default_factory=dict)
    discounts: Decimal = ZERO
    balances_overdue: Decimal = ZERO
    credits_to_return: Decimal = ZERO
    balances_overdue_count: int = 0
    credits_count: int = 0


@dataclass(frozen=True)
class DebtsFigures:
    """The charges still owed on ``on`` per aging bucket (count, amount open), and the value charged
    by the charges issued in the period and in the previous one, with what was paid of it."""

    on: date
    aging: dict[str, tuple[int, Decimal]] = field(default_factory=dict)
    issued_count: int = 0
    issued: Decimal = ZERO
    paid: Decimal = ZERO
    previous_count: int = 0
    previous_issued: Decimal = ZERO
    previous_paid: Decimal = ZERO

    @staticmethod
    def share(paid: Decimal, issued: Decimal) -> Decimal | None:
        """Paid over charged, in percent with one decimal (None when nothing was charged)."""
        if not issued:
            return None
        return (paid * 100 / issued).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)

    @property
    def paid_share(self) -> Decimal | None:
        return self.share(self.paid, self.issued)

    @property
    def previous_paid_share(self) -> Decimal | None:
        return self.share(self.previous_paid, self.previous_issued)

    @property
    def owed(self) -> Decimal:
        return sum((amount for _count, amount in self.aging.values()), ZERO)

    @property
    def overdue(self) -> Decimal:
        return sum((amount for key, (_count, amount) in self.aging.items() if key != "a_vencer"), ZERO)


@dataclass(frozen=True)
class Trend:
    """One figure month by month over the period, beside the same month of the year before. A flow is
    counted within each month (its months add up to the period's figure); a stock is read on each
    month's last day (the period's last day for its last month)."""

    key: str
    label: str
    months: tuple[date, ...]
    values: tuple[int, ...]
    year_before: tuple[int, ...]
    flow: bool = False


@dataclass(frozen=True)
class Waiting:
    """What waits for a decision or a step of the municipality today: how many and for how long (calendar
    days since the filing or the last step)."""

    key: str
    label: str
    count: int = 0
    oldest_days: int | None = None
    average_days: Decimal | None = None


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
    debts: DebtsFigures | None = None
    comparison: str = "período anterior de mesma duração"  # what ``previous`` is, as the screens say it
    compared_empty: bool = False  # nothing happened in ``previous``: no change is shown against it
    without_base: tuple[str, ...] = ()  # services with nothing in ``previous``: no change shown for them
    trends: tuple[Trend, ...] = ()
    waiting: tuple[Waiting, ...] = ()
    small_cells: bool = True  # the small-cell rule applies: the reader does not see the records (the gabinete)

    def kpi(self, key: str) -> Kpi:
        return next(k for k in self.kpis if k.key == key)


def _add(total: RevenueLine, line: RevenueLine) -> RevenueLine:
    return RevenueLine(total.kind, total.month, **{
        name: getattr(total, name) + getattr(line, name)
        for name in ("issued_count", "issued", "paid_count", "paid", "overdue_count", "overdue")})


