"""The machinery module's Pendências kept as data (issue 21): what the stored items show on a day is
what reading every open request and its charges showed that day (``tests/machinery_pending_oracle.py``)
— on the demo, on later days (balances fall due without any write) —; a write through a service moves
the items exactly as a rebuild from scratch would, in its unit of work; and a render's store calls do
not grow with the number of requests."""
from __future__ import annotations

import random
from collections import Counter
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from bson import ObjectId
from streamlit.testing.v1 import AppTest

from seed.people import cpf
from services import store
from services.dam import dams, payments
from services.machinery import booking_requests, execution, payment, pending, protocol, queue_view, quotes, schedule
from services.machinery.execution import ExecutionInput
from services.shared import clock, entities, views
from tests import machinery_pending_oracle as oracle
from tests.test_bookings import BPC, CLERK, HOURS6, LOADS5, MONDAY, NL, form, nl, upfront  # noqa: F401  (nl: fixture)
from tests.test_ridehailing_page_queries import CountingDatabase

ROOT = Path(__file__).resolve().parent.parent
D = Decimal


def shown(items) -> list[tuple]:
    return sorted((i.on, i.title, i.detail, i.record_id, i.overdue) for i in items)


def read(db, on: date) -> list[pending.PendingItem]:
    found = pending.pending(db, CLERK, NL, on)
    assert found == sorted(found, key=lambda i: (i.on, i.title)), "earliest first, then by title"
    return found


def stored(db) -> list[tuple]:
    return sorted(tuple(sorted((k, str(v)) for k, v in d.items() if k != "_id"))
                  for d in db[queue_view.ITEMS].find({"municipality": NL}))


def as_rebuilt(db) -> None:
    """The stored items are those a rebuild from scratch makes, and the read is the old computation's."""
    kept = stored(db)
    views.rebuild(db, NL)
    assert stored(db) == kept
    for days in (0, 20):
        on = clock.today() + timedelta(days=days)
        assert shown(read(db, on)) == shown(oracle.pending(db, NL, on)), f"+{days} dias"


# ---- the demo ----

def test_the_demo_items_are_those_every_request_folded_gives_on_later_days(demo_db):
    today = clock.today()
    titles = {i.title for i in oracle.pending(demo_db, NL, today + timedelta(days=40))}
    assert len(titles) >= 5, f"the demo has Nova Lacerda requests in many steps: {titles}"
    for days in (0, 10, 40):
        on = today + timedelta(days=days)
        assert shown(read(demo_db, on)) == shown(oracle.pending(demo_db, NL, on)), f"+{days} dias"
    late = [i for i in read(demo_db, today + timedelta(days=40)) if i.overdue]
    assert late and {i.title for i in late} & {"Saldo vencido", "Pagamento vencido"}


def test_a_demo_dam_paid_moves_its_request_out_of_the_payments_awaited(demo_db):
    today = clock.today()
    waiting = [i for i in read(demo_db, today) if i.title in ("Aguardando pagamento", "Pagamento vencido",
                                                              "Saldo a pagar", "Saldo vencido")]
    assert waiting, "the demo has a request with a DAM to pay"
    rid = waiting[0].record_id
    charge = demo_db["charges"].find_one({"owner.collection": "booking_requests", "owner.id": rid,
                                          "live_dam": {"$ne": None}})
    dam = dams.get(demo_db, CLERK, NL, charge["live_dam"]["id"])
    payments.record_payment(demo_db, CLERK, NL, dam["id"], today, dam["amount"], "Banco do Brasil")
    assert not any(i.record_id == rid and i.detail == waiting[0].detail for i in read(demo_db, today))
    kept = stored(demo_db)
    views.rebuild(demo_db, NL)
    assert stored(demo_db) == kept
    assert shown(read(demo_db, today)) == shown(oracle.pending(demo_db, NL, today))


# ---- writes through the services ----

def mine(db, rid, on=MONDAY) -> list[tuple[str, bool]]:
    return [(i.title, i.overdue) for i in read(db, on) if i.record_id == rid]


def test_each_step_of_a_request_moves_its_items_as_a_rebuild_would(db, nl, today):  # noqa: F811
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    assert mine(db, rid) == [("Aguardando orçamento", False)]
    as_rebuilt(db)
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    assert mine(db, rid) == [("Aguardando emissão dos DAMs", False)]
    as_rebuilt(db)
    doc = payment.issue_payment(db, CLERK, NL, rid, MONDAY)
    [advance] = upfront(doc)
    assert mine(db, rid) == [("Aguardando pagamento", False)]
    assert mine(db, rid, advance["due"] + timedelta(days=1)) == [("Pagamento vencido", True)]
    as_rebuilt(db)
    dams.cancel(db, CLERK, NL, advance["dam_id"], "Endereço do contribuinte errado")
    assert mine(db, rid) == [("DAM cancelado — emitir novo DAM", False)]
    as_rebuilt(db)
    doc = payment.issue_new_dam(db, CLERK, NL, rid, advance["charge_id"], date(2026, 4, 10))
    [again] = upfront(doc)
    payments.record_payment(db, CLERK, NL, again["dam_id"], MONDAY, D("100.00"), "Banco do Brasil")
    assert mine(db, rid) == [("Pago a menor", False)]
    as_rebuilt(db)
    payment.issue_new_dam(db, CLERK, NL, rid, advance["charge_id"], date(2026, 4, 10))
    live = db["charges"].find_one({"_id": ObjectId(advance["charge_id"])})["live_dam"]
    difference = dams.get(db, CLERK, NL, live["id"])
    payments.record_payment(db, CLERK, NL, difference["id"], MONDAY, difference["amount"], "Banco do Brasil")
    assert mine(db, rid) == [("A agendar", False)]
    as_rebuilt(db)
    day = date(2026, 4, 8)
    schedule.book(db, CLERK, NL, rid, day, [(nl["backhoe"], nl["joao"])])
    assert mine(db, rid) == []
    as_rebuilt(db)
    today.set(day)
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["joao"],
                                                               worked_hours=(("01", D(7)),)))
    assert mine(db, rid, day) == [("Saldo a pagar", False)]
    assert mine(db, rid, done["settlement"]["due"] + timedelta(days=1)) == [("Saldo vencido", True)]
    as_rebuilt(db)
    balance = dams.get(db, CLERK, NL, done["settlement"]["dam_id"])
    payments.record_payment(db, CLERK, NL, balance["id"], day, balance["amount"], "Banco do Brasil")
    assert mine(db, rid, day) == []
    as_rebuilt(db)


def test_a_credit_to_return_and_a_refusal_move_the_items_too(db, nl, today):  # noqa: F811
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [advance] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    dam = dams.get(db, CLERK, NL, advance["dam_id"])
    payments.record_payment(db, CLERK, NL, dam["id"], MONDAY, dam["amount"], "Banco do Brasil")
    day = date(2026, 4, 8)
    schedule.book(db, CLERK, NL, rid, day, [(nl["backhoe"], nl["joao"])])
    today.set(day)
    execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["joao"], worked_hours=(("01", D(1)),)))
    assert mine(db, rid, day) == [("Crédito a devolver", False)]
    as_rebuilt(db)
    execution.record_credit_returned(db, CLERK, NL, rid, day, "Ordem de pagamento 12/2026")
    assert mine(db, rid, day) == []
    as_rebuilt(db)
    other = protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5, claims=(BPC,)))
    assert mine(db, other, day)
    payment.refuse_request(db, CLERK, NL, other, "Desistência do interessado")
    assert mine(db, other, day) == []
    as_rebuilt(db)


def test_a_failed_write_leaves_the_items_as_they_were(db, nl, today):  # noqa: F811
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    before = stored(db)
    with pytest.raises(RuntimeError), store.transaction(db):
        quotes.make_quote(db, CLERK, NL, rid, MONDAY)
        raise RuntimeError("a falha depois da gravação desfaz tudo")
    assert stored(db) == before and mine(db, rid) == [("Aguardando orçamento", False)]


def test_a_municipality_without_the_module_has_no_items_and_its_rebuild_does_nothing(db, nl):  # noqa: F811
    protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    kept = stored(db)
    assert kept
    queue_view.rebuild(db, "chapada")
    assert stored(db) == kept and db[queue_view.ITEMS].count_documents({"municipality": {"$ne": NL}}) == 0


def test_the_read_walks_the_index_by_municipality_and_date(db, nl):  # noqa: F811
    protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    plan = " | ".join(db[queue_view.ITEMS].explain_sql({"municipality": NL}, [("on_n", 1), ("title", 1)], 25))
    assert "i_machinery_queue_page" in plan and "TEMP B-TREE" not in plan, plan
    overdue = queue_view.query(NL, date(2026, 4, 10), overdue=True)
    plan = " | ".join(db[queue_view.ITEMS].explain_sql(overdue))
    assert "i_machinery_queue_due" in plan, plan


# ---- a render does not grow with the requests ----

def population(db, seed: int, count: int) -> None:
    """``count`` requests at each step Pendências shows: awaiting the quote, the DAMs, the payment, the
    schedule; each of its own requester."""
    rng = random.Random(seed)
    for index in range(count):
        ids = []
        for step in range(4):
            requester = entities.create(db, CLERK, "machinery_requesters", NL, {
                "name": f"Solicitante {seed}-{index}-{step}", "document": cpf(rng), "kind": "pf",
                "address": "Lote 1", "zone": "Zona Norte", "locality": "Comunidade Pontal",
                "standing": "nada_deve", "standing_checked_on": MONDAY})
            ids.append(protocol.create_request(db, CLERK, NL, form(requester, HOURS6)))
        for rid in ids[1:]:
            quotes.make_quote(db, CLERK, NL, rid, MONDAY)
        for rid in ids[2:]:
            payment.issue_payment(db, CLERK, NL, rid, MONDAY)
        [advance] = upfront(booking_requests.get_request(db, CLERK, NL, ids[3]))
        dam = dams.get(db, CLERK, NL, advance["dam_id"])
        payments.record_payment(db, CLERK, NL, dam["id"], MONDAY, dam["amount"], "Banco do Brasil")


def render_calls(db, monkeypatch) -> Counter:
    import streamlit as st

    from ui import common

    st.cache_data.clear()
    counting = CountingDatabase(db)
    monkeypatch.setattr(common, "db", lambda: counting)
    at = AppTest.from_file(str(ROOT / "app_pages" / "machinery_pending.py"), default_timeout=120)
    at.session_state["actor"] = CLERK
    at.session_state["municipality"] = NL
    at.run()
    assert not at.exception, at.exception
    return counting.calls


def test_the_page_makes_the_same_store_calls_with_three_times_the_requests(db, nl, monkeypatch):  # noqa: F811
    population(db, seed=1, count=1)
    before = render_calls(db, monkeypatch)
    population(db, seed=2, count=2)
    assert db["booking_requests"].count_documents({"municipality": NL}) == 12
    assert len(pending.pending(db, CLERK, NL, MONDAY)) == 12
    after = render_calls(db, monkeypatch)
    assert sum(after.values()) == sum(before.values()), after - before
    assert not {name for name, _ in after} & {"booking_requests", "charges"}, after
    counting = CountingDatabase(db)
    pending.pending(counting, CLERK, NL, MONDAY)
    # the kept items in one query, and the municipality's modules read by the module's guard (issue 35 item 3)
    assert counting.calls == Counter({(queue_view.ITEMS, "find"): 1, ("municipalities", "find_one"): 1})


@pytest.mark.parametrize("days", [0, 20, 60])
def test_the_page_and_the_inicio_read_what_the_whole_queue_holds(db, nl, days):  # noqa: F811
    population(db, seed=3, count=3)
    on = MONDAY + timedelta(days=days)  # later, parts owed fall overdue
    whole = sorted(pending.pending(db, CLERK, NL, on), key=lambda i: (i.on, i.record_id, i.title))
    first = pending.page(db, CLERK, NL, on, 0, 5)
    assert (first.total, first.overdue) == (len(whole), sum(i.overdue for i in whole))
    assert first.overdue or days < 60, "two months later a part owed is overdue"
    assert [i.on for i in first.rows] == [i.on for i in whole[:5]]
    rest = pending.page(db, CLERK, NL, on, 5, 100)
    assert sorted(first.rows + rest.rows, key=lambda i: (i.on, i.record_id, i.title)) == whole
    week = on + timedelta(days=7)
    seen = pending.overview(db, CLERK, NL, on, 7, 4)
    urgent = sorted((i for i in whole if i.overdue or i.on <= week), key=lambda i: (not i.overdue, i.on))
    assert [(i.overdue, i.on) for i in seen.urgent] == [(i.overdue, i.on) for i in urgent[:4]]
    assert (seen.total, seen.overdue) == (len(whole), sum(i.overdue for i in whole))
    assert seen.open_today == sum(1 for i in whole if not i.overdue and i.on <= on)
    assert seen.this_week == sum(1 for i in whole if not i.overdue and on < i.on <= week)
