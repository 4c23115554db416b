"""Registers as files: CSV and XLSX export of exactly what a filter shows, CSV import with a dry run
that reports every bad row (format, duplicate, unknown reference) before anything is written, and the
download of a file a record's field holds (``record_files``).
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from services.shared import entities, entity_lists, exports, fields, record_files, uploads
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import NotFound, ValidationFailed
from services.shared.exports import spreadsheet_safe
from services.shared.schema import Field, ListQuery
from services.store import encode, exists, get_file

CSV_DELIMITER = ";"


@checked
def export_csv(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> bytes:
    """Exactly the records the filter shows, one column per field, pt-BR formats, ';' separated."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    rows = entity_lists.list_all(db, actor, entity, municipality, query)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=CSV_DELIMITER)
    writer.writerow([f.label for f in spec.fields])
    for row in rows:
        writer.writerow([_csv_cell(f, row.get(f.name)) for f in spec.fields])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


@checked
def export_xlsx(db: Database, actor: Actor, entity: str, municipality: str, query: ListQuery) -> bytes:
    """The same records and columns as :func:`export_csv`, as an XLSX sheet: dates as dates, money
    as numbers in reais, the rest as the list shows it (text, never a formula)."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    rows = entity_lists.list_all(db, actor, entity, municipality, query)
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


@checked
def import_csv(db: Database, actor: Actor, entity: str, municipality: str, data: bytes, commit: bool = False) -> ImportReport:
    """Check every row (dry run); with ``commit`` and no errors, insert them all.

    The file passes the upload guard first (``uploads``: size, UTF-8 text, row, column and field caps).
    Nothing is written when any row is bad: the report lists every bad row first.
    """
    spec = entities.authorize_entity(db, actor, "write", entity, municipality)
    if isinstance(data, str):
        data = data.encode("utf-8")
    reader = uploads.read_csv_rows("register_csv", data)
    header = next(reader, [])
    if not any(h.strip() for h in header):
        raise ValidationFailed({"file": "O arquivo está vazio."})
    # a flow's state is not imported (a record starts in the first), nor a file (a CSV cell holds no file: its
    # column, an export read back, is ignored; a required one is asked of each row)
    typed = [f for f in spec.fields if f.in_form and f.kind != "file"]
    by_heading = {f.label.lower(): f for f in typed} | {f.name.lower(): f for f in typed}
    columns = [by_heading.get(h.strip().lower()) for h in header]
    errors: list[RowError] = []
    ignored = {n.lower() for f in spec.fields if f not in typed for n in (f.label, f.name)}  # an export read back
    unknown = [h for h, c in zip(header, columns) if c is None and h.strip() and h.strip().lower() not in ignored]
    for heading in unknown:
        errors.append(RowError(1, heading, f"coluna '{heading}' não existe neste cadastro"))
    for f in typed:
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
            clean = entities.validate(spec, values)
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
    for index, bad in entities.check_references(db, spec, municipality, cleaned).items():
        errors.extend(RowError(lines_of[index], spec.field(name).label, msg) for name, msg in bad.items())
    errors.sort(key=lambda e: e.line)
    report = ImportReport(rows=data_rows, errors=tuple(errors))
    if not commit or errors:
        return report
    for clean in cleaned:
        entities.create(db, actor, entity, municipality, clean)
    return replace(report, inserted=len(cleaned))


@checked
def record_file(db: Database, actor: Actor, entity: str, municipality: str, doc_id: str,
                field: str) -> tuple[str, str, bytes]:
    """The file a record's field holds, as (name, MIME type, bytes), for whoever may read the register."""
    spec = entities.authorize_entity(db, actor, "read", entity, municipality)
    kept = entities.get(db, actor, entity, municipality, doc_id).get(field)
    if field not in {f.name for f in spec.fields if f.kind == "file"} or not isinstance(kept, dict):
        raise NotFound("Arquivo não encontrado neste registro.")
    return str(kept["name"]), record_files.mime(kept), get_file(db, str(kept["sha256"]))
