"""Pendências kept as data (issue 21): what the stored queue shows on a day is what folding every
authorization through the rule set and every open auto through ``enforcement.lists`` shows that day —
on the days after it was
written (deadlines pass, validities end, without any write), after the writes that move it (a fee
DAM issued and paid, a request approved), and after a rebuild from scratch."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from services import store
from services.dam import payments, reissue
from services.ridehailing import authorizations, fees, queue_pages, queue_view, registry
from services.ridehailing.enforcement import lists as auto_lists
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import clock
from services.shared.auth import Actor
from tests.conftest import copy_store

ACTOR = Actor("teste", "Teste", "secretaria", ("chapada", "matupa"))


@pytest.fixture()
def db(tmp_path, demo_store, monkeypatch):
    folder = copy_store(demo_store, tmp_path / "store")
    monkeypatch.delenv("MONGODB_URI", raising=False)
    return store.connect(data_dir=str(folder))


def fresh(db, municipality: str, on) -> list[tuple]:
    """The oracle: every authorization folded on ``on``, and every open auto's items computed from the
    autos, as Pendências computed them on each render."""
    scope = registry.Scope(db, municipality)
    docs = []
    for raw in db["authorizations"].find({"municipality": municipality}, queue_view.PROJECTION):
        doc = store.decode(raw)
        doc["id"] = str(doc.pop("_id"))
        docs.append(doc)
    bills = fees.bills_of(db, docs)
    rows = []
    for doc in docs:
        found, _ = queue_view.items_of(doc, on, scope, bills.get(doc["id"]))
        for due, kind, message, reference in found:
            if kind in queue_view.HORIZONED and due > on + timedelta(days=HORIZON_DAYS):
                continue
            rows.append(Pendencia(due, kind, doc["protocol"], doc["plate"], doc["driver_cpf"], message, reference,
                                  due < on and kind != queue_view.EVALUATE, doc["id"]))
    return shown(rows + auto_lists.pending(db, ACTOR, municipality, on))


def shown(rows: list[Pendencia]) -> list[tuple]:
    return sorted((p.due, p.kind, p.protocol, p.plate, p.message, p.reference, p.late, p.authorization_id) for p in rows)


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_the_stored_queue_is_the_folded_one_on_every_later_day(db, municipality, monkeypatch):
    today = clock.today()
    assert shown(queue_view.pending(db, municipality, today)) == fresh(db, municipality, today)
    assert fresh(db, municipality, today), "the demo has authorizations with pending items"
    for days in (1, 3, 6, 9, 16, 31, 45, 95, 200, 370, 800):  # deadlines pass, validities end, no write
        on = today + timedelta(days=days)
        monkeypatch.setattr(clock, "today", lambda on=on: on)
        assert shown(queue_view.pending(db, municipality, on)) == fresh(db, municipality, on), f"+{days} dias"


def test_a_fee_issued_and_paid_moves_the_queue_in_its_unit_of_work(db):
    today = clock.today()
    waiting = [p for p in queue_view.pending(db, "chapada", today)
               if p.kind == "Taxa" and p.message == "Emitir o DAM da taxa de autorização"]
    assert waiting, "the demo has an authorization awaiting its fee DAM"
    auth_id = waiting[0].authorization_id
    fees.issue_fee_dam(db, ACTOR, "chapada", auth_id, today)
    assert shown(queue_view.pending(db, "chapada", today)) == fresh(db, "chapada", today)
    mine = [p for p in queue_view.pending(db, "chapada", today) if p.authorization_id == auth_id]
    assert [p.kind for p in mine] == ["Taxa"] and mine[0].message.endswith("da taxa aguardando pagamento")
    dam = db["dams"].find_one({"charge_id": store.decode(db["authorizations"].find_one(
        {"_id": __import__("bson").ObjectId(auth_id)}))["fee_dam"]["charge_id"]})
    payments.record_payment(db, ACTOR, "chapada", str(dam["_id"]), today, Decimal(str(dam["amount"].to_decimal())),
                            "PIX")
    assert shown(queue_view.pending(db, "chapada", today)) == fresh(db, "chapada", today)
    assert not any(p.authorization_id == auth_id and p.kind == "Taxa" for p in queue_view.pending(db, "chapada", today))


def test_an_approved_request_leaves_evaluate_for_the_vistoria(db):
    today = clock.today()
    evaluate = [p for p in queue_view.pending(db, "chapada", today) if p.kind == queue_view.EVALUATE]
    assert evaluate, "the demo has a request to evaluate"
    auth_id = evaluate[0].authorization_id
    try:
        authorizations.approve(db, ACTOR, "chapada", auth_id, today)
    except Exception:  # noqa: BLE001 — a request the law refuses is refused instead: it leaves the queue too
        authorizations.refuse(db, ACTOR, "chapada", auth_id, today, "Requisitos não atendidos")
    after = [p for p in queue_view.pending(db, "chapada", today) if p.authorization_id == auth_id]
    assert all(p.kind != queue_view.EVALUATE for p in after)
    assert shown(queue_view.pending(db, "chapada", today)) == fresh(db, "chapada", today)


def test_a_failed_write_leaves_the_queue_as_it_was(db):
    today = clock.today()
    before = shown(queue_view.pending(db, "chapada", today))
    evaluate = next(p for p in queue_view.pending(db, "chapada", today) if p.kind == queue_view.EVALUATE)
    with pytest.raises(RuntimeError), store.transaction(db):
        authorizations.cancel_request(db, ACTOR, "chapada", evaluate.authorization_id, "Desistência do condutor")
        raise RuntimeError("a falha depois da gravação desfaz tudo")
    assert shown(queue_view.pending(db, "chapada", today)) == before


def test_the_rebuilt_queue_is_the_stored_one(db):
    def stored():
        counts = {cell: n for d in db[queue_pages.COUNTS].find({"municipality": "chapada"})
                  for cell, n in d["c"].items() if n}
        return sorted(tuple(sorted((k, str(v)) for k, v in d.items() if k != "_id"))
                      for d in db[queue_view.ITEMS].find({"municipality": "chapada"})), counts

    fees_waiting = [p for p in queue_view.pending(db, "chapada", clock.today()) if p.kind == "Taxa"]
    if fees_waiting:
        fees.issue_fee_dam(db, ACTOR, "chapada", fees_waiting[0].authorization_id, clock.today())
    fines = [p for p in queue_view.pending(db, "chapada", clock.today()) if p.kind == "Multa"]
    auto = store.decode(db["autos"].find_one({"municipality": "chapada", "number": fines[0].protocol[5:]}))
    dam = next(d for d in db["dams"].find({"charge_id": auto["fine_dam"]["charge_id"]}) if d["status"] != "pago")
    payments.record_payment(db, ACTOR, "chapada", str(dam["_id"]), clock.today(),
                            Decimal(str(dam["amount"].to_decimal())), "PIX")
    kept = stored()
    assert kept[1], "the counts are kept"
    with store.transaction(db):
        queue_view.rebuild(db, "chapada")
    assert stored() == kept


def test_a_write_moves_the_counts_of_its_items_due_month_only(db):
    """The counts are kept per due month: paying a fine moves the document of the month the fine was due
    in, not one document holding every day of the calendar."""
    def counts():
        return {d["_id"]: d for d in db[queue_pages.COUNTS].find({"municipality": "chapada"})}

    before = counts()
    assert len(before) > 1, "the demo's items fall due in several months"
    for doc in before.values():
        assert {queue_pages.month_of({"due_n": int(cell.split("|")[0])}) for cell in doc["c"]} == {doc["month"]}
    fine = next(p for p in queue_view.pending(db, "chapada", clock.today()) if p.kind == "Multa")
    auto = store.decode(db["autos"].find_one({"municipality": "chapada", "number": fine.protocol[5:]}))
    dam = next(d for d in db["dams"].find({"charge_id": auto["fine_dam"]["charge_id"]})
               if d["status"] not in ("pago", "cancelado"))
    payments.record_payment(db, ACTOR, "chapada", str(dam["_id"]), clock.today(),
                            Decimal(str(dam["amount"].to_decimal())), "PIX")
    after = counts()
    assert {key for key in after if after[key] != before.get(key)} == {f"chapada|{fine.due:%Y-%m}"}


def test_an_autos_fine_paid_leaves_the_queue_in_its_unit_of_work(db):
    today = clock.today()
    fines = [p for p in queue_view.pending(db, "chapada", today) if p.kind == "Multa"]
    assert fines, "the demo has an auto whose fine is owed"
    number = fines[0].protocol.removeprefix("Auto ")
    auto = store.decode(db["autos"].find_one({"municipality": "chapada", "number": number}))
    dam = next(d for d in db["dams"].find({"charge_id": auto["fine_dam"]["charge_id"]})
               if d["status"] not in ("pago", "cancelado"))
    payments.record_payment(db, ACTOR, "chapada", str(dam["_id"]), today, Decimal(str(dam["amount"].to_decimal())),
                            "PIX")
    after = queue_view.pending(db, "chapada", today)
    assert not any(p.protocol == fines[0].protocol and p.kind == "Multa" for p in after)
    assert shown(after) == fresh(db, "chapada", today)


def test_a_2a_via_of_a_fine_moves_the_queue_without_a_write_to_the_auto(db):
    today = clock.today()
    fines = [p for p in queue_view.pending(db, "chapada", today) if p.kind == "Multa"]
    number = fines[0].protocol.removeprefix("Auto ")
    auto = store.decode(db["autos"].find_one({"municipality": "chapada", "number": number}))
    dam = next(d for d in db["dams"].find({"charge_id": auto["fine_dam"]["charge_id"]})
               if d["status"] not in ("pago", "cancelado"))
    via = reissue.reissue(db, ACTOR, "chapada", str(dam["_id"]), today + timedelta(days=10))
    assert store.decode(db["autos"].find_one({"_id": auto["_id"]})) == auto, "the 2ª via writes only the charge"
    after = [p for p in queue_view.pending(db, "chapada", today) if p.protocol == fines[0].protocol]
    assert any(via["number"] in p.message for p in after if p.kind == "Multa")
    assert shown(queue_view.pending(db, "chapada", today)) == fresh(db, "chapada", today)


TI = Actor("ti.teste", "TI", "ti", ("chapada",))


@pytest.mark.parametrize("name, value, rebuilt", [
    ("dam_late_interest_monthly_percent", Decimal("1.5"), False),  # a DAM's late charges move no pending item
    ("dam_febraban_code", "1234", False),  # nor the bank's code on the barcode
    ("inspection_call_days", 20, True),  # a deadline does: every authorization's items are folded again
])
def test_a_parameter_version_rebuilds_the_queue_only_when_it_may_move_its_items(db, monkeypatch, name, value, rebuilt):
    """At scale 10 a rebuild of Chapada's queue took about a minute (bench/peak.py): TI's save of a late-charge
    rate waited for it although no item of the queue reads it."""
    from services.shared import parameters

    calls = []
    monkeypatch.setattr(queue_view, "refresh", lambda *args, **kwargs: calls.append(args))
    parameters.add_version(db, TI, "chapada", name, clock.today() + timedelta(days=1), value, "Decreto de teste")
    assert bool(calls) is rebuilt
