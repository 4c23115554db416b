"""The mayor's office summary (issue 14): every figure of a municipality and period, the data version
the page caches them under, and the Relatório gerencial PDF.

Most figures are read from the views kept per day (``revenue_view`` for the DAMs and charges,
``authorization_view``, ``autos_view``, ``bookings_view``) and the Débitos' aging view (``debts``);
the platforms are read once in ``ride_hailing``. What each figure means is written in
``services.summary.figures``; only aggregates leave this package.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Literal

from pymongo.database import Database

from services.shared import authenticity, clock, municipalities, privacy, views
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.summary import (
    autos_view,
    bookings_view,
    debts,
    fines,
    machinery,
    report_tables,
    revenue_view,
    ride_hailing,
    trends,
)
from services.summary.days import Days
from services.summary.figures import (
    BookingsFigures,
    Kpi,
    Revenue,
    RideHailingFigures,
    Summary,
)
from services.summary.periods import Period
from services.summary.report_pdf import Section, render_management_report, render_management_reports

YEAR_BEFORE, PREVIOUS = "year_before", "previous"


COMPARISONS = {YEAR_BEFORE: "mesmo período do ano anterior", PREVIOUS: "período anterior de mesma duração"}


@checked
def summary(db: Database, actor: Actor, municipality: str, start: date, end: date,
            compare: Literal["year_before", "previous"] = YEAR_BEFORE) -> Summary:
    """Every figure of the mayor's office for the municipality and period (see the module), each beside
    the same figure of ``compare``: the same dates of the year before (what a mayor expects, issue 22)
    or the period of the same length just before. A comparison period with no activity at all shows
    no change (an empty year is no base for "+100 %")."""
    authorize(actor, "summary", municipality)
    period = Period(start, end)
    year_before = period.year_before()
    previous = year_before if compare == YEAR_BEFORE else period.previous()
    mun = municipalities.get(db, municipality)
    days = revenue_view.stored(db, municipality, period.end)
    revenue_now, revenue_before = revenue_view.in_period(days, period), revenue_view.in_period(days, previous)
    ride = ride_before = fines_now = None
    months, waiting = [], []
    if "transporte" in mun.modules:
        ride, ride_before = ride_hailing.of_periods(db, municipality, (period, previous))
        autos_days = Days(db, autos_view.NAME, municipality)  # to today: what waits for a decision now
        fines_now = fines.of_period(period, days, autos_days)
        months += trends.ride_hailing(db, municipality, period, autos_days)
        waiting += trends.waiting_autos(autos_days, clock.today())
    bookings = bookings_before = None
    if "maquinas" in mun.modules:
        booking_days = Days(db, bookings_view.NAME, municipality, period.end)
        bookings = machinery.of_period(db, municipality, period, booking_days)
        bookings_before = machinery.of_period(db, municipality, previous, booking_days)
        months += trends.machinery(booking_days, period)
        now = booking_days if period.end >= clock.today() else Days(db, bookings_view.NAME, municipality)
        waiting += trends.waiting_requests(now, clock.today())
    owed = debts.of_periods(db, municipality, days, period, previous, clock.today())
    kpis = _kpis(revenue_now, revenue_before, ride, ride_before, bookings, bookings_before)
    no_base = _without_base(kpis)
    if no_base:  # a service with nothing in the comparison period: no change against nothing
        kpis = tuple(replace(k, previous=None) if k.key in no_base else k for k in kpis)
    empty = not any(k.previous for k in kpis)
    if empty:
        kpis = tuple(replace(k, previous=None) for k in kpis)
    return Summary(
        municipality=municipality, municipality_name=mun.name, period=period, previous=previous,
        year_before=year_before, comparison=COMPARISONS[compare], compared_empty=empty, kpis=kpis,
        without_base=tuple(dict.fromkeys(no_base.values())),
        revenue=revenue_now, revenue_year_before=revenue_view.in_period(days, year_before),
        ride_hailing=ride, fines=fines_now, bookings=bookings, debts=owed, trends=tuple(months),
        waiting=tuple(waiting), small_cells=privacy.applies_to(actor),
    )


@checked
def report_pdf(db: Database, actor: Actor, municipality: str, start: date, end: date,
               compare: Literal["year_before", "previous"] = YEAR_BEFORE) -> bytes:
    """The one-page "Relatório gerencial" of the period on the municipal letterhead (KPIs, two charts)."""
    figures = summary(db, actor, municipality, start, end, compare)
    mun = municipalities.get(db, municipality)
    head = municipalities.letterhead(db, municipality)
    item = authenticity.Item("relatorio_gestao", _period_text(start, end), ("summary", municipality), figures)
    return authenticity.issue(db, actor, municipality, item,
                              lambda stamp: render_management_report(figures, mun.secretariat, mun.address, head, stamp))


@checked
@checked
def reports_pdf(db: Database, actor: Actor, municipality_codes: list[str], start: date, end: date,
                compare: Literal["year_before", "previous"] = YEAR_BEFORE) -> bytes:
    """One "Relatório gerencial" of several municipalities (the gabinete's): their headline figures
    side by side, then each one's page on its letterhead; every municipality is authorized."""
    authorize(actor, "summary")
    if not municipality_codes:
        raise ValidationFailed({"municipalities": "Escolha ao menos um município."})
    sections = []
    for code in municipality_codes:
        mun = municipalities.get(db, code)
        sections.append(Section(summary(db, actor, code, start, end, compare), mun.secretariat, mun.address,
                                municipalities.letterhead(db, code)))
    rows = report_tables.side_by_side([s.figures for s in sections])
    item = authenticity.Item("relatorio_gestao", f"{_period_text(start, end)} ({len(sections)} municípios)",
                             ("summary", ",".join(municipality_codes)), rows)
    return authenticity.issue(db, actor, municipality_codes[0], item,
                              lambda stamp: render_management_reports(sections, rows, stamp))


def _period_text(start: date, end: date) -> str:
    return f"Período de {start:%d/%m/%Y} a {end:%d/%m/%Y}"


@checked
def data_version(db: Database, actor: Actor, municipality: str) -> str:
    """The municipality's change counter (``views.version``): every audited write moves it, so figures
    computed under the same version are still right (one read by ``_id``); never the newest audit
    entry's instant, which a future-dated entry froze."""
    authorize(actor, "summary", municipality)
    return views.stamp(db, municipality)


# The headline figures of each service, as the screens name the service.
SERVICE_KPIS = {
    "transporte por aplicativo": ("active", "new", "renewed", "inspections_done", "inspections_overdue",
                                  "days_to_authorization"),
    "máquinas e veículos": ("requests", "waiting", "balances_overdue"),
}


def _without_base(kpis: tuple[Kpi, ...]) -> dict[str, str]:
    """The KPIs of each service that had nothing in the comparison period (Chapada's Decreto 06/2026
    has no authorization in 2025): their "+44" would compare with nothing. Key: KPI; value: service."""
    found: dict[str, str] = {}
    shown = {k.key: k for k in kpis}
    for service, keys in SERVICE_KPIS.items():
        group = [shown[key] for key in keys if key in shown]
        if group and not any(k.previous for k in group):
            found.update(dict.fromkeys((k.key for k in group), service))
    return found


def _kpis(current: Revenue, before: Revenue, ride: RideHailingFigures | None,
          ride_before: RideHailingFigures | None, bookings: BookingsFigures | None = None,
          bookings_before: BookingsFigures | None = None) -> tuple[Kpi, ...]:
    kpis = [
        Kpi(key, label, current.total(key), before.total(key), "brl")
        for key, label in (("paid", "Arrecadado (DAM pagos)"), ("issued", "DAM emitidos (valor)"),
                           ("overdue", "DAM vencidos no fim do período"))
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
