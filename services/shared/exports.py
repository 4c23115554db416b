"""What every export shares: CSV and XLSX files of a list, with pt-BR headers, formats and names.

A list is exported as rows: dicts whose keys are the pt-BR column headers and whose values are
typed — ``date`` and ``datetime`` (dates), ``Decimal`` (money, in reais), ``int``, ``bool``, text or
``None``. Both files are made from the same rows:

- CSV: ``;`` separated, UTF-8 with BOM (Excel in pt-BR opens it with accents), dates dd/mm/aaaa,
  money 1.234,56, every text cell through :func:`spreadsheet_safe`.
- XLSX (XlsxWriter): dates are real Excel dates shown dd/mm/aaaa, money a number shown
  R$ 1.234,56, text always a text cell (never a formula, a number or a link), header row bold and
  frozen with a filter, columns sized to their contents.

OWASP (CSV Injection): a CSV cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is read as a formula by Excel and LibreOffice; prefixing it with an apostrophe makes it text.
Numbers formatted by the panel ("-1.234,56") are never passed through here. An XLSX text cell is
typed as text in the file itself, so it keeps what was typed, apostrophe-free.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import xlsxwriter

from rules import fmt
from services.shared import clock

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_MIME = "text/csv"
# Excel number formats are written with the file format's own separators; a pt-BR Excel or
# LibreOffice shows them as 01/12/2026 and R$ 1.234,56.
DATE_FORMAT = "dd/mm/yyyy"
DATETIME_FORMAT = "dd/mm/yyyy hh:mm:ss"
MONEY_FORMAT = '"R$" #,##0.00;-"R$" #,##0.00'
COLUMN_WIDTH = (8, 60)  # narrowest and widest column, in characters
SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")

Row = Mapping[str, Any]


def spreadsheet_safe(text: str) -> str:
    """``text`` as a cell that opens as text, never as a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def file_name(kind: str, municipality: str | None, day: date, ext: str) -> str:
    """The export's file name: ``condutores_chapada_2026-12-01.xlsx`` — ASCII, lower case, no spaces.

    ``kind`` is what the list holds in pt-BR ("Condutores", "DAMs"); accents are dropped and any run
    of other characters becomes one ``_``.
    """
    parts = [_slug(kind), _slug(municipality or ""), day.isoformat()]
    return "_".join(p for p in parts if p) + "." + _slug(ext).replace("_", "")


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")


def _columns(rows: Sequence[Row], columns: Sequence[str] | None) -> list[str]:
    """The headers: ``columns`` when given (an empty list still has them), else the first row's keys."""
    if columns is not None:
        return list(columns)
    return list(rows[0]) if rows else []


def _local(moment: datetime) -> datetime:
    """A datetime as a naive Cuiabá wall-clock time (a spreadsheet has no time zones)."""
    return clock.to_local(moment).replace(tzinfo=None) if moment.tzinfo else moment


def csv_text(value: Any) -> str:
    """One CSV cell: a typed value in pt-BR, text made safe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, datetime):
        return _local(value).strftime("%d/%m/%Y %H:%M:%S")
    if isinstance(value, date):
        return fmt.day(value)
    if isinstance(value, Decimal):
        return fmt.number(value, 2)
    if isinstance(value, int):
        return str(value)
    return spreadsheet_safe(str(value))


def to_csv(rows: Sequence[Row], columns: Sequence[str] | None = None) -> bytes:
    """The rows as a pt-BR CSV file (``;``, UTF-8 with BOM)."""
    headers = _columns(rows, columns)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";")
    writer.writerow([spreadsheet_safe(h) for h in headers])
    for row in rows:
        writer.writerow([csv_text(row.get(h)) for h in headers])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def to_csv_tables(tables: Mapping[str, Sequence[Row]]) -> bytes:
    """Several tables as one CSV file (as :func:`to_csv` writes one), a line per cell: the table's
    title, its row (the first column's value), the column and the value — one file that a
    spreadsheet filters by table and a program reads without knowing each table's columns."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";")
    writer.writerow(["Tabela", "Linha", "Coluna", "Valor"])
    for title, rows in tables.items():
        for row in rows:
            first, *others = list(row)
            for column in others:
                writer.writerow([spreadsheet_safe(title), csv_text(row[first]), spreadsheet_safe(column),
                                 csv_text(row[column])])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def to_xlsx(rows: Sequence[Row], columns: Sequence[str] | None = None, sheet: str = "Lista") -> bytes:
    """The rows as an XLSX workbook of one sheet: typed cells, pt-BR formats, bold frozen header."""
    return to_xlsx_book({sheet: (rows, columns)})


def to_xlsx_book(sheets: dict[str, tuple[Sequence[Row], Sequence[str] | None]]) -> bytes:
    """Several tables as one XLSX workbook, a sheet each (title → rows and their columns), each sheet
    as :func:`to_xlsx` writes it."""
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_formulas": False,
                                        "strings_to_numbers": False, "strings_to_urls": False})
    formats = {
        "header": book.add_format({"bold": True, "bg_color": "#E7EEF7", "bottom": 1}),
        "date": book.add_format({"num_format": DATE_FORMAT}),
        "datetime": book.add_format({"num_format": DATETIME_FORMAT}),
        "money": book.add_format({"num_format": MONEY_FORMAT}),
        "int": book.add_format({"num_format": "0"}),
    }
    used: set[str] = set()
    for title, (rows, columns) in sheets.items():
        name = SHEET_NAME_FORBIDDEN.sub(" ", title)[:31] or "Lista"
        while name.casefold() in used:  # sheet names are unique, ignoring case
            name = name[:28] + f" {len(used) + 1}"
        used.add(name.casefold())
        _sheet(book.add_worksheet(name), rows, _columns(rows, columns), formats)
    book.close()
    return buffer.getvalue()


def _sheet(sheet_: Any, rows: Sequence[Row], headers: Sequence[str], formats: dict) -> None:
    widths = [len(h) for h in headers]
    for col, header in enumerate(headers):
        sheet_.write_string(0, col, header, formats["header"])
    for line, row in enumerate(rows, start=1):
        for col, header in enumerate(headers):
            shown = _write_cell(sheet_, line, col, row.get(header), formats)
            widths[col] = max(widths[col], min(len(shown), COLUMN_WIDTH[1]))
    low, high = COLUMN_WIDTH
    for col, width in enumerate(widths):
        sheet_.set_column(col, col, max(low, min(high, width + 2)))
    sheet_.freeze_panes(1, 0)
    if headers:
        sheet_.autofilter(0, 0, max(len(rows), 1), len(headers) - 1)


def _write_cell(sheet: Any, line: int, col: int, value: Any, formats: dict) -> str:
    """Write one typed cell; returns the text it shows (to size its column)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        shown = "Sim" if value else "Não"
        sheet.write_string(line, col, shown)
    elif isinstance(value, datetime):
        sheet.write_datetime(line, col, _local(value), formats["datetime"])
        shown = "00/00/0000 00:00:00"
    elif isinstance(value, date):
        sheet.write_datetime(line, col, datetime.combine(value, datetime.min.time()), formats["date"])
        shown = "00/00/0000"
    elif isinstance(value, Decimal):
        # An XLSX number cell is an IEEE double (the format has no decimal type); centavo amounts up to
        # R$ 10^13 round-trip exactly, and the R$ format shows two places. The panel's own sums stay Decimal.
        sheet.write_number(line, col, float(value), formats["money"])
        shown = "R$ " + fmt.number(value, 2)
    elif isinstance(value, int):
        sheet.write_number(line, col, value, formats["int"])
        shown = str(value)
    else:
        shown = str(value)
        sheet.write_string(line, col, shown)
    return shown
