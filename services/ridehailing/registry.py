"""Ride-hailing registry services: stored drivers, vehicles and authorizations → the municipal rules.

Thin on purpose: each service loads the records, builds the rule concepts
(``rules.ridehailing.concepts``), asks the municipality's rule set
(``ruleset(mun, "transporte")``) and saves the outcome as a dated event with its audit entry.
No legal condition is decided here: eligibility, deadlines, validity and status come from the rules.

An authorization document keeps its events (``requested`` … ``fee_paid``) as a list of
``{kind, on, until, note}``; its status on any date is folded from them by the rule set.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.base import Decision, Finding
from rules.calendar import LegalCalendar
from rules.fmt import brl
from rules.params import ParameterBook
from rules.registry import RIDE_HAILING, ruleset
from rules.ridehailing.concepts import (
    Authorization,
    AuthorizationEvent,
    Document,
    Driver,
    EventKind,
    Holder,
    Severity,
    TrafficInfraction,
    Vehicle,
)
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import store
from services.shared import (
    audit,
    clock,
    entities,
    events,
    exports,
    numbers,
    parameters,
    schema,
    specs,
)
from services.shared.auth import Actor, authorize
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import (
    DuplicateKeyError,
    decode,
    encode,
    ensure_indexes,
    insert_one,
    parse_date,
)

FEE_PARAMETER = "authorization_fee"  # R$ of the authorization and renewal fee (taxa do CTM)
FEE_DUE_DAYS = 10  # days the fee DAM gives to pay; a convenience of the panel, not a legal term
PROTOCOL_KIND = "transporte_protocolo"
NUMBER_KIND = "transporte_autorizacao"
CONVOCATION_KIND = "transporte_convocacao"
ENDED = (Status.REFUSED, Status.REVOKED, Status.CASSADA, Status.CANCELLED)
IN_FORCE = (Status.ACTIVE, Status.BLOCKED, Status.SUSPENDED)
DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))
MAX_ATTEMPTS = 20  # conditional writes retried on a concurrent change before giving up with a Conflict

# Only an open authorization (not refused, revoked, cassada or expired) carries these keys; their
# sparse unique indexes let the store itself refuse a second open authorization for a plate or a
# driver (issue 10, defect 5). Values carry the municipality: "<municipality>/<plate>".
OPEN_PLATE, OPEN_DRIVER = "open_plate", "open_driver"
INDEXES = {
    "authorizations": [
        ([(OPEN_PLATE, 1)], {"unique": True, "sparse": True, "name": "u_authorizations_open_plate"}),
        ([(OPEN_DRIVER, 1)], {"unique": True, "sparse": True, "name": "u_authorizations_open_driver"}),
        ([("municipality", 1), ("plate", 1)], {"name": "i_authorizations_plate"}),
        ([("municipality", 1), ("updated_at", 1)], {"name": "i_authorizations_updated"}),
    ],
    "drivers": [([("municipality", 1), ("updated_at", 1)], {"name": "i_drivers_updated"})],
    "data_changes": [([("municipality", 1), ("updated_at", 1)], {"name": "i_data_changes_updated"})],
}
VERSIONED = ("authorizations", "drivers", "data_changes")  # what the lists and the queue are made of


class NotEligible(ServiceError):
    """Approval refused because the driver or the vehicle does not meet the law."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("Não é possível aprovar: " + "; ".join(reasons))
        self.reasons = reasons


class WrongStep(ServiceError):
    """The action does not fit the authorization's status on that date."""


def rules_of(municipality: str) -> Any:
    """The municipality's ride-hailing rule set (raises when it has none)."""
    return ruleset(municipality, RIDE_HAILING)


# ---- stored records → rule concepts ----

def _one(db: Database, collection: str, municipality: str, query: dict, missing: str) -> dict:
    doc = db[collection].find_one({"municipality": municipality, **encode(query)})
    if doc is None:
        raise NotFound(missing)
    return entities._typed(schema.SPECS[collection], decode(doc))


def driver_record(db: Database, municipality: str, cpf: str) -> dict:
    return _one(db, "drivers", municipality, {"cpf": cpf}, "Condutor não cadastrado.")


def vehicle_record(db: Database, municipality: str, plate: str) -> dict:
    return _one(db, "vehicles", municipality, {"plate": plate}, "Veículo não cadastrado.")


def _children(db: Database, collection: str, municipality: str, cpf: str) -> list[dict]:
    spec = schema.SPECS[collection]
    rows = db[collection].find({"municipality": municipality, "driver_cpf": cpf, **entities.NOT_REMOVED})
    return [entities._typed(spec, decode(r)) for r in rows]


def driver_concept(db: Database, municipality: str, cpf: str) -> Driver:
    """The driver as the rules see him: CNH, declarations, documents, infractions, courses."""
    doc = driver_record(db, municipality, cpf)
    documents = tuple(Document(d["code"], d["issued_on"], d.get("valid_until"))
                      for d in _children(db, "driver_documents", municipality, cpf))
    infractions = tuple(TrafficInfraction(i["committed_on"], Severity[i["severity"].upper()], i.get("description") or "")
                        for i in _children(db, "traffic_infractions", municipality, cpf))
    courses = tuple(c["held_on"] for c in _children(db, "training_courses", municipality, cpf))
    return Driver(
        cpf=doc["cpf"], name=doc["name"], cnh_category=doc["cnh_category"],
        cnh_first_license=doc["cnh_first_license"], cnh_valid_until=doc["cnh_valid_until"],
        cnh_ear=bool(doc.get("cnh_ear")), inss_enrolled=bool(doc.get("inss_enrolled")),
        resides_in_municipality=bool(doc.get("resides_in_municipality")),
        exclusive_platform_declaration=bool(doc.get("exclusive_platform_declaration")),
        fit_for_duty=bool(doc.get("fit_for_duty")),
        disqualifying_criminal_record=bool(doc.get("disqualifying_criminal_record")),
        ctb_303_306_record=bool(doc.get("ctb_303_306_record")),
        traffic_infractions=infractions, documents=documents, training_courses=courses,
    )


def vehicle_concept(doc: dict) -> Vehicle:
    """The vehicle as the rules see it, from its stored record."""
    return Vehicle(
        plate=doc["plate"], model_year=int(doc["model_year"]), doors=int(doc["doors"]), seats=int(doc["seats"]),
        air_conditioning=bool(doc.get("air_conditioning")),
        plated_in_municipality=bool(doc.get("plated_in_municipality")),
        holder=Holder[doc["holder"].upper()], relative_degree=int(doc.get("relative_degree") or 0),
        lessor_vehicle_count=int(doc.get("lessor_vehicle_count") or 0),
        dpvat_paid=bool(doc.get("dpvat_paid")), licensing_valid=bool(doc.get("licensing_valid")),
        ipva_paid=bool(doc.get("ipva_paid")), garage_proof=bool(doc.get("garage_proof")),
        first_registration=parse_date(doc.get("first_registration")),
    )


def authorization_concept(doc: dict) -> Authorization:
    return Authorization(
        number=doc.get("number") or doc["protocol"], driver_cpf=doc["driver_cpf"], plate=doc["plate"],
        events=tuple(AuthorizationEvent(EventKind(e["kind"]), parse_date(e["on"]), parse_date(e.get("until")),
                                        e.get("note", "")) for e in doc.get("events", [])),
    )


# ---- eligibility ----

class Scope:
    """What folding authorizations needs, loaded once per service call: the rule set, the parameter
    book and the legal calendar of each date asked. A list folds every row with the same scope, so
    a page reads the parameters once however many authorizations it shows (issue 9)."""

    def __init__(self, db: Database, municipality: str) -> None:
        self.municipality = municipality
        self.rules = rules_of(municipality)
        self.book: ParameterBook = parameters.book(db, municipality)
        self._calendars: dict[date, LegalCalendar] = {}

    def calendar(self, on: date) -> LegalCalendar:
        if on not in self._calendars:
            self._calendars[on] = parameters.calendar_from(self.book, on)
        return self._calendars[on]

    def state(self, doc: dict, on: date) -> AuthorizationState:
        """The status of a stored authorization document on ``on``, folded by the rule set."""
        return self.rules.authorization_status(authorization_concept(doc), on, self.book, self.calendar(on))


def driver_eligibility(db: Database, actor: Actor, municipality: str, cpf: str, on: date,
                       scope: Scope | None = None) -> Decision:
    """Every requirement of the municipality's law for the driver on ``on``, with its article."""
    authorize(actor, "read", municipality)
    scope = scope or Scope(db, municipality)
    return scope.rules.driver_eligibility(driver_concept(db, municipality, cpf), on, scope.book, scope.calendar(on))


def vehicle_eligibility(db: Database, actor: Actor, municipality: str, plate: str, on: date,
                        scope: Scope | None = None, replacing: str = "") -> Decision:
    """Every requirement of the law for the vehicle on ``on`` (one vehicle per driver included; the
    plate it is ``replacing`` in a substitution is not another vehicle of the driver)."""
    authorize(actor, "read", municipality)
    scope = scope or Scope(db, municipality)
    doc = vehicle_record(db, municipality, plate)
    others = [p for p in authorized_plates(db, municipality, doc["driver_cpf"], on, scope) if p != replacing]
    return scope.rules.vehicle_eligibility(vehicle_concept(doc), on, scope.book, others)


def authorized_plates(db: Database, municipality: str, cpf: str, on: date, scope: Scope | None = None) -> list[str]:
    """Plates of the driver's authorizations in force on ``on`` (issued and not ended or expired)."""
    scope = scope or Scope(db, municipality)
    plates = []
    for doc in db["authorizations"].find({"municipality": municipality, "driver_cpf": cpf},
                                         {"plate": 1, "protocol": 1, "number": 1, "driver_cpf": 1, "events": 1}):
        doc = decode(doc)
        if scope.state(doc, on).status in IN_FORCE:
            plates.append(doc["plate"])
    return plates


@dataclass(frozen=True)
class Evaluation:
    """Driver and vehicle verdicts on the protocol date."""

    on: date
    driver: Decision
    vehicle: Decision

    @property
    def ok(self) -> bool:
        return self.driver.ok and self.vehicle.ok

    def reasons(self) -> list[str]:
        return self.driver.reasons() + self.vehicle.reasons()


# ---- authorizations ----

def _auth_doc(db: Database, municipality: str, auth_id: str) -> dict:
    doc = db["authorizations"].find_one({"_id": entities._object_id(auth_id), "municipality": municipality})
    if doc is None:
        raise NotFound("Autorização não encontrada.")
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


def state_of(doc: dict, municipality: str, on: date, db: Database, scope: Scope | None = None) -> AuthorizationState:
    """The status of a stored authorization document on ``on``, folded by the rule set. Pass the
    ``scope`` of the call when folding several documents (one parameter load for all)."""
    return (scope or Scope(db, municipality)).state(doc, on)


def open_authorization(db: Database, actor: Actor, municipality: str, driver_cpf: str) -> dict | None:
    """The driver's authorization in progress or in force (the one holding his open key), or None."""
    authorize(actor, "read", municipality)
    doc = db["authorizations"].find_one({OPEN_DRIVER: open_keys(municipality, "", driver_cpf)[OPEN_DRIVER]})
    if doc is None:
        return None
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


def get_authorization(db: Database, actor: Actor, municipality: str, auth_id: str) -> dict:
    authorize(actor, "read", municipality)
    return _auth_doc(db, municipality, auth_id)


def status(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """The authorization's status on ``on``, with the date that matters and the reasons."""
    authorize(actor, "read", municipality)
    return state_of(_auth_doc(db, municipality, auth_id), municipality, on, db)


@dataclass
class _Change:
    """One conditional change of an authorization: fields to set or unset, the event to append,
    its audit entry and what the service returns."""

    action: str
    set: dict
    before: dict
    result: Any = None
    event: dict | None = None
    unset: tuple[str, ...] = ()
    note: str = ""


@dataclass
class _Unit:
    """One service call's unit of work: its scope and the numbers it reserved (kept across retries,
    so a retry after a concurrent change does not reserve a second number)."""

    db: Database
    municipality: str
    scope: Scope
    reserved: dict[tuple[str, int], str] = field(default_factory=dict)

    def number(self, kind: str, year: int) -> str:
        if (kind, year) not in self.reserved:
            self.reserved[(kind, year)] = numbers.next_number(self.db, self.municipality, kind, year).text
        return self.reserved[(kind, year)]


def open_keys(municipality: str, plate: str, driver_cpf: str) -> dict[str, str]:
    """The keys an open authorization carries (unique in the store)."""
    return {OPEN_PLATE: f"{municipality}/{plate}", OPEN_DRIVER: f"{municipality}/{driver_cpf}"}


def _busy(exc: DuplicateKeyError, plate: str) -> Conflict:
    if OPEN_DRIVER in str(exc):
        return Conflict("Já há autorização em andamento para o condutor; conclua ou encerre a anterior.",
                        field="driver_cpf")
    return Conflict(f"Já há autorização em andamento para a placa {entities.fields.show('plate', plate)}.",
                    field="plate")


def _save(db: Database, municipality: str, doc: dict, change: _Change) -> bool:
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
        raise _busy(exc, change.set.get("plate", doc["plate"])) from None


def _write(db: Database, actor: Actor, municipality: str, auth_id: str,
           decide: Callable[[dict, _Unit], _Change | None]) -> Any:
    """Apply one step to an authorization without ever losing a concurrent one (issue 10, defect 2).

    ``decide`` reads the fresh document and returns the change (or None: nothing to do), raising when
    the rules refuse the step. The change is saved only if nobody changed the document since it was
    read; otherwise the document is reloaded and ``decide`` asked again, so the second of two clerks
    approving at once is refused by the rules. Write, audit entry and reserved numbers are one unit.
    """
    with store.transaction(db):
        unit = _Unit(db, municipality, Scope(db, municipality))
        for _ in range(MAX_ATTEMPTS):
            doc = _auth_doc(db, municipality, auth_id)
            change = decide(doc, unit)
            if change is None:
                return None
            if _save(db, municipality, doc, change):
                after = {**change.set, **{name: None for name in change.unset}}
                if change.event is not None:
                    after["events"] = [*doc.get("events", []), change.event]
                audit.record(db, actor, municipality, change.action, "authorizations", doc["id"], change.before,
                             after, change.note)
                return change.result
    raise Conflict("A autorização foi alterada por outra pessoa ao mesmo tempo; recarregue e tente de novo.")


def _event(actor: Actor, municipality: str, doc: dict, unit: _Unit, kind: EventKind, on: date,
           until: date | None = None, note: str = "", extra: dict | None = None) -> _Change:
    """The change that appends a dated event, checked by the rules, with the status it leads to.

    An authorization that ends (refused, revoked, cassada, expired) gives up its open keys."""
    entry = {"kind": kind.value, "on": on, "until": until, "note": note, "by": actor.username}
    after = {**doc, "events": [*doc.get("events", []), entry], **(extra or {})}
    state = unit.scope.state(after, max(on, clock.today()))
    changes = {"status": state.status.value, "valid_until": state.valid_until, **(extra or {})}
    unset: tuple[str, ...] = ()
    if state.status in (*ENDED, Status.EXPIRED):
        unset = (OPEN_PLATE, OPEN_DRIVER)
    elif "plate" in changes:
        changes[OPEN_PLATE] = open_keys(municipality, changes["plate"], doc["driver_cpf"])[OPEN_PLATE]
    before = {k: doc.get(k) for k in (*changes, "events")}
    return _Change(kind.value, changes, before, state, entry, unset, note)


def _step(db: Database, actor: Actor, municipality: str, auth_id: str, kind: EventKind, on: date,
          allowed: tuple[Status, ...], until: date | None = None, note: str = "") -> AuthorizationState:
    """An event allowed only in ``allowed`` statuses on ``on`` (checked again on every retry)."""
    def decide(doc: dict, unit: _Unit) -> _Change:
        if allowed:
            _require(unit.scope.state(doc, on), *allowed)
        return _event(actor, municipality, doc, unit, kind, on, until, note)

    return _write(db, actor, municipality, auth_id, decide)


def prepare(db: Database) -> None:
    """Start-up (idempotent): the open-authorization indexes, and the open keys on authorizations
    stored before them. Two legacy open authorizations of one plate keep the first its keys."""
    ensure_indexes(db, INDEXES)
    today = clock.today()
    scopes: dict[str, Scope] = {}
    ended = [status.value for status in (*ENDED, Status.EXPIRED)]  # the stored status of an ended one
    for raw in db["authorizations"].find({OPEN_PLATE: {"$exists": False}, "status": {"$nin": ended}}):
        doc = decode(raw)
        municipality = doc["municipality"]
        if municipality not in scopes:
            scopes[municipality] = Scope(db, municipality)
        if scopes[municipality].state(doc, today).status in (*ENDED, Status.EXPIRED):
            continue
        try:
            db["authorizations"].update_one({"_id": raw["_id"], OPEN_PLATE: {"$exists": False}},
                                            {"$set": open_keys(municipality, doc["plate"], doc["driver_cpf"])})
        except DuplicateKeyError:
            continue


def _release_ended(db: Database, actor: Actor, municipality: str, keys: dict[str, str], on: date,
                   scope: Scope) -> bool:
    """Free the open keys held by authorizations that in fact ended by time (expired) or otherwise on
    ``on``; expiry is no event, so it is checked when a new request needs the plate or the driver.
    True when a key was freed (docs/LEITURAS.md, "Uma autorização aberta por placa e por condutor")."""
    freed = False
    holders = db["authorizations"].find({"$or": [{name: value} for name, value in keys.items()]})
    for raw in holders:
        doc = decode(raw)
        if scope.state(doc, on).status in (*ENDED, Status.EXPIRED):
            now = scope.state(doc, max(on, clock.today())).status
            with store.transaction(db):
                result = db["authorizations"].update_one(
                    {"_id": raw["_id"], "version": raw.get("version", {"$exists": False})},
                    {"$unset": {OPEN_PLATE: "", OPEN_DRIVER: ""}, "$inc": {"version": 1},
                     "$set": {"status": now.value, "updated_at": encode(clock.now_utc())}})
                if result.modified_count != 1:
                    continue
                freed = True
                audit.record(db, actor, municipality, "open_keys_released", "authorizations", str(raw["_id"]),
                             {k: raw.get(k) for k in (OPEN_PLATE, OPEN_DRIVER, "status")},
                             {OPEN_PLATE: None, OPEN_DRIVER: None, "status": now.value},
                             f"Autorização {doc.get('number') or doc['protocol']} encerrada ({now.value}): "
                             "placa e condutor liberados para novo requerimento")
    return freed


def _holder(db: Database, keys: dict[str, str]) -> dict | None:
    return db["authorizations"].find_one({"$or": [{name: value} for name, value in keys.items()]},
                                         {"protocol": 1, OPEN_PLATE: 1, OPEN_DRIVER: 1})


def request_authorization(db: Database, actor: Actor, municipality: str, driver_cpf: str, plate: str,
                          protocol_date: date) -> str:
    """Protocol a request (number from the municipal counter) for a driver and the vehicle he uses.

    The store refuses a second open authorization for the plate or the driver (unique open keys)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("protocol_date", "Data do protocolo", protocol_date)
    ensure_indexes(db, INDEXES)
    driver = driver_record(db, municipality, entities.fields.digits(driver_cpf))
    vehicle = vehicle_record(db, municipality, entities.fields.parse("plate", plate))
    if vehicle["driver_cpf"] != driver["cpf"]:
        raise ValidationFailed({"plate": "O veículo não está vinculado a este condutor; corrija o cadastro do veículo."})
    keys = open_keys(municipality, vehicle["plate"], driver["cpf"])
    scope = Scope(db, municipality)
    holder = _holder(db, keys)
    if holder is not None and not _release_ended(db, actor, municipality, keys, protocol_date, scope):
        what = "a placa" if holder.get(OPEN_PLATE) == keys[OPEN_PLATE] else "o condutor"
        raise Conflict(f"Já há autorização em andamento para {what} ({holder['protocol']}).",
                       field="plate" if what == "a placa" else "driver_cpf")
    with store.transaction(db):
        protocol = numbers.next_number(db, municipality, PROTOCOL_KIND, protocol_date.year).text
        note = f"Protocolo {protocol}"
        event = {"kind": EventKind.REQUESTED.value, "on": protocol_date, "until": None, "note": note,
                 "by": actor.username}
        clean = entities.validate(entities.spec_for(db, "authorizations", municipality), {
            "protocol": protocol, "protocol_date": protocol_date, "driver_cpf": driver["cpf"],
            "plate": vehicle["plate"], "status": Status.REQUESTED.value,
        })
        now = clock.now_utc()
        doc = {**clean, "municipality": municipality, "events": [event], "version": 1, **keys,
               "created_at": now, "updated_at": now, "created_by": actor.username}
        try:
            auth_id = str(insert_one(db["authorizations"], encode(doc)))
        except DuplicateKeyError as exc:
            raise _busy(exc, vehicle["plate"]) from None
        audit.record(db, actor, municipality, EventKind.REQUESTED.value, "authorizations", auth_id, {},
                     {**clean, "events": [event]}, note)
    return auth_id


def evaluate(db: Database, actor: Actor, municipality: str, auth_id: str, doc: dict | None = None,
             scope: Scope | None = None) -> Evaluation:
    """Driver and vehicle against the law on the protocol date."""
    authorize(actor, "read", municipality)
    doc = doc or _auth_doc(db, municipality, auth_id)
    scope = scope or Scope(db, municipality)
    on = parse_date(doc["protocol_date"])
    return Evaluation(on, driver_eligibility(db, actor, municipality, doc["driver_cpf"], on, scope),
                      vehicle_eligibility(db, actor, municipality, doc["plate"], on, scope))


def _require(state: AuthorizationState, *allowed: Status) -> None:
    if state.status not in allowed:
        raise WrongStep(f"Ação não cabe a uma autorização na situação '{state.label}'.")


def cancel_request(db: Database, actor: Actor, municipality: str, auth_id: str, reason: str) -> AuthorizationState:
    """Cancel a protocol entered by mistake (wrong driver or vehicle, typed twice), before any decision.

    Not an indeferimento: the request leaves the queue and gives the plate and the driver back, the
    reason and who cancelled stay in its events and in the audit log.
    """
    authorize(actor, "write", municipality)
    why = entities.fields._plain_text("text", str(reason or ""))
    if not why:
        raise ValidationFailed({"reason": "Motivo do cancelamento: campo obrigatório."})
    return _step(db, actor, municipality, auth_id, EventKind.CANCELLED, clock.today(), (Status.REQUESTED,),
                 note=why)


def approve(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """Approve a request whose driver and vehicle meet the law; the vehicle must be shown in 5 days."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da decisão", on)

    def decide(doc: dict, unit: _Unit) -> _Change:
        _require(unit.scope.state(doc, on), Status.REQUESTED)
        verdict = evaluate(db, actor, municipality, auth_id, doc, unit.scope)
        if not verdict.ok:
            raise NotEligible(verdict.reasons())
        return _event(actor, municipality, doc, unit, EventKind.APPROVED, on)

    return _write(db, actor, municipality, auth_id, decide)


def refuse(db: Database, actor: Actor, municipality: str, auth_id: str, on: date, note: str = "") -> list[str]:
    """Refuse a request; the reasons are the findings that block plus what the secretariat writes."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da decisão", on)

    def decide(doc: dict, unit: _Unit) -> _Change:
        _require(unit.scope.state(doc, on), Status.REQUESTED)
        reasons = (evaluate(db, actor, municipality, auth_id, doc, unit.scope).reasons()
                   + ([note.strip()] if note.strip() else []))
        if not reasons:
            raise ValidationFailed({"note": "Motivo: o requerimento atende à lei; escreva o motivo do indeferimento."})
        change = _event(actor, municipality, doc, unit, EventKind.REFUSED, on, note="; ".join(reasons),
                        extra={"refusal_reasons": reasons})
        change.result = reasons
        return change

    return _write(db, actor, municipality, auth_id, decide)


@dataclass(frozen=True)
class InspectionOutcome:
    inspection_id: str
    decision: Decision
    fix_deadline: date | None
    state: AuthorizationState


def inspection_kind(doc: dict) -> str:
    """Which vistoria is due: the first, a return after pendências, a substitution, a call or the annual."""
    kinds = [e["kind"] for e in doc.get("events", [])]
    last = next((k for k in reversed(kinds) if k in (
        EventKind.INSPECTION_PASSED.value, EventKind.INSPECTION_FAILED.value,
        EventKind.INSPECTION_CALLED.value, EventKind.VEHICLE_SUBSTITUTED.value)), None)
    return {EventKind.INSPECTION_FAILED.value: "return", EventKind.INSPECTION_CALLED.value: "extraordinary",
            EventKind.VEHICLE_SUBSTITUTED.value: "substitution", EventKind.INSPECTION_PASSED.value: "annual",
            None: "initial"}[last]


def inspection_computed(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> dict[str, Finding]:
    """The checklist items the register answers (the vehicle's age from its model year), by code."""
    authorize(actor, "read", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    return rules_of(municipality).inspection_computed(vehicle_concept(vehicle_record(db, municipality, doc["plate"])),
                                                      on)


def record_inspection(db: Database, actor: Actor, municipality: str, auth_id: str, performed_on: date,
                      answers: dict[str, bool], inspector: str = "", notes: str = "") -> InspectionOutcome:
    """Record a vistoria with the law's checklist: approved, or failed with 5 days to fix (blocked).

    The inspector's name is required (the laudo carries it); items the register answers (the age
    from the model year) are computed here, whatever was ticked."""
    authorize(actor, "write", municipality)
    entities.refuse_future("performed_on", "Data da vistoria", performed_on)
    inspector = entities.fields._plain_text("text", str(inspector or ""))
    if not inspector:
        raise ValidationFailed({"inspector": "Vistoriador: informe o nome de quem fez a vistoria."})
    scope = Scope(db, municipality)
    doc = _auth_doc(db, municipality, auth_id)
    computed = inspection_computed(db, actor, municipality, auth_id, performed_on)
    answers = {**answers, **{code: finding.ok for code, finding in computed.items()}}
    allowed = (Status.AWAITING_INSPECTION, Status.BLOCKED, Status.ACTIVE, Status.AWAITING_FEE)
    _require(scope.state(doc, performed_on), *allowed)
    rules = scope.rules
    decision = rules.evaluate_inspection(answers)
    deadline = None if decision.ok else rules.fix_deadline(performed_on, scope.calendar(performed_on))
    pendings = "; ".join(f.message for f in decision.failures)
    kind = EventKind.INSPECTION_PASSED if decision.ok else EventKind.INSPECTION_FAILED
    with store.transaction(db):
        inspection_id = entities.create(db, actor, "inspections", municipality, {
            "authorization_id": auth_id, "plate": doc["plate"], "kind": inspection_kind(doc),
            "performed_on": performed_on, "result": "approved" if decision.ok else "failed",
            "fix_deadline": deadline, "inspector": inspector, "notes": "\n".join(x for x in (notes, pendings) if x),
        })
        db["inspections"].update_one({"_id": ObjectId(inspection_id)}, {"$set": {"answers": dict(answers)}})
        new_state = _step(db, actor, municipality, auth_id, kind, performed_on, allowed, note=pendings)
    return InspectionOutcome(inspection_id, decision, deadline, new_state)


def call_inspection(db: Database, actor: Actor, municipality: str, auth_id: str, on: date, note: str = "") -> date:
    """Extraordinary convocation: the last day to attend. The convocation gets a number for the notice
    sent to the driver with a copy to the platform (``ridehailing_documents.convocation_notice_pdf``)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da convocação", on)

    def decide(doc: dict, unit: _Unit) -> _Change:
        _require(unit.scope.state(doc, on), Status.ACTIVE)
        deadline = unit.scope.rules.convocation_deadline(on, unit.scope.book, unit.scope.calendar(on))
        number = unit.number(CONVOCATION_KIND, on.year)
        change = _event(actor, municipality, doc, unit, EventKind.INSPECTION_CALLED, on, note=note,
                        extra={"convocation": {"number": number, "called_on": on, "deadline": deadline,
                                               "reason": note.strip()}})
        change.result = deadline
        return change

    return _write(db, actor, municipality, auth_id, decide)


def substitute_vehicle(db: Database, actor: Actor, municipality: str, auth_id: str, plate: str, on: date,
                       reason: str) -> AuthorizationState:
    """Change the vehicle (accident, sale, hire): the new one must meet the law and pass a new vistoria."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da substituição", on)
    vehicle = vehicle_record(db, municipality, entities.fields.parse("plate", plate))
    taken = {OPEN_PLATE: open_keys(municipality, vehicle["plate"], "")[OPEN_PLATE]}
    if _holder(db, taken) is not None:
        _release_ended(db, actor, municipality, taken, on, Scope(db, municipality))

    def decide(doc: dict, unit: _Unit) -> _Change:
        _require(unit.scope.state(doc, on), Status.ACTIVE, Status.BLOCKED)
        if vehicle["driver_cpf"] != doc["driver_cpf"]:
            raise ValidationFailed({"plate": "O novo veículo não está vinculado ao condutor da autorização."})
        verdict = vehicle_eligibility(db, actor, municipality, vehicle["plate"], on, unit.scope, doc["plate"])
        if not verdict.ok:
            raise NotEligible(verdict.reasons())
        return _event(actor, municipality, doc, unit, EventKind.VEHICLE_SUBSTITUTED, on,
                      note=f"{doc['plate']} → {vehicle['plate']}: {reason}", extra={"plate": vehicle["plate"]})

    return _write(db, actor, municipality, auth_id, decide)


# ---- fee DAM and issue on payment ----

def fee_amount(db: Database, municipality: str, on: date) -> Decimal:
    """The fee in force on ``on``; ParameterMissing (never a zero) when the municipality set none."""
    return Decimal(str(parameters.value(db, municipality, FEE_PARAMETER, on)))


def fee_received(fee: dict) -> Decimal:
    """What the payments of the fee DAMs (the first and any complementary one) added up to."""
    return sum((Decimal(str(r["amount"])) for r in fee.get("received", [])), Decimal("0"))


def open_shortfall(doc: dict) -> dict | None:
    """The short payment of the fee still without a complementary DAM (None when there is none).

    ``{"due", "paid", "difference", "dam_number", "paid_on"}``: the fee due, what was paid so far, the
    difference and the DAM paid short. The authorization stays awaiting the fee meanwhile.
    """
    fee = doc.get("fee_dam") or {}
    short = fee.get("short")
    last_paid = any(r["dam_id"] == fee.get("dam_id") for r in fee.get("received", []))
    return short if short and not fee.get("paid") and last_paid else None


def issue_fee_dam(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> dict:
    """Issue the DAM of the authorization fee (initial, or renewal once requested). After a short
    payment the DAM is complementary: it charges only the difference still due."""
    authorize(actor, "write", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    scope = Scope(db, municipality)
    state = scope.state(doc, on)
    renewal = state.status is Status.ACTIVE and pending_renewal(doc)
    if not renewal:
        _require(state, Status.AWAITING_FEE)
    purpose = "renewal" if renewal else "initial"
    short = open_shortfall(doc)
    if short and (doc.get("fee_dam") or {}).get("purpose") == purpose:
        previous = doc["fee_dam"]
        total, received = Decimal(str(previous["fee_total"])), previous["received"]
        amount = total - fee_received(previous)
        what = f"Complementação (DAM {short['dam_number']} pago a menor) da taxa de "
    else:
        total = amount = fee_amount(db, municipality, on)
        received, short = [], None
        what = "Taxa de "
    driver = driver_record(db, municipality, doc["driver_cpf"])
    rules = scope.rules
    from services.dam import (
        dams,  # the DAM module (issue 6) owns numbering, barcode and payment
    )

    with store.transaction(db):  # the DAM, its number and the fee record on the authorization
        dam = dams.issue(
            db, actor, municipality,
            taxpayer_name=driver["name"], taxpayer_document=driver["cpf"],
            taxpayer_address=", ".join(x for x in (driver.get("address"), driver.get("district")) if x),
            revenue_kind="taxa_autorizacao",
            description=f"{what}{'renovação' if renewal else 'expedição'} da autorização de transporte por "
                        f"aplicativo — protocolo {doc['protocol']}, placa {entities.fields.show('plate', doc['plate'])}",
            legal_basis=rules.ref("fee"), amount=amount, due=scope.calendar(on).add_days(on, FEE_DUE_DAYS),
            pays={"collection": "authorizations", "id": doc["id"], "label": f"Autorização {doc['protocol']}"},
        )
        fee = {"dam_id": dam["id"], "number": str(dam.get("number", "")), "amount": amount,
               "due": parse_date(dam["due_on"]), "purpose": purpose, "paid": False, "fee_total": total,
               "received": received, "short": short}
        _write(db, actor, municipality, doc["id"],
               lambda fresh, unit: _Change("fee_dam", {"fee_dam": fee}, {"fee_dam": fresh.get("fee_dam")}))
    return dam


def pending_renewal(doc: dict) -> bool:
    """Whether a renewal was requested and its fee not yet paid."""
    kinds = [e["kind"] for e in doc.get("events", [])]
    last = next((k for k in reversed(kinds) if k in (EventKind.RENEWAL_REQUESTED.value,
                                                     EventKind.RENEWAL_FEE_PAID.value)), None)
    return last == EventKind.RENEWAL_REQUESTED.value


def request_renewal(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """Record the renewal request (a late request is kept with the rules' warning)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data do requerimento", on)

    def decide(doc: dict, unit: _Unit) -> _Change:
        _require(unit.scope.state(doc, on), Status.ACTIVE)
        if pending_renewal(doc):
            raise WrongStep("A renovação já foi requerida; emita ou aguarde o pagamento do DAM.")
        return _event(actor, municipality, doc, unit, EventKind.RENEWAL_REQUESTED, on)

    return _write(db, actor, municipality, auth_id, decide)


def _paid_on(dam: dict) -> date:
    """The payment date the DAM module recorded (``payment.paid_on``)."""
    return parse_date((dam.get("payment") or {}).get("paid_on")) or clock.today()


def _stored_paid_dam(db: Database, dam: dict) -> dict | None:
    """The DAM named by ``dam`` as the store has it, if it is really paid and pays an authorization.

    The handler never trusts the fields of the dict it is given: a forged dict issues nothing."""
    from services.dam import dams  # the DAM module owns the collection and its statuses

    try:
        dam_id = ObjectId(str(dam.get("id") or dam.get("_id") or ""))
    except (InvalidId, TypeError):
        return None
    stored = db[dams.COLLECTION].find_one({"_id": dam_id, "status": dams.PAID})
    if stored is None or (stored.get("pays") or {}).get("collection") != "authorizations":
        return None
    stored = decode(stored)
    stored["id"] = str(stored.pop("_id"))
    return stored


@events.on_dam_paid("authorizations")
def fee_paid(db: Database, dam: dict) -> None:
    """A paid fee DAM issues the authorization (number and validity) or renews it.

    The authorization follows the payment of the fee (CG art. 9 §1 and art. 16 §ú; MP art. 3 §ú and
    art. 9): a payment below the amount due leaves it awaiting the fee with the difference recorded;
    a late payment or one above the amount still issues it and keeps the DAM's alerts visible.

    Idempotent and re-runnable (the DAM-paid outbox may call it again after a crash or on retry): the
    DAM is read from the store and must be paid; a DAM already received changes nothing; the whole
    handler is one unit of work whose write is conditional on the version it read.
    """
    stored = _stored_paid_dam(db, dam)
    if stored is None:
        return
    payment = stored.get("payment") or {}
    receipt = {"dam_id": stored["id"], "number": str(stored.get("number") or ""), "amount": payment.get("amount"),
               "paid_on": _paid_on(stored), "alerts": list(payment.get("notes", []))}
    _settle_fee(db, DAM_ACTOR, stored["municipality"], stored["pays"]["id"], receipt)


def record_earlier_payment(db: Database, actor: Actor, municipality: str, auth_id: str, paid_on: date,
                           note: str = "") -> None:
    """History loaded into the panel: the fee was paid on ``paid_on`` before the panel, with no DAM in
    it; taken as paid in full and issued as a paid DAM would. Runs once (a second call is refused)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("paid_on", "Data do pagamento", paid_on)
    receipt = {"dam_id": "", "number": note, "amount": None, "paid_on": paid_on, "alerts": []}
    _settle_fee(db, actor, municipality, auth_id, receipt, history=True)


def _settle_fee(db: Database, actor: Actor, municipality: str, auth_id: str, receipt: dict,
                history: bool = False) -> None:
    def decide(doc: dict, unit: _Unit) -> _Change | None:
        fee = doc.get("fee_dam") or {}
        dam_id = receipt["dam_id"]
        if dam_id and any(r["dam_id"] == dam_id for r in fee.get("received", [])):
            return None  # this DAM was already received: nothing to do
        if not fee and not history:
            return None  # a DAM paying the authorization that is not its fee DAM
        total, amount = fee.get("fee_total", fee.get("amount")), receipt["amount"]
        if amount is None or total is None:  # history loaded without amounts: taken as paid in full
            amount = total = Decimal(str(total or 0))
        received = [*fee.get("received", []), {**receipt, "number": receipt["number"] or fee.get("number", ""),
                                               "amount": Decimal(str(amount))}]
        fee = {**fee, "received": received, "fee_total": Decimal(str(total))}
        number, paid_on = received[-1]["number"], receipt["paid_on"]
        if fee_received(fee) < fee["fee_total"]:
            return _short_payment(doc, fee, number, paid_on)
        renewal = fee.get("purpose") == "renewal"
        extra = {"fee_dam": {**fee, "paid": True, "paid_on": paid_on, "short": None}}
        if not renewal and not doc.get("number"):
            extra["number"] = unit.number(NUMBER_KIND, paid_on.year)
            extra["issued_on"] = paid_on
        kind = EventKind.RENEWAL_FEE_PAID if renewal else EventKind.FEE_PAID
        alerts = [a for r in received for a in r["alerts"]]
        note = f"DAM {number} pago" + (" — alertas do DAM: " + "; ".join(alerts) if alerts else "")
        return _event(actor, municipality, doc, unit, kind, paid_on, note=note, extra=extra)

    _write(db, actor, municipality, auth_id, decide)


def _short_payment(doc: dict, fee: dict, number: str, paid_on: date) -> _Change:
    """Keep the authorization awaiting the fee and record what is still missing."""
    paid = fee_received(fee)
    fee["short"] = {"due": fee["fee_total"], "paid": paid, "difference": fee["fee_total"] - paid,
                    "dam_number": number, "paid_on": paid_on}
    fee["paid"] = False
    return _Change("fee_short", {"fee_dam": fee}, {"fee_dam": doc.get("fee_dam")}, note=shortfall_text(fee["short"]))


def shortfall_text(short: dict) -> str:
    """The pt-BR line that explains a short payment of the fee."""
    return (f"DAM {short['dam_number']} da taxa pago a menor em {parse_date(short['paid_on']):%d/%m/%Y}: devido "
            f"{brl(short['due'])}, pago {brl(short['paid'])}, falta {brl(short['difference'])}. "
            "A autorização só é expedida com a taxa integralmente paga; emita o DAM complementar.")


# ---- events that come from enforcement (next issue) ----

def record_sanction(db: Database, actor: Actor, municipality: str, auth_id: str, kind: EventKind, on: date,
                    until: date | None = None, note: str = "") -> AuthorizationState:
    """Suspension (with its last day), revocation or cassação decided in an infraction process."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da decisão", on)
    if kind not in (EventKind.SUSPENDED, EventKind.REVOKED, EventKind.CASSADA):
        raise WrongStep("Penalidade desconhecida.")
    return _step(db, actor, municipality, auth_id, kind, on, (), until, note)


def apply_penalty(db: Database, actor: Actor, municipality: str, auth_id: str, kind: EventKind, on: date,
                  until: date | None = None, note: str = "") -> AuthorizationState:
    """A penalty of an infraction process that takes effect on ``on``, which may be a later day: the
    status (and the public check) turns on that day and, for a suspension, returns after ``until``."""
    authorize(actor, "write", municipality)
    if kind not in (EventKind.SUSPENDED, EventKind.REVOKED, EventKind.CASSADA):
        raise WrongStep("Penalidade desconhecida.")
    return _step(db, actor, municipality, auth_id, kind, on, (), until, note)


def authorization_of(db: Database, actor: Actor, municipality: str, driver_cpf: str = "", plate: str = "") -> str:
    """The id of the newest authorization of the driver (or else of the plate)."""
    authorize(actor, "read", municipality)
    for name, value in (("driver_cpf", driver_cpf), ("plate", plate)):
        if value:
            found = list(db["authorizations"].find({"municipality": municipality, name: value}, {"_id": 1})
                         .sort("protocol_date", -1).limit(1))
            if found:
                return str(found[0]["_id"])
    raise NotFound("Nenhuma autorização do condutor ou do veículo do auto.")


# ---- lists ----

@dataclass(frozen=True)
class AuthorizationRow:
    id: str
    protocol: str
    protocol_date: date
    number: str
    driver_cpf: str
    driver_name: str
    plate: str
    state: AuthorizationState


ROW_FIELDS = {"protocol": 1, "protocol_date": 1, "number": 1, "driver_cpf": 1, "plate": 1, "events": 1}


def driver_names(db: Database, municipality: str, cpfs: Any) -> dict[str, str]:
    """Names of the drivers of ``cpfs``, in one query."""
    rows = db["drivers"].find({"municipality": municipality, "cpf": {"$in": sorted(set(cpfs))}}, {"cpf": 1, "name": 1})
    return {d["cpf"]: d["name"] for d in rows}


def authorization_rows(db: Database, actor: Actor, municipality: str, on: date, search: str = "",
                       scope: Scope | None = None) -> list[AuthorizationRow]:
    """Every authorization with its status on ``on`` (newest protocol first): one query for the
    authorizations, one for their drivers' names, one parameter load for every status."""
    authorize(actor, "read", municipality)
    return matching(_all_rows(db, municipality, on, scope or Scope(db, municipality)), search)


def matching(rows: list[AuthorizationRow], search: str) -> list[AuthorizationRow]:
    """The rows whose protocol, number, plate, CPF or driver's name contain ``search``."""
    term = search.strip().upper().replace("-", "")
    if not term:
        return rows
    return [r for r in rows if term in " ".join((r.protocol, r.number, r.plate, r.driver_cpf, r.driver_name.upper()))
            .replace("-", "")]


# One page of the authorization list (rows are AuthorizationRow) and how many match in all.
RowsPage = schema.Page


ROW_SORT = [("protocol_date", -1), ("protocol", -1)]
ROW_SORTS = {"protocol_date": "Data do protocolo", "protocol": "Protocolo", "number": "Nº da autorização",
             "plate": "Placa", "valid_until": "Validade"}
IN_FORCE_STORED = [s.value for s in IN_FORCE]


def _status_query(status: str | None, on: date) -> dict:
    """The store filter of a status on ``on``: the stored status, with expiry (no event) by the validity."""
    if not status:
        return {}
    today = on.isoformat()
    if status == Status.EXPIRED.value:
        return {"$or": [{"status": status},
                        {"status": {"$in": IN_FORCE_STORED}, "valid_until": {"$lt": today}}]}
    if status in IN_FORCE_STORED:
        return {"status": status, "$or": [{"valid_until": None}, {"valid_until": {"$gte": today}}]}
    return {"status": status}


def _list_query(db: Database, municipality: str, on: date, search: str, status: str | None) -> dict:
    if status and status not in {s.value for s in Status}:
        raise ValidationFailed({"status": "Situação inválida: escolha uma da lista."})
    clauses: list[dict] = [{"municipality": municipality}]
    term = search.replace("\x00", "").strip().replace("-", "")
    if term:
        pattern = {"$regex": re.escape(term), "$options": "i"}
        named = db["drivers"].find({"municipality": municipality, "name": pattern}, {"cpf": 1})
        ors = [{name: pattern} for name in ("protocol", "number", "plate", "driver_cpf")]
        ors.append({"driver_cpf": {"$in": sorted({d["cpf"] for d in named})}})
        clauses.append({"$or": ors})
    if status:
        clauses.append(_status_query(status, on))
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _row_sort(sort: str | None, descending: bool) -> list[tuple[str, int]]:
    if sort in (None, "", "protocol_date") and descending:
        return ROW_SORT
    if sort not in ROW_SORTS:
        raise ValidationFailed({"sort": "Ordenação inválida: escolha uma coluna da lista."})
    return [(sort, -1 if descending else 1), ("_id", 1)]


def authorization_page(db: Database, actor: Actor, municipality: str, on: date, search: str = "", page: int = 1,
                       per_page: int = 25, status: str | None = None, sort: str | None = None,
                       descending: bool = True) -> RowsPage:
    """A page of the authorizations matching ``search`` in the protocol, the number, the plate, the
    CPF or the driver's name, and ``status`` on ``on``; newest protocol first unless ``sort`` says
    otherwise. Search, count, sort and pagination run in the store; only the rows shown are folded
    (four queries whatever the size of the register)."""
    authorize(actor, "read", municipality)
    query = _list_query(db, municipality, on, search, status)
    total = db["authorizations"].count_documents(query)
    per_page = max(1, int(per_page))
    page = min(max(1, int(page)), max(1, -(-total // per_page)))
    raws = db["authorizations"].find(query, ROW_FIELDS).sort(_row_sort(sort, descending)) \
        .skip((page - 1) * per_page).limit(per_page)
    docs = [decode(raw) for raw in raws]
    return RowsPage(_rows_of(db, municipality, docs, on, Scope(db, municipality)), total, page, per_page)


ROW_COLUMNS = ["Protocolo", "Data do protocolo", "Nº", "Condutor", "CPF", "Placa", "Situação", "Validade"]


def row_cells(row: AuthorizationRow) -> dict[str, Any]:
    """An authorization row as the list and its exports show it (pt-BR headers, typed cells)."""
    return {"Protocolo": row.protocol, "Data do protocolo": row.protocol_date, "Nº": row.number or "",
            "Condutor": row.driver_name, "CPF": entities.fields.show("cpf", row.driver_cpf),
            "Placa": entities.fields.show("plate", row.plate), "Situação": row.state.label,
            "Validade": row.state.valid_until}


def export_authorizations(db: Database, actor: Actor, municipality: str, on: date, search: str = "",
                          status: str | None = None, sort: str | None = None, descending: bool = True,
                          kind: str = "xlsx") -> bytes:
    """Exactly the authorizations the list's filter shows, every page, as XLSX or CSV."""
    authorize(actor, "read", municipality)
    query = _list_query(db, municipality, on, search, status)
    docs = [decode(raw) for raw in db["authorizations"].find(query, ROW_FIELDS).sort(_row_sort(sort, descending))]
    rows = [row_cells(r) for r in _rows_of(db, municipality, docs, on, Scope(db, municipality))]
    if kind == "csv":
        return exports.to_csv(rows, ROW_COLUMNS)
    return exports.to_xlsx(rows, ROW_COLUMNS, sheet="Autorizações")


def data_version(db: Database, actor: Actor, municipality: str) -> str:
    """A mark that changes whenever the authorizations, their drivers or the data changes change:
    the key under which a page may cache what it built from them (one small query per collection)."""
    authorize(actor, "read", municipality)
    marks = []
    for collection in VERSIONED:
        newest = list(db[collection].find({"municipality": municipality}, {"updated_at": 1})
                      .sort("updated_at", -1).limit(1))
        marks.append(str(newest[0].get("updated_at")) if newest else "-")
    return "|".join(marks)


def _all_rows(db: Database, municipality: str, on: date, scope: Scope) -> list[AuthorizationRow]:
    docs = [decode(raw) for raw in db["authorizations"].find({"municipality": municipality}, ROW_FIELDS)
            .sort(ROW_SORT)]
    return _rows_of(db, municipality, docs, on, scope)


def _rows_of(db: Database, municipality: str, docs: list[dict], on: date, scope: Scope) -> list[AuthorizationRow]:
    names = driver_names(db, municipality, (d["driver_cpf"] for d in docs))
    rows = []
    for doc in docs:
        name = names.get(doc["driver_cpf"], "")
        rows.append(AuthorizationRow(str(doc["_id"]), doc["protocol"], parse_date(doc["protocol_date"]),
                                     doc.get("number") or "", doc["driver_cpf"], name, doc["plate"],
                                     scope.state(doc, on)))
    return rows


def record_history(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str) -> list[dict]:
    """Changes of a driver's or vehicle's data with their dates (the 7-day reporting rule needs them)."""
    authorize(actor, "read", municipality)
    spec = schema.SPECS[collection]
    labels = {f.name: f for f in spec.fields}
    rows = []
    query = {"collection": collection, "doc_id": doc_id, "municipality": municipality, "action": "update"}
    for entry in db["audit"].find(query).sort("at", 1):
        entry = decode(entry)
        for name, change in entry.get("changes", {}).items():
            if name not in labels:
                continue
            rows.append({"Data": f"{clock.to_local(entry['at']):%d/%m/%Y %H:%M}", "Usuário": entry["username"],
                         "Campo": labels[name].label, "Antes": labels[name].show(change.get("before")),
                         "Depois": labels[name].show(change.get("after"))})
    return rows
