"""Vistorias of an authorization's vehicle and the extraordinary convocation to one.

Which vistoria is due (the first, a return after pendências, one after a substitution, one called,
the annual), the checklist items the register answers (the vehicle's age from its model year), the
record of a vistoria with the law's checklist (approved, or failed with 5 days to fix, blocked) and
the convocation with its deadline and numbered notice. Items, deadlines and articles come from the
municipality's rule set.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from bson import ObjectId
from pymongo.database import Database

from rules.base import Decision, Finding
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import store
from services.ridehailing import authorization_records, registry
from services.ridehailing.authorization_records import Change, Unit
from services.shared import entities, fields
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed

CONVOCATION_KIND = "transporte_convocacao"


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


@checked
def inspection_computed(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> dict[str, Finding]:
    """The checklist items the register answers (the vehicle's age from its model year), by code."""
    authorize(actor, "read", municipality)
    doc = authorization_records.load(db, municipality, auth_id)
    vehicle = registry.vehicle_concept(registry.vehicle_record(db, municipality, doc["plate"]))
    return registry.rules_of(municipality).inspection_computed(vehicle, on)


@checked
def record_inspection(db: Database, actor: Actor, municipality: str, auth_id: str, performed_on: date,
                      answers: dict[str, bool], inspector: str = "", notes: str = "") -> InspectionOutcome:
    """Record a vistoria with the law's checklist: approved, or failed with 5 days to fix (blocked).

    The inspector's name is required (the laudo carries it); items the register answers (the age
    from the model year) are computed here, whatever was ticked."""
    authorize(actor, "write", municipality)
    entities.refuse_future("performed_on", "Data da vistoria", performed_on)
    inspector = fields._plain_text("text", str(inspector or ""))
    if not inspector:
        raise ValidationFailed({"inspector": "Vistoriador: informe o nome de quem fez a vistoria."})
    scope = registry.Scope(db, municipality)
    doc = authorization_records.load(db, municipality, auth_id)
    computed = inspection_computed(db, actor, municipality, auth_id, performed_on)
    answers = {**answers, **{code: finding.ok for code, finding in computed.items()}}
    allowed = (Status.AWAITING_INSPECTION, Status.BLOCKED, Status.ACTIVE, Status.AWAITING_FEE)
    authorization_records.require(scope.state(doc, performed_on), *allowed)
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
        new_state = Unit(db, actor, municipality).step(auth_id, kind, performed_on, allowed, note=pendings)
    return InspectionOutcome(inspection_id, decision, deadline, new_state)


@checked
def call_inspection(db: Database, actor: Actor, municipality: str, auth_id: str, on: date, note: str = "") -> date:
    """Extraordinary convocation: the last day to attend. The convocation gets a number for the notice
    sent to the driver with a copy to the platform (``services.ridehailing.documents.convocation_notice_pdf``)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data da convocação", on)

    def decide(doc: dict, unit: Unit) -> Change:
        authorization_records.require(unit.scope.state(doc, on), Status.ACTIVE)
        deadline = unit.scope.rules.convocation_deadline(on, unit.scope.book, unit.scope.calendar(on))
        number = unit.number(CONVOCATION_KIND, on.year)
        change = unit.event(doc, EventKind.INSPECTION_CALLED, on, note=note,
                            extra={"convocation": {"number": number, "called_on": on, "deadline": deadline,
                                                   "reason": note.strip()}})
        change.result = deadline
        return change

    return Unit(db, actor, municipality).write(auth_id, decide)
