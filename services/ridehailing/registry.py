"""Ride-hailing register: drivers and vehicles as the rules see them, and their eligibility.

Thin on purpose: each service loads the records, builds the rule concepts
(``rules.ridehailing.concepts``), asks the municipality's rule set
(``ruleset(mun, "transporte")``) and returns its verdict. No legal condition is decided here:
eligibility, deadlines, validity and status come from the rules.

This module is the floor of the ride-hailing services: the stored driver, vehicle and authorization
as rule concepts, the :class:`Scope` that folds an authorization's events into its status, and the
history of a driver's or vehicle's data. The authorization's process is told by the modules above
it: ``authorization_records`` (the stored document and its unit of work), ``authorizations``
(request, analysis, substitution, penalties), ``inspections`` (vistorias and convocations),
``fees`` (fee DAM, issue on payment, renewal) and ``authorization_lists`` (lists and exports).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pymongo.database import Database

from rules.base import Decision
from rules.calendar import LegalCalendar
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
from rules.ridehailing import eligibility
from rules.ridehailing.guard import check_dates
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services.shared import clock, entities, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound
from services.store import decode, encode, parse_date

IN_FORCE = (Status.ACTIVE, Status.BLOCKED, Status.SUSPENDED)
DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))  # who settles a paid DAM's record


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
    return driver_concept_of(doc, documents, infractions, courses)


def driver_concept_of(doc: dict, documents: tuple[Document, ...] = (), infractions: tuple[TrafficInfraction, ...] = (),
                      courses: tuple[date, ...] = ()) -> Driver:
    """The driver as the rules see him from the values of a driver record (stored, or typed on the
    portal's application before it is one) and his dated records."""
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
                                        e.get("note", ""), e.get("ref") or "") for e in doc.get("events", [])),
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

    def states(self, doc: dict) -> Callable[[date], AuthorizationState]:
        """:meth:`state` of one document on any day asked, its concept built and its dates checked once."""
        concept = authorization_concept(doc)
        check_dates(concept)
        return lambda on: self.rules.status_of_checked(concept, on, self.book, self.calendar(on))


@checked
def driver_eligibility(db: Database, actor: Actor, municipality: str, cpf: str, on: date,
                       scope: Scope | None = None) -> Decision:
    """Every requirement of the municipality's law for the driver on ``on``, with its article."""
    authorize(actor, "read", municipality)
    scope = scope or Scope(db, municipality)
    return scope.rules.driver_eligibility(driver_concept(db, municipality, cpf), on, scope.book, scope.calendar(on))


@checked
def documents_due(db: Database, actor: Actor, municipality: str, cpf: str, on: date) -> list[str]:
    """Codes of the law's documents the driver must (still or again) hand in on ``on``: not presented, or
    past the validity printed on it or the days the municipality accepts a certificate for."""
    authorize(actor, "read", municipality)
    scope = Scope(db, municipality)
    return eligibility.documents_due(driver_concept(db, municipality, cpf), scope.rules.documents, on, scope.book)


@checked
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


@checked
def record_history(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str) -> list[dict]:
    """Changes of a driver's or vehicle's data with their dates (the 7-day reporting rule needs them)."""
    authorize(actor, "read", municipality)
    spec = entities.SPECS.get(collection)
    if spec is None:
        raise NotFound("Cadastro não encontrado.")
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
