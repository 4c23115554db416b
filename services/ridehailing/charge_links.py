"""The charge (débito) behind a ride-hailing record: the authorization's fee, the auto's fine, the
ISSQN of a vehicle-month.

A record keeps the id of its charge (``charge_id``) next to its DAM's and asks the stored charge
(:func:`services.dam.charges.load`) whether it is paid, never a DAM or a dict it was given: a paid
2ª via or a DAM issued for what is still open (:mod:`services.dam.rebill`) settles the record as its
first DAM would. A record stored before charges (no ``charge_id``) is matched by its DAM, which the
start-up migration put in a charge.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules.dam import charges as charge_rules
from rules.fmt import brl, day
from services.dam import charges, dams
from services.shared.errors import NotFound

ZERO = Decimal("0")


def owned(db: Database, charge_id: Any, collection: str) -> dict | None:
    """The stored charge ``charge_id`` when it charges a record of ``collection`` (None for an
    unknown or malformed id, or a charge of another kind of record)."""
    try:
        charge = charges.load(db, charge_id)
    except NotFound:
        return None
    return charge if (charge.get("owner") or {}).get("collection") == collection else None


def names(link: dict, charge: dict, dam_key: str) -> bool:
    """Whether the record's ``link`` (fee_dam, fine_dam, the ISSQN month) is of this charge: by its
    ``charge_id``, or, stored before charges, by its DAM being one of the charge's."""
    if link.get("charge_id"):
        return link["charge_id"] == charge["id"]
    return bool(link.get(dam_key)) and any(entry["id"] == link[dam_key] for entry in charge["dams"])


def of_link(db: Database, link: dict, dam_key: str) -> dict | None:
    """The stored charge a record's ``link`` names (its ``charge_id``, or the charge of its DAM)."""
    charge_id = link.get("charge_id")
    if not charge_id and link.get(dam_key) and ObjectId.is_valid(str(link[dam_key])):
        dam = db[dams.COLLECTION].find_one({"_id": ObjectId(str(link[dam_key]))}, {"charge_id": 1})
        charge_id = (dam or {}).get("charge_id")
    if not charge_id:
        return None
    try:
        return charges.load(db, charge_id)
    except NotFound:
        return None


def by_id(db: Database, ids: list[str]) -> dict[str, dict]:
    """The stored charges of many records at once (one query), by id."""
    wanted = [ObjectId(str(i)) for i in {i for i in ids if i} if ObjectId.is_valid(str(i))]
    if not wanted:
        return {}
    return {c["id"]: c for c in map(charges.plain, db[charges.COLLECTION].find({"_id": {"$in": wanted}}))}


def live(charge: dict) -> dict | None:
    """The DAM to pay now (its entry in the charge: id, number, amount, due_on), None when there is none."""
    current = charge.get("live_dam")
    if not current:
        return None
    return next((entry for entry in charge["dams"] if entry["id"] == current["id"]), dict(current))


def settling_payment(charge: dict) -> dict | None:
    """The payment with which the charge became paid in full (None while it is not)."""
    paid, late = ZERO, ZERO
    for payment in charge["payments"]:
        paid, late = paid + payment["amount"], late + (payment.get("late") or ZERO)
        if paid >= charge["principal"] + late:
            return payment
    return None


def reissuable(charge: dict | None) -> bool:
    """The charge is still owed and has no DAM to pay (its DAM was cancelled, or paid short)."""
    return charge is not None and charge["status"] in charge_rules.OWING and charge["open"] > 0 \
        and not charge.get("live_dam")


def dam_payments(db: Database, charge: dict) -> dict[str, dict]:
    """The payment the DAM module stored on each paid DAM of the charge, with its flags and alerts
    (late, amount differing, a difference open, a credit), by DAM id."""
    ids = [ObjectId(p["dam_id"]) for p in charge["payments"] if ObjectId.is_valid(str(p["dam_id"]))]
    found = db[dams.COLLECTION].find({"_id": {"$in": ids}}, {"payment.notes": 1, "payment.flags": 1})
    return {str(doc["_id"]): doc.get("payment") or {} for doc in found}


def standing_text(charge: dict) -> str:
    """What a record's payment line says of its charge: paid (on), paid short (what is missing), the
    DAM to pay (its due date), or waiting for a new DAM."""
    if charge_rules.settled(charge["status"]):
        return f"Pago em {day(charge['paid_on'])}" if charge.get("paid_on") else "Pago"
    if charge["status"] == charge_rules.CANCELLED:
        return "Débito cancelado"
    current = live(charge)
    short = f"Pago a menor: falta {brl(charge['open'])}" if charge["paid"] > 0 else ""
    if current:
        due = f"DAM {current['number']} vence {day(current['due_on'])}" if current.get("due_on") \
            else f"DAM {current['number']}"
        return f"{short}; {due}" if short else due
    return short + "; emitir o DAM da diferença" if short else \
        f"DAM cancelado: {brl(charge['open'])} em aberto, emitir novo DAM"
