"""Drivers and vehicles registered and vistorias done kept as data (issue 21): for every month of the
demo store's history and longer periods, the Resumo's figures read from the kept days equal a count of
the records (as the summary counted them before: registered up to the end of the period's last day in
Cuiabá, vistorias by their date); a driver, a vehicle and a vistoria written through the services move
them as a rebuild does; and the Resumo counts no record."""
from __future__ import annotations

from datetime import datetime, time, timedelta

import pytest

from services.shared import clock, views
from services.store import encode
from services.summary import records_view, revenue_view, ride_hailing, summary
from services.summary.periods import Period
from tests.conftest import GABINETE
from tests.ridehailing_data import inspected
from tests.test_ridehailing_page_queries import CountingDatabase
from tests.test_summary_autos_view import periods


def counted(db, municipality: str, period: Period) -> tuple[int, int, int, int]:
    """The oracle: the records counted in the store, as ``ride_hailing`` did before the view."""
    until = encode(datetime.combine(period.end + timedelta(days=1), time.min, clock.LOCAL_TZ))
    done = {"municipality": municipality,
            "performed_on": {"$gte": period.start.isoformat(), "$lte": period.end.isoformat()}}
    return (db["drivers"].count_documents({"municipality": municipality, "created_at": {"$lt": until}}),
            db["vehicles"].count_documents({"municipality": municipality, "created_at": {"$lt": until}}),
            db["inspections"].count_documents(done), db["inspections"].count_documents({**done, "result": "failed"}))


def figures(db, municipality: str, period: Period) -> tuple[int, int, int, int]:
    [ride] = ride_hailing.of_periods(db, municipality, (period,))
    return ride.drivers, ride.vehicles, ride.inspections_done, ride.inspections_failed


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_every_period_reads_what_counting_the_records_gave(demo_db, municipality):
    assert counted(demo_db, municipality, Period(clock.today() - timedelta(days=400), clock.today()))[2] > 5
    for period in periods(clock.today()):
        assert figures(demo_db, municipality, period) == counted(demo_db, municipality, period), period


def _stored(db, municipality: str) -> list:
    return sorted((d["_id"], sorted(d.items())) for d in db[revenue_view.MONTHS].find(
        {"municipality": municipality, "view": records_view.NAME}))


def test_a_registration_and_a_vistoria_through_the_services_move_the_figures_as_a_rebuild_does(demo_db):
    today = Period(clock.today(), clock.today())
    before = figures(demo_db, "chapada", today)
    inspected(demo_db, "chapada")  # a driver and a vehicle registered, a vistoria passed two days ago
    week = Period(clock.today() - timedelta(days=6), clock.today())
    assert figures(demo_db, "chapada", week) == counted(demo_db, "chapada", week)
    after = figures(demo_db, "chapada", today)
    assert (after[0] - before[0], after[1] - before[1]) == (1, 1)
    stored = _stored(demo_db, "chapada")
    views.rebuild(demo_db, "chapada")
    assert _stored(demo_db, "chapada") == stored


def test_the_resumo_counts_no_record(demo_db):
    counting = CountingDatabase(demo_db)
    summary.summary(counting, GABINETE, "chapada", clock.today().replace(month=1, day=1), clock.today())
    assert not {name for name, call in counting.calls if call == "count_documents"} & {
        "drivers", "vehicles", "inspections"}, counting.calls
