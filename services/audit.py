"""The audit log: append-only. Every write made through services adds one entry.

An entry says who, when (UTC), municipality, action, collection, document id and the changed
fields with their values before and after. Nothing in the product updates or deletes entries.

The kinds of action are also kept in the tiny ``audit_actions`` collection (one document per
action, upserted the first time a process records it), so the filter never scans the log; the
search filters and sorts in the store on indexes that start with the municipality and end with
the instant.
"""
from __future__ import annotations

import threading
import weakref
from datetime import date, datetime
from typing import Any

from pymongo.database import Database

from services import clock, exports, store
from services.errors import ValidationFailed
from services.store import decode, encode, ensure_indexes, insert_one

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
    _remember_action(db, action)


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
    return sorted(doc["_id"] for doc in db[ACTIONS].find({}, {"_id": 1}))


EXPORT_LIMIT = 100_000
EXPORT_COLUMNS = ("Quando", "Usuário", "Município", "Ação", "Coleção", "Documento", "Alterações")


def shown_value(value: Any) -> str:
    """A changed value as a person reads it: empty as '—', ISO dates as dd/mm/aaaa."""
    if value in (None, "", [], {}):
        return "—"
    text = str(value)
    if len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit():
        return f"{text[8:]}/{text[5:7]}/{text[:4]}"
    return text


def rows_shown(entries: list[dict]) -> list[dict[str, Any]]:
    """Entries as the audit page lists and exports them (pt-BR headers; the instant as a datetime)."""
    return [dict(zip(EXPORT_COLUMNS, (
        e["at"], e["username"], e.get("municipality") or "", e["action"], e["collection"], e.get("doc_id") or "",
        "; ".join(f"{k}: {shown_value(v['before'])} → {shown_value(v['after'])}"
                  for k, v in e.get("changes", {}).items()),
    ))) for e in entries]


def _export_rows(db: Database, actor: Any, municipality: str | None, username: str | None,
                 collection: str | None, action: str | None, start: date | None, end: date | None) -> list[dict]:
    entries, total = search(db, actor, municipality, username, collection, action, start, end, EXPORT_LIMIT)
    if total > EXPORT_LIMIT:
        raise ValidationFailed({"export": f"O filtro tem {total} registros; exporte no máximo {EXPORT_LIMIT} "
                                          "(escolha um período menor)."})
    return rows_shown(entries)


def export_csv(db: Database, actor: Any, municipality: str | None = None, username: str | None = None,
               collection: str | None = None, action: str | None = None, start: date | None = None,
               end: date | None = None) -> bytes:
    """Every entry of the filter (not only the page shown), newest first, as a pt-BR CSV (``ti`` only)."""
    rows = _export_rows(db, actor, municipality, username, collection, action, start, end)
    return exports.to_csv(rows, EXPORT_COLUMNS)


def export_xlsx(db: Database, actor: Any, municipality: str | None = None, username: str | None = None,
                collection: str | None = None, action: str | None = None, start: date | None = None,
                end: date | None = None) -> bytes:
    """The rows of :func:`export_csv` as an XLSX sheet, the instant as a date and time (``ti`` only)."""
    rows = _export_rows(db, actor, municipality, username, collection, action, start, end)
    return exports.to_xlsx(rows, EXPORT_COLUMNS, sheet="Auditoria")
