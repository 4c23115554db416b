"""The stored authorization: its document, its status on a date, and the unit of work that changes it.

An authorization document keeps its events (``requested`` … ``fee_paid``) as a list of
``{kind, on, until, note}``; its status on any date is folded from them by the rule set
(:class:`services.ridehailing.registry.Scope`). Every step of the process (request, analysis,
vistoria, fee, renewal, substitution, penalty) appends its event through one :class:`Unit`: a write
conditional on the version it read, retried on a concurrent change and asked to the rules again,
saved with its audit entry and the numbers it reserved (issue 10, defect 2).

Only an open authorization (not refused, revoked, cassada, cancelled or expired) carries the open
keys; their sparse unique indexes let the store itself refuse a second open authorization for a
plate or a driver (issue 10, defect 5).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import store
from services.ridehailing import registry
from services.shared import audit, clock, entities, fields, numbers
from services.shared.auth import Actor
from services.shared.errors import Conflict, NotFound, ServiceError
from services.store import DuplicateKeyError, decode, encode, ensure_indexes

ENDED = (Status.REFUSED, Status.REVOKED, Status.CASSADA, Status.CANCELLED)
MAX_ATTEMPTS = 20  # conditional writes retried on a concurrent change before giving up with a Conflict

# Values of the open keys carry the municipality: "<municipality>/<plate>", "<municipality>/<cpf>".
OPEN_PLATE, OPEN_DRIVER = "open_plate", "open_driver"
INDEXES = {
    "authorizations": [
        ([(OPEN_PLATE, 1)], {"unique": True, "sparse": True, "name": "u_authorizations_open_plate"}),
        ([(OPEN_DRIVER, 1)], {"unique": True, "sparse": True, "name": "u_authorizations_open_driver"}),
        ([("municipality", 1), ("plate", 1)], {"name": "i_authorizations_plate"}),
        ([("municipality", 1), ("updated_at", 1)], {"name": "i_authorizations_updated"}),
    ],
    "drivers": [([("municipality", 1), ("updated_at", 1)], {"name": "i_drivers_updated"})],
    # the inspections done in a period and how many failed, counted by the Resumo (services.summary)
    "inspections": [([("municipality", 1), ("performed_on", 1), ("result", 1)], {"name": "i_inspections_performed"})],
    "data_changes": [([("municipality", 1), ("updated_at", 1)], {"name": "i_data_changes_updated"})],
}


class WrongStep(ServiceError):
    """The action does not fit the authorization's status on that date."""


def load(db: Database, municipality: str, auth_id: str) -> dict:
    """The stored authorization document, with its ``id`` (NotFound when there is none)."""
    doc = db["authorizations"].find_one({"_id": entities._object_id(auth_id), "municipality": municipality})
    if doc is None:
        raise NotFound("Autorização não encontrada.")
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


def state_of(doc: dict, municipality: str, on: date, db: Database,
             scope: registry.Scope | None = None) -> AuthorizationState:
    """The status of a stored authorization document on ``on``, folded by the rule set. Pass the
    ``scope`` of the call when folding several documents (one parameter load for all)."""
    return (scope or registry.Scope(db, municipality)).state(doc, on)


def require(state: AuthorizationState, *allowed: Status) -> None:
    """Refuse the step unless the authorization is in one of the ``allowed`` statuses."""
    if state.status not in allowed:
        raise WrongStep(f"Ação não cabe a uma autorização na situação '{state.label}'.")


def open_keys(municipality: str, plate: str, driver_cpf: str) -> dict[str, str]:
    """The keys an open authorization carries (unique in the store)."""
    return {OPEN_PLATE: f"{municipality}/{plate}", OPEN_DRIVER: f"{municipality}/{driver_cpf}"}


def open_key_conflict(exc: DuplicateKeyError, plate: str) -> Conflict:
    """The pt-BR refusal of a write the store refused for an open key already held."""
    if OPEN_DRIVER in str(exc):
        return Conflict("Já há autorização em andamento para o condutor; conclua ou encerre a anterior.",
                        field="driver_cpf")
    return Conflict(f"Já há autorização em andamento para a placa {fields.show('plate', plate)}.",
                    field="plate")


@dataclass
class Change:
    """One conditional change of an authorization: fields to set or unset, the event to append,
    its audit entry and what the service returns."""

    action: str
    set: dict
    before: dict
    result: Any = None
    event: dict | None = None
    unset: tuple[str, ...] = ()
    note: str = ""


def _save(db: Database, municipality: str, doc: dict, change: Change) -> bool:
    """Write ``change`` only if the document is still at the version it was read at."""
    version = doc.get("version")
    condition = {"_id": ObjectId(doc["id"]), "municipality": municipality,
                 "version": version if version is not None else {"$exists": False}}
    update: dict[str, Any] = {"$set": encode({**change.set, "updated_at": clock.now_utc()}), "$inc": {"version": 1}}
    if change.event is not None:
        update["$push"] = {"events": encode(change.event)}
    if change.unset:
        update["$unset"] = {name: "" for name in change.unset}
    try:
        return db["authorizations"].update_one(condition, update).matched_count == 1
    except DuplicateKeyError as exc:
        raise open_key_conflict(exc, change.set.get("plate", doc["plate"])) from None


class Unit:
    """One service call's unit of work on an authorization: who acts and where, the scope the
    statuses are folded with (read on first use, inside the unit's transaction) and the numbers it
    reserved (kept across retries, so a retry after a concurrent change does not reserve a second
    number). A service builds it once it has authorized the actor."""

    def __init__(self, db: Database, actor: Actor, municipality: str) -> None:
        self.db = db
        self.actor = actor
        self.municipality = municipality
        self.reserved: dict[tuple[str, int], str] = {}

    @cached_property
    def scope(self) -> registry.Scope:
        return registry.Scope(self.db, self.municipality)

    def number(self, kind: str, year: int) -> str:
        """The next number of the municipal counter ``kind`` in ``year``, reserved once per unit."""
        if (kind, year) not in self.reserved:
            self.reserved[(kind, year)] = numbers.next_number(self.db, self.municipality, kind, year).text
        return self.reserved[(kind, year)]

    def write(self, auth_id: str, decide: Callable[[dict, Unit], Change | None]) -> Any:
        """Apply one step to an authorization without ever losing a concurrent one (issue 10, defect 2).

        ``decide`` reads the fresh document and returns the change (or None: nothing to do), raising
        when the rules refuse the step. The change is saved only if nobody changed the document since
        it was read; otherwise the document is reloaded and ``decide`` asked again, so the second of
        two clerks approving at once is refused by the rules. Write, audit entry and reserved numbers
        are one unit.
        """
        with store.transaction(self.db):
            for _ in range(MAX_ATTEMPTS):
                doc = load(self.db, self.municipality, auth_id)
                change = decide(doc, self)
                if change is None:
                    return None
                if _save(self.db, self.municipality, doc, change):
                    after = {**change.set, **{name: None for name in change.unset}}
                    if change.event is not None:
                        after["events"] = [*doc.get("events", []), change.event]
                    audit.record(self.db, self.actor, self.municipality, change.action, "authorizations", doc["id"],
                                 change.before, after, change.note)
                    return change.result
        raise Conflict("A autorização foi alterada por outra pessoa ao mesmo tempo; recarregue e tente de novo.")

    def event(self, doc: dict, kind: EventKind, on: date, until: date | None = None, note: str = "",
              extra: dict | None = None, ref: str = "") -> Change:
        """The change that appends a dated event, checked by the rules, with the status it leads to.

        The stored status is today's; an event dated later (a penalty scheduled for the day its decision
        becomes final) is kept as the next change (``status_next`` from ``status_next_on``), which the
        lists compare with the day they show. An authorization that ends (refused, revoked, cassada,
        expired) gives up its open keys on the day it ends. ``ref`` names a penalty event."""
        entry = {"kind": kind.value, "on": on, "until": until, "note": note, "by": self.actor.username}
        if ref:
            entry["ref"] = ref
        after = {**doc, "events": [*doc.get("events", []), entry], **(extra or {})}
        today = clock.today()
        state = self.scope.state(after, max(on, today))
        now = state if on <= today else self.scope.state(after, today)
        changes = {"status": now.status.value, "valid_until": now.valid_until, **_next_change(self.scope, after, now, today),
                   **(extra or {})}
        unset: tuple[str, ...] = ()
        if now.status in (*ENDED, Status.EXPIRED):
            unset = (OPEN_PLATE, OPEN_DRIVER)
        elif "plate" in changes:
            changes[OPEN_PLATE] = open_keys(self.municipality, changes["plate"], doc["driver_cpf"])[OPEN_PLATE]
        before = {k: doc.get(k) for k in (*changes, "events")}
        return Change(kind.value, changes, before, state, entry, unset, note)

    def step(self, auth_id: str, kind: EventKind, on: date, allowed: tuple[Status, ...], until: date | None = None,
             note: str = "", ref: str = "") -> AuthorizationState:
        """An event allowed only in ``allowed`` statuses on ``on`` (checked again on every retry)."""
        def decide(doc: dict, unit: Unit) -> Change:
            if allowed:
                require(unit.scope.state(doc, on), *allowed)
            return unit.event(doc, kind, on, until, note, ref=ref)

        return self.write(auth_id, decide)


def _next_change(scope: registry.Scope, doc: dict, now: AuthorizationState, today: date) -> dict:
    """The first status the authorization's events lead to after ``today`` (an event dated later, the
    day after a suspension's last day): ``status_next`` from ``status_next_on``, or None for both."""
    days = set()
    for event in doc.get("events", []):
        on, until = store.parse_date(event["on"]), store.parse_date(event.get("until"))
        days.update(d for d in (on, until and until + timedelta(days=1)) if d and d > today)
    for day_ in sorted(days):
        status = scope.state(doc, day_).status
        if status is not now.status:
            return {"status_next": status.value, "status_next_on": day_}
    return {"status_next": None, "status_next_on": None}


def prepare(db: Database) -> None:
    """Start-up (idempotent): the open-authorization indexes, and the open keys on authorizations
    stored before them. Two legacy open authorizations of one plate keep the first its keys."""
    ensure_indexes(db, INDEXES)
    today = clock.today()
    scopes: dict[str, registry.Scope] = {}
    ended = [status.value for status in (*ENDED, Status.EXPIRED)]  # the stored status of an ended one
    for raw in db["authorizations"].find({OPEN_PLATE: {"$exists": False}, "status": {"$nin": ended}}):
        doc = decode(raw)
        municipality = doc["municipality"]
        if municipality not in scopes:
            scopes[municipality] = registry.Scope(db, municipality)
        if scopes[municipality].state(doc, today).status in (*ENDED, Status.EXPIRED):
            continue
        try:
            db["authorizations"].update_one({"_id": raw["_id"], OPEN_PLATE: {"$exists": False}},
                                            {"$set": open_keys(municipality, doc["plate"], doc["driver_cpf"])})
        except DuplicateKeyError:
            continue
