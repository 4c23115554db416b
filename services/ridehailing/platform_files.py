"""What the platforms' obligation modules share: the file a platform hands in read as a table, the
report of a dry run or a commit of it, and two store helpers.

A list of drivers and vehicles (``platform_lists``) and a trip data file (``trip_data``) arrive as CSV
(``;`` or ``,``, UTF-8) or XLSX; each bad row is reported with its line, column and pt-BR message
before anything is written.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from bson import ObjectId
from bson.errors import InvalidId

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


def read_table(data: bytes, file_name: str) -> list[dict[str, str]]:
    """Rows of a CSV (``;`` or ``,``, UTF-8) or XLSX file as {lower-case heading: text}."""
    if not data:
        raise ValidationFailed({"file": "O arquivo está vazio."})
    if file_name.lower().endswith(".xlsx"):
        import pandas as pd

        try:
            frame = pd.read_excel(io.BytesIO(data), dtype=str, engine="openpyxl").fillna("")
        except Exception:  # noqa: BLE001 — any unreadable workbook is the same answer to the user
            raise ValidationFailed({"file": "Não foi possível ler a planilha XLSX; confira o arquivo."}) from None
        return [{str(k).strip().lower(): str(v).strip() for k, v in row.items()} for row in frame.to_dict("records")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed({"file": "O arquivo não está em UTF-8; salve o CSV como UTF-8 e envie de novo."}) from None
    lines = text.splitlines()
    if not lines:
        raise ValidationFailed({"file": "O arquivo está vazio."})
    reader = csv.DictReader(io.StringIO(text), delimiter=";" if ";" in lines[0] else ",")
    return [{str(k).strip().lower(): (v or "").strip() for k, v in row.items() if k is not None} for row in reader]


def missing_columns(rows: list[dict[str, str]], names: dict[str, str]) -> list[RowError]:
    """The required columns (``names``: heading → label) absent from the file's first row."""
    if not rows:
        return [RowError(1, "arquivo", "nenhuma linha de dados")]
    present = set(rows[0])
    return [RowError(1, label, "coluna obrigatória ausente") for name, label in names.items() if name not in present]
