"""The authorization's process up to the vistoria, and what changes it afterwards.

The request (protocol with a number of the municipal counter), its analysis against the law on the
protocol date (approve, with the vehicle to be shown in 5 days, or refuse with the reasons), the
cancellation of a protocol entered by mistake, the substitution of the vehicle, and the penalties
decided in an infraction process; with the reads of one authorization (document, status, the open
one of a driver, the newest of a driver or plate). Each step is an event appended through
``authorization_records.Unit``; the rule set decides whether it fits and which status it leads to.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules.base import Decision
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import store
from services.ridehailing import authorization_records, registry
from services.ridehailing.authorization_records import (
    OPEN_DRIVER,
    OPEN_PLATE,
    Change,
    Unit,
)
from services.shared import audit, authenticity, clock, entities, fields, numbers
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import (
    DuplicateKeyError,
    decode,
    encode,
    ensure_indexes,
    insert_one,
    parse_date,
)

PROTOCOL_KIND = "transporte_protocolo"
PENALTIES = (EventKind.SUSPENDED, EventKind.REVOKED, EventKind.CASSADA)


class NotEligible(ServiceError):
    """Approval refused because the driver or the vehicle does not meet the law."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("Não é possível aprovar: " + "; ".join(reasons))
        self.reasons = reasons


# ---- reads ----

@checked
def get_authorization(db: Database, actor: Actor, municipality: str, auth_id: str) -> dict:
    authorize(actor, "read", municipality)
    return authorization_records.load(db, municipality, auth_id)


@checked
def status(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """The authorization's status on ``on``, with the date that matters and the reasons."""
    authorize(actor, "read", municipality)
    return authorization_records.state_of(authorization_records.load(db, municipality, auth_id), municipality, on, db)


@checked
def open_authorization(db: Database, actor: Actor, municipality: str, driver_cpf: str) -> dict | None:
    """The driver's authorization in progress or in force (the one holding his open key), or None."""
    authorize(actor, "read", municipality)
    doc = db["authorizations"].find_one(
        {OPEN_DRIVER: authorization_records.open_keys(municipality, "", driver_cpf)[OPEN_DRIVER]})
    if doc is None:
        return None
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


@checked
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


# ---- open keys held by an authorization that ended ----

def _release_ended(db: Database, actor: Actor, municipality: str, keys: dict[str, str], on: date,
                   scope: registry.Scope) -> bool:
    """Free the open keys held by authorizations that in fact ended by time (expired) or otherwise on
    ``on``; expiry is no event, so it is checked when a new request needs the plate or the driver.
    True when a key was freed (docs/LEITURAS.md, "Uma autorização aberta por placa e por condutor")."""
    freed = False
    holders = db["authorizations"].find({"$or": [{name: value} for name, value in keys.items()]})
    for raw in holders:
        doc = decode(raw)
        if scope.state(doc, on).status in (*authorization_records.ENDED, Status.EXPIRED):
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


# ---- request and analysis ----

@checked
def request_authorization(db: Database, actor: Actor, municipality: str, driver_cpf: str, plate: str,
                          protocol_date: date) -> str:
    """Protocol a request (number from the municipal counter) for a driver and the vehicle he uses.

    The store refuses a second open authorization for the plate or the driver (unique open keys)."""
    authorize(actor, "write", municipality)
    return request_checked(db, actor, municipality, driver_cpf, plate, protocol_date)


def request_checked(db: Database, actor: Actor, municipality: str, driver_cpf: str, plate: str,
                    protocol_date: date) -> str:
    """:func:`request_authorization` for a service that has already checked its actor: the driver's own
    application on the portal (``applications.submit``), the person being the driver of the request."""
    entities.refuse_future("protocol_date", "Data do protocolo", protocol_date)
    ensure_indexes(db, authorization_records.INDEXES)
    driver = registry.driver_record(db, municipality, fields.digits(driver_cpf))
    try:
        plate = fields.parse("plate", plate)
    except ValueError as exc:
        raise ValidationFailed({"plate": f"Placa: {exc}."}) from None
    vehicle = registry.vehicle_record(db, municipality, plate)
    if vehicle["driver_cpf"] != driver["cpf"]:
        raise ValidationFailed({"plate": "O veículo não está vinculado a este condutor; corrija o cadastro do veículo."})
    keys = authorization_records.open_keys(municipality, vehicle["plate"], driver["cpf"])
    scope = registry.Scope(db, municipality)
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
            raise authorization_records.open_key_conflict(exc, vehicle["plate"]) from None
        audit.record(db, actor, municipality, EventKind.REQUESTED.value, "authorizations", auth_id, {},
                     {**clean, "events": [event]}, note)
    return auth_id


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


@checked
def evaluate(db: Database, actor: Actor, municipality: str, auth_id: str, doc: dict | None = None,
             scope: registry.Scope | None = None) -> Evaluation:
    """Driver and vehicle against the law on the protocol date."""
    authorize(actor, "read", municipality)
    doc = doc or authorization_records.load(db, municipality, auth_id)
    scope = scope or registry.Scope(db, municipality)
    on = parse_date(doc["protocol_date"])
    return Evaluation(on, registry.driver_eligibility(db, actor, municipality, doc["driver_cpf"], on, scope),
                      registry.vehicle_eligibility(db, actor, municipality, doc["plate"], on, scope))


@checked
def cancel_request(db: Database, actor: Actor, municipality: str, auth_id: str, reason: str) -> AuthorizationState:
    """Cancel a protocol entered by mistake (wrong driver or vehicle, typed twice), before any decision.

    Not an indeferimento: the request leaves the queue and gives the plate and the driver back, the
    reason and who cancelled stay in its events and in the audit log.
    """
    authorize(actor, "write", municipality)
    why = fields._plain_text("text", str(reason or ""))
    if not why:
        raise ValidationFailed({"reason": "Motivo do cancelamento: campo obrigatório."})
    return Unit(db, actor, municipality).step(auth_id, EventKind.CANCELLED, clock.today(), (Status.REQUESTED,),
                                              note=why)


@checked
def approve(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """Approve a request whose driver and vehicle meet the law; the vehicle must be shown in 5 days."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da decisão", on)

    def decide(doc: dict, unit: Unit) -> Change:
        authorization_records.require(unit.scope.state(doc, on), Status.REQUESTED)
        verdict = evaluate(db, actor, municipality, auth_id, doc, unit.scope)
        if not verdict.ok:
            raise NotEligible(verdict.reasons())
        return unit.event(doc, EventKind.APPROVED, on)

    return Unit(db, actor, municipality).write(auth_id, decide)


@checked
def refuse(db: Database, actor: Actor, municipality: str, auth_id: str, on: date, note: str = "") -> list[str]:
    """Refuse a request; the reasons are the findings that block plus what the secretariat writes."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da decisão", on)

    def decide(doc: dict, unit: Unit) -> Change:
        authorization_records.require(unit.scope.state(doc, on), Status.REQUESTED)
        reasons = (evaluate(db, actor, municipality, auth_id, doc, unit.scope).reasons()
                   + ([note.strip()] if note.strip() else []))
        if not reasons:
            raise ValidationFailed({"note": "Motivo: o requerimento atende à lei; escreva o motivo do indeferimento."})
        change = unit.event(doc, EventKind.REFUSED, on, note="; ".join(reasons), extra={"refusal_reasons": reasons})
        change.result = reasons
        return change

    return Unit(db, actor, municipality).write(auth_id, decide)


# ---- after the issue: substitution of the vehicle and penalties ----

@checked
def substitute_vehicle(db: Database, actor: Actor, municipality: str, auth_id: str, plate: str, on: date,
                       reason: str) -> AuthorizationState:
    """Change the vehicle (accident, sale, hire): the new one must meet the law and pass a new vistoria."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da substituição", on)
    try:
        plate = fields.parse("plate", plate)
    except ValueError as exc:
        raise ValidationFailed({"plate": f"Placa: {exc}."}) from None
    vehicle = registry.vehicle_record(db, municipality, plate)
    taken = {OPEN_PLATE: authorization_records.open_keys(municipality, vehicle["plate"], "")[OPEN_PLATE]}
    if _holder(db, taken) is not None:
        _release_ended(db, actor, municipality, taken, on, registry.Scope(db, municipality))

    def decide(doc: dict, unit: Unit) -> Change:
        authorization_records.require(unit.scope.state(doc, on), Status.ACTIVE, Status.BLOCKED)
        if vehicle["driver_cpf"] != doc["driver_cpf"]:
            raise ValidationFailed({"plate": "O novo veículo não está vinculado ao condutor da autorização."})
        verdict = registry.vehicle_eligibility(db, actor, municipality, vehicle["plate"], on, unit.scope, doc["plate"])
        if not verdict.ok:
            raise NotEligible(verdict.reasons())
        return unit.event(doc, EventKind.VEHICLE_SUBSTITUTED, on, note=f"{doc['plate']} → {vehicle['plate']}: {reason}",
                          extra={"plate": vehicle["plate"]})

    return Unit(db, actor, municipality).write(auth_id, decide)


@checked
def record_sanction(db: Database, actor: Actor, municipality: str, auth_id: str, kind: EventKind, on: date,
                    until: date | None = None, note: str = "") -> AuthorizationState:
    """Suspension (with its last day), revocation or cassação decided in an infraction process."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da decisão", on)
    if kind not in PENALTIES:
        raise authorization_records.WrongStep("Penalidade desconhecida.")
    state = Unit(db, actor, municipality).step(auth_id, kind, on, (), until, note)
    _mark_documents(db, municipality, auth_id, kind, on)
    return state


@checked
def apply_penalty(db: Database, actor: Actor, municipality: str, auth_id: str, kind: EventKind, on: date,
                  until: date | None = None, note: str = "", ref: str = "") -> AuthorizationState:
    """A penalty of an infraction process that takes effect on ``on``, which may be a later day (the day
    its decision becomes final): the status (and the public check) turns on that day and, for a
    suspension, returns after ``until``. ``ref`` names it for :func:`lift_penalty`."""
    authorize(actor, "write", municipality)
    if kind not in PENALTIES:
        raise authorization_records.WrongStep("Penalidade desconhecida.")
    state = Unit(db, actor, municipality).step(auth_id, kind, on, (), until, note, ref)
    _mark_documents(db, municipality, auth_id, kind, on)
    return state


ENDING = (EventKind.REVOKED, EventKind.CASSADA)
DOCUMENT_KINDS = ("selo", "certificado")


def _mark_documents(db: Database, municipality: str, auth_id: str, kind: EventKind, on: date) -> None:
    """A revocation or cassação marks the sticker and certificate revoked for the public verification, from
    the day it takes effect (until then the authorization is in force and they stand)."""
    if kind in ENDING:
        word = "revogada" if kind == EventKind.REVOKED else "cassada"
        authenticity.mark(db, municipality, ("authorizations", auth_id), authenticity.REVOKED,
                          note=f"Autorização {word} a partir de {on:%d/%m/%Y}", kinds=DOCUMENT_KINDS, on=on)


@checked
def lift_penalty(db: Database, actor: Actor, municipality: str, auth_id: str, ref: str, on: date,
                 note: str) -> AuthorizationState:
    """Lift the penalty event ``ref`` from ``on`` (an appeal filed in time holds it; one granted drops it):
    the status is folded as if it had not been applied from that day; both events stay in the history."""
    authorize(actor, "write", municipality)
    if not ref:
        raise authorization_records.WrongStep("Penalidade desconhecida.")
    state = Unit(db, actor, municipality).step(auth_id, EventKind.PENALTY_LIFTED, on, (), None, note, ref)
    lifted = {e["kind"] for e in get_authorization(db, actor, municipality, auth_id).get("events", [])
              if e.get("ref") == ref}
    still_ended = state.status in authorization_records.ENDED  # another penalty may still end it
    if lifted & {kind.value for kind in ENDING} and not still_ended:  # the sticker and certificate stand again
        authenticity.restore(db, municipality, ("authorizations", auth_id), authenticity.REVOKED,
                             note=f"Penalidade afastada em {on:%d/%m/%Y}", kinds=DOCUMENT_KINDS)
    return state
