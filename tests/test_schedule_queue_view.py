"""The Agenda's queue kept as data (issue 21): the pages of the stored queue, read one after another,
are the order art. 3 gives every request waiting to be scheduled (``order_of_service`` over all of
them, the computation the Agenda made on each render), with each row's position, on the day asked
(the regional schedule in force that day); a write moves the queue exactly as a rebuild from scratch
would; and a render of the Agenda makes the same store calls with three times the queue."""
from __future__ import annotations

import random
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

from streamlit.testing.v1 import AppTest

from rules.machinery.schedule import QueuedRequest, order_of_service
from seed.people import cpf
from services.machinery import booking_requests, localities, payment, schedule, schedule_view
from services.shared import clock, entities, views
from services.store import decode
from tests.test_bookings import CLERK, MONDAY, NL, TI_NL, nl, ready  # noqa: F401  (nl: fixture)
from tests.test_ridehailing_page_queries import CountingDatabase

ROOT = Path(__file__).resolve().parent.parent
PLACES = (("Zona Norte", "Assentamento Bandeira"), ("Zona Norte", "Comunidade Pontal"), ("Zona Urbana", "Centro"))


def waiting(db, seed: int, count: int) -> list[str]:
    """``count`` requests ready to schedule, each of its own requester in a locality drawn at random."""
    rng = random.Random(seed)
    ids = []
    for n in range(count):
        zone, locality = rng.choice(PLACES)
        requester = entities.create(db, CLERK, "machinery_requesters", NL, {
            "name": f"Solicitante {seed}-{n}", "document": cpf(rng), "kind": "pf", "address": "Lote 1",
            "zone": zone, "locality": locality, "standing": "nada_deve", "standing_checked_on": MONDAY})
        ids.append(ready(db, None, requester))
    return ids


def oracle(db, day: date) -> list[tuple]:
    """Every waiting request folded through the rule, as the Agenda computed it before the view."""
    docs = [decode(d) for d in db["booking_requests"].find({"municipality": NL, "status": "a_agendar"})]
    order = order_of_service([QueuedRequest(d["protocol"], d["protocolled_at"], d.get("zone", ""),
                                            d.get("locality", ""), bool(d.get("urgent")),
                                            d.get("urgency_justification", "")) for d in docs],
                             localities.zone_order(localities.localities(db, NL, day)))
    names = {d["protocol"]: d["requester"]["name"] for d in docs}
    return [(e.position, e.request.protocol, names[e.request.protocol], e.reason, e.reference)
            for e in order.sequence]


def paged(db, day: date, per_page: int, search: str = "") -> list[tuple]:
    rows, page = [], 1
    while True:
        got = schedule.queue_page(db, CLERK, NL, day, page, per_page, search)
        assert len(got.entries) <= per_page and got.page == page
        rows += got.entries
        if page >= got.pages:
            break
        page += 1
    assert len(rows) == got.total
    return [(e.position, e.protocol, e.requester, e.reason, e.reference) for e in rows]


def stored(db) -> list[tuple]:
    return sorted(tuple(sorted((k, str(v)) for k, v in d.items() if k != "_id"))
                  for name in (schedule_view.ITEMS, schedule_view.GROUPS) for d in db[name].find({"municipality": NL}))


def as_rebuilt(db, day: date = MONDAY) -> None:
    kept = stored(db)
    views.rebuild(db, NL)
    assert stored(db) == kept
    assert paged(db, day, 4) == oracle(db, day)


def test_the_pages_of_the_queue_are_the_order_of_art_3(db, nl):  # noqa: F811
    ids = waiting(db, seed=1, count=23)
    schedule.mark_urgent(db, CLERK, NL, ids[17], "Ponte caída na estrada da escola")
    schedule.mark_urgent(db, CLERK, NL, ids[4], "Transporte de doentes")
    whole = oracle(db, MONDAY)
    assert [row[0] for row in whole] == list(range(1, 24))
    assert [row[1] for row in whole[:2]] == sorted(row[1] for row in whole[:2])  # the two ahead, by protocol
    assert "art. 3, §2" in whole[0][4] and "art. 3, §2" not in whole[2][4]
    for per_page in (1, 5, 25):
        assert paged(db, MONDAY, per_page) == whole
    assert [(e.position, e.protocol) for e in schedule.queue_rows(db, CLERK, NL, MONDAY)] == [r[:2] for r in whole]
    as_rebuilt(db)


def test_a_search_keeps_each_rows_place_in_the_whole_queue(db, nl):  # noqa: F811
    waiting(db, seed=2, count=14)
    whole = oracle(db, MONDAY)
    found = [row for row in whole if "2-1" in row[2]]  # Solicitante 2-1, 2-10 … 2-13
    assert len(found) == 5
    assert paged(db, MONDAY, 2, "2-1") == found
    assert [(e.position, e.protocol) for e in schedule.queue_rows(db, CLERK, NL, MONDAY, "2-1")] == [
        r[:2] for r in found]
    assert paged(db, MONDAY, 3, whole[6][1]) == [whole[6]]  # by protocol number


def test_booking_cancelling_and_refusing_move_the_queue_as_a_rebuild_would(db, nl):  # noqa: F811
    ids = waiting(db, seed=3, count=9)
    schedule.book(db, CLERK, NL, ids[2], MONDAY, [(nl["truck"], nl["pedro"])])
    assert ids[2] not in [e.request_id for e in schedule.queue_rows(db, CLERK, NL, MONDAY)]
    as_rebuilt(db)
    schedule.cancel_booking(db, CLERK, NL, ids[2], "Chuva")
    assert ids[2] in [e.request_id for e in schedule.queue_rows(db, CLERK, NL, MONDAY)]
    as_rebuilt(db)
    payment.refuse_request(db, CLERK, NL, ids[0], "Desistência do solicitante")
    schedule.mark_urgent(db, CLERK, NL, ids[8], "Acesso ao posto de saúde")
    as_rebuilt(db)
    assert len(oracle(db, MONDAY)) == 8


def test_the_regional_schedule_in_force_on_the_day_orders_the_zones(db, nl):  # noqa: F811
    waiting(db, seed=4, count=12)
    later = MONDAY + timedelta(days=14)
    localities.set_localities(db, TI_NL, NL, later, [  # the urban zone first from then on, Bandeira gone
        {"zone": "Zona Urbana", "locality": "Centro", "area": "urbana"},
        {"zone": "Zona Norte", "locality": "Comunidade Pontal", "area": "rural"},
    ], "Portaria SEMOBI 02/2026")
    now, then = oracle(db, MONDAY), oracle(db, later)
    assert [r[1] for r in now] != [r[1] for r in then] and then[0][3].startswith("Zona Zona Urbana")
    assert paged(db, MONDAY, 5) == now
    assert paged(db, later, 5) == then


def test_the_demo_queue_is_the_order_of_art_3(demo_db):
    today = clock.today()
    assert paged(demo_db, today, 10) == oracle(demo_db, today) != []


class ReadCursor:
    """A cursor that counts the documents it yields, under its collection's name."""

    def __init__(self, cursor, read: Counter, name: str) -> None:
        self._cursor, self._read, self._name = cursor, read, name

    def __getattr__(self, attr):
        value = getattr(self._cursor, attr)
        if attr in ("sort", "skip", "limit", "batch_size"):
            return lambda *args, **kwargs: ReadCursor(value(*args, **kwargs), self._read, self._name)
        return value

    def __iter__(self):
        for doc in self._cursor:
            self._read[self._name] += 1
            yield doc


class ReadCollection:
    def __init__(self, collection, read: Counter, name: str) -> None:
        self._collection, self._read, self._name = collection, read, name

    def find(self, *args, **kwargs):
        return ReadCursor(self._collection.find(*args, **kwargs), self._read, self._name)

    def find_one(self, *args, **kwargs):
        found = self._collection.find_one(*args, **kwargs)
        self._read[self._name] += found is not None
        return found

    def __getattr__(self, attr):
        return getattr(self._collection, attr)


class ReadingDatabase(CountingDatabase):
    """The test's store, counting the documents each collection yields to a render."""

    def __init__(self, db) -> None:
        super().__init__(db)
        self.read = Counter()

    def __getitem__(self, name: str) -> ReadCollection:
        return ReadCollection(super().__getitem__(name), self.read, name)


def render(db, monkeypatch) -> tuple[Counter, Counter]:
    """The store calls and the documents read by one render of the Agenda."""
    import streamlit as st

    from ui import common

    st.cache_data.clear()
    counting = ReadingDatabase(db)
    monkeypatch.setattr(common, "db", lambda: counting)
    at = AppTest.from_file(str(ROOT / "app_pages" / "machinery_schedule.py"), default_timeout=120)
    at.session_state["actor"] = CLERK
    at.session_state["municipality"] = NL
    at.run()
    assert not at.exception, at.exception
    return counting.calls, counting.read


def test_the_agenda_reads_the_same_with_three_times_the_queue(db, nl, monkeypatch):  # noqa: F811
    ids = waiting(db, seed=5, count=30)
    schedule.book(db, CLERK, NL, ids[0], MONDAY, [(nl["truck"], nl["pedro"])])
    calls, read = render(db, monkeypatch)
    assert read["machinery_schedule_items"] == 25 and not read["booking_requests"] > 1
    waiting(db, seed=6, count=60)
    assert len(oracle(db, MONDAY)) == 89
    more_calls, more_read = render(db, monkeypatch)
    assert not more_calls - calls, more_calls - calls  # no call on any collection more often
    assert more_read == read, more_read - read  # and no document more


def test_execucao_offers_the_newest_scheduled_and_a_search_finds_an_older_one(db, nl):  # noqa: F811
    """Execução read every scheduled request (up to 200 per status) on each render: now the 25 newest of
    each status, and a search by protocol or name for the others."""
    ids = waiting(db, seed=7, count=27)
    for n, rid in enumerate(ids):
        schedule.book(db, CLERK, NL, rid, MONDAY + timedelta(days=n), [(nl["truck"], nl["pedro"])])
    oldest = booking_requests.get_request(db, CLERK, NL, ids[0])
    at = AppTest.from_file(str(ROOT / "app_pages" / "machinery_execution.py"), default_timeout=120)
    at.session_state["actor"] = CLERK
    at.session_state["municipality"] = NL
    at.run()
    assert not at.exception, at.exception
    offered = at.selectbox(key="exec_request").options
    assert len(offered) == 25 and not any(oldest["protocol"] in option for option in offered)
    assert "busque para achar outro" in " ".join(c.value for c in at.caption)
    at.text_input(key="exec_search").input(oldest["protocol"]).run()
    assert [option for option in at.selectbox(key="exec_request").options if oldest["protocol"] in option]
