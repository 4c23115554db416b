"""The audit log: append-only. Every write made through services adds one entry.

An entry says who, when (UTC), municipality, action, collection, document id and the changed
fields with their values before and after. Nothing in the product updates or deletes entries.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pymongo.database import Database

from services import clock
from services.store import decode, encode, insert_one

HIDDEN_FIELDS = {"password_hash", "_id"}


def changed_fields(before: dict, after: dict) -> dict[str, dict[str, Any]]:
    """Fields whose value differs, each with its value before and after."""
    changes = {}
    for key in sorted(set(before) | set(after)):
        if key in HIDDEN_FIELDS:
            continue
        old, new = before.get(key), after.get(key)
        if encode(old) != encode(new):
            changes[key] = {"before": old, "after": new}
    return changes


def record(
    db: Database,
    actor: Any,
    municipality: str | None,
    action: str,
    collection: str,
    doc_id: Any,
    before: dict,
    after: dict,
    note: str = "",
) -> None:
    """Append one entry to the audit log."""
    entry = {
        "at": clock.now_utc(),
        "username": actor.username,
        "user_name": actor.name,
        "role": actor.role,
        "municipality": municipality,
        "action": action,
        "collection": collection,
        "doc_id": str(doc_id) if doc_id is not None else None,
        "changes": changed_fields(before, after),
        "note": note,
    }
    insert_one(db["audit"], encode(entry))


def search(
    db: Database,
    actor: Any,
    municipality: str | None = None,
    username: str | None = None,
    collection: str | None = None,
    action: str | None = None,
    start: date | None = None,
    end: date | None = None,
    limit: int = 200,
    skip: int = 0,
) -> tuple[list[dict], int]:
    """Entries matching the filters, newest first, with the total count (``ti`` only)."""
    from services.auth import authorize

    from services.entities import scope_of

    authorize(actor, "admin", municipality)
    query: dict[str, Any] = {"municipality": municipality} if municipality else scope_of(actor)
    if username:
        query["username"] = username
    if collection:
        query["collection"] = collection
    if action:
        query["action"] = action
    span: dict[str, datetime] = {}
    if start:
        span["$gte"] = datetime.combine(start, datetime.min.time(), clock.LOCAL_TZ)
    if end:
        span["$lt"] = datetime.combine(end, datetime.max.time(), clock.LOCAL_TZ)
    if span:
        query["at"] = encode(span)
    total = db["audit"].count_documents(query)
    rows = db["audit"].find(query).sort("at", -1).skip(skip).limit(limit)
    return [decode(r) for r in rows], total


def actions(db: Database, actor: Any) -> list[str]:
    """The kinds of action present in the log, for the filter (``ti`` only)."""
    from services.auth import authorize

    authorize(actor, "admin")
    return sorted(a for a in db["audit"].distinct("action") if a)
