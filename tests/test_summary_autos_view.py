"""The autos' figures kept as data (issue 21): for every month of the demo store's history and longer
periods, the autos by severity and stage, the trends (lavrados, decided, where they stood at each
month's end) and the defences and appeals waiting with their ages read from the kept days equal those
the summary folded from every auto; a write through a service moves them as a rebuild does; and the
Resumo reads no auto."""
from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

import pytest

from services.ridehailing.enforcement import autos, process
from services.shared import clock, views
from services.summary import autos_view, fines, revenue_view, summary, trends
from services.summary.days import Days
from services.summary.periods import Period
from tests import summary_autos_oracle as oracle
from tests.conftest import GABINETE, SECRETARIA_CG
from tests.test_ridehailing_page_queries import CountingDatabase


def periods(today: date) -> list[Period]:
    months, month = [], date(2025, 9, 1)
    while month <= today:
        end = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        months.append(Period(month, min(end, today)))
        month = end + timedelta(days=1)
    return months + [Period(date(2026, 1, 1), today), Period(today - timedelta(days=90), today),
                     Period(today - timedelta(days=400), today)]


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_every_period_reads_what_folding_every_auto_gave(demo_db, municipality):
    today = clock.today()
    days = Days(demo_db, autos_view.NAME, municipality)
    assert len(oracle.found(demo_db, municipality)) > 10
    for period in periods(today):
        figures = fines.of_period(period, Days.of({}), days)
        assert (figures.by_severity, figures.by_stage) == oracle.by_severity_and_stage(demo_db, municipality, period)
        assert trends.ride_hailing(demo_db, municipality, period, days)[1:] == oracle.autos_trends(
            demo_db, municipality, period), period
    for day in [today - timedelta(days=n) for n in range(0, 400, 7)]:
        assert trends.waiting_autos(days, day) == oracle.waiting_autos(demo_db, municipality, day), day


def _stored(db, municipality: str) -> tuple[list, list]:
    def flat(doc: dict) -> dict:
        cells = {k: Counter({f: n for f, n in v.items() if n}) for k, v in doc.items() if isinstance(v, dict)}
        return {k: v for k, v in cells.items() if v}
    query = {"municipality": municipality, "view": autos_view.NAME}
    months = sorted(db[revenue_view.MONTHS].find(query), key=lambda d: d["_id"])
    parts = sorted(db[revenue_view.CONTRIBUTIONS].find(query), key=lambda d: d["_id"])
    return [(m["_id"], flat(m)) for m in months if flat(m)], parts


def test_a_defence_filed_through_the_service_moves_the_figures_as_a_rebuild_does(demo_db):
    doc = next(d for d in oracle.found(demo_db, "chapada") if oracle.stage_on(d, clock.today()) == "notificacao")
    before = trends.waiting_autos(Days(demo_db, autos_view.NAME, "chapada"), clock.today())[0].count
    process.file_defence(demo_db, SECRETARIA_CG, "chapada", str(doc["_id"]), filed_on=clock.today(),
                         by="Advogada do autuado", summary="Nega os fatos e junta fotos")
    waiting = trends.waiting_autos(Days(demo_db, autos_view.NAME, "chapada"), clock.today())
    assert waiting == oracle.waiting_autos(demo_db, "chapada", clock.today()) and waiting[0].count == before + 1
    stored = _stored(demo_db, "chapada")
    views.rebuild(demo_db, "chapada")
    assert _stored(demo_db, "chapada") == stored


def test_the_resumo_reads_no_auto(demo_db):
    counting = CountingDatabase(demo_db)
    summary.summary(counting, GABINETE, "chapada", date(2026, 1, 1), clock.today())
    assert counting.calls[(autos.COLLECTION, "find")] == 0
