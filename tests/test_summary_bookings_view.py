"""Nova Lacerda's bookings' figures kept as data (issue 21): for every month of the demo store's history
and for longer periods, the figures and trends read from the kept days equal those the summary folded
from every request; a write through a service moves them as a rebuild from scratch does; and the
Resumo reads no request, not even those waiting a step now."""
from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

from services.machinery import booking_requests, payment, protocol, quotes, schedule
from services.shared import clock, views
from services.summary import bookings_view, machinery, revenue_view, summary, trends
from services.summary.days import Days
from services.summary.periods import Period
from tests import summary_bookings_oracle as oracle
from tests.conftest import GABINETE
from tests.test_bookings import CLERK, NL, nl  # noqa: F401  (nl: the fixture)
from tests.test_ridehailing_page_queries import CountingDatabase


def periods(today: date) -> list[Period]:
    months, month = [], date(2026, 3, 1)
    while month <= today:
        end = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        months.append(Period(month, min(end, today)))
        month = end + timedelta(days=1)
    return months + [Period(date(2026, 1, 1), today), Period(today - timedelta(days=90), today),
                     Period(date(2025, 1, 1), date(2025, 12, 31)), Period(today - timedelta(days=400), today)]


def test_every_period_reads_what_folding_every_request_gave(demo_db):
    today = clock.today()
    days = Days(demo_db, bookings_view.NAME, NL)
    assert demo_db[booking_requests.REQUESTS].count_documents({"municipality": NL}) > 30
    for period in periods(today):
        assert machinery.of_period(demo_db, NL, period, days) == oracle.of_period(demo_db, NL, period), period
        assert trends.machinery(days, period) == oracle.machinery_trends(demo_db, NL, period), period


def _stored(db) -> tuple[list, list]:
    def flat(doc: dict) -> dict:
        cells = {k: Counter({f: n for f, n in v.items() if n}) for k, v in doc.items() if isinstance(v, dict)}
        return {k: v for k, v in cells.items() if v}
    months = sorted(db[revenue_view.MONTHS].find({"municipality": NL, "view": bookings_view.NAME}), key=lambda d: d["_id"])
    parts = sorted(db[revenue_view.CONTRIBUTIONS].find({"municipality": NL, "view": bookings_view.NAME}),
                   key=lambda d: d["_id"])
    return [(m["_id"], flat(m)) for m in months if flat(m)], parts


def test_a_write_through_a_service_moves_the_figures_as_a_rebuild_does(demo_db):
    quoted = demo_db[booking_requests.REQUESTS].find_one({"municipality": NL, "status": "aguardando_orcamento"})
    waiting = [r for r in demo_db[booking_requests.REQUESTS].find({"municipality": NL, "status": {"$in": [
        "aguardando_pagamento", "a_agendar"]}})]
    today = clock.today()
    before = Days(demo_db, bookings_view.NAME, NL).on(today, "waiting")["waiting"]
    if quoted:
        quotes.make_quote(demo_db, CLERK, NL, str(quoted["_id"]), today)
    payment.refuse_request(demo_db, CLERK, NL, str(waiting[0]["_id"]), "Estrada interditada pela Defesa Civil")
    assert Days(demo_db, bookings_view.NAME, NL).on(today, "waiting")["waiting"] == before - 1
    stored = _stored(demo_db)
    views.rebuild(demo_db, NL)
    assert _stored(demo_db) == stored


def test_what_waits_a_step_now_reads_as_folding_the_waiting_requests_gave(demo_db):
    """The Resumo's "Pedidos aguardando vistoria, parecer social, orçamento" (count, oldest, average
    age) from the kept ``step|`` states equal those folded from the requests, before and after a quote
    takes one request out of "aguardando orçamento"."""
    today = clock.today()
    waiting = trends.waiting_requests(Days(demo_db, bookings_view.NAME, NL), today)
    assert waiting == oracle.waiting_requests(demo_db, NL, today)
    assert sum(w.count for w in waiting) > 0
    quoted = demo_db[booking_requests.REQUESTS].find_one({"municipality": NL, "status": "aguardando_orcamento"})
    quotes.make_quote(demo_db, CLERK, NL, str(quoted["_id"]), today)
    after = trends.waiting_requests(Days(demo_db, bookings_view.NAME, NL), today)
    assert after == oracle.waiting_requests(demo_db, NL, today)
    assert [w.count for w in after] == [w.count - (w.key == "aguardando_orcamento") for w in waiting]
    for day in (today + timedelta(days=30), today + timedelta(days=400)):  # the ages go on with the days
        assert trends.waiting_requests(Days(demo_db, bookings_view.NAME, NL), day) == \
            oracle.waiting_requests(demo_db, NL, day)


def test_the_resumo_reads_no_request(demo_db):
    counting = CountingDatabase(demo_db)
    summary.summary(counting, GABINETE, NL, date(2026, 1, 1), clock.today())
    assert counting.calls[(booking_requests.REQUESTS, "find")] == 0


def test_a_booking_through_the_service_moves_the_days_booked_as_a_rebuild_does(db, nl, today):  # noqa: F811
    from tests.test_bookings import HOURS6, MONDAY, form, pay, upfront

    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    pay(db, upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))[0]["dam_id"])
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])], MONDAY + timedelta(days=2))
    days = Days(db, bookings_view.BOOKED, NL).within(MONDAY, MONDAY + timedelta(days=6))
    booked = db[booking_requests.BOOKINGS].count_documents({"municipality": NL, "request_id": rid})
    assert sum(n for key, n in days.items() if key.startswith("booked|")) == booked == 3

    def stored() -> list[dict]:
        found = db[revenue_view.MONTHS].find({"municipality": NL, "view": bookings_view.BOOKED})
        return sorted(found, key=lambda d: d["_id"])

    kept = stored()
    views.rebuild(db, NL)
    assert stored() == kept


def test_the_resumo_reads_no_booking(demo_db):
    counting = CountingDatabase(demo_db)
    summary.summary(counting, GABINETE, NL, date(2026, 1, 1), clock.today())
    assert counting.calls[(booking_requests.BOOKINGS, "find")] == 0
