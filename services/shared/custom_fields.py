"""Custom fields: municipal IT adds, relabels, requires or retires a field of a register for one
municipality, with no code (collection ``custom_fields``). :func:`services.shared.entities.spec_for`
merges the active ones into the spec, so they appear in the form, the list and the CSV.
"""
from __future__ import annotations

import re
import unicodedata

from pymongo.database import Database

from services.shared import audit, clock, entities, fields
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.shared.schema import SPECS
from services.store import DuplicateKeyError, decode, encode, insert_one, transaction

CUSTOM_PREFIX = "cf_"


@checked
def add_custom_field(
    db: Database, actor: Actor, entity: str, municipality: str, label: str, kind: str,
    required: bool = False, choices: list[str] | None = None,
) -> str:
    """Add a field to an entity for one municipality (``ti`` only)."""
    authorize(actor, "admin", municipality)
    errors = {}
    plain = unicodedata.normalize("NFKD", label.strip().lower()).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "_", plain).strip("_")
    if entity not in SPECS:
        errors["entity"] = "Cadastro desconhecido."
    if not slug:
        errors["label"] = "Informe um rótulo com letras ou números."
    if kind not in fields.KINDS:
        errors["kind"] = "Tipo de campo inválido."
    if kind == "choice" and not choices:
        errors["choices"] = "Informe as opções da lista, separadas por vírgula."
    if errors:
        raise ValidationFailed(errors)
    doc = {
        "entity": entity,
        "municipality": municipality,
        "name": CUSTOM_PREFIX + slug,
        "label": label.strip(),
        "kind": kind,
        "required": required,
        "choices": [c.strip() for c in choices or [] if c.strip()],
        "created_by": actor.username,
        "created_at": clock.now_utc(),
    }
    try:
        inserted = insert_one(db["custom_fields"], encode(doc))
    except DuplicateKeyError:
        raise Conflict(f"Já existe o campo '{label}' neste cadastro (se estiver desativado, reative-o).",
                       field="label") from None
    audit.record(db, actor, municipality, "create", "custom_fields", inserted, {}, doc)
    return doc["name"]


@checked
def custom_field_rows(db: Database, actor: Actor, entity: str, municipality: str) -> list[dict]:
    """Every custom field of an entity for one municipality, active or not, as TI manages them."""
    authorize(actor, "admin", municipality)
    rows = db["custom_fields"].find({"entity": entity, "municipality": municipality}).sort("created_at", 1)
    return [{**decode(r), "id": str(r["_id"]), "active": r.get("active", True), "version": r.get("version", 0)}
            for r in rows]


@checked
def edit_custom_field(db: Database, actor: Actor, municipality: str, field_id: str, label: str, required: bool,
                      active: bool, choices: list[str] | None = None, *, expected_version: int) -> None:
    """Change a custom field's label, obligation, options or whether it is in use (``ti`` only).

    Its internal name and kind stay: the values already typed keep their meaning. A deactivated field
    leaves forms, lists and exports; the values stay in the records and come back if it is reactivated.
    """
    authorize(actor, "admin", municipality)
    query = {"_id": entities._object_id(field_id), "municipality": municipality}
    before = db["custom_fields"].find_one(query)
    if before is None:
        raise NotFound("Campo personalizado não encontrado.")
    errors = {}
    if not label.strip():
        errors["label"] = "Rótulo do campo: campo obrigatório."
    clean_choices = [c.strip() for c in choices or [] if c.strip()]
    if before["kind"] == "choice" and not clean_choices:
        errors["choices"] = "Opções: informe as opções da lista, separadas por vírgula."
    if errors:
        raise ValidationFailed(errors)
    after = {"label": label.strip(), "required": bool(required), "active": bool(active),
             "choices": clean_choices if before["kind"] == "choice" else before.get("choices", [])}
    changed = {k: v for k, v in after.items() if before.get(k, True if k == "active" else None) != v}
    if not changed:
        return
    version = expected_version
    current = {"version": version} if version else {"version": {"$exists": False}}
    with transaction(db):
        result = db["custom_fields"].update_one(
            {**query, **current},
            {"$set": encode({**changed, "updated_at": clock.now_utc(), "updated_by": actor.username}),
             "$inc": {"version": 1}})
        if result.matched_count == 0:
            raise entities._stale(db, decode(db["custom_fields"].find_one(query)))
        audit.record(db, actor, municipality, "update", "custom_fields", field_id,
                     {k: before.get(k) for k in changed}, changed)
