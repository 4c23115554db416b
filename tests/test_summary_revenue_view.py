"""The DAMs' figures kept as data (issue 21): after DAMs issued, paid short, late and over, cancelled
and issued again through the services, the month documents equal those rebuilt from scratch, and the
summary reads from them what the old computation (every DAM folded per period) gave."""
from __future__ import annotations

from collections import Counter
from datetime import date
from decimal import Decimal

import pytest

from services.dam import dams, payments
from services.shared import views
from services.summary import days as stored_days
from services.summary import revenue_view, summary
from services.summary.periods import Period
from tests import summary_revenue_oracle as oracle
from tests.conftest import GABINETE, SECRETARIA_MP
from tests.test_dams import issue

PERIODS = [(date(2026, 3, 1), date(2026, 3, 31)), (date(2026, 3, 10), date(2026, 4, 14)),
           (date(2026, 2, 1), date(2026, 5, 31)), (date(2026, 4, 3), date(2026, 4, 3)),
           (date(2026, 4, 21), date(2026, 6, 30))]


def _stored(db) -> tuple[list[dict], list[dict]]:
    months = sorted(db[revenue_view.MONTHS].find({"municipality": "matupa"}), key=lambda d: d["_id"])
    parts = sorted(db[revenue_view.CONTRIBUTIONS].find({"municipality": "matupa"}), key=lambda d: d["_id"])
    # a figure brought back to zero by a later change (+1 then −1) is the same as none
    days = [{k: v for k, v in m.items() if not isinstance(v, dict)}
            | {k: {f: n for f, n in v.items() if n} for k, v in m.items() if isinstance(v, dict) and any(v.values())}
            for m in months]
    return [m for m in days if any(isinstance(v, dict) for v in m.values())], parts


@pytest.fixture
def scenario(db, today):
    """DAMs of Matupá from March to May 2026 (paid on time, late and short, over, cancelled, never
    paid), each written through a service."""
    today.set(date(2026, 3, 2))
    paid_on_time = issue(db, due=date(2026, 3, 20))
    paid_late_short = issue(db, due=date(2026, 3, 13), amount=Decimal("95.50"), revenue_kind="taxa_vistoria")
    cancelled = issue(db, due=date(2026, 3, 20), amount=Decimal("200.00"))
    never_paid = issue(db, due=date(2026, 3, 16), amount=Decimal("80.10"), revenue_kind="taxa_vistoria")
    today.set(date(2026, 3, 18))
    payments.record_payment(db, SECRETARIA_MP, "matupa", paid_on_time["id"], date(2026, 3, 18), Decimal("150.00"),
                            "Banco")
    dams.cancel(db, SECRETARIA_MP, "matupa", cancelled["id"], "Emitido em duplicidade")
    later = issue(db, due=date(2026, 4, 6), amount=Decimal("300.00"), revenue_kind="outras")
    today.set(date(2026, 4, 20))
    payments.record_payment(db, SECRETARIA_MP, "matupa", paid_late_short["id"], date(2026, 4, 2), Decimal("90.00"),
                            "Banco")
    payments.record_payment(db, SECRETARIA_MP, "matupa", later["id"], date(2026, 4, 20), Decimal("310.00"), "Banco")
    issue(db, due=date(2026, 5, 4), amount=Decimal("42.00"))
    assert never_paid["status"] == dams.ISSUED
    return db


def test_the_stored_figures_equal_those_rebuilt_from_scratch(scenario):
    assert scenario[revenue_view.MONTHS].count_documents({"municipality": "matupa"}) > 0
    before = _stored(scenario)
    views.rebuild(scenario, "matupa")
    assert _stored(scenario) == before


@pytest.mark.parametrize("start,end", PERIODS, ids=[f"{s:%d%m}-{e:%d%m}" for s, e in PERIODS])
def test_the_summary_reads_what_every_dam_folded_gave(scenario, start, end):
    figures = summary.summary(scenario, GABINETE, "matupa", start, end, "previous")
    docs = oracle.dam_docs(scenario, "matupa", date(2020, 1, 1))
    assert figures.revenue == oracle.in_period(docs, Period(start, end))
    assert figures.revenue_year_before == oracle.in_period(docs, figures.year_before)
    before = oracle.in_period(docs, figures.previous)
    assert [(k.key, k.value, k.previous) for k in figures.kpis if k.unit == "brl"][:3] == [
        (key, figures.revenue.total(key), None if figures.compared_empty else before.total(key))
        for key in ("paid", "issued", "overdue")]
    owed = figures.debts
    assert (owed.aging, owed.issued_count, owed.issued, owed.paid, owed.previous_count, owed.previous_issued,
            owed.previous_paid) == oracle.debts(scenario, "matupa", Period(start, end), figures.previous, date(2026, 4, 20))
    if figures.fines is not None:
        fines = oracle.in_period([d for d in docs if d["revenue_kind"] == "multa"], Period(start, end))
        assert (figures.fines.issued, figures.fines.paid, figures.fines.overdue) == (
            fines.total("issued"), fines.total("paid"), fines.total("overdue"))


def test_dams_written_in_bulk_are_read_from_the_dams_until_rebuilt(db, today):
    """A store written without audit (never built) folds its DAMs; a rebuild keeps them as data."""
    today.set(date(2026, 3, 2))
    issue(db, due=date(2026, 3, 20))
    db[views.META].delete_many({})
    db[revenue_view.MONTHS].delete_many({})
    period = Period(date(2026, 3, 1), date(2026, 3, 31))
    unbuilt = revenue_view.in_period(revenue_view.stored(db, "matupa", period.end), period)
    assert unbuilt.total("issued") == Decimal("150.00")
    views.rebuild(db, "matupa")
    assert revenue_view.in_period(revenue_view.stored(db, "matupa", period.end), period) == unbuilt


def test_each_months_totals_are_the_sum_of_its_days(scenario):
    """What a summary reads of a month no period cuts inside (its totals) is what its days add up to,
    after every change of the scenario and after a rebuild."""
    def check() -> None:
        totals = {d["_id"]: d.get("m", {}) for d in scenario[revenue_view.TOTALS].find({"municipality": "matupa"})}
        months = list(scenario[revenue_view.MONTHS].find({"municipality": "matupa"}))
        assert months and set(totals) == {m["_id"] for m in months}
        for month in months:
            added: Counter = Counter()
            for name, cell in month.items():
                if name.startswith("d") and isinstance(cell, dict):
                    added.update(cell)
            assert {k: n for k, n in totals[month["_id"]].items() if n} == {k: n for k, n in added.items() if n}
    check()
    views.rebuild(scenario, "matupa")
    check()


def test_a_summary_reads_the_days_of_the_months_its_periods_cut_only(scenario, monkeypatch):
    """A period from the 10th of March to the 14th of April reads the days of March and April (and of
    the same days a year before: no month there); the whole of April reads the totals of every month."""
    read: list[list] = []
    real = stored_days.days_in
    monkeypatch.setattr(stored_days, "days_in", lambda db, name, mun, months: read.append(
        (name, [f"{m:%Y-%m}" for m in months])) or real(db, name, mun, months))
    summary.summary(scenario, GABINETE, "matupa", date(2026, 3, 10), date(2026, 4, 14), "year_before")
    revenue_months = sorted({m for name, months in read if name == revenue_view.NAME for m in months})
    assert revenue_months == ["2026-03", "2026-04"]
    read.clear()
    summary.summary(scenario, GABINETE, "matupa", date(2026, 4, 1), date(2026, 4, 30), "year_before")
    assert not [m for name, months in read if name == revenue_view.NAME for m in months]
