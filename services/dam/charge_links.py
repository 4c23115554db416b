"""The records written before the charges that name a DAM get its charge beside it (``charge_id``).

Part of the move to the charges (:mod:`services.dam.charge_migration`), run once every DAM has its
charge. Each record keeps the DAM it names (``dam_id``, the fee's, the fine's...), for its screens,
and gets ``charge_id`` next to it, so a paid 2ª via or a DAM for what a charge still owes settles it.
The DAM module knows these records only by their collection and field names, written here as data
(the modules that own them sit above it). Each write is conditional on the DAM the record still
names and on the field being unset, bumps the record's ``version`` (a writer that read it before
reads it again) and goes with its audit entry in one unit of work.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from services import store
from services.dam import dams
from services.shared import audit
from services.shared.auth import SYSTEM

BATCH = 500


@dataclass(frozen=True)
class Link:
    """Where a record names a DAM: ``dam_field`` holds the DAM's id, ``charge_field`` gets the charge's
    (dotted paths inside ``collection``); ``array`` names a list of such entries."""

    collection: str
    dam_field: str
    charge_field: str
    array: str = ""


LINKS = (
    Link("authorizations", "fee_dam.dam_id", "fee_dam.charge_id"),  # services.ridehailing.fees
    Link("autos", "fine_dam.id", "fine_dam.charge_id"),  # services.ridehailing.enforcement.penalties
    Link("platform_issqn", "dam_id", "charge_id"),  # services.ridehailing.issqn
    Link("booking_requests", "settlement.dam_id", "settlement.charge_id"),  # services.machinery.execution
    Link("booking_requests", "dam_id", "charge_id", array="payment.instalments"),  # services.machinery.payment
)


def _get(doc: dict, path: str):
    for part in path.split("."):
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def _targets(db: Database, link: Link) -> Iterator[tuple[dict, str, str, str]]:
    """(record, path of the DAM id, path of the charge id, DAM id) of every entry still without a charge."""
    if link.array:
        query = {link.array: {"$exists": True}}  # entries without a DAM beside them: picked out below
        projection = {"municipality": 1, link.array: 1}
    else:
        query = {link.dam_field: {"$nin": [None, ""]}, link.charge_field: None}
        projection = {"municipality": 1, link.dam_field: 1}
    for doc in db[link.collection].find(query, projection):
        if not link.array:
            yield doc, link.dam_field, link.charge_field, str(_get(doc, link.dam_field))
            continue
        for index, entry in enumerate(_get(doc, link.array) or []):
            if isinstance(entry, dict) and entry.get(link.dam_field) and not entry.get(link.charge_field):
                yield (doc, f"{link.array}.{index}.{link.dam_field}", f"{link.array}.{index}.{link.charge_field}",
                       str(entry[link.dam_field]))


def _charges_of(db: Database, dam_ids: list[str]) -> dict[str, str]:
    """The charge of each DAM (by id), in one read per batch."""
    oids = []
    for dam_id in dam_ids:
        try:
            oids.append(ObjectId(dam_id))
        except (InvalidId, TypeError):
            continue
    found = db[dams.COLLECTION].find({"_id": {"$in": oids}, "charge_id": {"$ne": None}}, {"charge_id": 1})
    return {str(d["_id"]): str(d["charge_id"]) for d in found}


def link_records(db: Database) -> dict[str, int]:
    """Put ``charge_id`` beside every DAM id a record names; how many entries per collection."""
    counts: dict[str, int] = {}
    for link in LINKS:
        targets = list(_targets(db, link))
        for start in range(0, len(targets), BATCH):
            batch = targets[start:start + BATCH]
            charge_of = _charges_of(db, [t[3] for t in batch])
            for doc, dam_path, charge_path, dam_id in batch:
                charge_id = charge_of.get(dam_id)
                if charge_id and _link(db, link.collection, doc, dam_path, charge_path, dam_id, charge_id):
                    counts[link.collection] = counts.get(link.collection, 0) + 1
    return counts


def _link(db: Database, collection: str, doc: dict, dam_path: str, charge_path: str, dam_id: str,
          charge_id: str) -> bool:
    with store.transaction(db):
        done = db[collection].update_one({"_id": doc["_id"], dam_path: dam_id, charge_path: None},
                                         {"$set": {charge_path: charge_id}, "$inc": {"version": 1}})
        if done.modified_count != 1:
            return False
        audit.record(db, SYSTEM, doc.get("municipality"), "update", collection, doc["_id"], {charge_path: None},
                     {charge_path: charge_id}, note="Débito do DAM vinculado ao registro (migração para os débitos)")
    return True
