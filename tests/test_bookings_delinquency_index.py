"""Booking create does not grow with the data (issue 21, item 1c): the art. 8 §4 check (Decreto
017/2026 Nova Lacerda: "o inadimplemento de qualquer parcela suspenderá novas solicitações") reads
the requester's own open overdue charges by an index, so other taxpayers' debts cost it nothing. The
lists by status (Execução, Solicitações) read their page, newest protocol first, from an index made
at start, never by sorting every request of that status."""
from __future__ import annotations

from bson.decimal128 import Decimal128

from docstore.tests import work

from services.dam import charges
from services.machinery import protocol
from services.machinery.booking_requests import REQUESTS
from tests.test_bookings import CLERK, LOADS5, NL, form, nl  # noqa: F401  (nl: the fixture)

OTHERS = 3000


def overdue_of_others(db, count: int) -> None:
    """``count`` overdue charges of this service, each of another taxpayer."""
    db[charges.COLLECTION].insert_many([
        {"municipality": NL, "taxpayer": {"name": f"Devedor {i}", "document": f"{70_000_000_000 + i}", "address": ""},
         "status": charges.OWING[0], "due_on": "2026-01-15", "open": Decimal128("120.00"),
         "owner": {"collection": REQUESTS, "id": f"outro-{i}"}, "dams": []} for i in range(count)])


def sqlite_work(db, action) -> int:
    """SQLite's virtual-machine instructions (in hundreds) run by ``action``: rows scanned cost them."""
    return work.sqlite_work(db[charges.COLLECTION]._engine.conn(), action)


def test_the_delinquency_check_uses_the_taxpayer_index(db):
    charges.prepare(db)
    query = {"municipality": NL, "taxpayer.document": "52998224725", "status": {"$in": list(charges.OWING)},
             "due_on": {"$lt": "2026-04-06"}}
    plan = " | ".join(db[charges.COLLECTION].explain_sql(query))
    assert "USING INDEX" in plan and "i_charge_taxpayer" in plan, plan


def test_a_booking_create_does_as_much_work_with_thousands_of_other_debtors_as_with_none(db, nl):  # noqa: F811
    protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5))  # first of the process: indexes, numbers
    alone = sqlite_work(db, lambda: protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5)))
    overdue_of_others(db, OTHERS)
    crowded = sqlite_work(db, lambda: protocol.create_request(db, CLERK, NL, form(nl["association"], LOADS5)))
    # a scan of the other debtors' charges would cost thousands of hundreds of instructions
    assert crowded <= alone * 1.2 + 20, (alone, crowded)


def test_a_list_of_requests_by_status_reads_its_page_in_protocol_order_from_an_index(db):
    query, newest_first = {"municipality": NL, "status": "agendado"}, [("year", -1), ("sequence", -1)]
    plan = " | ".join(db[REQUESTS].explain_sql(query, newest_first, 200))
    assert "i_booking_requests_status_protocol" in plan and "TEMP B-TREE" not in plan, plan
