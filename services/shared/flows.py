"""A defined register's status flow at work: moving a record, and the deadlines of the work queue.

A record moves only along the flow its definition declares (``services.shared.flow_spec``), by a role
the move names, in its municipality, conditional on the version the clerk saw: the state, the instant
it entered it and the move (``$push`` to ``state_history``) change in one unit of work with the audit
entry, which also brings ``flow_queue`` up to date (``services.shared.flow_queue_view``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from services.shared import audit, clock, definition_spec, entities, fields, flow_queue_view
from services.shared.auth import Actor, PermissionDenied, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict
from services.shared.flow_spec import HISTORY, SINCE, STATE
from services.store import decode, encode, transaction

NOTE_MAX = 500


@checked
def move(db: Database, actor: Actor, municipality: str, entity: str, doc_id: str, target: str, note: str = "", *,
         expected_version: int) -> str:
    """Move a record of ``entity`` to the state ``target``; returns the new state's label.

    Refused: a register without a flow, a move the flow does not have from the record's state, a role
    the move does not name, a record changed since the clerk loaded it (``expected_version``)."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    if spec.flow is None:
        raise Conflict(f"O cadastro de {spec.label_plural.lower()} não tem fluxo de situações.")
    before = entities.get(db, actor, entity, municipality, doc_id)
    if before.get("removed"):
        raise Conflict(f"{spec.label} foi {spec.agreed('removido')}; a situação não muda mais.")
    source = before.get(STATE)
    found = next((t for t in spec.flow.moves(source) if t.target == target), None)
    if found is None:
        raise Conflict(f"A situação “{spec.flow.label(source)}” não passa para “{spec.flow.label(target)}” neste "
                       "cadastro.")
    if actor.role not in found.roles:
        raise PermissionDenied(f"A ação “{found.label}” não está liberada para o seu perfil.")
    why = fields._plain_text("text", str(note or ""))[:NOTE_MAX]
    if before["version"] != expected_version:
        raise entities._stale(db, before)
    now = clock.now_utc()
    step = {"from": source, "to": target, "action": found.label, "at": now, "by": actor.username, "note": why}
    with transaction(db):
        result = db[entity].update_one(
            {"_id": entities._object_id(doc_id), "municipality": municipality, "version": expected_version,
             STATE: source},
            {"$set": encode({STATE: target, SINCE: now, "updated_at": now, "updated_by": actor.username}),
             "$push": {HISTORY: encode(step)}, "$inc": {"version": 1}})
        if result.matched_count == 0:
            raise entities._stale(db, entities.get(db, actor, entity, municipality, doc_id))
        audit.record(db, actor, municipality, "update", entity, doc_id, {STATE: source}, {STATE: target},
                     f"{found.label}: {why}" if why else found.label)
    return spec.flow.label(target)


@dataclass(frozen=True)
class FlowItem:
    due: date
    late: bool
    register: str
    register_label: str
    record_id: str
    title: str
    state: str
    deadline_days: int
    entered: date


@checked
def deadlines(db: Database, actor: Actor, municipality: str, until: date) -> list[FlowItem]:
    """The records of the defined registers the actor reads whose state's deadline falls up to ``until``,
    the late ones first (late: the deadline passed before today)."""
    authorize(actor, "read", municipality)
    readable = set()
    for doc in db[definition_spec.COLLECTION].find({"municipalities": municipality, "active": True,
                                                    "flow": {"$ne": None}}):
        spec = definition_spec.to_spec(decode(doc))
        if spec.grants(actor.role, "read", municipality):
            readable.add(spec.name)
    if not readable:
        return []
    today = clock.today()
    return [FlowItem(due=date.fromisoformat(r["due"]), late=date.fromisoformat(r["due"]) < today,
                     register=r["register"], register_label=r["register_label"], record_id=r["record_id"],
                     title=r["title"], state=r["state_label"], deadline_days=r["deadline_days"],
                     entered=date.fromisoformat(r["entered"]))
            for r in flow_queue_view.due_until(db, municipality, until, readable)]



@dataclass(frozen=True)
class Status:
    """A record's place in its flow, as its page shows it."""
    state: str  # the state's label
    since: date | None
    due: date | None  # the day it must leave the state (None: no deadline)
    moves: tuple[tuple[str, str], ...]  # (target, action's label) the actor may make now
    history: tuple[dict, ...]  # the moves made, oldest first: from, to, action, at (UTC), by, note
    final: bool  # no move leaves the state, whoever asks


@checked
def status(db: Database, actor: Actor, municipality: str, entity: str, doc_id: str) -> Status | None:
    """Where a record stands in its register's flow (None: the register has none)."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    if spec.flow is None:
        return None
    doc = entities.get(db, actor, entity, municipality, doc_id)
    state = doc.get(STATE)
    item = db[flow_queue_view.ITEMS].find_one({"register": entity, "record_id": doc["id"]}, {"due": 1})
    since = doc.get(SINCE)
    moves = () if doc.get("removed") else tuple((t.target, t.label) for t in spec.flow.moves(state, actor.role))
    history = tuple({**h, "from": spec.flow.label(h.get("from")), "to": spec.flow.label(h.get("to"))}
                    for h in doc.get(HISTORY) or ())
    return Status(state=spec.flow.label(state), since=clock.to_local(since).date() if since else None,
                  due=date.fromisoformat(item["due"]) if item else None, moves=moves, history=history,
                  final=not spec.flow.moves(state))
