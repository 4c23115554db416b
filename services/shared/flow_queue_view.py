"""The deadlines of the defined registers' status flows, kept as data (issue 24 item 4, issue 21).

A record of a defined register whose state has a deadline (business days to leave it) is one
document of ``flow_queue``: the register, the record, its title, the state, the day it must be left.
The view follows every write of a defined register (``View.follows``: the collections are known only
at run time), the definitions (a flow changed) and the parameters (the municipal holidays move a
deadline), in the same unit of work as the write. Início reads the items due up to a day with one
indexed query, whatever the number of records.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from pymongo.database import Database

from services.shared import clock, definition_spec, flow_spec, parameters, views
from services.shared.schema import SPECS, EntitySpec
from services.store import decode, encode, ensure_indexes

ITEMS = "flow_queue"
INDEXES = {ITEMS: [([("municipality", 1), ("due", 1)], {"name": "i_flow_queue_due"}),
                   ([("register", 1), ("record_id", 1)], {"name": "i_flow_queue_record"})]}
NOT_REMOVED = {"removed": {"$exists": False}}


def _is_defined(collection: str) -> bool:
    """A defined register's collection (its spec was read to write the record: entities.defined_spec)."""
    found = SPECS.get(collection)
    return bool(found is not None and found.defined)


def _spec(db: Database, name: str) -> EntitySpec | None:
    doc = db[definition_spec.COLLECTION].find_one({"name": name, "active": True})
    return definition_spec.to_spec({**decode(doc), "defined": True}) if doc else None


def item(spec: EntitySpec, doc: dict[str, Any], calendar_of) -> dict[str, Any] | None:
    """The queue's document of one record (None: no deadline in its state, or removed)."""
    if spec.flow is None or doc.get("removed"):
        return None
    state = spec.flow.state(doc.get(flow_spec.STATE))
    since = doc.get(flow_spec.SINCE) or doc.get("updated_at") or doc.get("created_at")
    if state is None or not state.deadline_days or since is None:
        return None
    entered = clock.to_local(since).date()
    due = flow_spec.due(calendar_of(doc["municipality"], entered), entered, state)
    title = spec.title_of(doc) or "(sem valor)"
    return {"municipality": doc["municipality"], "register": spec.name, "record_id": str(doc["_id"]),
            "register_label": spec.label, "title": title, "state": state.value, "state_label": state.label,
            "entered": entered.isoformat(), "due": due.isoformat(), "deadline_days": state.deadline_days}


def _calendars(db: Database):
    books: dict[str, Any] = {}

    def calendar_of(municipality: str, on: date):
        if municipality not in books:
            books[municipality] = parameters.book(db, municipality)
        return parameters.calendar_from(books[municipality], on)
    return calendar_of


def _follow(db: Database, spec: EntitySpec, record_ids: list[str], docs: list[dict]) -> None:
    db[ITEMS].delete_many({"register": spec.name, "record_id": {"$in": record_ids}})
    calendar_of = _calendars(db)
    made = [found for doc in docs if (found := item(spec, doc, calendar_of)) is not None]
    if made:
        db[ITEMS].insert_many([encode(m) for m in made])


def _register(db: Database, name: str, municipality: str | None) -> None:
    """Every item of one register (its flow changed), in the municipality or in all that have it."""
    where = {"register": name, **({"municipality": municipality} if municipality else {})}
    db[ITEMS].delete_many(where)
    spec = _spec(db, name)
    if spec is None or spec.flow is None:
        return
    timed = [s.value for s in spec.flow.states if s.deadline_days]
    if timed:
        scope = {"municipality": municipality} if municipality else {}
        docs = [decode(d) for d in db[name].find({**scope, flow_spec.STATE: {"$in": timed}, **NOT_REMOVED})]
        _follow(db, spec, [], docs)


def _touched(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    ensure_indexes(db, INDEXES)
    if collection == "parameters":
        if municipality:
            rebuild(db, municipality)
        return
    if collection == definition_spec.COLLECTION:
        stored = db[collection].find_one({"_id": views.source_key(doc_id)}, {"name": 1}) if doc_id else None
        if stored:
            _register(db, stored["name"], None)
        return
    spec = _spec(db, collection)
    if spec is None or doc_id is None:
        return
    doc = db[collection].find_one({"_id": views.source_key(doc_id)})
    _follow(db, spec, [str(doc_id)], [decode(doc)] if doc else [])


def rebuild(db: Database, municipality: str) -> None:
    ensure_indexes(db, INDEXES)
    db[ITEMS].delete_many({"municipality": municipality})
    for doc in db[definition_spec.COLLECTION].find({"municipalities": municipality, "active": True,
                                                    "flow": {"$ne": None}}, {"name": 1}):
        _register(db, doc["name"], municipality)


views.register(views.View(ITEMS, ("parameters", definition_spec.COLLECTION), _touched, rebuild,
                          follows=_is_defined))


def due_until(db: Database, municipality: str, until: date, registers: set[str]) -> list[dict[str, Any]]:
    """The items of ``registers`` due up to ``until`` (the late ones first), one indexed query."""
    rows = db[ITEMS].find({"municipality": municipality, "due": {"$lte": until.isoformat()}}).sort("due", 1)
    return [decode(r) for r in rows if r["register"] in registers]
