"""Ride-hailing registry services: stored drivers, vehicles and authorizations → the municipal rules.

Thin on purpose: each service loads the records, builds the rule concepts
(``rules.ridehailing.concepts``), asks the municipality's rule set
(``ruleset(mun, "transporte")``) and saves the outcome as a dated event with its audit entry.
No legal condition is decided here: eligibility, deadlines, validity and status come from the rules.

An authorization document keeps its events (``requested`` … ``fee_paid``) as a list of
``{kind, on, until, note}``; its status on any date is folded from them by the rule set.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules.base import Decision
from rules.fmt import brl
from rules.registry import RIDE_HAILING, ruleset
from rules.ridehailing.concepts import (
    Authorization, AuthorizationEvent, Document, Driver, EventKind, Holder, Severity, TrafficInfraction, Vehicle,
)
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import audit, clock, entities, events, numbers, parameters, specs  # noqa: F401  (specs registers the entity specs)
from services.auth import Actor, authorize
from services.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import decode, encode, parse_date

FEE_PARAMETER = "authorization_fee"  # R$ of the authorization and renewal fee (taxa do CTM)
FEE_DUE_DAYS = 10  # days the fee DAM gives to pay; a convenience of the panel, not a legal term
PROTOCOL_KIND = "transporte_protocolo"
NUMBER_KIND = "transporte_autorizacao"
CONVOCATION_KIND = "transporte_convocacao"
ENDED = (Status.REFUSED, Status.REVOKED, Status.CASSADA)
IN_FORCE = (Status.ACTIVE, Status.BLOCKED, Status.SUSPENDED)
DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))


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
    return entities._typed(entities.SPECS[collection], decode(doc))


def driver_record(db: Database, municipality: str, cpf: str) -> dict:
    return _one(db, "drivers", municipality, {"cpf": cpf}, "Condutor não cadastrado.")


def vehicle_record(db: Database, municipality: str, plate: str) -> dict:
    return _one(db, "vehicles", municipality, {"plate": plate}, "Veículo não cadastrado.")


def _children(db: Database, collection: str, municipality: str, cpf: str) -> list[dict]:
    spec = entities.SPECS[collection]
    rows = db[collection].find({"municipality": municipality, "driver_cpf": cpf})
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

def driver_eligibility(db: Database, actor: Actor, municipality: str, cpf: str, on: date) -> Decision:
    """Every requirement of the municipality's law for the driver on ``on``, with its article."""
    authorize(actor, "read", municipality)
    book = parameters.book(db, municipality)
    return rules_of(municipality).driver_eligibility(driver_concept(db, municipality, cpf), on, book,
                                                    parameters.calendar(db, municipality, on))


def vehicle_eligibility(db: Database, actor: Actor, municipality: str, plate: str, on: date) -> Decision:
    """Every requirement of the law for the vehicle on ``on`` (one vehicle per driver included)."""
    authorize(actor, "read", municipality)
    doc = vehicle_record(db, municipality, plate)
    others = authorized_plates(db, municipality, doc["driver_cpf"], on)
    return rules_of(municipality).vehicle_eligibility(vehicle_concept(doc), on, parameters.book(db, municipality),
                                                     others)


def authorized_plates(db: Database, municipality: str, cpf: str, on: date) -> list[str]:
    """Plates of the driver's authorizations in force on ``on`` (issued and not ended or expired)."""
    plates = []
    for doc in db["authorizations"].find({"municipality": municipality, "driver_cpf": cpf}):
        doc = decode(doc)
        if state_of(doc, municipality, on, db).status in IN_FORCE:
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


def state_of(doc: dict, municipality: str, on: date, db: Database) -> AuthorizationState:
    """The status of a stored authorization document on ``on``, folded by the rule set."""
    return rules_of(municipality).authorization_status(
        authorization_concept(doc), on, parameters.book(db, municipality), parameters.calendar(db, municipality, on))


def get_authorization(db: Database, actor: Actor, municipality: str, auth_id: str) -> dict:
    authorize(actor, "read", municipality)
    return _auth_doc(db, municipality, auth_id)


def status(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """The authorization's status on ``on``, with the date that matters and the reasons."""
    authorize(actor, "read", municipality)
    return state_of(_auth_doc(db, municipality, auth_id), municipality, on, db)


def _add_event(db: Database, actor: Actor, municipality: str, doc: dict, kind: EventKind, on: date,
               until: date | None = None, note: str = "", extra: dict | None = None) -> AuthorizationState:
    """Append a dated event, check the sequence with the rules, save with status and audit."""
    entry = {"kind": kind.value, "on": on, "until": until, "note": note, "by": actor.username}
    after = {**doc, "events": [*doc.get("events", []), entry], **(extra or {})}
    state = state_of(after, municipality, max(on, clock.today()), db)
    changes = {"events": after["events"], "status": state.status.value, "valid_until": state.valid_until,
               **(extra or {})}
    db["authorizations"].update_one({"_id": ObjectId(doc["id"]), "municipality": municipality},
                                    {"$set": encode({**changes, "updated_at": clock.now_utc()})})
    before = {k: doc.get(k) for k in changes}
    audit.record(db, actor, municipality, kind.value, "authorizations", doc["id"], before, changes, note)
    return state


def request_authorization(db: Database, actor: Actor, municipality: str, driver_cpf: str, plate: str,
                          protocol_date: date) -> str:
    """Protocol a request (number from the municipal counter) for a driver and the vehicle he uses."""
    authorize(actor, "write", municipality)
    driver = driver_record(db, municipality, entities.fields.digits(driver_cpf))
    vehicle = vehicle_record(db, municipality, entities.fields.parse("plate", plate))
    if vehicle["driver_cpf"] != driver["cpf"]:
        raise ValidationFailed({"plate": "O veículo não está vinculado a este condutor; corrija o cadastro do veículo."})
    for other in db["authorizations"].find({"municipality": municipality, "plate": vehicle["plate"]}):
        if state_of(decode(other), municipality, protocol_date, db).status not in (*ENDED, Status.EXPIRED):
            raise Conflict(f"Já há autorização em andamento para a placa ({decode(other)['protocol']}).", field="plate")
    protocol = numbers.next_number(db, municipality, PROTOCOL_KIND, protocol_date.year).text
    auth_id = entities.create(db, actor, "authorizations", municipality, {
        "protocol": protocol, "protocol_date": protocol_date, "driver_cpf": driver["cpf"],
        "plate": vehicle["plate"], "status": Status.REQUESTED.value,
    })
    _add_event(db, actor, municipality, _auth_doc(db, municipality, auth_id), EventKind.REQUESTED, protocol_date,
               note=f"Protocolo {protocol}")
    return auth_id


def evaluate(db: Database, actor: Actor, municipality: str, auth_id: str) -> Evaluation:
    """Driver and vehicle against the law on the protocol date."""
    authorize(actor, "read", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    on = parse_date(doc["protocol_date"])
    return Evaluation(on, driver_eligibility(db, actor, municipality, doc["driver_cpf"], on),
                      vehicle_eligibility(db, actor, municipality, doc["plate"], on))


def _require(state: AuthorizationState, *allowed: Status) -> None:
    if state.status not in allowed:
        raise WrongStep(f"Ação não cabe a uma autorização na situação '{state.label}'.")


def approve(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """Approve a request whose driver and vehicle meet the law; the vehicle must be shown in 5 days."""
    authorize(actor, "write", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    _require(state_of(doc, municipality, on, db), Status.REQUESTED)
    verdict = evaluate(db, actor, municipality, auth_id)
    if not verdict.ok:
        raise NotEligible(verdict.reasons())
    return _add_event(db, actor, municipality, doc, EventKind.APPROVED, on)


def refuse(db: Database, actor: Actor, municipality: str, auth_id: str, on: date, note: str = "") -> list[str]:
    """Refuse a request; the reasons are the findings that block plus what the secretariat writes."""
    authorize(actor, "write", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    _require(state_of(doc, municipality, on, db), Status.REQUESTED)
    reasons = evaluate(db, actor, municipality, auth_id).reasons() + ([note.strip()] if note.strip() else [])
    if not reasons:
        raise ValidationFailed({"note": "Motivo: o requerimento atende à lei; escreva o motivo do indeferimento."})
    _add_event(db, actor, municipality, doc, EventKind.REFUSED, on, note="; ".join(reasons),
               extra={"refusal_reasons": reasons})
    return reasons


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


def record_inspection(db: Database, actor: Actor, municipality: str, auth_id: str, performed_on: date,
                      answers: dict[str, bool], inspector: str = "", notes: str = "") -> InspectionOutcome:
    """Record a vistoria with the law's checklist: approved, or failed with 5 days to fix (blocked)."""
    authorize(actor, "write", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    state = state_of(doc, municipality, performed_on, db)
    _require(state, Status.AWAITING_INSPECTION, Status.BLOCKED, Status.ACTIVE, Status.AWAITING_FEE)
    rules = rules_of(municipality)
    decision = rules.evaluate_inspection(answers)
    deadline = None if decision.ok else rules.fix_deadline(performed_on, parameters.calendar(db, municipality,
                                                                                              performed_on))
    pendings = "; ".join(f.message for f in decision.failures)
    inspection_id = entities.create(db, actor, "inspections", municipality, {
        "authorization_id": auth_id, "plate": doc["plate"], "kind": inspection_kind(doc),
        "performed_on": performed_on, "result": "approved" if decision.ok else "failed",
        "fix_deadline": deadline, "inspector": inspector, "notes": "\n".join(x for x in (notes, pendings) if x),
    })
    db["inspections"].update_one({"_id": ObjectId(inspection_id)}, {"$set": {"answers": dict(answers)}})
    kind = EventKind.INSPECTION_PASSED if decision.ok else EventKind.INSPECTION_FAILED
    new_state = _add_event(db, actor, municipality, doc, kind, performed_on, note=pendings)
    return InspectionOutcome(inspection_id, decision, deadline, new_state)


def call_inspection(db: Database, actor: Actor, municipality: str, auth_id: str, on: date, note: str = "") -> date:
    """Extraordinary convocation: the last day to attend. The convocation gets a number for the notice
    sent to the driver with a copy to the platform (``ridehailing_documents.convocation_notice_pdf``)."""
    authorize(actor, "write", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    _require(state_of(doc, municipality, on, db), Status.ACTIVE)
    deadline = rules_of(municipality).convocation_deadline(on, parameters.book(db, municipality),
                                                          parameters.calendar(db, municipality, on))
    number = numbers.next_number(db, municipality, CONVOCATION_KIND, on.year).text
    _add_event(db, actor, municipality, doc, EventKind.INSPECTION_CALLED, on, note=note,
               extra={"convocation": {"number": number, "called_on": on, "deadline": deadline,
                                      "reason": note.strip()}})
    return deadline


def substitute_vehicle(db: Database, actor: Actor, municipality: str, auth_id: str, plate: str, on: date,
                       reason: str) -> AuthorizationState:
    """Change the vehicle (accident, sale, hire): the new one must meet the law and pass a new vistoria."""
    authorize(actor, "write", municipality)
    doc = _auth_doc(db, municipality, auth_id)
    _require(state_of(doc, municipality, on, db), Status.ACTIVE, Status.BLOCKED)
    vehicle = vehicle_record(db, municipality, entities.fields.parse("plate", plate))
    if vehicle["driver_cpf"] != doc["driver_cpf"]:
        raise ValidationFailed({"plate": "O novo veículo não está vinculado ao condutor da autorização."})
    verdict = vehicle_eligibility(db, actor, municipality, vehicle["plate"], on)
    if not verdict.ok:
        raise NotEligible(verdict.reasons())
    return _add_event(db, actor, municipality, doc, EventKind.VEHICLE_SUBSTITUTED, on,
                      note=f"{doc['plate']} → {vehicle['plate']}: {reason}", extra={"plate": vehicle["plate"]})


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
    state = state_of(doc, municipality, on, db)
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
    rules = rules_of(municipality)
    from services import dams  # the DAM module (issue 6) owns numbering, barcode and payment

    dam = dams.issue(
        db, actor, municipality,
        taxpayer_name=driver["name"], taxpayer_document=driver["cpf"],
        taxpayer_address=", ".join(x for x in (driver.get("address"), driver.get("district")) if x),
        revenue_kind="taxa_autorizacao",
        description=f"{what}{'renovação' if renewal else 'expedição'} da autorização de transporte por "
                    f"aplicativo — protocolo {doc['protocol']}, placa {entities.fields.show('plate', doc['plate'])}",
        legal_basis=rules.ref("fee"), amount=amount,
        due=parameters.calendar(db, municipality, on).add_days(on, FEE_DUE_DAYS),
        pays={"collection": "authorizations", "id": doc["id"], "label": f"Autorização {doc['protocol']}"},
    )
    fee = {"dam_id": dam["id"], "number": str(dam.get("number", "")), "amount": amount,
           "due": parse_date(dam["due_on"]), "purpose": purpose, "paid": False, "fee_total": total,
           "received": received, "short": short}
    db["authorizations"].update_one({"_id": ObjectId(doc["id"])}, {"$set": encode({"fee_dam": fee})})
    audit.record(db, actor, municipality, "fee_dam", "authorizations", doc["id"], {"fee_dam": doc.get("fee_dam")},
                 {"fee_dam": fee})
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
    doc = _auth_doc(db, municipality, auth_id)
    _require(state_of(doc, municipality, on, db), Status.ACTIVE)
    if pending_renewal(doc):
        raise WrongStep("A renovação já foi requerida; emita ou aguarde o pagamento do DAM.")
    return _add_event(db, actor, municipality, doc, EventKind.RENEWAL_REQUESTED, on)


def _paid_on(dam: dict) -> date:
    """The payment date the DAM module recorded (``payment.paid_on``)."""
    return parse_date((dam.get("payment") or {}).get("paid_on")) or clock.today()


@events.on_dam_paid("authorizations")
def fee_paid(db: Database, dam: dict) -> None:
    """A paid fee DAM issues the authorization (number and validity) or renews it. Runs once per DAM.

    The authorization follows the payment of the fee (CG art. 9 §1 and art. 16 §ú; MP art. 3 §ú and
    art. 9): a payment below the amount due leaves it awaiting the fee with the difference recorded;
    a late payment or one above the amount still issues it and keeps the DAM's alerts visible.
    """
    pays = dam["pays"]
    municipality = dam.get("municipality") or db["authorizations"].find_one({"_id": ObjectId(pays["id"])})["municipality"]
    doc = _auth_doc(db, municipality, pays["id"])
    fee = doc.get("fee_dam") or {}
    dam_id = str(dam.get("id") or dam.get("_id") or "")
    if any(r["dam_id"] == dam_id for r in fee.get("received", [])) or (fee.get("paid") and fee.get("dam_id") == dam_id):
        return
    payment = dam.get("payment") or {}
    paid_on = _paid_on(dam)
    number = str(dam.get("number") or fee.get("number", ""))
    total = fee.get("fee_total", fee.get("amount"))
    amount = payment.get("amount")
    if amount is None or total is None:  # history loaded without amounts: taken as paid in full
        amount = total = Decimal(str(total or 0))
    received = [*fee.get("received", []), {"dam_id": dam_id, "number": number, "amount": Decimal(str(amount)),
                                           "paid_on": paid_on, "alerts": list(payment.get("notes", []))}]
    fee = {**fee, "received": received, "fee_total": Decimal(str(total))}
    if fee_received(fee) < fee["fee_total"]:
        _record_short_payment(db, municipality, doc, fee, number, paid_on)
        return
    renewal = fee.get("purpose") == "renewal"
    extra = {"fee_dam": {**fee, "paid": True, "paid_on": paid_on, "short": None}}
    if not renewal and not doc.get("number"):
        extra["number"] = numbers.next_number(db, municipality, NUMBER_KIND, paid_on.year).text
        extra["issued_on"] = paid_on
    kind = EventKind.RENEWAL_FEE_PAID if renewal else EventKind.FEE_PAID
    alerts = [a for r in received for a in r["alerts"]]
    note = f"DAM {number} pago" + (" — alertas do DAM: " + "; ".join(alerts) if alerts else "")
    _add_event(db, DAM_ACTOR, municipality, doc, kind, paid_on, note=note, extra=extra)


def _record_short_payment(db: Database, municipality: str, doc: dict, fee: dict, number: str, paid_on: date) -> None:
    """Keep the authorization awaiting the fee and record what is still missing."""
    paid = fee_received(fee)
    fee["short"] = {"due": fee["fee_total"], "paid": paid, "difference": fee["fee_total"] - paid,
                    "dam_number": number, "paid_on": paid_on}
    fee["paid"] = False
    db["authorizations"].update_one({"_id": ObjectId(doc["id"])}, {"$set": encode({"fee_dam": fee})})
    audit.record(db, DAM_ACTOR, municipality, "fee_short", "authorizations", doc["id"],
                 {"fee_dam": doc.get("fee_dam")}, {"fee_dam": fee}, shortfall_text(fee["short"]))


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
    if kind not in (EventKind.SUSPENDED, EventKind.REVOKED, EventKind.CASSADA):
        raise WrongStep("Penalidade desconhecida.")
    return _add_event(db, actor, municipality, _auth_doc(db, municipality, auth_id), kind, on, until, note)


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


def authorization_rows(db: Database, actor: Actor, municipality: str, on: date, search: str = "") -> list[AuthorizationRow]:
    """Every authorization with its status on ``on`` (newest protocol first)."""
    authorize(actor, "read", municipality)
    names = {d["cpf"]: d["name"] for d in db["drivers"].find({"municipality": municipality}, {"cpf": 1, "name": 1})}
    term = search.strip().upper()
    rows = []
    for raw in db["authorizations"].find({"municipality": municipality}).sort("protocol_date", -1):
        doc = decode(raw)
        name = names.get(doc["driver_cpf"], "")
        haystack = " ".join((doc["protocol"], doc.get("number") or "", doc["plate"], doc["driver_cpf"], name.upper()))
        if term and term.replace("-", "") not in haystack.replace("-", ""):
            continue
        rows.append(AuthorizationRow(str(doc["_id"]), doc["protocol"], parse_date(doc["protocol_date"]),
                                     doc.get("number") or "", doc["driver_cpf"], name, doc["plate"],
                                     state_of(doc, municipality, on, db)))
    return rows


def choices(db: Database, actor: Actor, municipality: str, collection: str) -> list[dict]:
    """Drivers or vehicles for a picker: id, key (CPF or plate) and a label."""
    authorize(actor, "read", municipality)
    key, label = {"drivers": ("cpf", "name"), "vehicles": ("plate", "model")}[collection]
    rows = db[collection].find({"municipality": municipality}).sort(label, 1)
    return [{"id": str(r["_id"]), "key": r[key], "label": r[label], "driver_cpf": r.get("driver_cpf", r.get("cpf"))}
            for r in rows]



def record_history(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str) -> list[dict]:
    """Changes of a driver's or vehicle's data with their dates (the 7-day reporting rule needs them)."""
    authorize(actor, "read", municipality)
    spec = entities.SPECS[collection]
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
