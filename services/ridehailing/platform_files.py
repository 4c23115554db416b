"""What the platforms' obligation modules share: the file a platform hands in read as a table, the
report of a dry run or a commit of it, and two store helpers.

A list of drivers and vehicles (``platform_lists``) and a trip data file (``trip_data``) arrive as CSV
(``;`` or ``,``, UTF-8) or XLSX; each bad row is reported with its line, column and pt-BR message
before anything is written.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from bson import ObjectId
from bson.errors import InvalidId

from services.shared import uploads
from services.shared.entity_files import RowError
from services.shared.errors import NotFound, ValidationFailed
from services.store import decode


@dataclass(frozen=True)
class FileReport:
    """A dry run or a commit of a received file: rows read, bad rows, and what was written."""

    rows: int
    errors: tuple[RowError, ...]
    record_id: str = ""
    hits: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def object_id(doc_id: str, missing: str) -> ObjectId:
    """The store id of ``doc_id`` from a page; NotFound with ``missing`` when it is not one."""
    try:
        return ObjectId(str(doc_id))
    except (InvalidId, TypeError):
        raise NotFound(missing) from None


def plain(doc: dict) -> dict:
    """A stored record as plain Python values, with ``id``."""
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


def read_table(data: bytes, file_name: str, kind: str) -> list[dict[str, str]]:
    """Rows of a CSV (``;`` or ``,``, UTF-8) or XLSX file as {lower-case heading: text}, through the
    upload guard of ``kind`` ("platform_list" or "trip_file": its size, type, row, column and field caps)."""
    rows = uploads.read_rows(kind, data, file_name)
    header = [str(h).strip().lower() for h in next(rows, [])]
    if not any(header):
        raise ValidationFailed({"file": "O arquivo está vazio."})
    missing = itertools.repeat("")
    return [dict(zip(header, itertools.chain((c.strip() for c in cells), missing))) for cells in rows]


def missing_columns(rows: list[dict[str, str]], names: dict[str, str]) -> list[RowError]:
    """The required columns (``names``: heading → label) absent from the file's first row."""
    if not rows:
        return [RowError(1, "arquivo", "nenhuma linha de dados")]
    present = set(rows[0])
    return [RowError(1, label, "coluna obrigatória ausente") for name, label in names.items() if name not in present]
