"""Moving a store written before the charges over (services.dam.charge_migration): the DAMs are stored
as the code before the charges wrote them (no ``charge_id``), every chain gets one charge, the
records that name a DAM get its charge, the digest of amounts is the same before and after, and a
second run changes nothing."""
from __future__ import annotations

import itertools
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from bson import ObjectId

from rules.dam import charges as charge_rules
from services.dam import charge_migration, charges, rebill
from services.dam.charge_migration import Digest, MigrationMismatch
from services.setup import bootstrap
from services.store import decode, encode, insert_one

NUMBERS = itertools.count(1)
AT = datetime(2026, 1, 10, 14, 0, tzinfo=timezone.utc)
D = Decimal


def old_dam(db, *, mun="matupa", amount="225.00", discount="0.00", fine="0.00", interest="0.00",
            issued=date(2026, 1, 5), due=date(2026, 1, 20), status="emitido", paid=None, paid_on=None,
            pays=None, description="Taxa de autorização do transporte por aplicativo", replaces=None,
            chain_root=None, replaced_by=None, revenue_code="1121.01.01", **extra) -> dict:
    """A DAM document as the code before the charges stored it (services/dam/dams.py at 9cb3349)."""
    n = next(NUMBERS)
    payment = None if paid is None else {
        "paid_on": paid_on or due, "amount": D(paid), "bank": "Banco do Brasil", "origin": {"kind": "manual"},
        "flags": [] if D(paid) == D(amount) + D(fine) + D(interest) else ["valor_divergente"], "notes": [],
        "recorded_at": AT, "recorded_by": "sec.mp"}
    principal = D(amount)
    doc = {
        "municipality": mun, "number": f"{n:04d}/2026", "year": 2026, "sequence": n,
        "taxpayer_name": "Maria da Silva Souza", "taxpayer_document": "52998224725",
        "taxpayer_address": "Rua dos Ipês, 120, Centro", "revenue_kind": "taxa_autorizacao",
        "description": description, "legal_basis": "Lei Municipal 1.552/2025 (Matupá), art. 9º",
        "amount": principal - D(discount) + D(fine) + D(interest), "principal": principal, "discount": D(discount),
        "fine": D(fine), "interest": D(interest), "reference": "2026", "revenue_code": revenue_code,
        "after_due": "", "issued_on": issued, "requested_due": due, "due_on": due, "due_note": "",
        "barcode": f"8{n:043d}", "line": f"8{n:047d}", "pix_payload": None, "instructions": [], "pays": pays,
        **({"replaces": replaces, "chain_root": replaces["chain_root"]} if replaces else {}),
        **({"chain_root": chain_root} if chain_root and not replaces else {}),
        **({"replaced_by": replaced_by} if replaced_by else {}),
        "status": status, "history": [{"at": AT, "status": "emitido", "by": "sec.mp", "note": "Emitido"}],
        "payment": payment, "cancel_reason": "Substituído" if status == "cancelado" else None,
        "created_at": AT, "created_by": "sec.mp", **extra,
    }
    doc["_id"] = insert_one(db["dams"], encode(doc))
    return {**doc, "id": str(doc["_id"])}


def chain(db, *, paid_second: str | None = "238.50", **kw) -> tuple[dict, dict]:
    """An original replaced by its 2ª via (with multa and juros), as reissue stored them."""
    first_id = ObjectId()
    root = str(first_id)
    second = old_dam(db, amount="225.00", fine="4.50", interest="9.00", issued=date(2026, 2, 2),
                     due=date(2026, 2, 10), status="pago" if paid_second else "emitido", paid=paid_second,
                     paid_on=date(2026, 2, 9) if paid_second else None,
                     replaces={"id": root, "number": "x", "via": 2, "chain_root": root,
                               "due_on": "2026-01-20", "principal": D("225.00")}, **kw)
    first = old_dam(db, status="cancelado", chain_root=root, replaced_by={"id": second["id"], "number": second["number"]},
                    _id=first_id, **kw)
    return first, second


def stored_charge(db, dam: dict) -> dict:
    raw = decode(db["dams"].find_one({"_id": ObjectId(dam["id"])}))
    return charges.load(db, raw["charge_id"])


def test_a_dam_alone_becomes_a_charge_due_when_it_was(db):
    dam = old_dam(db, amount="150.00", discount="10.00", due=date(2026, 1, 20))
    report = charge_migration.migrate(db)
    charge = stored_charge(db, dam)
    assert (charge["principal"], charge["discount"], charge["open"], charge["status"]) == (
        D("140.00"), D("10.00"), D("140.00"), charge_rules.OPEN)
    assert charge["due_on"] == date(2026, 1, 20) and charge["live_dam"] == {"id": dam["id"], "number": dam["number"]}
    assert charge["taxpayer"]["document"] == "52998224725" and charge["revenue_code"] == "1121.01.01"
    assert [d["id"] for d in charge["dams"]] == [dam["id"]] and charge["payments"] == []
    assert report.charges_created == 1 and report.dams_linked == 1 and report.matches
    assert report.before["matupa"] == Digest(1, D("140.00"), D("0"))


def test_a_2a_via_chain_is_one_charge_paid_with_its_late_charges(db):
    first, second = chain(db)
    charge_migration.migrate(db)
    charge = stored_charge(db, first)
    assert stored_charge(db, second)["id"] == charge["id"]
    assert [(d["id"], d["kind"]) for d in charge["dams"]] == [(first["id"], "original"), (second["id"], "2a_via")]
    assert charge["principal"] == D("225.00") and charge["late"] == D("13.50") and charge["paid"] == D("238.50")
    assert charge["status"] == charge_rules.PAID and charge["paid_on"] == date(2026, 2, 9)
    assert charge["live_dam"] is None and charge["due_on"] == date(2026, 1, 20)
    assert [(p["dam_id"], p["amount"], p["late"]) for p in charge["payments"]] == [(second["id"], D("238.50"), D("13.50"))]
    roles = {d["_id"]: d["charge_role"] for d in db["dams"].find({}, {"charge_role": 1})}
    assert roles == {first["_id"]: "original", second["_id"]: "2a_via"}


def test_an_unpaid_2a_via_is_the_live_dam_of_the_charge(db):
    first, second = chain(db, paid_second=None)
    charge_migration.migrate(db)
    charge = stored_charge(db, first)
    assert charge["status"] == charge_rules.OPEN and charge["live_dam"]["id"] == second["id"]
    assert charge["open"] == D("225.00") and charge["late"] == D("0")  # late charges count once paid


def test_an_old_short_payment_leaves_the_difference_open_for_a_new_dam(db):
    """Issue 19, item 2: the old code stored R$ 100,00 on a R$ 225,00 DAM as paid; its charge is pago a menor."""
    dam = old_dam(db, status="pago", paid="100.00", paid_on=date(2026, 1, 15))
    charge_migration.migrate(db)
    charge = stored_charge(db, dam)
    assert (charge["status"], charge["paid"], charge["open"], charge["live_dam"]) == (
        charge_rules.SHORT, D("100.00"), D("125.00"), None)
    assert rebill.issuable(charge)


def test_a_cancelled_dam_leaves_its_records_charge_owed_and_a_payment_after_cancelling_counts(db):
    booking = {"collection": "booking_requests", "id": str(ObjectId()), "label": "Pedido de serviço 0001/2026"}
    cancelled = old_dam(db, status="cancelado", pays=booking)
    by_hand = old_dam(db, amount="90.00", status="cancelado")
    paid_at_bank = old_dam(db, amount="80.00", status="cancelado", paid="80.00", paid_on=date(2026, 1, 19))
    charge_migration.migrate(db)
    reopened, settled = stored_charge(db, cancelled), stored_charge(db, paid_at_bank)
    assert reopened["status"] == charge_rules.OPEN and reopened["live_dam"] is None and rebill.issuable(reopened)
    assert settled["status"] == charge_rules.PAID and settled["paid"] == D("80.00")
    # a DAM typed by hand and cancelled was voided (the only way before charges): its charge is withdrawn
    withdrawn = stored_charge(db, by_hand)
    assert (withdrawn["status"], withdrawn["open"]) == (charge_rules.CANCELLED, D("0"))


def test_a_fee_complement_joins_the_charge_of_the_dam_paid_short(db):
    auth = {"collection": "authorizations", "id": str(ObjectId()), "label": "Autorização MP-0001/2026"}
    short = old_dam(db, status="pago", paid="100.00", paid_on=date(2026, 1, 15), pays=auth)
    complement = old_dam(db, amount="125.00", status="pago", paid="125.00", paid_on=date(2026, 1, 30), pays=auth,
                         issued=date(2026, 1, 16), due=date(2026, 2, 5),
                         description=f"Complementação (DAM {short['number']} pago a menor) da taxa de expedição")
    report = charge_migration.migrate(db)
    charge = stored_charge(db, short)
    assert stored_charge(db, complement)["id"] == charge["id"] and report.charges_created == 1
    assert (charge["principal"], charge["paid"], charge["status"], charge["paid_on"]) == (
        D("225.00"), D("225.00"), charge_rules.PAID, date(2026, 1, 30))
    assert [d["kind"] for d in charge["dams"]] == ["original", "diferenca"]
    assert report.before["matupa"] == Digest(2, D("225.00"), D("225.00")) == report.after["matupa"]


def test_a_complement_of_another_record_is_a_charge_of_its_own(db):
    short = old_dam(db, status="pago", paid="100.00", pays={"collection": "authorizations", "id": "a1", "label": ""})
    other = old_dam(db, amount="125.00", pays={"collection": "authorizations", "id": "a2", "label": ""},
                    description=f"Complementação (DAM {short['number']} pago a menor) da taxa")
    assert charge_migration.migrate(db).charges_created == 2
    assert stored_charge(db, short)["id"] != stored_charge(db, other)["id"]


def old_records(db, fee: dict, fine: dict, issqn: dict, advance: dict, balance: dict) -> dict[str, ObjectId]:
    """Records as the modules stored them before the charges, each naming its DAM."""
    return {
        "authorizations": insert_one(db["authorizations"], encode({
            "municipality": "matupa", "protocol": "MP-0001/2026",
            "fee_dam": {"dam_id": fee["id"], "number": fee["number"], "amount": D("225.00"), "purpose": "initial",
                        "paid": False, "fee_total": D("225.00"), "received": [], "short": None}})),
        "autos": insert_one(db["autos"], encode({
            "municipality": "matupa", "number": "0001/2026", "version": 3,
            "fine_dam": {"id": fine["id"], "number": fine["number"], "amount": D("225.00"), "paid": False}})),
        "platform_issqn": insert_one(db["platform_issqn"], encode({
            "municipality": "matupa", "competence": "2026-01", "dam_id": issqn["id"], "dam_number": issqn["number"],
            "paid_on": None, "version": 2})),
        "booking_requests": insert_one(db["booking_requests"], encode({
            "municipality": "matupa", "protocol": "NL-1", "version": 5,
            "payment": {"instalments": [
                {"key": "adiantamento", "dam_id": advance["id"], "dam_number": advance["number"], "paid_on": None},
                {"key": "saldo", "dam_id": None, "dam_number": None, "paid_on": None}]},
            "settlement": {"dam_id": balance["id"], "dam_number": balance["number"], "paid_on": None}})),
    }


def test_the_records_that_name_a_dam_get_its_charge_beside_it(db):
    fee_first, fee_2a_via = chain(db, paid_second=None)
    fine, issqn, advance, balance = (old_dam(db) for _ in range(4))
    ids = old_records(db, fee_first, fine, issqn, advance, balance)
    report = charge_migration.migrate(db)
    get = {name: decode(db[name].find_one({"_id": oid})) for name, oid in ids.items()}
    assert get["authorizations"]["fee_dam"]["charge_id"] == stored_charge(db, fee_2a_via)["id"]
    assert get["authorizations"]["fee_dam"]["dam_id"] == fee_first["id"]  # kept for the screens
    assert get["authorizations"]["version"] == 1
    assert get["autos"]["fine_dam"]["charge_id"] == stored_charge(db, fine)["id"] and get["autos"]["version"] == 4
    assert get["platform_issqn"]["charge_id"] == stored_charge(db, issqn)["id"]
    booking = get["booking_requests"]
    assert booking["payment"]["instalments"][0]["charge_id"] == stored_charge(db, advance)["id"]
    assert "charge_id" not in booking["payment"]["instalments"][1]
    assert booking["settlement"]["charge_id"] == stored_charge(db, balance)["id"] and booking["version"] == 7
    assert report.records_linked == {"authorizations": 1, "autos": 1, "platform_issqn": 1, "booking_requests": 2}
    notes = [a["note"] for a in db["audit"].find({"collection": "booking_requests"})]
    assert len(notes) == 2 and all("migração" in n for n in notes)


def test_a_second_run_creates_nothing_and_changes_nothing(db):
    chain(db)
    dam = old_dam(db, status="pago", paid="100.00")
    old_records(db, dam, dam, dam, dam, dam)
    first = charge_migration.migrate(db)
    snapshot = {name: sorted(map(str, db[name].find({}))) for name in ("charges", "dams", "authorizations", "autos",
                                                                       "platform_issqn", "booking_requests", "audit")}
    again = charge_migration.migrate(db)
    assert first.charges_created == 2 and again.charges_created == 0 and again.before is None
    assert snapshot == {name: sorted(map(str, db[name].find({}))) for name in snapshot}
    db["meta"].delete_one({"_id": charge_migration.MARKER})  # a run interrupted before its end: checked again
    third = charge_migration.migrate(db)
    assert third.charges_created == 0 and third.matches and third.before == first.before
    assert db["charges"].count_documents({}) == 2


def test_the_digest_is_per_municipality_and_counts_every_dam_and_payment(db):
    chain(db)
    old_dam(db, mun="chapada", amount="50.00", status="pago", paid="60.00")
    report = charge_migration.migrate(db)
    assert report.before == report.after == {
        "matupa": Digest(2, D("225.00"), D("238.50")), "chapada": Digest(1, D("50.00"), D("60.00"))}
    chapada = decode(db["dams"].find_one({"municipality": "chapada"}))
    assert charges.load(db, chapada["charge_id"])["credit"] == D("10.00")  # paid over: owed back


def test_amounts_that_do_not_add_up_stop_the_start_and_link_nothing(db, monkeypatch):
    dam = old_dam(db)
    old_records(db, dam, dam, dam, dam, dam)
    real = charge_migration.charge_of
    monkeypatch.setattr(charge_migration, "charge_of",
                        lambda *a, **k: {**real(*a, **k), "principal": D("1.00")})
    with pytest.raises(MigrationMismatch, match="não fecha em matupa") as refused:
        charge_migration.migrate(db)
    assert refused.value.report.before["matupa"].principal == D("225.00")
    assert refused.value.report.after["matupa"].principal == D("1.00")
    assert "charge_id" not in decode(db["autos"].find_one({}))["fine_dam"]
    assert db["meta"].find_one({"_id": charge_migration.MARKER}) is None


def test_a_chain_partly_moved_already_is_left_out_and_refused(db):
    first, _second = chain(db, paid_second=None)
    db["dams"].update_one({"_id": first["_id"]}, {"$set": {"charge_id": str(ObjectId())}})
    with pytest.raises(MigrationMismatch, match="já tem débito"):
        charge_migration.migrate(db)
    assert db["charges"].count_documents({}) == 0


def test_a_group_moved_by_another_process_meanwhile_is_written_once(db, monkeypatch):
    dam = old_dam(db)
    real_charge_of, real_write = charge_migration.charge_of, charge_migration._write

    def other_process_first(group, known, by):
        charge = real_charge_of(group, known, by)
        real_write(db, group, charge)  # another start wrote this group between our read and our write
        return charge

    monkeypatch.setattr(charge_migration, "charge_of", other_process_first)
    report = charge_migration.migrate(db)
    assert report.charges_created == 0 and report.matches
    assert db["charges"].count_documents({}) == 1 and stored_charge(db, dam)["principal"] == D("225.00")


def test_a_document_that_is_not_a_dam_is_left_out_without_stopping(db):
    db["dams"].insert_one({"number": "0001/2026"})
    old_dam(db)
    report = charge_migration.migrate(db)
    assert report.charges_created == 1 and report.matches
    assert any("não é um DAM" in line for line in report.lines())


def test_the_start_up_moves_the_old_dams_over_and_is_idempotent(db):
    first, _second = chain(db)
    bootstrap.prepare(db)
    charge = stored_charge(db, first)
    bootstrap.prepare(db)
    assert db["charges"].count_documents({}) == 1 and stored_charge(db, first) == charge
    assert db["dams"].count_documents({"charge_id": None}) == 0
