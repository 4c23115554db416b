"""Changes of a driver's or vehicle's data, with the date the fact changed and the date reported.

The driver must report a change of his or his vehicle's registration data within 7 days (CG art. 18
XIX; MP art. 12 XX). When the secretariat edits a driver or vehicle it says when the fact changed
(a new address, a new CNH, a vehicle sold…) and when the driver reported it — or that he did not
and the secretariat found it out. Each edit keeps a change record with both dates; the rule set's
``data_change_check`` says whether it was reported in time, and the work queue lists the open ones
reported late or not reported.

The driver also reports a change on the public portal (issue 38) through :func:`record_change` with their
own actor: only some fields (:data:`PORTAL_FIELDS`) of their own record or vehicle, with the day it
happened and a supporting document; the report is dated today (the same 7-day rule judges it) and kept
"a conferir" — the register is not changed until the clerk applies it (:func:`apply_reported`) or closes
it with the reason (:func:`close_change`); meanwhile the work queue lists it.
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
from services.shared import audit, clock, entities, fields, parameters, uploads
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied, ServiceError, ValidationFailed
from services.shared.regulated_accounts import DRIVER, addressee, authorize_regulated, is_regulated, require_own
from services.store import decode, encode, insert_one, parse_date

COLLECTION = "data_changes"
SUBJECT_KEY = {"drivers": "cpf", "vehicles": "plate"}
OWNER_KEY = {"drivers": "cpf", "vehicles": "driver_cpf"}
# what a driver reports on the portal: contact and address, the vehicle's colour, plate and garage
PORTAL_FIELDS = {"drivers": ("address", "district", "phone", "email"), "vehicles": ("color", "plate", "garage_address")}
NOT_FOUND = "Cadastro não encontrado."


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
    pending: bool = False  # reported on the portal, not yet applied to the register by the clerk
    reported_at: Any = None  # the moment a report on the portal arrived
    proof: str = ""  # the file name of the document sent with it

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
                  *, expected_version: int, proof: tuple[str, bytes] | None = None) -> str | None:
    """Save the edited data and keep the change with its two dates; None when nothing changed.

    ``reported_on`` None means the driver did not report it (the secretariat found it out).
    ``expected_version`` is the version the form loaded: a record saved by someone else meanwhile
    is refused (``Conflict``) and nothing is written. The driver on the portal reports a change of their
    own record (:func:`_report_by_driver`: today, with ``proof``, kept "a conferir").
    """
    if is_regulated(actor):
        return _report_by_driver(db, actor, municipality, collection, doc_id, values, changed_on, proof)
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


def _own_record(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str) -> dict:
    """The driver's own register record or vehicle a regulated actor names; another's is NotFound."""
    authorize_regulated(actor, municipality, DRIVER)
    if collection not in PORTAL_FIELDS:
        raise NotFound(NOT_FOUND)
    raw = db[collection].find_one({"_id": entities._object_id(doc_id), "municipality": municipality,
                                   "removed": {"$exists": False}})
    require_own(actor, municipality, DRIVER, (raw or {}).get(OWNER_KEY[collection]) or "", NOT_FOUND)
    return decode(raw)


def _report_by_driver(db: Database, actor: Actor, municipality: str, collection: str, doc_id: str, values: dict,
                      changed_on: date | None, proof: tuple[str, bytes] | None) -> str | None:
    """The driver's report: checked against the spec, dated today, with its document; the register waits."""
    before = _own_record(db, actor, municipality, collection, doc_id)
    spec = entities.spec_for(db, collection, municipality)
    today = clock.today()
    errors, proposed = {}, {}
    for name, raw in (values or {}).items():
        if name not in PORTAL_FIELDS[collection]:
            raise ValidationFailed({"field": "Escolha o dado que mudou."})
        field = spec.field(name)
        try:
            proposed[name] = field.parse(raw) if str(raw or "").strip() else None
        except ValueError as problem:
            errors["value"] = f"{field.label}: {problem}."
    try:
        _check_dates(changed_on, today, today)
    except ValidationFailed as problem:
        errors.update(problem.errors)
    if not proof or not proof[1]:
        errors["proof"] = "Comprovante: anexe o documento que mostra a alteração."
    else:
        try:
            uploads.check("data_change_proof", bytes(proof[1]), str(proof[0]), field="proof")
        except ValidationFailed as problem:
            errors.update(problem.errors)
    if errors:
        raise ValidationFailed(errors)
    changes = [{"field": f.name, "label": f.label, "before": f.show(before.get(f.name)),
                "after": f.show(proposed[f.name])} for f in spec.fields if f.name in proposed and encode(before.get(f.name)) != encode(proposed[f.name])]
    if not changes:
        raise ValidationFailed({"value": "O novo valor é igual ao do cadastro."})
    now = clock.now_utc()
    with store.transaction(db):
        record = {"municipality": municipality, "collection": collection, "record_id": doc_id,
                  "subject": before[SUBJECT_KEY[collection]], "driver_cpf": before[OWNER_KEY[collection]],
                  "changes": changes, "changed_on": changed_on, "reported_on": today, "closed_on": None,
                  "closing_note": "", "recorded_by": actor.username, "recorded_at": now, "updated_at": now,
                  "pending": True, "proposed": proposed, "reported_at": now, "via": "portal",
                  "proof": {"name": str(proof[0])[:200], "sha256": store.put_file(db, bytes(proof[1]), str(proof[0]))}}
        change_id = str(insert_one(db[COLLECTION], encode(record)))
        audit.record(db, actor, municipality, "data_change", COLLECTION, change_id, {}, record,
                     "Alteração comunicada pelo condutor no portal")
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
        pending=bool(doc.get("pending")), reported_at=doc.get("reported_at"),
        proof=(doc.get("proof") or {}).get("name", ""),
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
    """Changes not closed that were reported late or are not reported yet (in time or not), and the
    reports of the portal still to be applied."""
    authorize(actor, "read", municipality)
    rules, calendar = registry.rules_of(municipality), calendar or parameters.calendar(db, municipality, on)
    rows = db[COLLECTION].find({"municipality": municipality, "closed_on": None})
    found = (_change(rules, calendar, r, on) for r in rows)
    return [c for c in found if c.closed_on is None and (c.pending or c.reported_on is None or not c.finding.ok)]


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


@checked
def apply_reported(db: Database, actor: Actor, municipality: str, change_id: str) -> None:
    """The clerk applies to the register a change the driver reported on the portal (the values as
    reported; what the record holds then is its "before"); the report's dates stay as they came."""
    authorize(actor, "write", municipality)
    doc = _stored(db, municipality, change_id)
    if not doc.get("pending") or doc.get("closed_on"):
        raise ServiceError("Esta alteração não está aguardando conferência.")
    collection, record_id = doc["collection"], doc["record_id"]
    spec = entities.spec_for(db, collection, municipality)
    with store.transaction(db):
        before = entities.get(db, actor, collection, municipality, record_id)
        entities.update(db, actor, collection, municipality, record_id, {**before, **doc["proposed"]},
                        expected_version=before.get("version", 0))
        after = entities.get(db, actor, collection, municipality, record_id)
        changes = [{"field": f.name, "label": f.label, "before": f.show(before.get(f.name)),
                    "after": f.show(after.get(f.name))}
                   for f in spec.fields if encode(before.get(f.name)) != encode(after.get(f.name))]
        applied = {"pending": False, "changes": changes or doc["changes"], "applied_at": clock.now_utc(),
                   "applied_by": actor.username, "subject": after[SUBJECT_KEY[collection]]}
        db[COLLECTION].update_one({"_id": ObjectId(change_id)},
                                  {"$set": encode({**applied, "updated_at": clock.now_utc()})})
        audit.record(db, actor, municipality, "data_change_applied", COLLECTION, change_id,
                     {"pending": True}, {"pending": False}, "Alteração comunicada pelo portal aplicada ao cadastro")


@checked
def change_proof(db: Database, actor: Actor, municipality: str, change_id: str) -> tuple[bytes, str]:
    """(content, file name) of the document a driver sent with a change reported on the portal."""
    authorize(actor, "read", municipality)
    proof = _stored(db, municipality, change_id).get("proof") or {}
    if not proof.get("sha256"):
        raise NotFound("Esta alteração não tem comprovante.")
    return store.get_file(db, proof["sha256"]), proof["name"]


@checked
def own_changes(db: Database, actor: Actor) -> list[DataChange]:
    """The changes of the driver logged in (of their record and their vehicles), newest fact first, each
    with its 7-day verdict."""
    municipality, cpf = _driver_of(actor)
    on = clock.today()
    rules, calendar = registry.rules_of(municipality), parameters.calendar(db, municipality, on)
    rows = db[COLLECTION].find({"municipality": municipality, "driver_cpf": cpf})
    return sorted((_change(rules, calendar, r, on) for r in rows), key=lambda c: c.changed_on, reverse=True)


def _driver_of(actor: Actor) -> tuple[str, str]:
    """(municipality, CPF) of the driver logged in; PermissionDenied for anyone else."""
    whose = addressee(actor)
    if whose is None or whose[1] != DRIVER:
        raise PermissionDenied("Só o próprio condutor vê as suas alterações de dados no portal.")
    return whose[0], whose[2]


@checked
def own_subjects(db: Database, actor: Actor) -> list[dict]:
    """What the driver logged in may report a change of: their record and each of their vehicles
    (``{"key", "collection", "id", "label"}``; the page names a vehicle by its plate, never by its id)."""
    municipality, cpf = _driver_of(actor)
    found = [{"key": "condutor", "collection": "drivers", "id": str(d["_id"]), "label": "Meus dados"}
             for d in db["drivers"].find({"municipality": municipality, "cpf": cpf, "removed": {"$exists": False}})]
    for v in db["vehicles"].find({"municipality": municipality, "driver_cpf": cpf,
                                  "removed": {"$exists": False}}).sort("plate", 1):
        found.append({"key": v["plate"], "collection": "vehicles", "id": str(v["_id"]),
                      "label": f"Veículo placa {fields.show('plate', v['plate'])}"})
    return found
