"""Definitions travel (issue 24 item 5): a defined register, and optionally its records, as one JSON
file that another store or municipality imports, so TI can prototype on a copy of the store and move
the result.

The file (UTF-8, indented, keys sorted) holds a header — ``painel: "cadastro-definido"``, ``format``,
``exported_at`` (UTC), the source ``municipality``, ``exported_by`` —, the ``definition`` as the TI form
edits it (``name`` and every key of ``definitions.EDITABLE``, whatever they are) and, when asked, the
``records`` of the source municipality (not the removed ones; only the fields' values: money as a
decimal text, dates as ISO text, a file as ``{"name", "content"}`` with its bytes in base64). A file
past the import's own limit (PAINEL_REGISTER_DEFINITION_MAX_MB) is refused at export: it could not be
imported.

An import is checked whole before anything is written (:func:`check_import`): the file through the
upload guard (``uploads``, kind ``register_definition``) and the boundary, the header, the definition
through the checks of ``definitions.define_register`` against the registers of this store (the
importer's municipality replaces the source's), the name free, and every record through the
validation of ``entities.create`` (references into this municipality, unique values within the file
included). :func:`import_register` then writes the definition and the records in one unit of work.
"""
from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules import fmt

from services.shared import audit, clock, definitions, entities, flow_spec, municipalities, record_files, uploads
from services.shared.auth import Actor, authorize
from services.shared.boundary import check_value, checked
from services.shared.definition_spec import COLLECTION, REFERENCE, to_spec
from services.shared.errors import ValidationFailed
from services.shared.schema import EntitySpec
from services.store import decode, ensure_indexes, exists, get_file, transaction

MARK = "cadastro-definido"  # the header's "painel": what the file is
FORMAT = 1  # the file's format; a later one is refused by an older panel
KIND = "register_definition"  # the upload guard's kind (config.UPLOAD_LIMITS)
SHOWN_PROBLEMS = 5  # problems named in the refusal of an import (the plan lists them all)


@dataclass(frozen=True)
class Problem:
    """One thing that stops an import: where ("Definição", "Registro 3") and what, in pt-BR."""

    where: str
    message: str


@dataclass(frozen=True)
class ImportPlan:
    """What an import would create, and what stops it."""

    name: str
    label: str
    label_plural: str
    fields: int
    records: int
    source: str  # the municipality the file was exported from
    name_taken: bool  # a register of this store already has the name: import under a new identifier
    problems: tuple[Problem, ...]

    @property
    def applicable(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class _Checked:
    plan: ImportPlan
    header: dict[str, Any]
    clean: dict[str, Any]
    spec: EntitySpec | None
    records: list[dict[str, Any]]
    sent: list[dict[str, Any]]  # the records as read, their files with their bytes (record_files.keep)


@checked
def export_register(db: Database, actor: Actor, municipality: str, name: str, *, with_records: bool) -> bytes:
    """The register ``name`` of ``municipality`` as a file another store imports (``ti`` of it)."""
    authorize(actor, "admin", municipality)
    loaded = definitions.definition(db, actor, municipality, name)
    document: dict[str, Any] = {
        "painel": MARK, "format": FORMAT, "exported_at": clock.now_utc().isoformat(timespec="seconds"),
        "municipality": municipality, "exported_by": actor.username,
        "definition": {key: loaded.get(key) for key in ("name", *definitions.EDITABLE)},
    }
    if with_records:
        names = [f["name"] for f in loaded["fields"]] + ([flow_spec.STATE] if loaded.get("flow") else [])
        files = {f["name"] for f in loaded["fields"] if f["kind"] == "file"}
        rows = db[name].find({"municipality": municipality, **entities.NOT_REMOVED}).sort([("created_at", 1),
                                                                                           ("_id", 1)])
        document["records"] = [{n: _file(db, doc.get(n)) if n in files else doc.get(n) for n in names}
                               for doc in map(decode, rows)]
    data = json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True, default=_plain).encode("utf-8")
    if len(data) > uploads.max_bytes(KIND):
        raise ValidationFailed({"with_records": (
            f"O arquivo exportado teria {fmt.number(Decimal(len(data)) / uploads.MB, 1)} MB, acima do limite para "
            f"importar definições de cadastros ({uploads.shown_limit(KIND)}, PAINEL_REGISTER_DEFINITION_MAX_MB); "
            "exporte sem os registros ou aumente o limite.")})
    return data


def _file(db: Database, kept: Any) -> dict[str, str] | None:
    """A record's file as it travels: its name and its bytes in base64."""
    if not isinstance(kept, dict):
        return None
    return {"name": str(kept["name"]), "content": base64.b64encode(get_file(db, str(kept["sha256"]))).decode()}


def _plain(value: Any) -> str:
    """Money as its decimal text ("45.50"), a date as ISO text (the store keeps legal dates so already)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"not exportable: {type(value).__name__}")


@checked
def check_import(db: Database, actor: Actor, municipality: str, data: bytes,
                 rename_to: str | None = None) -> ImportPlan:
    """What importing the file into ``municipality`` would create, with every problem (nothing written).
    ``rename_to``: the identifier to import under when the file's is taken in this store."""
    authorize(actor, "admin", municipality)
    return _check(db, municipality, data, rename_to).plan


@checked
def import_register(db: Database, actor: Actor, municipality: str, data: bytes, *,
                    rename_to: str | None = None) -> str:
    """Import the file's register (and records) into ``municipality``, checked again first; the
    definition, the records and their audit entries in one unit of work, or nothing. Returns its name."""
    authorize(actor, "admin", municipality)
    found = _check(db, municipality, data, rename_to)
    plan = found.plan
    if not plan.applicable:
        shown = [f"{p.where}: {p.message}" for p in plan.problems[:SHOWN_PROBLEMS]]
        more = len(plan.problems) - len(shown)
        raise ValidationFailed({"data": "Nada foi importado. " + " ".join(shown)
                                + (f" E mais {fmt.count(more, 'problema', 'problemas')}." if more > 0 else "")})
    ensure_indexes(db, definitions.INDEXES)
    record_files.keep(db, found.spec, found.sent)
    with transaction(db):
        doc_id = definitions._insert(db, actor, municipality, plan.name, found.clean)
        for clean in found.records:
            entities._insert(db, actor, found.spec, municipality, clean)
        source, note = _source(db, plan, found.header)
        audit.record(db, actor, municipality, "import", COLLECTION, doc_id, {},  # keys the Auditoria labels
                     {"name": plan.name, "origin": source, "quantity": len(found.records)}, note)
    definitions.prepare(db)
    return plan.name


def _source(db: Database, plan: ImportPlan, header: dict[str, Any]) -> tuple[str, str]:
    """The source municipality's name and the import's audit note, with the export's local time."""
    source = next((m.name for m in municipalities.all_municipalities(db) if m.code == plan.source), plan.source)
    try:
        when = f" em {clock.to_local(datetime.fromisoformat(str(header.get('exported_at')))):%d/%m/%Y %H:%M}"
    except (ValueError, TypeError):
        when = ""
    return source, (f"Definição importada do arquivo exportado de {source}{when} por {header.get('exported_by')}, "
                    f"com {fmt.count(plan.records, 'registro', 'registros')}.")


def _check(db: Database, municipality: str, data: bytes, rename_to: str | None) -> _Checked:
    header, raw, records = _read(data)
    definition = {key: raw.get(key) for key in ("name", *definitions.EDITABLE)}
    definition["municipalities"] = [municipality]
    if rename_to and rename_to.strip():
        definition["name"] = rename_to.strip()
    name = str(definition.get("name") or "")
    taken = exists(db[COLLECTION], {"name": name})
    messages, clean = _definition_checked(db, definition)
    problems = [Problem("Definição", message) for message in messages]
    spec, cleaned, sent = None, [], []
    if not problems:
        spec = to_spec({"name": name, **clean, "defined": True})
        cleaned, bad, sent = _records(db, spec, municipality, records)
        problems += bad
    if taken:
        problems.insert(0, Problem("Definição", f"Identificador do cadastro: já existe um cadastro “{name}” neste "
                                                "painel; informe um novo identificador para importar."))
    fields = raw.get("fields")
    plan = ImportPlan(name, str(raw.get("label") or ""), str(raw.get("label_plural") or ""),
                      len(fields) if isinstance(fields, list) else 0, len(records),
                      str(header.get("municipality") or ""), taken, tuple(problems))
    return _Checked(plan, header, clean, spec, cleaned, sent)


def _read(data: bytes) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    """The header, the definition and the records of the file, or ValidationFailed under ``data``."""
    document = uploads.read_json(KIND, data, field="data")
    if not isinstance(document, dict) or document.get("painel") != MARK:
        raise ValidationFailed({"data": "O arquivo não é uma definição de cadastro exportada pelo painel."})
    if document.get("format") != FORMAT:
        raise ValidationFailed({"data": f"O arquivo está num formato ({document.get('format')}) que este painel não "
                                        f"lê; exporte-o de novo de um painel atualizado."})
    raw, records = document.get("definition"), document.get("records", [])
    if not isinstance(raw, dict) or not isinstance(records, list):
        raise ValidationFailed({"data": "O arquivo não tem a definição e os registros na forma esperada; exporte-o "
                                        "de novo."})
    header = {k: v for k, v in document.items() if k not in ("definition", "records")}
    for part in (header, raw):  # the boundary define_register's definition passes (no operator key, no NUL)
        check_value("data", dict[str, Any], part)
    return header, raw, records


def _definition_checked(db: Database, definition: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The definition as define_register stores it, or what stops it here: its shape, the checks of
    define_register and a reference to a register this store lacks (named)."""
    if not _well_formed(definition):
        return ["A definição do arquivo não tem a forma esperada; exporte-a de novo do painel de origem."], {}
    try:
        return [], definitions._clean(definition, db)
    except ValidationFailed as exc:
        errors = dict(exc.errors)
    known = definitions._known(db)
    for index, f in enumerate(definition["fields"]):
        target = f.get("target")
        if f.get("kind") == REFERENCE and target not in known and target != definition["name"]:
            errors[f"fields.{index}.target"] = (
                f"Campo {index + 1} ({f.get('label')}): refere-se ao cadastro “{target}”, que não existe neste "
                "painel; importe antes a definição dele.")
    return list(errors.values()), {}


def _well_formed(definition: dict[str, Any]) -> bool:
    """Texts where the form has texts, lists where it has lists: what the checks of a definition read."""
    texts = all(isinstance(definition.get(k), str) for k in ("name", "label", "label_plural"))
    roles = all(isinstance(definition.get(k) or [], list) and all(isinstance(r, str) for r in definition.get(k) or [])
                for k in ("read_roles", "write_roles"))
    fields = definition.get("fields")
    return texts and roles and isinstance(fields, list) and all(_well_formed_field(f) for f in fields)


def _well_formed_field(f: Any) -> bool:
    if not isinstance(f, dict) or not all(isinstance(f.get(k), str) for k in ("name", "label", "kind")):
        return False
    choices = f.get("choices") or []
    return isinstance(choices, list) and all(isinstance(c, str) or isinstance(c, list) and len(c) == 2
                                             and all(isinstance(p, str) for p in c) for c in choices)


def _records(db: Database, spec: EntitySpec, municipality: str,
             records: list[Any]) -> tuple[list[dict[str, Any]], list[Problem], list[dict[str, Any]]]:
    """Each record through the validation of ``entities.create`` (and the unique values within the file,
    and the references into ``municipality``): the clean records, the problems by record number and
    the records as read, each file with its bytes."""
    problems: list[Problem] = []
    cleaned: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []
    numbers: list[int] = []
    names = {f.name for f in spec.fields}
    files = {f.name for f in spec.fields if f.kind == "file"}
    seen: dict[str, dict[Any, int]] = {f.name: {} for f in spec.fields if f.unique}
    for number, values in enumerate(records, start=1):
        where = f"Registro {number}"
        if not isinstance(values, dict):
            problems.append(Problem(where, "não tem a forma de um registro (os campos e seus valores)."))
            continue
        wrong = [k for k in values if k not in names] + [spec.field(k).label for k, v in values.items()
                                                         if k in names and isinstance(v, (dict, list))
                                                         and (k not in files or _sent(v) is None)]
        if wrong:
            problems += [Problem(where, f"o campo “{k}” não existe no cadastro ou tem um valor que não é aceito.")
                         for k in wrong]
            continue
        values = {k: _sent(v) if k in files and v is not None else v for k, v in values.items()}
        try:
            clean = entities.validate(spec, values)
        except ValidationFailed as exc:
            problems += [Problem(where, message) for message in exc.errors.values()]
            continue
        if spec.flow is not None and values.get(flow_spec.STATE) is not None:  # the state it had travels too
            if spec.flow.state(values[flow_spec.STATE]) is None:
                problems.append(Problem(where, f"Situação: “{values[flow_spec.STATE]}” não é uma situação do fluxo."))
                continue
            clean[flow_spec.STATE] = values[flow_spec.STATE]
        for field_name, first in seen.items():
            value = clean.get(field_name)
            if value is not None and value in first:
                problems.append(Problem(where, f"{spec.field(field_name).label}: repetido no registro "
                                               f"{first[value]} do arquivo."))
            elif value is not None:
                first[value] = number
        cleaned.append(clean)
        sent.append(values)
        numbers.append(number)
    for index, bad in entities.check_references(db, spec, municipality, cleaned).items():
        problems += [Problem(f"Registro {numbers[index]}", message) for message in bad.values()]
    problems.sort(key=lambda p: int(p.where.split()[-1]))
    return cleaned, problems, sent


def _sent(value: Any) -> record_files.Sent | None:
    """A file as the export writes it (``{"name", "content"}``, base64) read back; None when malformed."""
    if not isinstance(value, dict) or not all(isinstance(value.get(k), str) for k in ("name", "content")):
        return None
    try:
        return record_files.Sent(value["name"], base64.b64decode(value["content"], validate=True))
    except (binascii.Error, ValueError):
        return None
