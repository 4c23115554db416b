"""Listing a register: one page of records with server-side search, filters, sort and pagination
(``limit``/``skip`` in the store), the bounded lookup a searchable picker offers, and every record of
a filter (what an export writes).

A filter takes only the spec's filter fields, as literals of the field's type; a search term is
trimmed and escaped; the municipality is always the one the caller was authorized for.
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from services.shared import entities, fields, list_counts
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.shared.schema import EntitySpec, Field, ListQuery, Page
from services.store import decode, encode

SEARCH_MAX = 200  # characters of a search term that are read; the rest is ignored (silently trimmed)
PER_PAGE_MAX = 500
SYSTEM_SORTS = ("created_at", "updated_at")


def _search_term(text: Any) -> str:
    """The term as searched: NUL and other control characters dropped, at most SEARCH_MAX characters."""
    clean = "".join(ch for ch in str(text or "") if unicodedata.category(ch) != "Cc")
    return clean.strip()[:SEARCH_MAX].strip()


def _filter_value(f: Field, value: Any) -> Any:
    """A filter value as a literal of the field's type (a list means any of them); never an operator."""
    if isinstance(value, (list, tuple, set)):
        return {"$in": [encode(_filter_literal(f, v)) for v in value]}
    return encode(_filter_literal(f, value))


def _filter_literal(f: Field, value: Any) -> Any:
    if isinstance(value, (dict, list, tuple, set)) or (isinstance(value, str) and value.strip().startswith("$")):
        raise ValidationFailed({f.name: f"{f.label}: filtro inválido; escolha um valor da lista."})
    try:
        return f.parse(value)
    except ValueError as exc:
        raise ValidationFailed({f.name: f"{f.label}: {exc}."}) from None


def _mongo_query(spec: EntitySpec, municipality: str, query: ListQuery) -> dict:
    """The store query of a listing: the authorized municipality, literal filters, escaped search.

    Only the spec's filter fields can be filtered on; any other key (``municipality`` included) is
    refused, so the municipality is always the one the caller was authorized for.
    """
    filterable = {f.name: f for f in spec.fields if f.filterable}
    mongo: dict[str, Any] = {}
    for name, value in query.filters.items():
        if name not in filterable:
            raise ValidationFailed({str(name): f"Filtro desconhecido neste cadastro: {str(name)[:50]}."})
        if value in (None, "", [], ()):
            continue
        mongo[name] = _filter_value(filterable[name], value)
    term = _search_term(query.search)
    if term:
        ors = []
        for f in spec.fields:
            if f.searchable:
                pattern = re.escape(fields.search_form(f.kind, term))
                ors.append({f.name: {"$regex": pattern, "$options": "i"}})
        if ors:
            mongo["$or"] = ors
    mongo["municipality"] = municipality
    if spec.removable:
        mongo.update(entities.NOT_REMOVED)
    return mongo


def check_query(spec: EntitySpec, municipality: str, query: ListQuery) -> None:
    """Refuse (ValidationFailed) a listing the register cannot answer: an unknown filter or order, a
    value of the wrong kind. What a saved view is checked with before it is kept."""
    _mongo_query(spec, municipality, query)
    _sort(spec, query)


def _sort(spec: EntitySpec, query: ListQuery) -> list[tuple[str, int]]:
    """Sort keys of a listing: a field of the spec (or the creation/update instant), then ``_id`` the
    same way (an index read backwards serves the descending order)."""
    name = query.sort or spec.default_sort
    if name not in {f.name for f in spec.fields if f.kind != "file"} | set(SYSTEM_SORTS):  # a file orders nothing
        raise ValidationFailed({"sort": "Ordenação inválida: escolha uma coluna da lista."})
    way = -1 if query.descending else 1
    return [(name, way), ("_id", way)]


def per_page_checked(per_page: int) -> int:
    """Rows per page of any paged list: 1 to ``PER_PAGE_MAX``, else ValidationFailed under ``per_page``."""
    if not isinstance(per_page, int) or not 1 <= per_page <= PER_PAGE_MAX:
        raise ValidationFailed({"per_page": f"Registros por página: de 1 a {PER_PAGE_MAX}."})
    return per_page


def _paging(query: ListQuery) -> tuple[int, int]:
    per_page_checked(query.per_page)
    if not isinstance(query.page, int):
        raise ValidationFailed({"page": "Página inválida."})
    return query.page, query.per_page


@checked
def list_page(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> Page:
    """One page of records matching search and filters, sorted in the store."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    return page_where(db, spec, municipality, query)


def page_where(db: Database, spec: EntitySpec, municipality: str, query: ListQuery, where: dict | None = None) -> Page:
    """:func:`list_page` of a register the caller was already authorized for, narrowed by a service's
    own conditions ``where`` (the machines free on a day); never a user's dict."""
    mongo = {**_mongo_query(spec, municipality, query), **(where or {})}
    sort = _sort(spec, query)
    wanted, per_page = _paging(query)
    total = list_counts.counted(db[spec.name], mongo)
    page = max(1, min(wanted, list_counts.pages(total, per_page)))
    cursor = db[spec.name].find(mongo).sort(sort).skip((page - 1) * per_page).limit(per_page)
    return Page([entities._typed(spec, decode(d)) for d in cursor], total, page, per_page)


LOOKUP_LIMIT = 20


@checked
def lookup(db: Database, actor: Actor, entity: str, municipality: str, term: str = "",
           filters: dict[str, Any] | None = None, limit: int = LOOKUP_LIMIT) -> list[dict]:
    """At most ``limit`` records matching ``term`` in the searchable fields, newest first: what a
    searchable picker offers (one bounded query, whatever the size of the register)."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    mongo = _mongo_query(spec, municipality, ListQuery(search=term, filters=filters or {}))
    cursor = db[entity].find(mongo).sort([("created_at", -1), ("_id", -1)]).limit(max(1, min(limit, PER_PAGE_MAX)))
    return [entities._typed(spec, decode(d)) for d in cursor]


def searched(db: Database, spec: EntitySpec, municipality: str, term: str, limit: int) -> list[dict]:
    """At most ``limit`` records of a register the caller was already authorized for whose searchable
    fields match ``term``, newest first (one query); none when the register has no searchable field."""
    if not any(f.searchable for f in spec.fields) or not _search_term(term):
        return []
    mongo = _mongo_query(spec, municipality, ListQuery(search=term))
    cursor = db[spec.name].find(mongo).sort([("created_at", -1), ("_id", -1)]).limit(max(1, min(limit, PER_PAGE_MAX)))
    return [entities._typed(spec, decode(d)) for d in cursor]


@checked
def referenced(db: Database, actor: Actor, entity: str, municipality: str, key: str,
               value: str | int | Decimal | date | bool | None) -> dict | None:
    """The record of ``entity`` whose ``key`` field holds ``value`` (a driver by CPF), or None: what a
    reference field currently names, so a picker can show it."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    if value in (None, "") or key not in {f.name for f in spec.fields}:
        return None
    doc = db[entity].find_one({"municipality": municipality, key: encode(value), **entities.NOT_REMOVED})
    return entities._typed(spec, decode(doc)) if doc else None


@checked
def list_all(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> list[dict]:
    """Every record matching the query (for export), in the list's order."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    mongo = _mongo_query(spec, municipality, query)
    cursor = db[entity].find(mongo).sort(_sort(spec, query))
    return [entities._typed(spec, decode(d)) for d in cursor]
