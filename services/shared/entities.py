"""Low-code registers: the generic services that validate and save a record of any entity spec.

One declarative spec per collection (``services.shared.schema``, declared in ``services.shared.specs``)
drives the form, the list, the CSV and the validation. Here: the spec of an entity with the
municipality's custom fields merged in (:func:`spec_for`), validation, reference checks, and the
writes with their audit entries — create at version 1, update conditional on the version the editor
loaded, and removal of a record entered by mistake (kept, marked removed). Listing lives in
``services.shared.entity_lists``, CSV/XLSX files in ``services.shared.entity_files``, the TI screens
for custom fields in ``services.shared.custom_fields``.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.params import ParameterMissing
from services.shared import audit, clock, definition_spec, fields, flow_spec, parameters, record_files, specs  # noqa: F401  (importing specs registers every spec)
from services.shared.auth import Actor, PermissionDenied, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.shared.schema import SPECS, EntitySpec, Field
from services.store import DuplicateKeyError, decode, encode, insert_one, transaction

NOT_REMOVED = {"removed": {"$exists": False}}  # records removed by mistake are kept, never listed
CODED = frozenset(SPECS)  # the registers that ship with the product (services.shared.specs)


def spec(name: str) -> EntitySpec:
    """The spec of the entity ``name`` (without custom fields: see :func:`spec_for`)."""
    try:
        return SPECS[name]
    except KeyError:
        raise NotFound(f"Cadastro desconhecido: {name}.") from None


def defined_spec(db: Database, name: str) -> EntitySpec:
    """The spec of a register defined by municipal IT, from its active definition in this store (the
    definition is the truth: SPECS keeps the last one read, for labels in messages and the audit)."""
    doc = db[definition_spec.COLLECTION].find_one({"name": name, "active": True})
    if doc is None:
        raise NotFound("Cadastro desconhecido ou desativado.")
    built = definition_spec.to_spec({**decode(doc), "defined": True})
    SPECS[name] = built
    return built


def authorize_entity(db: Database, actor: Actor, permission: str, entity: str, municipality: str) -> EntitySpec:
    """:func:`authorize`, then what a defined register grants: its roles and its municipalities.
    Returns the entity's spec with the municipality's custom fields."""
    authorize(actor, permission, municipality)
    found = spec_for(db, entity, municipality)
    if not found.grants(actor.role, permission, municipality):
        raise PermissionDenied(f"O cadastro de {found.label_plural.lower()} não está liberado para o seu perfil "
                               "neste município.")
    return found


def all_indexes() -> dict[str, list]:
    return {name: spec.indexes() for name, spec in SPECS.items()}


# ---- the custom fields of a municipality (managed in services.shared.custom_fields) ----

def custom_fields(db: Database, entity: str, municipality: str) -> list[Field]:
    rows = db["custom_fields"].find({"entity": entity, "municipality": municipality, "active": {"$ne": False}}
                                    ).sort("created_at", 1)
    return [Field(name=r["name"], label=r["label"], kind=r["kind"], required=r.get("required", False),
                  choices=tuple((c, c) for c in r.get("choices", [])), filterable=r["kind"] in ("choice", "bool"),
                  searchable=r["kind"] in ("text", "cpf", "cnpj", "cpf_cnpj", "plate"))
            for r in rows]


def spec_for(db: Database, entity: str, municipality: str) -> EntitySpec:
    """The entity's spec with the municipality's custom fields appended and the choices of its fields
    that come from a parameter (``Field.choices_from``) read as they are today."""
    base = spec(entity) if entity in CODED else defined_spec(db, entity)
    extra = custom_fields(db, entity, municipality)
    if any(f.choices_from for f in base.fields):
        base = replace(base, fields=tuple(_choices_of(db, municipality, f) for f in base.fields))
    return replace(base, fields=base.fields + tuple(extra)) if extra else base


def _choices_of(db: Database, municipality: str, f: Field) -> Field:
    """A field whose choices are the ``key`` of the entries of a list parameter: no entry in force, no
    choice (the form says where to add them)."""
    if not f.choices_from:
        return f
    name, key = f.choices_from
    found = dict.fromkeys(str(e[key]) for e in _entries_in_force(db, municipality, name) if e.get(key))
    return replace(f, kind="choice", choices=tuple((v, v) for v in found))


def _entries_in_force(db: Database, municipality: str, name: str) -> list[dict]:
    """The entries of a list parameter in force today (none when it was never set)."""
    try:
        entries = parameters.value(db, municipality, name, clock.today())
    except ParameterMissing:
        entries = []
    return [e for e in entries or () if isinstance(e, dict)]


def check_entries(db: Database, spec: EntitySpec, municipality: str,
                  rows: list[dict[str, Any]]) -> dict[int, dict[str, str]]:
    """The errors by row index of the rows whose values of ``spec.entry_of.fields`` are, together, no
    entry of its list in force (a zone beside a locality of another zone): one read of the list for
    all the rows. A row missing one of the values has that field's own error; no list in force, no
    choice (the fields' choices refuse any value)."""
    rule = spec.entry_of
    if rule is None:
        return {}
    pairs = {tuple(str(e.get(k, "")) for k in rule.fields) for e in _entries_in_force(db, municipality, rule.parameter)}
    errors: dict[int, dict[str, str]] = {}
    for index, row in enumerate(rows):
        values = tuple(row.get(k) for k in rule.fields)
        if pairs and None not in values and tuple(str(v) for v in values) not in pairs:
            errors[index] = {rule.fields[-1]: rule.message.format(**dict(zip(rule.fields, values, strict=True)))}
    return errors


# ---- validation and writes ----

def validate(spec: EntitySpec, values: dict[str, Any], partial: bool = False) -> dict[str, Any]:
    """Clean values of the spec's fields; raises ValidationFailed with every bad field."""
    clean: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in spec.fields:
        if not f.in_form or (partial and f.name not in values):  # a state moves by its flow, never by a form
            continue
        raw = values.get(f.name)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            if f.required:
                errors[f.name] = f"{f.label}: campo obrigatório."
            else:
                clean[f.name] = None
            continue
        if record_files.is_sent(raw) and f.kind != "file":  # a file posted under a text, a date...
            errors[f.name] = f"{f.label}: este campo não recebe arquivo."
            continue
        try:
            clean[f.name] = record_files.value(raw, f.name) if record_files.is_sent(raw) else f.clean(raw)
        except ValidationFailed as exc:  # a file the upload guard refused: its size, its type
            errors[f.name] = f"{f.label}: {exc.errors[f.name]}"
        except ValueError as exc:
            errors[f.name] = f"{f.label}: {exc}."
    if errors:
        raise ValidationFailed(errors)
    return clean


def check_references(db: Database, spec: EntitySpec, municipality: str,
                     rows: list[dict[str, Any]]) -> dict[int, dict[str, str]]:
    """The errors by row index and field of the reference values that name no registered record, and
    of the values that together are no entry of the spec's list in force (:func:`check_entries`).

    A vehicle's driver, a driver's platform, a document's driver: each reference field is checked
    against its collection in ONE query for all the rows (``distinct`` over the values given), so an
    import of a thousand rows costs the same few queries as a single form.
    """
    errors: dict[int, dict[str, str]] = {}
    for f in spec.fields:
        if f.refers_to is None:
            continue
        collection, key = f.refers_to
        wanted = {row[f.name] for row in rows if row.get(f.name) is not None}
        if not wanted:
            continue
        found = set(db[collection].distinct(key, {"municipality": municipality, key: {"$in": sorted(wanted)},
                                                  **NOT_REMOVED}))
        target = spec_label(collection)
        for index, row in enumerate(rows):
            value = row.get(f.name)
            if value is not None and value not in found:
                errors.setdefault(index, {})[f.name] = (
                    f"{f.label}: {f.show(value)} não está no cadastro de {target} deste município; "
                    f"cadastre antes ou escolha um registro da lista.")
    for index, bad in check_entries(db, spec, municipality, rows).items():
        for name, message in bad.items():
            errors.setdefault(index, {}).setdefault(name, message)
    return errors


def spec_label(collection: str) -> str:
    """The plural label of a collection in lower case, for messages ("condutores")."""
    return SPECS[collection].label_plural.lower() if collection in SPECS else collection


def _refuse_unknown_references(db: Database, spec: EntitySpec, municipality: str, clean: dict[str, Any]) -> None:
    errors = check_references(db, spec, municipality, [clean])
    if errors:
        raise ValidationFailed(errors[0])


def refuse_future(name: str, label: str, day: date) -> None:
    """A date a service takes directly (protocol, decision, vistoria) is never after today (Cuiabá):
    refused with the message under the field ``name``."""
    try:
        fields.not_after_today(fields.parse_date_input(day), clock.today())
    except ValueError as exc:
        raise ValidationFailed({name: f"{label}: {exc}."}) from None


def _unique_conflict(spec: EntitySpec, exc: DuplicateKeyError) -> Conflict:
    text = str(exc)
    for f in spec.fields:
        if f.unique and f.name in text:
            return Conflict(f"Já existe {spec.label.lower()} com este {f.label}.", field=f.name)
    unique = [f for f in spec.fields if f.unique]
    name = unique[0] if unique else None
    return Conflict(f"Já existe {spec.label.lower()} com estes dados.", field=name.name if name else None)


def _object_id(doc_id: str) -> ObjectId:
    try:
        return ObjectId(doc_id)
    except (InvalidId, TypeError):
        raise NotFound("Registro não encontrado.") from None


@checked
def create(db: Database, actor: Actor, entity: str, municipality: str, values: dict[str, Any]) -> str:
    """Validate and insert a record of ``entity`` for ``municipality`` at version 1, with its audit entry."""
    return _create(db, actor, authorize_entity(db, actor, "write", entity, municipality), municipality, values)


def create_checked(db: Database, actor: Actor, entity: str, municipality: str, values: dict[str, Any],
                   stamp: dict[str, Any] | None = None) -> str:
    """:func:`create` for a service that has already authorized its actor (a platform's list received on the
    portal, a person's request on a public form); ``stamp``: keys no form writes (who asked, a protocol)."""
    return _create(db, actor, spec_for(db, entity, municipality), municipality, values, stamp)


def _create(db: Database, actor: Actor, spec: EntitySpec, municipality: str, values: dict[str, Any],
            stamp: dict[str, Any] | None = None) -> str:
    clean = validate(spec, values)
    _refuse_unknown_references(db, spec, municipality, clean)
    record_files.keep(db, spec, [values])
    with transaction(db):
        return _insert(db, actor, spec, municipality, clean, stamp)


@checked
def create_many(db: Database, actor: Actor, entity: str, municipality: str, rows: list[dict[str, Any]]) -> list[str]:
    """Several records of ``entity`` at once (a driver's documents handed in together): every row is
    checked first, then all are inserted in one unit of work, each with its audit entry, or none.
    Errors name the row: ``ValidationFailed`` with keys ``"<index>.<field>"``."""
    spec = authorize_entity(db, actor, "write", entity, municipality)
    cleaned: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    for index, values in enumerate(rows):
        try:
            cleaned.append(validate(spec, values))
        except ValidationFailed as exc:
            errors.update({f"{index}.{name}": message for name, message in exc.errors.items()})
            cleaned.append({})
    for index, bad in check_references(db, spec, municipality, cleaned).items():
        errors.update({f"{index}.{name}": message for name, message in bad.items()})
    if errors:
        raise ValidationFailed(errors)
    record_files.keep(db, spec, rows)
    with transaction(db):
        return [_insert(db, actor, spec, municipality, clean) for clean in cleaned]


def _insert(db: Database, actor: Actor, spec: EntitySpec, municipality: str, clean: dict[str, Any],
            stamp: dict[str, Any] | None = None) -> str:
    """Insert one validated record at version 1 with its audit entry (inside the caller's unit of work)."""
    now = clock.now_utc()
    doc = {**clean, **(stamp or {}), "municipality": municipality, "version": 1, "created_at": now,
           "updated_at": now, "created_by": actor.username}
    if spec.flow is not None:  # a register with a status flow: a new record starts in its first state
        doc.setdefault(flow_spec.STATE, spec.flow.initial)  # (an imported definition's record: the one it had)
        doc[flow_spec.SINCE] = now
    try:
        inserted = insert_one(db[spec.name], encode(doc))
    except DuplicateKeyError as exc:
        raise _unique_conflict(spec, exc) from None
    audit.record(db, actor, municipality, "create", spec.name, inserted, {}, {**clean, **(stamp or {})})
    return str(inserted)


@checked
def update(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str, values: dict[str, Any], *,
           expected_version: int) -> None:
    """Validate and change fields of a record, with before/after in the audit log.

    ``expected_version`` is the version the editor loaded (``get(...)["version"]``; 0 for a record saved before
    versions existed). Every form must pass it: when someone else saved the record in between, the update is refused
    with :class:`Conflict` naming who changed it and when, and nothing is overwritten. The version is required
    (issue 20): a service editing on its own reads it first, so no caller can overwrite with stale values by leaving
    it out. Every saved change increments the version.
    """
    authorize_entity(db, actor, "write", entity, municipality)
    update_checked(db, actor, entity, municipality, doc_id, values, expected_version=expected_version)


def update_checked(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str, values: dict, *,
                   expected_version: int) -> None:
    """:func:`update` for a service that already authorized its actor (``services.machinery.requesters``)."""
    spec = spec_for(db, entity, municipality)
    before = _get(db, spec, municipality, doc_id)
    if before["version"] != expected_version:
        raise _stale(db, before)
    clean = validate(spec, values, partial=True)
    changed = {k: v for k, v in clean.items() if encode(before.get(k)) != encode(v)}
    if not changed:
        return
    _refuse_unknown_references(db, spec, municipality, changed)
    if spec.entry_of and set(spec.entry_of.fields) & set(changed):  # one of a pair changed: the pair as saved
        outside = check_entries(db, spec, municipality, [{**before, **changed}])
        if outside:
            raise ValidationFailed(outside[0])
    record_files.keep(db, spec, [values])
    current = {"version": expected_version} if expected_version else {"version": {"$exists": False}}
    with transaction(db):
        try:
            result = db[entity].update_one(
                {"_id": _object_id(doc_id), "municipality": municipality, **current},
                {"$set": encode({**changed, "updated_at": clock.now_utc(), "updated_by": actor.username}),
                 "$inc": {"version": 1}},
            )
        except DuplicateKeyError as exc:
            raise _unique_conflict(spec, exc) from None
        if result.matched_count == 0:
            raise _stale(db, _get(db, spec, municipality, doc_id))
        audit.record(db, actor, municipality, "update", entity, doc_id, {k: before.get(k) for k in changed}, changed)


REASON_MAX = 500


@checked
def remove(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str, reason: str, *,
           expected_version: int) -> None:
    """Remove a record entered by mistake (a document, infraction or course of a driver).

    The record stays in the store marked ``removed`` with who, when and why, leaves every list and
    every verdict, and the audit log keeps the removal. The write is conditional on the version the
    clerk saw, so a record changed meanwhile is not removed unseen.
    """
    spec = authorize_entity(db, actor, "write", entity, municipality)
    if not spec.removable:
        raise Conflict(f"{spec.label} não pode ser {spec.agreed('removido')}; corrija o cadastro pela edição.")
    why = fields._plain_text("text", str(reason or ""))[:REASON_MAX]
    if not why:
        raise ValidationFailed({"reason": "Motivo da remoção: campo obrigatório."})
    before = get(db, actor, entity, municipality, doc_id)
    if before.get("removed"):
        raise Conflict(f"{spec.label} já foi {spec.agreed('removido')}.")
    current = {"version": expected_version} if expected_version else {"version": {"$exists": False}}
    removed = {"by": actor.username, "at": clock.now_utc(), "reason": why}
    with transaction(db):
        result = db[entity].update_one(
            {"_id": _object_id(doc_id), "municipality": municipality, **current, **NOT_REMOVED},
            {"$set": encode({"removed": removed, "updated_at": removed["at"], "updated_by": actor.username}),
             "$inc": {"version": 1}},
        )
        if result.matched_count == 0:
            raise _stale(db, get(db, actor, entity, municipality, doc_id))
        audit.record(db, actor, municipality, "remove", entity, doc_id, {"removed": None}, {"removed": removed},
                     f"{spec.agreed('removido').capitalize()} por engano: {why}")


def _stale(db: Database, current: dict) -> Conflict:
    """The refusal of an edit made on an old version: who saved the record last, and when (Cuiabá)."""
    username = current.get("updated_by") or current.get("created_by") or "outro usuário"
    user = db["users"].find_one({"username": username}, {"name": 1})
    who = (user or {}).get("name") or username
    moment = current.get("updated_at") or current.get("created_at")
    when = f" às {clock.to_local(moment):%H:%M}" if moment else ""
    return Conflict(f"Este registro foi alterado por {who}{when}; recarregue a página para ver a versão atual.")


@checked
def get(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str) -> dict:
    return _get(db, authorize_entity(db, actor, "read", entity, municipality), municipality, doc_id)


def _get(db: Database, found: EntitySpec, municipality: str, doc_id: str) -> dict:
    doc = db[found.name].find_one({"_id": _object_id(doc_id), "municipality": municipality})
    if doc is None:
        raise NotFound(f"{found.label} não {found.agreed('encontrado')}.")
    return _typed(found, decode(doc))


def _typed(spec: EntitySpec, doc: dict) -> dict:
    """Stored values back to their Python types (dates from ISO text)."""
    for f in spec.fields:
        if f.kind == "date" and doc.get(f.name):
            doc[f.name] = fields.parse_date_input(doc[f.name])
    doc.setdefault("version", 0)
    doc["id"] = str(doc.pop("_id"))
    return doc
