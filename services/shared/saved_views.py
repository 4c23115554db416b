"""Saved views of a register's list (issue 24 item 3): the search, filters, order and columns a clerk
set on a list, saved by name for oneself or shared with the municipality's secretariat, opened from
the list or from a link on Início (collection ``saved_views``).

A view belongs to one municipality and one register. A personal view is its owner's alone (reading
the register is enough to keep one); a shared view is seen by everyone who reads the register there
and is saved or removed only by who may write in it. Every save and removal is audited. A view keeps
only what the list can ask (the register's filter fields and columns, a search term the input
boundary cut to 200 characters): one that names a field the register no longer has is shown without it.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from services.shared import audit, clock, entities, entity_lists
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from services.shared.schema import EntitySpec, ListQuery
from services.store import DuplicateKeyError, decode, encode, insert_one, transaction

COLLECTION = "saved_views"
NAME_MAX = 60
PER_PERSON = 50  # views one person keeps in one register of one municipality (shared ones included)
SHARED = ""  # the owner of a shared view: a name is unique among the shared views and among each person's
INDEXES = {COLLECTION: [([("municipality", 1), ("entity", 1), ("owner", 1), ("name", 1)],
                         {"unique": True, "name": "u_saved_view_name"})]}


@dataclass(frozen=True)
class SavedView:
    id: str
    entity: str
    name: str
    shared: bool
    owner: str  # who saved it (a shared one too)
    search: str = ""
    filters: dict[str, Any] = field(default_factory=dict)
    sort: str | None = None
    descending: bool = False
    columns: tuple[str, ...] = ()


def prepare(db: Database) -> None:
    for keys, options in INDEXES[COLLECTION]:
        db[COLLECTION].create_index(keys, **options)


def _columns(spec: EntitySpec, columns: Sequence[str]) -> tuple[str, ...]:
    """The columns asked, in the order asked, each a field of the register shown in a list."""
    shown = {f.name for f in spec.fields if f.kind != "file"}
    unknown = [c for c in columns if c not in shown]
    if unknown:
        raise ValidationFailed({"columns": f"Coluna desconhecida neste cadastro: {str(unknown[0])[:50]}."})
    return tuple(dict.fromkeys(columns))


@checked
def save_view(db: Database, actor: Actor, municipality: str, entity: str, name: str, query: ListQuery,
              columns: list[str], shared: bool = False) -> str:
    """Save the list ``query`` (search, filters, order; not its page) and its ``columns`` under ``name``;
    returns its id. Shared with the secretariat: only who may write in the municipality."""
    authorize(actor, "write" if shared else "read", municipality)
    spec = entities.spec_for(db, entity, municipality)
    name = re.sub(r"\s+", " ", name or "").strip()
    if not name or len(name) > NAME_MAX or not name.isprintable():
        raise ValidationFailed({"name": f"Dê à visão um nome de 1 a {NAME_MAX} caracteres."})
    entity_lists.check_query(spec, municipality, query)  # the register's filter fields, its values, its order
    kept = _columns(spec, columns)
    if not kept:
        raise ValidationFailed({"columns": "Escolha ao menos uma coluna."})
    mine = {"municipality": municipality, "entity": entity, "$or": [{"owner": actor.username}, {"shared": True}]}
    if db[COLLECTION].count_documents(mine) >= PER_PERSON:
        raise ValidationFailed({"name": f"Cada pessoa guarda até {PER_PERSON} visões por cadastro; exclua alguma antes."})
    doc = {"municipality": municipality, "entity": entity, "name": name, "shared": bool(shared),
           "owner": SHARED if shared else actor.username, "saved_by": actor.username,
           "search": (query.search or "").strip(), "filters": {k: v for k, v in query.filters.items()
                                                               if v not in (None, "", [], ())},
           "sort": query.sort, "descending": bool(query.descending), "columns": list(kept),
           "created_at": clock.now_utc()}
    with transaction(db):
        try:
            new_id = insert_one(db[COLLECTION], encode(doc))
        except DuplicateKeyError:
            whose = "compartilhada" if shared else "sua"
            raise Conflict(f"Já existe uma visão {whose} chamada '{name}' em {spec.label_plural.lower()}.") from None
        audit.record(db, actor, municipality, "create", COLLECTION, new_id, {}, _shown(doc),
                     note=f"Visão '{name}' de {spec.label_plural.lower()}" + (" (compartilhada)" if shared else ""))
    return str(new_id)


@checked
def views(db: Database, actor: Actor, municipality: str, entity: str | None = None) -> list[SavedView]:
    """The views ``actor`` sees in the municipality (their own and the shared ones), by name; of one
    register when ``entity`` is given."""
    authorize(actor, "read", municipality)
    query: dict[str, Any] = {"municipality": municipality, "$or": [{"owner": actor.username}, {"shared": True}]}
    if entity:
        query["entity"] = entity
    rows = [decode(row) for row in db[COLLECTION].find(query).sort([("entity", 1), ("name", 1)])
            .limit(PER_PERSON * 20)]
    specs = {}
    for name in {row["entity"] for row in rows}:  # one spec per register, not per view
        try:
            specs[name] = entities.spec_for(db, name, municipality)
        except NotFound:  # a register TI deactivated keeps its views, out of sight until it is back
            continue
    return [_view(specs[row["entity"]], row) for row in rows if row["entity"] in specs]


@checked
def delete_view(db: Database, actor: Actor, municipality: str, view_id: str) -> None:
    """Remove a view: one's own, or a shared one by who may write in the municipality."""
    authorize(actor, "read", municipality)
    try:
        doc = db[COLLECTION].find_one({"_id": ObjectId(view_id), "municipality": municipality})
    except (InvalidId, TypeError):
        doc = None
    if doc is None:
        raise NotFound("Visão não encontrada.")
    if doc["shared"]:
        authorize(actor, "write", municipality)
    elif doc["owner"] != actor.username:
        raise PermissionDenied("Só quem salvou esta visão pode excluí-la.")
    with transaction(db):
        db[COLLECTION].delete_one({"_id": doc["_id"]})
        audit.record(db, actor, municipality, "delete", COLLECTION, doc["_id"], _shown(decode(doc)), {},
                     note=f"Visão '{doc['name']}' excluída")


def _view(spec: EntitySpec, doc: dict) -> SavedView:
    """A stored view as the list can use it today: a field the register no longer has is left out."""
    names = {f.name for f in spec.fields}
    filterable = {f.name for f in spec.fields if f.filterable}
    return SavedView(id=str(doc["_id"]), entity=doc["entity"], name=doc["name"], shared=doc["shared"],
                     owner=doc.get("saved_by") or doc["owner"], search=doc.get("search") or "",
                     filters={k: v for k, v in (doc.get("filters") or {}).items() if k in filterable},
                     sort=doc.get("sort") if doc.get("sort") in names else None,
                     descending=bool(doc.get("descending")),
                     columns=tuple(c for c in doc.get("columns") or () if c in names))


def _shown(doc: dict) -> dict:
    """What the audit keeps of a view: its name, register, scope and the list it asks."""
    return {k: doc.get(k) for k in ("name", "entity", "shared", "search", "filters", "sort", "descending", "columns")}
