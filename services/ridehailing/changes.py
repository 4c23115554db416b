"""Changes of a driver's or vehicle's data, with the date the fact changed and the date reported.

The driver must report a change of his or his vehicle's registration data within 7 days (CG art. 18
XIX; MP art. 12 XX). When the secretariat edits a driver or vehicle it says when the fact changed
(a new address, a new CNH, a vehicle sold…) and when the driver reported it — or that he did not
and the secretariat found it out. Each edit keeps a change record with both dates; the rule set's
``data_change_check`` says whether it was reported in time, and the work queue lists the open ones
reported late or not reported.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules.base import Finding
from rules.calendar import LegalCalendar
from rules.fmt import day
from services import store
from services.ridehailing import registry
from services.shared import audit, clock, entities, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, ValidationFailed
from services.store import decode, encode, insert_one, parse_date

COLLECTION = "data_changes"
SUBJECT_KEY = {"drivers": "cpf", "vehicles": "plate"}


@dataclass(frozen=True)
class DataChange:
    """One change of registration data with its dates and the 7-day verdict on ``on``."""

    id: str
    collection: str
    record_id: str
    subject: str
    driver_cpf: str
    changes: tuple[dict, ...]
    changed_on: date
    reported_on: date | None
    recorded_by: str
    closed_on: date | None
    closing_note: str
    finding: Finding
    deadline: date

    @property
    def fields_text(self) -> str:
        return "; ".join(f"{c['label']}: {c['before'] or '—'} → {c['after'] or '—'}" for c in self.changes)


def _check_dates(changed_on: date | None, reported_on: date | None, today: date) -> None:
    errors = {}
    if not isinstance(changed_on, date):
        errors["changed_on"] = "Data da alteração: informe quando o fato mudou."
    elif changed_on > today:
        errors["changed_on"] = f"Data da alteração: não pode ser posterior a hoje ({day(today)})."
    if reported_on is not None and reported_on > today:
        errors["reported_on"] = f"Comunicada em: não pode ser posterior a hoje ({day(today)})."
    elif reported_on is not None and isinstance(changed_on, date) and reported_on < changed_on:
        errors["reported_on"] = "Comunicada em: não pode ser anterior à data da alteração."
    if errors:
        raise ValidationFailed(errors)


@checked
def record_change(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str, values: dict,
                  changed_on: date | None, reported_on: date | None,
                  *, expected_version: int) -> str | None:
    """Save the edited data and keep the change with its two dates; None when nothing changed.

    ``reported_on`` None means the driver did not report it (the secretariat found it out).
    ``expected_version`` is the version the form loaded: a record saved by someone else meanwhile
    is refused (``Conflict``) and nothing is written.
    """
    authorize(actor, "write", municipality)
    _check_dates(changed_on, reported_on, clock.today())
    spec = entities.spec_for(db, collection, municipality)
    with store.transaction(db):
        return _record_change(db, actor, municipality, spec, collection, doc_id, values, changed_on, reported_on,
                              expected_version)


def _record_change(db: Database, actor: Actor, municipality: str, spec: Any, collection: str, doc_id: str,
                   values: dict, changed_on: date, reported_on: date | None,
                   expected_version: int) -> str | None:
    before = entities.get(db, actor, collection, municipality, doc_id)
    entities.update(db, actor, collection, municipality, doc_id, values, expected_version=expected_version)
    after = entities.get(db, actor, collection, municipality, doc_id)
    changes = [{"field": f.name, "label": f.label, "before": f.show(before.get(f.name)),
                "after": f.show(after.get(f.name))}
               for f in spec.fields if encode(before.get(f.name)) != encode(after.get(f.name))]
    if not changes:
        return None
    record = {
        "municipality": municipality, "collection": collection, "record_id": doc_id,
        "subject": after[SUBJECT_KEY[collection]], "driver_cpf": after["cpf" if collection == "drivers" else "driver_cpf"],
        "changes": changes, "changed_on": changed_on, "reported_on": reported_on, "closed_on": None,
        "closing_note": "", "recorded_by": actor.username, "recorded_at": clock.now_utc(),
        "updated_at": clock.now_utc(),
    }
    change_id = str(insert_one(db[COLLECTION], encode(record)))
    audit.record(db, actor, municipality, "data_change", COLLECTION, change_id, {}, record)
    return change_id


def _change(rules: Any, calendar: LegalCalendar, raw: dict, on: date) -> DataChange:
    doc = decode(raw)
    changed_on, reported_on = parse_date(doc["changed_on"]), parse_date(doc.get("reported_on"))
    return DataChange(
        id=str(doc["_id"]), collection=doc["collection"], record_id=doc["record_id"], subject=doc["subject"],
        driver_cpf=doc["driver_cpf"], changes=tuple(doc["changes"]), changed_on=changed_on, reported_on=reported_on,
        recorded_by=doc["recorded_by"], closed_on=parse_date(doc.get("closed_on")),
        closing_note=doc.get("closing_note") or "",
        finding=rules.data_change_check(changed_on, reported_on, on, calendar),
        deadline=rules.data_change_deadline(changed_on, calendar),
    )


@checked
def history(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str, on: date) -> list[DataChange]:
    """The changes of one driver or vehicle, newest fact first, each with its 7-day verdict."""
    authorize(actor, "read", municipality)
    rows = db[COLLECTION].find({"municipality": municipality, "collection": collection, "record_id": doc_id})
    rules, calendar = registry.rules_of(municipality), parameters.calendar(db, municipality, on)
    return sorted((_change(rules, calendar, r, on) for r in rows), key=lambda c: c.changed_on, reverse=True)


@checked
def open_irregular(db: Database, actor: Actor, municipality: str, on: date,
                   calendar: LegalCalendar | None = None) -> list[DataChange]:
    """Changes not closed that were reported late or are not reported yet (in time or not)."""
    authorize(actor, "read", municipality)
    rules, calendar = registry.rules_of(municipality), calendar or parameters.calendar(db, municipality, on)
    rows = db[COLLECTION].find({"municipality": municipality, "closed_on": None})
    found = (_change(rules, calendar, r, on) for r in rows)
    return [c for c in found if c.closed_on is None and (c.reported_on is None or not c.finding.ok)]


def _stored(db: Database, municipality: str, change_id: str) -> dict:
    doc = db[COLLECTION].find_one({"_id": entities._object_id(change_id), "municipality": municipality})
    if doc is None:
        raise NotFound("Alteração não encontrada.")
    return decode(doc)


@checked
def report_change(db: Database, actor: Actor, municipality: str, change_id: str, reported_on: date) -> None:
    """Record the day the driver reported a change registered as not reported."""
    authorize(actor, "write", municipality)
    doc = _stored(db, municipality, change_id)
    _check_dates(parse_date(doc["changed_on"]), reported_on, clock.today())
    with store.transaction(db):
        db[COLLECTION].update_one({"_id": ObjectId(change_id)},
                                  {"$set": encode({"reported_on": reported_on, "updated_at": clock.now_utc()})})
        audit.record(db, actor, municipality, "data_change_reported", COLLECTION, change_id,
                     {"reported_on": doc.get("reported_on")}, {"reported_on": reported_on})


@checked
def close_change(db: Database, actor: Actor, municipality: str, change_id: str, note: str) -> None:
    """Take a late or unreported change off the queue once handled (e.g. auto de infração lavrado)."""
    authorize(actor, "write", municipality)
    if not note.strip():
        raise ValidationFailed({"closing_note": "Providência: descreva o que foi feito (p.ex. nº do auto)."})
    doc = _stored(db, municipality, change_id)
    closed = {"closed_on": clock.today(), "closing_note": note.strip()}
    with store.transaction(db):
        db[COLLECTION].update_one({"_id": ObjectId(change_id)},
                                  {"$set": encode({**closed, "updated_at": clock.now_utc()})})
        audit.record(db, actor, municipality, "data_change_closed", COLLECTION, change_id,
                     {k: doc.get(k) for k in closed}, closed)
