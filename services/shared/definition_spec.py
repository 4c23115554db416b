"""A register's definition as data, and the one function from a definition to an :class:`EntitySpec`.

A definition is the document municipal IT writes on "Cadastros definidos" (collection
``register_definitions``): name, labels, fields, default order, who reads and writes it, which
municipalities have it. A coded spec is a definition that ships with the product:
:func:`definition_of` writes any coded spec in the same format and :func:`to_spec` reads either back,
so the generic services of ``services.shared.entities`` serve both through the same path.

This module only reads and checks data (no store): :func:`problems` lists what is wrong with a
definition, each message in pt-BR under the field the TI screen shows it next to.
"""
from __future__ import annotations

import keyword
import re
from typing import Any

from services.shared import fields, flow_spec, public_spec
from services.shared.fields import identifier_of  # noqa: F401  (the TI screen's)
from services.shared.schema import LABEL_MAX, EntitySpec, EntryOf, Field

COLLECTION = "register_definitions"
FORMAT = 1  # the document's format; a later key (a status flow, an export) is optional, read when present

# The kinds a defined field may have (the coded specs' kinds), and "reference" to another register.
FILE = "file"  # a document or photo of the record (services.shared.record_files); not a kind of custom field
KINDS = {**{k: fields.KINDS[k] for k in ("text", "textarea", "int", "money", "date", "bool", "choice", "cpf", "cnpj",
                                         "cpf_cnpj", "phone", "email", "plate")},
         FILE: "Arquivo (PDF, JPEG ou PNG)"}
REFERENCE = "reference"
READ_ROLES = ("secretaria", "ti")  # who may be granted reading (the gabinete reads counts only)
WRITE_ROLES = ("secretaria",)  # who may be granted writing (TI administers, it does not type records)
IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]{1,39}$")
MAX_FIELDS = 60
MAX_CHOICES = 200  # a list longer than this is a register of its own (refer to it), not a choice
# Names the store or the product already uses: a definition never takes one.
SYSTEM_COLLECTIONS = frozenset({
    "users", "municipalities", "audit", "audit_actions", "parameters", "meta", "counters", "sessions",
    "custom_fields", COLLECTION, "dams", "charges", "payments", "authorizations", "autos", "inspections",
    "booking_requests", "bank_imports", "outbox", "files", "views", "view_state", "login_attempts",
    "editais",
})
RESERVED_FIELDS = frozenset({"municipality", "version", "created_at", "updated_at", "created_by", "updated_by",
                             "removed", "id", "_id", flow_spec.STATE, flow_spec.SINCE, flow_spec.HISTORY,
                             public_spec.REQUESTER, public_spec.PROTOCOL})


def definition_of(spec: EntitySpec) -> dict[str, Any]:
    """A coded spec written as a definition (the product's own registers, in the TI's format)."""
    return {
        "format": FORMAT, "name": spec.name, "label": spec.label, "label_plural": spec.label_plural,
        "feminine": spec.feminine, "default_sort": spec.default_sort, "title_field": spec.title_field,
        "module": spec.module, "removable": spec.removable,
        "read_roles": list(spec.read_roles) if spec.read_roles is not None else None,
        "write_roles": list(spec.write_roles) if spec.write_roles is not None else None,
        "municipalities": list(spec.municipalities) if spec.municipalities is not None else None,
        "fields": [_field_definition(f) for f in spec.fields],
    } | ({"entry_of": {"parameter": spec.entry_of.parameter, "fields": list(spec.entry_of.fields),
                       "message": spec.entry_of.message}} if spec.entry_of else {})


def _field_definition(f: Field) -> dict[str, Any]:
    return {"name": f.name, "label": f.label, "kind": f.kind, "required": f.required, "unique": f.unique,
            "searchable": f.searchable, "filterable": f.filterable, "in_list": f.in_list, "help": f.help,
            "choices": [list(c) for c in f.choices], "refers_to": list(f.refers_to) if f.refers_to else None,
            "not_future": f.not_future, "max_years_ahead": f.max_years_ahead,
            "choices_from": list(f.choices_from) if f.choices_from else None}


def to_spec(definition: dict[str, Any]) -> EntitySpec:
    """The spec of a definition (coded or defined): what the generic list, form, files and audit read."""
    def roles(key: str) -> tuple[str, ...] | None:
        value = definition.get(key)
        return None if value is None else tuple(value)

    flow = flow_spec.to_flow(definition.get("flow"))
    state = (flow_spec.state_field(flow),) if flow else ()
    return EntitySpec(
        name=definition["name"], label=definition["label"], label_plural=definition["label_plural"],
        fields=tuple(_field(f) for f in definition["fields"]) + state, module=definition.get("module"),
        default_sort=definition.get("default_sort") or "created_at", title_field=definition.get("title_field") or "",
        removable=bool(definition.get("removable")), feminine=bool(definition.get("feminine")),
        read_roles=roles("read_roles"), write_roles=roles("write_roles"), municipalities=roles("municipalities"),
        defined=bool(definition.get("defined")), flow=flow, entry_of=_entry_of(definition.get("entry_of")),
    )


def _entry_of(found: dict[str, Any] | None) -> EntryOf | None:
    """Fields that together are one entry of a list parameter (a requester's zone and locality)."""
    return EntryOf(found["parameter"], tuple(found["fields"]), found["message"]) if found else None


def _field(f: dict[str, Any]) -> Field:
    return Field(
        name=f["name"], label=f["label"], kind=f["kind"], required=bool(f.get("required")),
        choices=tuple((str(v), str(label)) for v, label in f.get("choices") or ()),
        in_list=f.get("in_list", True), filterable=bool(f.get("filterable")), searchable=bool(f.get("searchable")),
        unique=bool(f.get("unique")), help=f.get("help") or "", not_future=bool(f.get("not_future")),
        max_years_ahead=f.get("max_years_ahead"),
        refers_to=tuple(f["refers_to"]) if f.get("refers_to") else None,
        choices_from=tuple(f["choices_from"]) if f.get("choices_from") else None,
    )


def key_field(spec: EntitySpec) -> Field | None:
    """The field a reference to this register stores: its first unique field (CPF, plate, code)."""
    return next((f for f in spec.fields if f.unique), None)


def resolve_references(fields_in: list[dict[str, Any]], known: dict[str, EntitySpec]) -> list[dict[str, Any]]:
    """Each "reference" field as stored: the kind of the target's key and ``refers_to`` = (target, key)."""
    resolved = []
    for f in fields_in:
        if f.get("kind") == REFERENCE:
            target = known.get(str(f.get("target") or ""))
            key = key_field(target) if target else None
            if key is not None:
                f = {**f, "kind": key.kind, "refers_to": [target.name, key.name], "choices": []}
        resolved.append(f)
    return resolved


def problems(definition: dict[str, Any], known: dict[str, EntitySpec], coded: frozenset[str]) -> dict[str, str]:
    """What is wrong with a definition, by the field of the TI form (``fields.2.name`` for a field's row)."""
    errors: dict[str, str] = {}
    name = str(definition.get("name") or "")
    if not IDENTIFIER.fullmatch(name) or keyword.iskeyword(name):
        errors["name"] = ("Identificador do cadastro: use de 2 a 40 letras minúsculas sem acento, números ou _, "
                          "começando por uma letra (ex.: concessoes_cemiterio).")
    elif name in coded or name in SYSTEM_COLLECTIONS or name.startswith("system"):
        errors["name"] = f"Identificador do cadastro: “{name}” já é usado pelo painel; escolha outro."
    for key, what in (("label", "Nome no singular"), ("label_plural", "Nome no plural")):
        text = str(definition.get(key) or "").strip()
        if not text:
            errors[key] = f"{what}: campo obrigatório."
        elif len(text) > LABEL_MAX:
            errors[key] = f"{what}: no máximo {LABEL_MAX} caracteres."
    if any(r not in READ_ROLES for r in definition.get("read_roles") or ()):
        errors["read_roles"] = "Quem consulta: escolha entre Secretaria e TI municipal."
    if any(r not in WRITE_ROLES for r in definition.get("write_roles") or ()):
        errors["write_roles"] = "Quem cadastra: só a Secretaria cadastra registros."
    if not definition.get("municipalities"):
        errors["municipalities"] = "Municípios: escolha ao menos um município que terá este cadastro."
    field_list = definition.get("fields") or []
    if not field_list:
        errors["fields"] = "Campos: inclua ao menos um campo."
    elif len(field_list) > MAX_FIELDS:
        errors["fields"] = f"Campos: no máximo {MAX_FIELDS} campos por cadastro."
    seen: set[str] = set()
    for index, f in enumerate(field_list[:MAX_FIELDS]):
        errors.update(_field_problems(index, f, seen, known, name))
    names = {str(f.get("name")) for f in field_list}
    errors.update(flow_spec.problems(definition.get("flow"), definition.get("read_roles"),
                                     definition.get("write_roles")))
    errors.update(public_spec.problems(definition.get(public_spec.PUBLIC), definition))
    sort = definition.get("default_sort") or ""
    files = {str(f.get("name")) for f in field_list if f.get("kind") == FILE}
    if sort and sort not in (names - files) | {"created_at"} | ({flow_spec.STATE} if definition.get("flow") else set()):
        errors["default_sort"] = "Ordem padrão: escolha um dos campos do cadastro (um arquivo não ordena a lista)."
    return errors


def _field_problems(index: int, f: dict[str, Any], seen: set[str], known: dict[str, EntitySpec],
                    own: str) -> dict[str, str]:
    errors: dict[str, str] = {}
    at = f"fields.{index}"
    name = str(f.get("name") or "")
    row = f"Campo {index + 1}"
    if not IDENTIFIER.fullmatch(name) or keyword.iskeyword(name) or name in RESERVED_FIELDS:
        errors[f"{at}.name"] = (f"{row}: o identificador “{name}” não vale; use letras minúsculas sem acento, "
                                "números ou _, começando por uma letra (ex.: data_concessao).")
    elif name in seen:
        errors[f"{at}.name"] = f"{row}: já existe outro campo com o identificador “{name}”."
    seen.add(name)
    if not str(f.get("label") or "").strip():
        errors[f"{at}.label"] = f"{row}: informe o rótulo que o formulário mostra."
    elif len(str(f["label"])) > LABEL_MAX:
        errors[f"{at}.label"] = f"{row}: o rótulo tem no máximo {LABEL_MAX} caracteres."
    kind = f.get("kind")
    if kind == REFERENCE:
        target = str(f.get("target") or "")
        if target == own or target not in known:
            errors[f"{at}.target"] = f"{row}: a referência aponta para um cadastro que não existe."
        elif key_field(known[target]) is None:
            errors[f"{at}.target"] = (f"{row}: o cadastro de {known[target].label_plural.lower()} não tem campo "
                                      "único para ser referido.")
    elif kind not in KINDS:
        errors[f"{at}.kind"] = f"{row}: tipo de campo inválido."
    choices = f.get("choices") or []
    if kind == "choice":
        values = [str(c[0] if isinstance(c, (list, tuple)) else c).strip() for c in choices]
        if not any(values):
            errors[f"{at}.choices"] = f"{row}: informe as opções da lista."
        elif len(values) > MAX_CHOICES:
            many = f"{len(values):,}".replace(",", ".")
            errors[f"{at}.choices"] = (f"{row}: {many} opções é demais; no máximo {MAX_CHOICES} (uma lista "
                                       "maior é um cadastro próprio: use uma referência).")
        elif len(set(values)) != len(values):
            errors[f"{at}.choices"] = f"{row}: há opções repetidas."
    if f.get("unique") and not f.get("required"):
        errors[f"{at}.unique"] = f"{row}: um campo único deve ser também obrigatório."
    if kind == FILE and any(f.get(flag) for flag in ("unique", "searchable", "filterable")):
        errors[f"{at}.kind"] = f"{row}: um campo de arquivo não pode ser único, de busca nem filtro."
    return errors
