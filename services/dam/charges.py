"""Charges (débitos) in the store: what the municipality is owed, the DAMs issued for it and the payments.

Every DAM is a document of one charge (``dam.charge_id``): :func:`services.dam.dams.issue` opens the
charge with its first DAM, a 2ª via (:mod:`services.dam.reissue`) and a DAM for a difference left
open (:func:`services.dam.dams.issue_for_charge`) join it. Paying any of them is a payment of the
charge (:func:`record_payment`, called by :mod:`services.dam.payments` in the unit of work that marks
the DAM paid): the standing — status, paid, open, credit — comes from ``rules/dam/charges.py``.
What a payment means for the record the charge belongs to (the authorization's fee, the auto's
fine, the booking's advance) is that module's handler, run by the DAM outbox with the charge's id,
which re-reads the stored charge (:func:`load`).

A later act may abate part of the principal (:func:`abate`: a booking settled on the hours executed)
and a credit owed back is refunded through the charge (:func:`record_refund`), never beside it.

Writes are atomic: ``$push`` of a DAM or a payment and ``$set`` of the standing in one update
conditional on the charge's ``version``; a lost race raises :class:`ChargeChanged` and the unit of
work is undone.
"""
from __future__ import annotations

import weakref
from datetime import date
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.dam import charges as rules
from services.shared import clock, views
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, ServiceError
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

COLLECTION = "charges"
INDEXES = {
    COLLECTION: [
        # delinquency: the open overdue charges of one taxpayer (NL art. 8 §4; "quite com a Fazenda")
        ([("municipality", 1), ("taxpayer.document", 1), ("status", 1), ("due_on", 1)], {"name": "i_charge_taxpayer"}),
        # the Débitos page and the aging: open charges by status and due date
        ([("municipality", 1), ("status", 1), ("due_on", 1)], {"name": "i_charge_status_due"}),
        ([("owner.collection", 1), ("owner.id", 1)], {"name": "i_charge_owner"}),
    ]
}
OWING = rules.OWING


class ChargeChanged(ServiceError):
    """The charge changed between reading and writing it (another payment, another clerk)."""


_prepared: weakref.WeakSet = weakref.WeakSet()


def prepare(db: Database) -> None:
    """Create the charges' indexes once per database handle."""
    if db in _prepared:
        return
    ensure_indexes(db, INDEXES)
    _prepared.add(db)


def _oid(charge_id: Any) -> ObjectId:
    try:
        return ObjectId(str(charge_id))
    except (InvalidId, TypeError):
        raise NotFound("Débito não encontrado.") from None


def plain(doc: dict) -> dict:
    """A stored charge as plain values, with ``id``."""
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    for key in ("due_on", "issued_on", "paid_on"):
        if key in doc:
            doc[key] = parse_date(doc[key])
    for entry in doc.get("dams", []):
        entry["due_on"] = parse_date(entry.get("due_on"))
    for entry in doc.get("payments", []):
        entry["paid_on"] = parse_date(entry.get("paid_on"))
    for entry in doc.get("refunds", []):
        entry["refunded_on"] = parse_date(entry.get("refunded_on"))
    if doc.get("inscription"):
        doc["inscription"]["on"] = parse_date(doc["inscription"].get("on"))
    return doc


def load(db: Database, charge_id: Any, municipality: str | None = None) -> dict:
    """The charge as stored (never a caller's copy); one of another municipality is not found."""
    doc = db[COLLECTION].find_one({"_id": _oid(charge_id)})
    if doc is None or (municipality is not None and doc.get("municipality") != municipality):
        raise NotFound("Débito não encontrado.")
    return plain(doc)


@checked
def get(db: Database, actor: Actor, municipality: str, charge_id: str) -> dict:
    """One charge of the municipality, as plain values (the DAM page and the Débitos page show it)."""
    authorize(actor, "read", municipality)
    return load(db, charge_id, municipality)


def of_owner(db: Database, municipality: str, collection: str, owner_id: str) -> list[dict]:
    """The charges of one record (by index), oldest first."""
    found = db[COLLECTION].find({"owner.collection": collection, "owner.id": str(owner_id),
                                 "municipality": municipality}).sort("_id", 1)
    return [plain(doc) for doc in found]


def dam_entry(dam: dict) -> dict:
    """What the charge keeps of one of its DAMs."""
    return {"id": dam["id"], "number": dam["number"], "via": int((dam.get("replaces") or {}).get("via", 1)),
            "amount": dam["amount"], "fine": dam.get("fine") or Decimal("0"),
            "interest": dam.get("interest") or Decimal("0"), "due_on": dam["due_on"],
            "issued_on": dam.get("issued_on"), "kind": dam.get("charge_role", "original")}


def open_charge(db: Database, municipality: str, clean: dict, due_on: date, issued_on: date, revenue_code: str,
                reference: str, by: str) -> str:
    """Insert the charge of a DAM about to be issued (inside the issue's unit of work); its id."""
    prepare(db)
    principal = clean["amount"] - clean["discount"]
    state = rules.standing(principal, Decimal("0"), Decimal("0"))
    now = clock.now_utc()
    doc = {
        "municipality": municipality,
        "owner": clean.get("pays"),
        "taxpayer": {"name": clean["taxpayer_name"], "document": clean["taxpayer_document"],
                     "address": clean["taxpayer_address"]},
        "revenue_kind": clean["revenue_kind"], "revenue_code": revenue_code,
        "description": clean["description"], "legal_basis": clean["legal_basis"], "reference": reference,
        "principal": principal, "discount": clean["discount"], "issued_on": issued_on, "due_on": due_on,
        "late": Decimal("0"), "paid": Decimal("0"), "open": state.open, "credit": Decimal("0"),
        "status": state.status, "paid_on": None, "live_dam": None, "dams": [], "payments": [],
        "inscription": None, "version": 1, "created_at": now, "created_by": by,
    }
    charge_id = str(insert_one(db[COLLECTION], encode(doc)))
    views.touched(db, municipality, COLLECTION, charge_id)  # a charge has no audit entry of its own
    return charge_id


def _write(db: Database, charge: dict, changes: dict, push: dict | None = None) -> None:
    """Set ``changes`` (and push) only if the charge is still at the version read."""
    update: dict[str, Any] = {"$set": encode({**changes, "updated_at": clock.now_utc()}), "$inc": {"version": 1}}
    if push:
        update["$push"] = encode(push)
    done = db[COLLECTION].update_one({"_id": _oid(charge["id"]), "version": charge["version"]}, update)
    if done.modified_count != 1:
        raise ChargeChanged("O débito mudou enquanto era atualizado; confira e tente de novo.")
    views.touched(db, charge.get("municipality"), COLLECTION, charge["id"])


def attach_dam(db: Database, charge_id: str, dam: dict) -> None:
    """A DAM issued for the charge (its first, a 2ª via, one for a difference) becomes the live one."""
    charge = load(db, charge_id)
    entry = dam_entry(dam)
    _write(db, charge, {"live_dam": {"id": entry["id"], "number": entry["number"]}}, push={"dams": entry})


def dam_cancelled(db: Database, charge_id: str | None, dam_id: str) -> None:
    """A DAM of the charge was cancelled: the charge stays owed and, if that DAM was its live one, waits
    for a new DAM (the record it belongs to keeps its place)."""
    if not charge_id:
        return
    charge = load(db, charge_id)
    if (charge.get("live_dam") or {}).get("id") == dam_id:
        _write(db, charge, {"live_dam": None})


def late_of(charge: dict, dam: dict) -> Decimal:
    """The multa and juros a payment of ``dam`` adds to what the charge owes: those the DAM carries,
    while the charge is still owed (paid already, a later payment is all credit)."""
    if charge["status"] not in OWING:
        return Decimal("0")
    return (dam.get("fine") or Decimal("0")) + (dam.get("interest") or Decimal("0"))


def withdraw(db: Database, charge_id: str | None, dam_id: str) -> None:
    """Cancelling ``dam_id`` also withdraws its charge: the amount was not owed (a DAM issued by mistake
    or twice). A charge that received a payment is not withdrawn (that money is refunded or kept)."""
    if not charge_id:
        return
    charge = load(db, charge_id)
    if charge["payments"]:
        raise ServiceError("O débito deste DAM já recebeu pagamento e não pode ser cancelado; cancele só o DAM "
                           "e trate a diferença ou a restituição.")
    state = rules.standing(charge["principal"], charge["late"], charge["paid"], cancelled=True)
    _write(db, charge, {"status": state.status, "open": state.open, "live_dam": None})


def principal_owed(charge: dict) -> Decimal:
    """The principal still owed: less what an act abated after the charge was opened (a settlement
    on the quantity executed, NL Decreto 017/2026 art. 8 §2)."""
    return charge["principal"] - (charge.get("abated") or Decimal("0"))


def abate(db: Database, charge_id: str, amount: Decimal, reason: str, by: str) -> dict:
    """Part of the principal is no longer owed (``amount``, with its reason): what was paid beyond
    the rest becomes a credit owed back to the taxpayer, what was not paid is owed no more. Returns
    the charge as it ends."""
    charge = load(db, charge_id)
    if not 0 < amount <= principal_owed(charge):
        raise ServiceError(f"Abatimento de {amount} fora do valor do débito.")
    abated = (charge.get("abated") or Decimal("0")) + amount
    state = rules.standing(charge["principal"] - abated, charge["late"], charge["paid"],
                           inscribed=bool(charge.get("inscription")))
    entry = {"amount": amount, "reason": reason, "by": by, "recorded_at": clock.now_utc()}
    _write(db, charge, {"abated": abated, "open": state.open, "credit": state.credit, "status": state.status},
           push={"abatements": entry})
    return load(db, charge_id)


def record_refund(db: Database, charge_id: str, amount: Decimal, refunded_on: date, note: str, by: str) -> dict:
    """The credit owed back was paid to the taxpayer (restituição): the refund leaves what was paid,
    and the credit, by ``amount`` (at most the credit). Returns the charge as it ends."""
    charge = load(db, charge_id)
    if not 0 < amount <= charge["credit"]:
        raise ServiceError(f"O débito não tem crédito de {amount} a restituir (crédito atual: {charge['credit']}).")
    paid = charge["paid"] - amount
    state = rules.standing(principal_owed(charge), charge["late"], paid, inscribed=bool(charge.get("inscription")))
    entry = {"amount": amount, "refunded_on": refunded_on, "note": note, "by": by, "recorded_at": clock.now_utc()}
    _write(db, charge, {"paid": paid, "refunded": (charge.get("refunded") or Decimal("0")) + amount,
                        "open": state.open, "credit": state.credit, "status": state.status},
           push={"refunds": entry})
    return load(db, charge_id)


def record_payment(db: Database, charge_id: str, dam: dict, payment: dict) -> dict:
    """Count ``payment`` of ``dam`` (read from the store by the caller, in its unit of work) on the
    charge: its late charges join what is owed, the standing is recomputed. A DAM's payment is
    counted once (a retry changes nothing). Returns the charge as it ends."""
    charge = load(db, charge_id)
    if any(p["dam_id"] == dam["id"] for p in charge["payments"]):
        return charge
    late = charge["late"] + late_of(charge, dam)
    paid = charge["paid"] + payment["amount"]
    state = rules.standing(principal_owed(charge), late, paid, inscribed=bool(charge.get("inscription")),
                           cancelled=charge["status"] == rules.CANCELLED)
    entry = {"dam_id": dam["id"], "dam_number": dam["number"], "amount": payment["amount"],
             "paid_on": payment["paid_on"], "late": late - charge["late"], "origin": payment["origin"]["kind"],
             "recorded_at": payment["recorded_at"]}
    live = charge.get("live_dam")
    if live and (live["id"] == dam["id"] or state.status == rules.PAID):
        live = None  # the paid DAM is spent; a settled charge has no DAM left to pay
    changes = {"late": late, "paid": paid, "open": state.open, "credit": state.credit, "status": state.status,
               "live_dam": live}
    if state.status == rules.PAID and not charge.get("paid_on"):
        changes["paid_on"] = payment["paid_on"]
    _write(db, charge, changes, push={"payments": entry})
    return load(db, charge_id)


def set_inscription(db: Database, charge: dict, inscription: dict) -> None:
    """Mark an open charge inscribed in dívida ativa (conditional on the version read)."""
    state = rules.standing(principal_owed(charge), charge["late"], charge["paid"], inscribed=True)
    _write(db, charge, {"inscription": inscription, "status": state.status})


def overdue_of(db: Database, municipality: str, document: str, today: date) -> list[dict]:
    """The taxpayer's charges still owed and past their due date, read by index (delinquency)."""
    prepare(db)
    found = db[COLLECTION].find({"municipality": municipality, "taxpayer.document": document,
                                 "status": {"$in": list(OWING)}, "due_on": {"$lt": encode(today)}})
    return [plain(doc) for doc in found]
