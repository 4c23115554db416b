"""Ride-hailing integrity under concurrency and faults (issue 10): no lost step, one open
authorization per plate and per driver, a fee handler that trusts only the store and runs once,
and a public check that answers "invalid" to any odd token."""
from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from bson import ObjectId
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from seed.ridehailing import vehicle_values
from services.dam import dams, lists, outbox, payments
from services.dam import payments as dam_payments
from services.ridehailing import (
    authorization_lists,
    authorization_records,
    authorizations,
    fees,
    inspections,
    public_check,
)
from services.shared import audit, clock, entities, parameters
from services.shared.errors import Conflict, NotFound
from tests import figures
from tests.ridehailing_data import ACTORS, inspected, register, requested, set_fee

TODAY = clock.today()
ACTOR = ACTORS["chapada"]
THREADS = 8


def together(task, count: int = THREADS) -> list:
    """Run ``task`` in ``count`` threads released at once; each result or the exception raised."""
    start, results = threading.Barrier(count), [None] * count

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = task()
        except Exception as exc:  # noqa: BLE001 — the test inspects what each thread got
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def active(db) -> str:
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, ACTOR, "chapada", auth, TODAY)
    dam_payments.record_payment(db, ACTOR, "chapada", dam["id"], TODAY, dam["amount"], "Banco do Brasil")
    return auth


def kinds(db, auth: str) -> list[str]:
    return [e["kind"] for e in authorizations.get_authorization(db, ACTOR, "chapada", auth)["events"]]


# ---- defect 2: no concurrent step is lost ----

def test_eight_concurrent_convocations_keep_eight_events_audits_and_numbers(db):
    auth = active(db)
    results = together(lambda: inspections.call_inspection(db, ACTOR, "chapada", auth, TODAY, "Denúncia"))
    assert not [r for r in results if isinstance(r, Exception)]
    assert kinds(db, auth).count(EventKind.INSPECTION_CALLED.value) == THREADS
    entries = list(db["audit"].find({"doc_id": auth, "action": EventKind.INSPECTION_CALLED.value}))
    assert len(entries) == THREADS
    counter = db["counters"].find_one({"_id": f"chapada/{inspections.CONVOCATION_KIND}/{TODAY.year}"})
    assert counter["seq"] == THREADS  # eight numbers reserved, none skipped
    doc = authorizations.get_authorization(db, ACTOR, "chapada", auth)
    assert doc["version"] >= THREADS
    figures.concurrency("eventos de uma autorização", THREADS, 0)


def test_two_clerks_approving_at_once_give_one_approval(db):
    auth = requested(db, "chapada")
    results = together(lambda: authorizations.approve(db, ACTOR, "chapada", auth, TODAY))
    assert sum(1 for r in results if not isinstance(r, Exception)) == 1
    assert all(isinstance(r, authorization_records.WrongStep) for r in results if isinstance(r, Exception))
    assert kinds(db, auth).count(EventKind.APPROVED.value) == 1
    figures.concurrency("aprovações de um pedido", THREADS, THREADS - 1)


# ---- defect 5: one open authorization per plate and per driver ----

def test_eight_concurrent_requests_for_one_plate_make_one_record(db):
    cpf, plate = register(db, "chapada")
    results = together(lambda: authorizations.request_authorization(db, ACTOR, "chapada", cpf, plate, TODAY))
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(conflicts) == THREADS - 1
    assert all("Já há autorização em andamento" in c.message for c in conflicts)
    assert db["authorizations"].count_documents({"municipality": "chapada", "plate": plate}) == 1
    figures.concurrency("pedidos de uma placa", THREADS, len(conflicts))


def test_a_driver_has_one_open_request_whatever_the_vehicle(db):
    cpf, plate = register(db, "chapada")
    first = authorizations.request_authorization(db, ACTOR, "chapada", cpf, plate, TODAY)
    second = vehicle_values(random.Random(7), cpf, TODAY)
    entities.create(db, ACTOR, "vehicles", "chapada", second)
    with pytest.raises(Conflict, match="condutor"):
        authorizations.request_authorization(db, ACTOR, "chapada", cpf, second["plate"], TODAY)
    assert db["authorizations"].count_documents({"driver_cpf": cpf}) == 1
    authorizations.refuse(db, ACTOR, "chapada", first, TODAY, "Desistência do requerente")
    authorizations.request_authorization(db, ACTOR, "chapada", cpf, second["plate"], TODAY)  # refused frees him


def test_an_expired_authorization_frees_its_plate_for_a_new_request(db, monkeypatch):
    auth = active(db)
    doc = authorizations.get_authorization(db, ACTOR, "chapada", auth)
    with pytest.raises(Conflict, match="placa"):
        authorizations.request_authorization(db, ACTOR, "chapada", doc["driver_cpf"], doc["plate"], TODAY)
    expired = authorizations.status(db, ACTOR, "chapada", auth, TODAY).valid_until + timedelta(days=1)
    monkeypatch.setattr(clock, "today", lambda: expired)
    assert authorizations.status(db, ACTOR, "chapada", auth, expired).status is Status.EXPIRED
    new = authorizations.request_authorization(db, ACTOR, "chapada", doc["driver_cpf"], doc["plate"], expired)
    assert new != auth
    old = db["authorizations"].find_one({"_id": ObjectId(auth)})
    assert authorization_records.OPEN_PLATE not in old and old["status"] == Status.EXPIRED.value
    assert db["audit"].count_documents({"doc_id": auth, "action": "open_keys_released"}) == 1


def test_a_vehicle_cannot_be_substituted_by_a_plate_in_another_open_authorization(db):
    auth = active(db)
    cpf = authorizations.get_authorization(db, ACTOR, "chapada", auth)["driver_cpf"]
    second = vehicle_values(random.Random(9), cpf, TODAY)
    entities.create(db, ACTOR, "vehicles", "chapada", second)
    other_cpf, other_plate = register(db, "chapada", seed=3)
    authorizations.request_authorization(db, ACTOR, "chapada", other_cpf, other_plate, TODAY)
    db["vehicles"].update_one({"plate": other_plate}, {"$set": {"driver_cpf": cpf}})  # sold to the first driver
    with pytest.raises(Conflict, match="placa"):
        authorizations.substitute_vehicle(db, ACTOR, "chapada", auth, other_plate, TODAY, "Venda")
    assert authorizations.get_authorization(db, ACTOR, "chapada", auth)["plate"] != other_plate
    authorizations.substitute_vehicle(db, ACTOR, "chapada", auth, second["plate"], TODAY, "Acidente")
    doc = db["authorizations"].find_one({"_id": ObjectId(auth)})
    assert doc[authorization_records.OPEN_PLATE] == f"chapada/{second['plate']}"


def test_start_up_gives_open_keys_to_older_open_authorizations_once(db):
    auth = requested(db, "chapada")
    refused = requested(db, "chapada", seed=2)
    authorizations.refuse(db, ACTOR, "chapada", refused, TODAY, "Documentação incompleta")
    db["authorizations"].update_many({}, {"$unset": {authorization_records.OPEN_PLATE: "",
                                                     authorization_records.OPEN_DRIVER: ""}})
    authorization_records.prepare(db)
    authorization_records.prepare(db)
    doc = db["authorizations"].find_one({"_id": ObjectId(auth)})
    assert doc[authorization_records.OPEN_PLATE] == f"chapada/{doc['plate']}"
    assert authorization_records.OPEN_PLATE not in db["authorizations"].find_one({"_id": ObjectId(refused)})
    with pytest.raises(Conflict):
        authorizations.request_authorization(db, ACTOR, "chapada", doc["driver_cpf"], doc["plate"], TODAY)


# ---- defects 3 and 12: the fee handler trusts the store and runs once ----

def test_a_forged_paid_dam_issues_nothing(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, ACTOR, "chapada", auth, TODAY)  # issued, never paid
    forged = {**dam, "status": dams.PAID, "payment": {"paid_on": TODAY, "amount": dam["amount"], "notes": []}}
    for fake in (forged, {"pays": {"collection": "authorizations", "id": auth}, "municipality": "chapada",
                          "payment": {"paid_on": TODAY}}, {**forged, "id": str(ObjectId())},
                 dam["charge_id"], str(ObjectId()), "not-an-id"):  # the unpaid charge's id, unknown ids
        fees.fee_paid(db, fake)
    doc = authorizations.get_authorization(db, ACTOR, "chapada", auth)
    assert not doc.get("number") and EventKind.FEE_PAID.value not in kinds(db, auth)
    assert db["counters"].find_one({"_id": f"chapada/{fees.NUMBER_KIND}/{TODAY.year}"}) is None


def test_the_handler_called_twice_for_one_dam_issues_one_number(db):
    auth = active(db)
    [row] = lists.list_all(db, ACTOR, "chapada", lists.DamQuery())
    charge_id = dams.get(db, ACTOR, "chapada", row["id"])["charge_id"]
    fees.fee_paid(db, charge_id)  # handlers get the charge id (issue 19)
    fees.fee_paid(db, charge_id)
    assert kinds(db, auth).count(EventKind.FEE_PAID.value) == 1
    assert db["counters"].find_one({"_id": f"chapada/{fees.NUMBER_KIND}/{TODAY.year}"})["seq"] == 1


@pytest.mark.parametrize("where", ["_save", "audit"], ids=["before the authorization is written",
                                                            "after it, at the audit entry"])
def test_a_handler_interrupted_midway_is_issued_once_on_rerun(db, monkeypatch, where):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, ACTOR, "chapada", auth, TODAY)
    module, name = (authorization_records, "_save") if where == "_save" else (audit, "record")
    original = getattr(module, name)

    def crash(*args, **kwargs):
        if where == "audit" and args[4] == "dams":
            return original(*args, **kwargs)
        monkeypatch.setattr(module, name, original)
        raise RuntimeError("falha injetada")

    monkeypatch.setattr(module, name, crash)
    payments.record_payment(db, ACTOR, "chapada", dam["id"], TODAY, dam["amount"], "Banco do Brasil")
    paid = dams.get(db, ACTOR, "chapada", dam["id"])
    assert paid["status"] == dams.PAID and paid["handlers_pending"]  # the payment stays; its handler is owed
    assert not authorizations.get_authorization(db, ACTOR, "chapada", auth).get("number")
    assert outbox.resume_pending(db) == 1  # the outbox re-runs the handler (at start, or on retry)
    assert outbox.resume_pending(db) == 0
    fees.fee_paid(db, dam["charge_id"])  # a handler run once more changes nothing
    assert kinds(db, auth).count(EventKind.FEE_PAID.value) == 1
    assert authorizations.status(db, ACTOR, "chapada", auth, TODAY).status is Status.ACTIVE
    assert authorizations.get_authorization(db, ACTOR, "chapada", auth)["number"]


def test_record_earlier_payment_needs_a_writer(db):
    from services.shared.errors import PermissionDenied
    from tests.conftest import GABINETE

    auth = inspected(db, "chapada")
    with pytest.raises(PermissionDenied):
        fees.record_earlier_payment(db, GABINETE, "chapada", auth, TODAY)


# ---- issue 9: one parameter load per call, however many authorizations ----

def test_a_list_reads_the_parameters_once(db, monkeypatch):
    for seed in range(1, 4):
        requested(db, "chapada", seed=seed)
    calls = []
    original = parameters.book
    monkeypatch.setattr(parameters, "book", lambda *a: calls.append(a) or original(*a))
    rows = authorization_lists.authorization_rows(db, ACTOR, "chapada", TODAY)
    assert len(rows) == 3 and len(calls) == 1


# ---- defect 14 (token half): any token gets the pt-BR "invalid", never an exception ----

@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(token=st.one_of(st.text(), st.builds(lambda a, b: f"{a}.{b}", st.text(), st.text())))
def test_any_token_is_answered_in_portuguese(db, token):
    try:
        public_check.check(db, token, TODAY)
    except (public_check.InvalidToken, NotFound) as exc:
        assert exc.message
