"""Registers defined by municipal IT ("Cadastros definidos"): define, read, change, deactivate.

A definition (``services.shared.definition_spec``) is one versioned document of the collection
``register_definitions``; its records live in the collection named after it and go through the same
generic services as the coded registers (``entities``, ``entity_lists``, ``entity_files``), which read
the active definition from the store. Every change is conditional on the version the TI screen
loaded, so two TI users never overwrite each other, and is audited with the definition before and
after. Changes that would break stored records are worked out in ``definition_changes``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pymongo.database import Database

from services.shared import audit, clock, definition_changes, entities, flow_spec, public_spec
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.definition_spec import COLLECTION, FORMAT, key_field, problems, resolve_references, to_spec
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.shared.schema import SPECS, EntitySpec
from services.store import DuplicateKeyError, decode, encode, ensure_indexes, insert_one, transaction

INDEXES = {COLLECTION: [([("name", 1)], {"unique": True, "name": "u_definition_name"}),
                        ([("municipalities", 1), ("active", 1)], {"name": "i_definition_mun"})]}
EDITABLE = ("label", "label_plural", "feminine", "fields", "default_sort", "title_field", "read_roles",
            "write_roles", "municipalities", "removable", "flow", public_spec.PUBLIC)


@dataclass(frozen=True)
class DefinedRegister:
    name: str
    label: str
    label_plural: str
    active: bool
    version: int


def _known(db: Database) -> dict[str, EntitySpec]:
    """Every register a reference may point at: the coded ones and the active defined ones."""
    known = {name: SPECS[name] for name in entities.CODED}
    for doc in db[COLLECTION].find({"active": True}):
        known[doc["name"]] = to_spec(decode(doc))
    return known


def _clean(definition: dict[str, Any], db: Database) -> dict[str, Any]:
    """The definition as stored, or ValidationFailed with every problem under its field."""
    known = _known(db)
    errors = problems(definition, known, entities.CODED)
    if errors:
        raise ValidationFailed(errors)
    clean = {key: definition.get(key) for key in EDITABLE}
    clean["label"], clean["label_plural"] = clean["label"].strip(), clean["label_plural"].strip()
    clean["fields"] = resolve_references([_field(f) for f in definition["fields"]], known)
    clean["feminine"], clean["removable"] = bool(clean["feminine"]), bool(clean["removable"])
    clean["flow"] = flow_spec.clean(clean["flow"])
    clean[public_spec.PUBLIC] = public_spec.clean(clean[public_spec.PUBLIC])
    clean["default_sort"] = clean["default_sort"] or "created_at"
    clean["title_field"] = clean["title_field"] or clean["fields"][0]["name"]
    for key in ("read_roles", "write_roles", "municipalities"):
        clean[key] = sorted(set(clean[key] or ()))
    return clean


def _field(f: dict[str, Any]) -> dict[str, Any]:
    choices = [c if isinstance(c, (list, tuple)) else (str(c).strip(), str(c).strip()) for c in f.get("choices") or ()]
    return {"name": f["name"], "label": str(f["label"]).strip(), "kind": f["kind"], "target": f.get("target"),
            "required": bool(f.get("required")), "unique": bool(f.get("unique")),
            "searchable": bool(f.get("searchable")), "filterable": bool(f.get("filterable")),
            "in_list": f.get("in_list", True) is not False, "help": str(f.get("help") or ""),
            "choices": [[str(v), str(label)] for v, label in choices if str(v).strip()], "refers_to": None}


def _authorize_all(actor: Actor, municipality: str, municipalities: list[str]) -> None:
    """TI acts only in its municipalities: in the one it works in and in every one the register names."""
    authorize(actor, "admin", municipality)
    for code in municipalities:
        authorize(actor, "admin", code)


def prepare(db: Database) -> None:
    """The indexes of the definitions and of every active defined register (at start and after a change)."""
    extra = dict(INDEXES)
    for doc in db[COLLECTION].find({"active": True}):
        spec = to_spec(decode(doc))
        extra[spec.name] = spec.indexes() + (public_spec.INDEXES if doc.get(public_spec.PUBLIC) else [])
    ensure_indexes(db, extra)


@checked
def define_register(db: Database, actor: Actor, municipality: str, definition: dict[str, Any]) -> str:
    """Create a register from its definition (``ti`` of every municipality it names): version 1, active,
    its indexes made at once. Returns the register's identifier."""
    authorize(actor, "admin", municipality)
    clean = _clean(definition, db)
    _authorize_all(actor, municipality, clean["municipalities"])
    name = definition["name"]
    ensure_indexes(db, INDEXES)
    with transaction(db):
        _insert(db, actor, municipality, name, clean)
    prepare(db)
    return name


def _insert(db: Database, actor: Actor, municipality: str, name: str, clean: dict[str, Any]) -> str:
    """Insert a checked definition (``_clean``) at version 1, active, with its audit entry, inside the
    caller's unit of work (its indexes come after it, from :func:`prepare`). Returns the document's id."""
    now = clock.now_utc()
    doc = {"format": FORMAT, "name": name, **clean, "defined": True, "active": True, "version": 1,
           "created_at": now, "updated_at": now, "created_by": actor.username}
    try:
        inserted = insert_one(db[COLLECTION], encode(doc))
    except DuplicateKeyError:
        raise ValidationFailed({"name": f"Identificador do cadastro: já existe um cadastro “{name}”."}) from None
    audit.record(db, actor, municipality, "create", COLLECTION, inserted, {}, {"name": name, **clean})
    return str(inserted)


@checked
def defined_registers(db: Database, actor: Actor, municipality: str) -> list[DefinedRegister]:
    """The registers defined for ``municipality``, active or not, as TI manages them."""
    authorize(actor, "admin", municipality)
    rows = db[COLLECTION].find({"municipalities": municipality}).sort("label_plural", 1)
    return [DefinedRegister(r["name"], r["label"], r["label_plural"], bool(r.get("active")), r.get("version", 0))
            for r in rows]


@checked
def definition(db: Database, actor: Actor, municipality: str, name: str) -> dict[str, Any]:
    """A register's definition as the TI form edits it (with its ``version``)."""
    authorize(actor, "admin", municipality)
    return _load(db, municipality, name)


def _load(db: Database, municipality: str, name: str) -> dict[str, Any]:
    doc = db[COLLECTION].find_one({"name": name, "municipalities": municipality})
    if doc is None:
        raise NotFound("Cadastro definido não encontrado neste município.")
    found = decode(doc)
    found.pop("_id", None)
    for f in found["fields"]:
        if f.get("refers_to"):
            f["kind"], f["target"] = "reference", f["refers_to"][0]
    return found


@checked
def preview_change(db: Database, actor: Actor, municipality: str, name: str,
                   definition: dict[str, Any]) -> list[definition_changes.Breaking]:
    """What a change would break in the stored records (none: it applies at once)."""
    authorize(actor, "admin", municipality)
    _load(db, municipality, name)
    after = _clean({**definition, "name": name}, db)
    return definition_changes.breaking(db, _stored(db, name), {"name": name, **after})


def _stored(db: Database, name: str) -> dict[str, Any]:
    return decode(db[COLLECTION].find_one({"name": name}))


@checked
def change_register(db: Database, actor: Actor, municipality: str, name: str, definition: dict[str, Any],
                    fixes: dict[str, dict[str, str]] | None = None, *, expected_version: int) -> None:
    """Change a register's definition, conditional on the version the screen loaded.

    A change that breaks stored records applies only with a fix for each (``fixes[field]``: a default
    for the records without a value, or old value → new value), and the records and the definition
    change in one unit of work with one audit entry of the definition before and after."""
    authorize(actor, "admin", municipality)
    _load(db, municipality, name)
    before = _stored(db, name)
    after = _clean({**definition, "name": name}, db)
    _authorize_all(actor, municipality, sorted(set(before["municipalities"]) | set(after["municipalities"])))
    if before.get("version", 0) != expected_version:
        raise _stale(db, before)
    changed = {k: v for k, v in after.items() if encode(before.get(k)) != encode(v)}
    if not changed:
        return
    with transaction(db):
        definition_changes.apply(db, actor, before, {"name": name, **after}, fixes or {})
        _write(db, actor, municipality, before, changed, expected_version)
    definition_changes.reindex(db, before, {"name": name, **after})
    prepare(db)


def _write(db: Database, actor: Actor, municipality: str, before: dict, changed: dict, version: int) -> None:
    result = db[COLLECTION].update_one(
        {"name": before["name"], "version": version},
        {"$set": encode({**changed, "updated_at": clock.now_utc(), "updated_by": actor.username}),
         "$inc": {"version": 1}})
    if result.matched_count == 0:
        raise _stale(db, _stored(db, before["name"]))
    audit.record(db, actor, municipality, "update", COLLECTION, str(before["_id"]),
                 {k: before.get(k) for k in changed}, changed)


@checked
def set_active(db: Database, actor: Actor, municipality: str, name: str, active: bool, *,
               expected_version: int) -> None:
    """Deactivate a register (it leaves the menu and every screen; its records stay) or bring it back."""
    authorize(actor, "admin", municipality)
    _load(db, municipality, name)
    before = _stored(db, name)
    _authorize_all(actor, municipality, before["municipalities"])
    if bool(before.get("active")) == active:
        return
    with transaction(db):
        _write(db, actor, municipality, before, {"active": active}, expected_version)
    prepare(db)


def _stale(db: Database, current: dict) -> Conflict:
    return entities._stale(db, current)


@checked
def readable_registers(db: Database, actor: Actor, municipality: str) -> list[DefinedRegister]:
    """The active defined registers of ``municipality`` the actor's role may read (the menu's entries)."""
    authorize(actor, "read", municipality)
    rows = db[COLLECTION].find({"municipalities": municipality, "active": True}).sort("label_plural", 1)
    return [DefinedRegister(r["name"], r["label"], r["label_plural"], True, r.get("version", 0)) for r in rows
            if to_spec(decode(r)).grants(actor.role, "read", municipality)]


@checked
def register_counts(db: Database, actor: Actor, municipality: str) -> list[tuple[str, int]]:
    """How many records each active defined register holds in ``municipality`` (what the gabinete reads)."""
    authorize(actor, "summary", municipality)
    rows = db[COLLECTION].find({"municipalities": municipality, "active": True}).sort("label_plural", 1)
    return [(r["label_plural"], db[r["name"]].count_documents({"municipality": municipality,
                                                                "removed": {"$exists": False}})) for r in rows]


@checked
def reference_targets(db: Database, actor: Actor, municipality: str) -> list[tuple[str, str]]:
    """The registers a field may refer to, as (identifier, plural label): those with a unique field."""
    authorize(actor, "admin", municipality)
    known = _known(db)
    return sorted(((n, s.label_plural) for n, s in known.items() if key_field(s) is not None),
                  key=lambda item: item[1].casefold())
