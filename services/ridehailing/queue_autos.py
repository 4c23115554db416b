"""The autos de infração's part of Pendências kept as data (issue 21), beside the authorizations' part
(``queue_view``): each open auto's items (notify, join the notice, the defence term, decide, the fine
and its DAM, a suspension ending, a recurrence to review) are documents of ``work_queue`` written in
the same unit of work as the change that moves them — the auto itself, or the charge or DAM of its
fine. Computing them for every open auto on each render took 0,7 s at 30.000 autos.

Like an authorization, an auto keeps in ``work_queue_sources`` (``_id`` ``auto:<id>``) the day its
items must be computed again without a write: the day after its defence term or a suspension ends.
"""
from __future__ import annotations

from datetime import date, timedelta

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from services.ridehailing import queue_pages
from services.ridehailing.enforcement import autos
from services.ridehailing.enforcement import lists as auto_lists
from services.ridehailing.queue_item import SOURCES, item_row

PREFIX = "auto:"
MAX_AHEAD = timedelta(days=7)  # as the authorizations': computed again at least once a week


def source_id(auto_id: str) -> str:
    return PREFIX + auto_id


def _object_ids(ids: list[str]) -> list[ObjectId]:
    found = []
    for text in ids:
        try:
            found.append(ObjectId(text))
        except (InvalidId, TypeError):  # not an auto's id: it has no items
            continue
    return found


def refresh(db: Database, municipality: str, ids: list[str], on: date) -> None:
    """Compute again the items of the autos ``ids`` (removed ones drop theirs)."""
    if not ids:
        return
    rules, book, calendar = auto_lists.scope_of(db, municipality, on)
    docs = auto_lists.open_autos(db, {"_id": {"$in": _object_ids(ids)}})
    charges = auto_lists.fine_charges(db, docs)
    rows, sources = [], []
    for doc in docs:
        charge = charges.get((doc.get("fine_dam") or {}).get("charge_id") or "")
        found, dates = auto_lists.auto_items(doc, on, rules, book, calendar, charge)
        rows += [item_row(municipality, item.due, item.kind, item.message, item.reference,
                          protocol=f"Auto {doc['number']}", plate=doc.get("plate") or "",
                          driver_cpf=doc.get("driver_cpf") or "", horizoned=item.horizoned,
                          late_able=item.kind not in auto_lists.NEVER_LATE, auto_id=doc["id"]) for item in found]
        ahead = [d for d in dates if d >= on]
        when = min(min(ahead) + timedelta(days=1), on + MAX_AHEAD) if ahead else on + MAX_AHEAD
        sources.append((doc["id"], when) if found else (doc["id"], None))
    queue_pages.replace(db, municipality, "auto_id", ids, rows)
    kept = {auto_id for auto_id, when in sources if when is not None}
    db[SOURCES].delete_many({"_id": {"$in": [source_id(i) for i in ids if i not in kept]}})
    for auto_id, when in sources:
        if when is not None:  # a closed auto with nothing pending is never computed again by time alone
            db[SOURCES].update_one({"_id": source_id(auto_id)}, {"$set": {"municipality": municipality,
                                                                         "refresh_on": when.isoformat()}}, upsert=True)


def of_charge(db: Database, charge_id: str) -> list[str]:
    """The autos whose fine is the charge ``charge_id`` (an index on ``fine_dam.charge_id``)."""
    return [str(a["_id"]) for a in db[autos.COLLECTION].find({"fine_dam.charge_id": charge_id}, {"_id": 1})]


def rebuild(db: Database, municipality: str, on: date) -> None:
    """Every auto's items of the municipality, from scratch (the queue's own documents already gone)."""
    query = {"municipality": municipality, "$or": [{"stage": {"$in": list(auto_lists.OPEN_STAGES)}},
                                                    {"recurrence_review.open": True}]}
    ids = [str(a["_id"]) for a in db[autos.COLLECTION].find(query, {"_id": 1})]
    for start in range(0, len(ids), 500):
        refresh(db, municipality, ids[start:start + 500], on)
