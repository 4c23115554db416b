"""Low-code entity specs: one declarative definition per collection drives list, form, CSV and validation.

A spec lists its fields (kind, pt-BR label, required, choices, list column, filter, search) and its
indexes. From it the generic services here validate, save with audit, list with server-side
search/filter/sort/pagination (``limit``/``skip`` in the store), export exactly what a filter shows
and import CSV with a dry run that reports every bad row before anything is written. Municipal IT
adds custom fields per municipality (collection ``custom_fields``), merged in by :func:`spec_for`.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from services.shared import audit, clock, exports, fields
from services.shared.auth import Actor, authorize
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.shared.exports import spreadsheet_safe
from services.store import DuplicateKeyError, decode, encode, exists, insert_one, transaction

CUSTOM_PREFIX = "cf_"
NOT_REMOVED = {"removed": {"$exists": False}}  # records removed by mistake are kept, never listed


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str = "text"
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    in_list: bool = True
    filterable: bool = False
    searchable: bool = False
    unique: bool = False  # unique per municipality; only for required fields (a missing value is null)
    help: str = ""
    not_future: bool = False  # a date of something already done (issued, filed, decided, inspected)
    max_years_ahead: int | None = None  # a year at most this many years after today's (the model year)
    refers_to: tuple[str, str] | None = None  # (collection, key field): the value must name a registered record

    def parse(self, raw: Any) -> Any:
        return fields.parse(self.kind, raw, self.choices)

    def clean(self, raw: Any) -> Any:
        """The parsed value, refused when it is later than today (Cuiabá) allows."""
        value = self.parse(raw)
        if self.not_future:
            fields.not_after_today(value, clock.today())
        if self.max_years_ahead is not None:
            fields.year_at_most(value, clock.today().year + self.max_years_ahead)
        return value

    def show(self, value: Any) -> str:
        return fields.show(self.kind, value, self.choices)


@dataclass(frozen=True)
class EntitySpec:
    name: str
    label: str
    label_plural: str
    fields: tuple[Field, ...]
    module: str | None = None
    default_sort: str = "created_at"
    title_field: str = ""
    removable: bool = False  # a record entered by mistake can be removed (kept as removed, with who and why)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def list_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.in_list)

    def indexes(self) -> list[tuple[list[tuple[str, int]], dict]]:
        """Unique fields are unique per municipality; searchable and filter fields are indexed."""
        result = [([("municipality", 1), ("created_at", 1)], {"name": f"i_{self.name}_created"})]
        for f in self.fields:
            if f.unique:
                result.append(([("municipality", 1), (f.name, 1)], {"unique": True, "name": f"u_{self.name}_{f.name}"}))
            elif f.filterable:
                result.append(([("municipality", 1), (f.name, 1)], {"name": f"i_{self.name}_{f.name}"}))
        return result


class _Registry(MutableMapping):
    """Every spec of the product by name, complete from the first read.

    The specs live in ``services.shared.specs``, which imports this module; the registry imports them on
    its first read, so a script that uses only ``services.shared.entities`` finds them all.
    """

    def __init__(self) -> None:
        self._specs: dict[str, EntitySpec] = {}
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            import services.shared.specs  # noqa: F401  (registers every spec through register())

            self._loaded = True

    def __getitem__(self, name: str) -> EntitySpec:
        self._load()
        return self._specs[name]

    def __setitem__(self, name: str, spec: EntitySpec) -> None:
        self._load()
        self._specs[name] = spec

    def __delitem__(self, name: str) -> None:
        self._load()
        del self._specs[name]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(self._specs)

    def __len__(self) -> int:
        self._load()
        return len(self._specs)


SPECS = _Registry()


def register(spec: EntitySpec) -> EntitySpec:
    SPECS._specs[spec.name] = spec
    return spec


def spec(name: str) -> EntitySpec:
    """The spec of the entity ``name`` (without custom fields: see :func:`spec_for`)."""
    try:
        return SPECS[name]
    except KeyError:
        raise NotFound(f"Cadastro desconhecido: {name}.") from None


def all_indexes() -> dict[str, list]:
    return {name: spec.indexes() for name, spec in SPECS.items()}


# ---- custom fields (municipal IT, no code) ----

def custom_fields(db: Database, entity: str, municipality: str) -> list[Field]:
    rows = db["custom_fields"].find({"entity": entity, "municipality": municipality, "active": {"$ne": False}}
                                    ).sort("created_at", 1)
    return [
        Field(
            name=r["name"],
            label=r["label"],
            kind=r["kind"],
            required=r.get("required", False),
            choices=tuple((c, c) for c in r.get("choices", [])),
            filterable=r["kind"] in ("choice", "bool"),
            searchable=r["kind"] in ("text", "cpf", "cnpj", "cpf_cnpj", "plate"),
        )
        for r in rows
    ]


def spec_for(db: Database, entity: str, municipality: str) -> EntitySpec:
    """The entity's spec with the municipality's custom fields appended."""
    base = spec(entity)
    extra = custom_fields(db, entity, municipality)
    return replace(base, fields=base.fields + tuple(extra)) if extra else base


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


def custom_field_rows(db: Database, actor: Actor, entity: str, municipality: str) -> list[dict]:
    """Every custom field of an entity for one municipality, active or not, as TI manages them."""
    authorize(actor, "admin", municipality)
    rows = db["custom_fields"].find({"entity": entity, "municipality": municipality}).sort("created_at", 1)
    return [{**decode(r), "id": str(r["_id"]), "active": r.get("active", True), "version": r.get("version", 0)}
            for r in rows]


def edit_custom_field(db: Database, actor: Actor, municipality: str, field_id: str, label: str, required: bool,
                      active: bool, choices: list[str] | None = None, expected_version: int | None = None) -> None:
    """Change a custom field's label, obligation, options or whether it is in use (``ti`` only).

    Its internal name and kind stay: the values already typed keep their meaning. A deactivated field
    leaves forms, lists and exports; the values stay in the records and come back if it is reactivated.
    """
    authorize(actor, "admin", municipality)
    query = {"_id": _object_id(field_id), "municipality": municipality}
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
    version = before.get("version", 0) if expected_version is None else expected_version
    current = {"version": version} if version else {"version": {"$exists": False}}
    with transaction(db):
        result = db["custom_fields"].update_one(
            {**query, **current},
            {"$set": encode({**changed, "updated_at": clock.now_utc(), "updated_by": actor.username}),
             "$inc": {"version": 1}})
        if result.matched_count == 0:
            raise _stale(db, decode(db["custom_fields"].find_one(query)))
        audit.record(db, actor, municipality, "update", "custom_fields", field_id,
                     {k: before.get(k) for k in changed}, changed)


# ---- validation and writes ----

def validate(spec: EntitySpec, values: dict[str, Any], partial: bool = False) -> dict[str, Any]:
    """Clean values of the spec's fields; raises ValidationFailed with every bad field."""
    clean: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in spec.fields:
        if partial and f.name not in values:
            continue
        raw = values.get(f.name)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            if f.required:
                errors[f.name] = f"{f.label}: campo obrigatório."
            else:
                clean[f.name] = None
            continue
        try:
            clean[f.name] = f.clean(raw)
        except ValueError as exc:
            errors[f.name] = f"{f.label}: {exc}."
    if errors:
        raise ValidationFailed(errors)
    return clean


def check_references(db: Database, spec: EntitySpec, municipality: str,
                     rows: list[dict[str, Any]]) -> dict[int, dict[str, str]]:
    """The errors by row index and field of the reference values that name no registered record.

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


def create(db: Database, actor: Actor, entity: str, municipality: str, values: dict[str, Any]) -> str:
    """Validate and insert a record of ``entity`` for ``municipality`` at version 1, with its audit entry."""
    authorize(actor, "write", municipality)
    spec = spec_for(db, entity, municipality)
    clean = validate(spec, values)
    _refuse_unknown_references(db, spec, municipality, clean)
    now = clock.now_utc()
    doc = {**clean, "municipality": municipality, "version": 1, "created_at": now, "updated_at": now,
           "created_by": actor.username}
    with transaction(db):
        try:
            inserted = insert_one(db[entity], encode(doc))
        except DuplicateKeyError as exc:
            raise _unique_conflict(spec, exc) from None
        audit.record(db, actor, municipality, "create", entity, inserted, {}, clean)
    return str(inserted)


def update(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str, values: dict[str, Any],
           expected_version: int | None = None) -> None:
    """Validate and change fields of a record, with before/after in the audit log.

    ``expected_version`` is the version the editor loaded (``get(...)["version"]``; 0 for a record
    saved before versions existed). Every form must pass it: when someone else saved the record in
    between, the update is refused with :class:`Conflict` naming who changed it and when, and nothing
    is overwritten. Without it (a service editing on its own) the version read here is the one
    expected, so a change made between this read and the write is never overwritten either.
    Every saved change increments the version.
    """
    authorize(actor, "write", municipality)
    spec = spec_for(db, entity, municipality)
    before = get(db, actor, entity, municipality, doc_id)
    expected = before["version"] if expected_version is None else expected_version
    if before["version"] != expected:
        raise _stale(db, before)
    clean = validate(spec, values, partial=True)
    changed = {k: v for k, v in clean.items() if encode(before.get(k)) != encode(v)}
    if not changed:
        return
    _refuse_unknown_references(db, spec, municipality, changed)
    current = {"version": expected} if expected else {"version": {"$exists": False}}
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
            raise _stale(db, get(db, actor, entity, municipality, doc_id))
        audit.record(db, actor, municipality, "update", entity, doc_id, {k: before.get(k) for k in changed}, changed)


REASON_MAX = 500


def remove(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str, reason: str,
           expected_version: int | None = None) -> None:
    """Remove a record entered by mistake (a document, infraction or course of a driver).

    The record stays in the store marked ``removed`` with who, when and why, leaves every list and
    every verdict, and the audit log keeps the removal. The write is conditional on the version the
    clerk saw, so a record changed meanwhile is not removed unseen.
    """
    authorize(actor, "write", municipality)
    spec = spec_for(db, entity, municipality)
    if not spec.removable:
        raise Conflict(f"{spec.label} não pode ser removido(a); corrija o cadastro pela edição.")
    why = fields._plain_text("text", str(reason or ""))[:REASON_MAX]
    if not why:
        raise ValidationFailed({"reason": "Motivo da remoção: campo obrigatório."})
    before = get(db, actor, entity, municipality, doc_id)
    if before.get("removed"):
        raise Conflict(f"{spec.label} já foi removido(a).")
    expected = before["version"] if expected_version is None else expected_version
    current = {"version": expected} if expected else {"version": {"$exists": False}}
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
                     f"Removido(a) por engano: {why}")


def _stale(db: Database, current: dict) -> Conflict:
    """The refusal of an edit made on an old version: who saved the record last, and when (Cuiabá)."""
    username = current.get("updated_by") or current.get("created_by") or "outro usuário"
    user = db["users"].find_one({"username": username}, {"name": 1})
    who = (user or {}).get("name") or username
    moment = current.get("updated_at") or current.get("created_at")
    when = f" às {clock.to_local(moment):%H:%M}" if moment else ""
    return Conflict(f"Este registro foi alterado por {who}{when}; recarregue a página para ver a versão atual.")


def get(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str) -> dict:
    authorize(actor, "read", municipality)
    doc = db[entity].find_one({"_id": _object_id(doc_id), "municipality": municipality})
    if doc is None:
        raise NotFound(f"{spec(entity).label} não encontrado(a).")
    return _typed(spec_for(db, entity, municipality), decode(doc))


def _typed(spec: EntitySpec, doc: dict) -> dict:
    """Stored values back to their Python types (dates from ISO text)."""
    for f in spec.fields:
        if f.kind == "date" and doc.get(f.name):
            doc[f.name] = fields.parse_date_input(doc[f.name])
    doc.setdefault("version", 0)
    doc["id"] = str(doc.pop("_id"))
    return doc


# ---- listing ----

@dataclass(frozen=True)
class ListQuery:
    search: str = ""
    filters: dict[str, Any] = field(default_factory=dict)
    sort: str | None = None
    descending: bool = False
    page: int = 1
    per_page: int = 25


@dataclass(frozen=True)
class Page:
    rows: list[dict]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))


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
        mongo.update(NOT_REMOVED)
    return mongo


def _sort(spec: EntitySpec, query: ListQuery) -> list[tuple[str, int]]:
    """Sort keys of a listing: a field of the spec (or the creation/update instant), then ``_id``."""
    name = query.sort or spec.default_sort
    if name not in {f.name for f in spec.fields} | set(SYSTEM_SORTS):
        raise ValidationFailed({"sort": "Ordenação inválida: escolha uma coluna da lista."})
    return [(name, -1 if query.descending else 1), ("_id", 1)]


def _paging(query: ListQuery) -> tuple[int, int]:
    if not isinstance(query.per_page, int) or not 1 <= query.per_page <= PER_PAGE_MAX:
        raise ValidationFailed({"per_page": f"Registros por página: de 1 a {PER_PAGE_MAX}."})
    if not isinstance(query.page, int):
        raise ValidationFailed({"page": "Página inválida."})
    return query.page, query.per_page


def list_page(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> Page:
    """One page of records matching search and filters, sorted in the store."""
    authorize(actor, "read", municipality)
    spec = spec_for(db, entity, municipality)
    mongo = _mongo_query(spec, municipality, query)
    sort = _sort(spec, query)
    wanted, per_page = _paging(query)
    total = db[entity].count_documents(mongo)
    page = max(1, min(wanted, max(1, -(-total // per_page))))
    cursor = db[entity].find(mongo).sort(sort).skip((page - 1) * per_page).limit(per_page)
    return Page([_typed(spec, decode(d)) for d in cursor], total, page, per_page)


LOOKUP_LIMIT = 20


def lookup(db: Database, actor: Actor, entity: str, municipality: str, term: str = "",
           filters: dict[str, Any] | None = None, limit: int = LOOKUP_LIMIT) -> list[dict]:
    """At most ``limit`` records matching ``term`` in the searchable fields, newest first: what a
    searchable picker offers (one bounded query, whatever the size of the register)."""
    authorize(actor, "read", municipality)
    spec = spec_for(db, entity, municipality)
    mongo = _mongo_query(spec, municipality, ListQuery(search=term, filters=filters or {}))
    cursor = db[entity].find(mongo).sort([("created_at", -1), ("_id", -1)]).limit(max(1, min(limit, PER_PAGE_MAX)))
    return [_typed(spec, decode(d)) for d in cursor]


def referenced(db: Database, actor: Actor, entity: str, municipality: str, key: str, value: Any) -> dict | None:
    """The record of ``entity`` whose ``key`` field holds ``value`` (a driver by CPF), or None: what a
    reference field currently names, so a picker can show it."""
    authorize(actor, "read", municipality)
    spec = spec_for(db, entity, municipality)
    if value in (None, "") or key not in {f.name for f in spec.fields}:
        return None
    doc = db[entity].find_one({"municipality": municipality, key: encode(value), **NOT_REMOVED})
    return _typed(spec, decode(doc)) if doc else None


def list_all(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> list[dict]:
    """Every record matching the query (for export), in the list's order."""
    authorize(actor, "read", municipality)
    spec = spec_for(db, entity, municipality)
    mongo = _mongo_query(spec, municipality, query)
    cursor = db[entity].find(mongo).sort(_sort(spec, query))
    return [_typed(spec, decode(d)) for d in cursor]


# ---- CSV export and import ----

CSV_DELIMITER = ";"


def export_csv(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> bytes:
    """Exactly the records the filter shows, one column per field, pt-BR formats, ';' separated."""
    spec = spec_for(db, entity, municipality)
    rows = list_all(db, actor, entity, municipality, query)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=CSV_DELIMITER)
    writer.writerow([f.label for f in spec.fields])
    for row in rows:
        writer.writerow([_csv_cell(f, row.get(f.name)) for f in spec.fields])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def export_xlsx(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> bytes:
    """The same records and columns as :func:`export_csv`, as an XLSX sheet: dates as dates, money
    as numbers in reais, the rest as the list shows it (text, never a formula)."""
    spec = spec_for(db, entity, municipality)
    rows = list_all(db, actor, entity, municipality, query)
    headers = [f.label for f in spec.fields]
    typed = [{f.label: _xlsx_cell(f, row.get(f.name)) for f in spec.fields} for row in rows]
    return exports.to_xlsx(typed, headers, sheet=spec.label_plural)


def _xlsx_cell(f: Field, value: Any) -> Any:
    """A value typed for a spreadsheet: a date, money (Decimal), a whole number or the shown text."""
    if value is None or value == "":
        return None
    if f.kind == "money":
        return Decimal(str(value))
    if f.kind == "date":
        return fields.parse_date_input(value)
    if f.kind == "int":
        return int(value)
    return f.show(value)


# Kinds whose cell the panel formats itself (numbers, dates, documents): never user-typed text.
FORMATTED_KINDS = ("money", "int", "date", "bool", "cpf", "cnpj", "cpf_cnpj", "phone", "renavam", "plate")


def _csv_cell(f: Field, value: Any) -> str:
    """A value as the list shows it; text typed by a user can never open as a spreadsheet formula."""
    if value is None:
        return ""
    if f.kind == "money":
        return fields.fmt.number(value, 2)
    shown = f.show(value)
    return shown if f.kind in FORMATTED_KINDS else spreadsheet_safe(shown)


@dataclass(frozen=True)
class RowError:
    line: int
    field: str
    message: str


@dataclass(frozen=True)
class ImportReport:
    rows: int
    errors: tuple[RowError, ...]
    inserted: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def import_csv(db: Database, actor: Actor, entity: str, municipality: str, data: bytes, commit: bool = False) -> ImportReport:
    """Check every row (dry run); with ``commit`` and no errors, insert them all.

    Nothing is written when any row is bad: the report lists every bad row first.
    """
    authorize(actor, "write", municipality)
    spec = spec_for(db, entity, municipality)
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise ValidationFailed({"file": "O arquivo não está em UTF-8; salve o CSV como UTF-8 e envie de novo."}) from None
    lines = text.splitlines()
    if not lines:
        raise ValidationFailed({"file": "O arquivo está vazio."})
    reader = csv.reader(io.StringIO(text), delimiter=CSV_DELIMITER if CSV_DELIMITER in lines[0] else ",")
    header = next(reader, [])
    by_heading = {f.label.lower(): f for f in spec.fields} | {f.name.lower(): f for f in spec.fields}
    columns = [by_heading.get(h.strip().lower()) for h in header]
    errors: list[RowError] = []
    unknown = [h for h, c in zip(header, columns) if c is None and h.strip()]
    for heading in unknown:
        errors.append(RowError(1, heading, f"coluna '{heading}' não existe neste cadastro"))
    for f in spec.fields:
        if f.required and f not in columns:
            errors.append(RowError(1, f.label, "coluna obrigatória ausente"))
    cleaned: list[dict] = []
    lines_of: list[int] = []
    data_rows = 0
    seen: dict[str, dict[Any, int]] = {f.name: {} for f in spec.fields if f.unique}
    for line, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        data_rows += 1
        values = {c.name: cell for c, cell in zip(columns, cells) if c is not None}
        try:
            clean = validate(spec, values)
        except ValidationFailed as exc:
            errors.extend(RowError(line, spec.field(name).label, msg) for name, msg in exc.errors.items())
            continue
        for name, values_seen in seen.items():
            value = clean.get(name)
            if value is None:
                continue
            label = spec.field(name).label
            if value in values_seen:
                errors.append(RowError(line, label, f"repetido na linha {values_seen[value]} do arquivo"))
            elif exists(db[entity], {"municipality": municipality, name: encode(value)}):
                errors.append(RowError(line, label, "já cadastrado"))
            values_seen.setdefault(value, line)
        cleaned.append(clean)
        lines_of.append(line)
    for index, bad in check_references(db, spec, municipality, cleaned).items():
        errors.extend(RowError(lines_of[index], spec.field(name).label, msg) for name, msg in bad.items())
    errors.sort(key=lambda e: e.line)
    report = ImportReport(rows=data_rows, errors=tuple(errors))
    if not commit or errors:
        return report
    for clean in cleaned:
        create(db, actor, entity, municipality, clean)
    return replace(report, inserted=len(cleaned))


def collections(db: Database) -> list[str]:
    return sorted(db.list_collection_names())


def scope_of(actor: Actor) -> dict:
    """A query limiting documents to the actor's municipalities (and to none of another's)."""
    if "*" in actor.municipalities:
        return {}
    return {"$or": [{"municipality": {"$in": list(actor.municipalities)}}, {"municipality": None}]}


def browse(db: Database, actor: Actor, collection: str, municipality: str | None, skip: int = 0, limit: int = 50) -> tuple[list[dict], int]:
    """Read-only look at any collection (``ti`` data explorer); secrets are never shown.

    ``collection`` must be one that exists; ``municipality`` one of the actor's (None: all of them).
    """
    authorize(actor, "admin", municipality)
    if not isinstance(collection, str) or collection not in collections(db):
        raise ValidationFailed({"collection": "Coleção inexistente: escolha uma da lista."})
    if not isinstance(municipality, (str, type(None))):
        raise ValidationFailed({"municipality": "Município inválido."})
    skip, limit = max(0, int(skip)), max(1, min(int(limit), PER_PAGE_MAX))
    if collection == "users":  # users carry a list of municipalities: only those wholly within the actor's
        from services.shared.auth import users_scope

        query = users_scope(db, actor)
        if municipality:
            query = {"$and": [query, {"municipalities": municipality}]}
    else:
        query = {"municipality": municipality} if municipality else scope_of(actor)
    total = db[collection].count_documents(query)
    rows = db[collection].find(query, {"password_hash": 0, "hash_scheme": 0}).skip(skip).limit(limit)
    return [decode(r) for r in rows], total
