"""The audit log's writer: append-only. Every write made through services adds one entry, and so
tells the read models (``services.shared.views``) what changed.

An entry says who, when (UTC), municipality, action, collection, document id and the changed
fields with their values before and after. Nothing in the product updates or deletes entries.

The kinds of action are also kept in the tiny ``audit_actions`` collection (one document per
action, upserted the first time a process records it), so the filter never scans the log. This
module needs only the store and the clock, so every service (users and logins included) can record;
the search and the register shown on the Auditoria page are in ``services.shared.audit_log``.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from services import store
from services.shared import clock, views
from services.store import encode, ensure_indexes, insert_one

HIDDEN_FIELDS = {"password_hash", "_id"}
ACTIONS = "audit_actions"
_BACKFILLED = "audit_actions_backfilled"
INDEXES = {
    "audit": [
        *store.INDEXES["audit"],
        # each search filter, then the sort on the instant
        ([("municipality", 1), ("action", 1), ("at", 1)], {"name": "i_mun_action_at"}),
        ([("municipality", 1), ("username", 1), ("at", 1)], {"name": "i_mun_user_at"}),
        ([("municipality", 1), ("collection", 1), ("at", 1)], {"name": "i_mun_collection_at"}),
    ]
}
_known_actions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # database handle -> {action}
_known_lock = threading.Lock()


def prepare(db: Database) -> None:
    """Create the search indexes and, once per store, fill ``audit_actions`` from an older log."""
    ensure_indexes(db, INDEXES)
    if db["meta"].find_one({"_id": _BACKFILLED}) is None:
        for action in db["audit"].distinct("action"):
            if action:
                _remember_action(db, action)
        db["meta"].update_one({"_id": _BACKFILLED}, {"$set": {"at": encode(clock.now_utc())}}, upsert=True)


def _remember_action(db: Database, action: str) -> None:
    """Upsert the action into ``audit_actions`` the first time this database handle records it
    (the page's handle is one cached resource, so that is about once per process)."""
    with _known_lock:
        if action in _known_actions.get(db, ()):
            return
    db[ACTIONS].update_one({"_id": action}, {"$set": {"action": action}}, upsert=True)
    with _known_lock:
        _known_actions.setdefault(db, set()).add(action)


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


KEY_FIELDS = ("number", "cpf", "document", "plate", "username")  # a record's own key, as people know it
NAME_FIELDS = ("name", "label", "title")


def _key_of(db: Database, actor: Any, collection: str, doc_id: Any, before: dict, after: dict) -> str:
    """The record's own key (CPF, plate, number, username), kept in the entry: from the values
    written, else read from the record (one read by id per write, never per page shown)."""
    values = {**(before or {}), **(after or {})}
    stored = None
    if not _first(values, KEY_FIELDS) and doc_id is not None and collection not in ("users",):
        try:
            stored = db[collection].find_one({"_id": ObjectId(str(doc_id))}, {k: 1 for k in KEY_FIELDS + NAME_FIELDS})
        except (InvalidId, TypeError):
            stored = None
    return key_from(values, stored) or (actor.username if collection == "users" else "")


def _first(values: dict | None, names: tuple[str, ...]) -> str:
    for name in names:
        if values and isinstance(values.get(name), str) and values[name]:
            return values[name]
    return ""


def key_from(values: dict, stored: dict | None) -> str:
    """The key an entry keeps: a key field written, else the stored record's key or name, else a name written."""
    return _first(values, KEY_FIELDS) or _first(stored, KEY_FIELDS + NAME_FIELDS) or _first(values, NAME_FIELDS)


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
        "key": _key_of(db, actor, collection, doc_id, before, after),
        "changes": changed_fields(before, after),
        "note": note,
    }
    insert_one(db["audit"], encode(entry))
    _remember_action(db, action)
    views.touched(db, municipality, collection, entry["doc_id"])
