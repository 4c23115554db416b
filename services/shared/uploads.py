"""The one guard every file a user sends passes through (STYLE.md: "a file a user sends is data of
unknown size and shape"): its bytes, rows, columns and fields are capped before it is read whole, its
type is checked from its content, and a refusal is a pt-BR ``ValidationFailed`` naming the limit.

Kinds (``LIMITS``; the size of each is ``config.upload_max_mb(kind)``, set by PAINEL_<KIND>_MAX_MB):
``return_file`` (any content; the bank import parses it), ``platform_list`` and ``trip_file`` (CSV or
XLSX), ``register_csv`` (CSV), ``register_definition`` (JSON), ``attachment``, ``evidence`` and ``register_file``
(PDF, JPEG or PNG), ``certificate_a1`` (the municipality's PKCS#12, a DER structure; whether it opens is
``services.shared.signing_keys``'s to say), ``signed_answer`` (PDF, CSV or XLSX), ``signature`` and ``trust_anchor`` (any content:
the signature's and the certificate's readers parse them).
(PDF, JPEG or PNG), ``document_check`` (PDF: a document conferred on the public verification page),
``data_change_proof`` (PDF, JPEG or PNG: the document a driver sends with a change of their data).

The stable calls (other modules rely on them):

- ``check(kind, data, filename="", *, field="file") -> Upload``: the size, then the type from the
  content (CSV: UTF-8 text without NUL; XLSX: a zip holding ``xl/workbook.xml`` whose parts do not
  unpack past 10× the kind's limit; PDF/JPEG/PNG by their magic bytes). ``Upload.type`` is what was
  found ("csv", "xlsx", "pdf", "jpeg", "png" or "" for ``return_file``).
- ``read_csv_rows(kind, data, *, field="file")``: ``check``, then the rows (lists of text, the header
  first) streamed from the bytes, ``;`` or ``,`` as the first line shows. A field past
  ``Limit.max_field`` characters (Python's csv stops at 128 KiB with ``_csv.Error``), a row past
  ``Limit.max_columns`` or a file past ``Limit.max_rows`` data rows is refused with its line.
- ``read_xlsx_rows(kind, data, filename="", *, field="file")``: ``check``, then the first sheet's rows
  as text, opened read-only; the sheet's declared dimension is checked against the row and column
  caps before any cell is read, and a sheet without one is read streaming with the caps row by row.
- ``read_rows(kind, data, filename, *, field="file")``: either of the two, by the content.
- ``read_json(kind, data, *, field="file")``: ``check``, then the one JSON document (UTF-8, numbers with
  a point as ``Decimal``), read whole: the size cap is its bound; a nesting too deep is refused.
- ``shown_limit(kind)``: "até 5 MB", for the label of a page's file field.

Memory: the reading is streamed (a row at a time from the bytes), so reading costs a small multiple
of the file's size at most, whatever the file declares.
"""
from __future__ import annotations

import codecs
import csv
import gc
import io
import itertools
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from rules import fmt
from services.shared import config
from services.shared.errors import ValidationFailed

MB = 1024 * 1024
XLSX_EXPANSION = 10  # the parts of a workbook may unpack to this many times the kind's limit
_CHUNK = MB


@dataclass(frozen=True)
class Limit:
    """What one kind of file may be: its pt-BR name in messages, its types and its caps."""

    label: str                   # "listas das plataformas": "o limite para <label> é 5 MB"
    types: tuple[str, ...]       # of "csv", "xlsx", "pdf", "jpeg", "png"; () = any content
    max_rows: int = 0            # data rows of a CSV or a sheet (the header apart)
    max_columns: int = 100
    max_field: int = 50_000      # characters of one CSV field or sheet cell
    names_file: bool = False     # several files per form: the message names the file


LIMITS = {
    "return_file": Limit("arquivos retorno do banco", ()),
    "platform_list": Limit("listas das plataformas", ("csv", "xlsx"), max_rows=50_000),
    "trip_file": Limit("arquivos de viagens", ("csv", "xlsx"), max_rows=200_000),
    "register_csv": Limit("importação de cadastros", ("csv",), max_rows=50_000),
    "register_definition": Limit("definições de cadastros", ("json",)),
    "attachment": Limit("anexos dos pedidos de serviço", ("pdf", "jpeg", "png"), names_file=True),
    "evidence": Limit("provas e anexos dos autos", ("pdf", "jpeg", "png"), names_file=True),
    "data_change_proof": Limit("comprovantes de alteração de dados", ("pdf", "jpeg", "png")),
    "register_file": Limit("arquivos dos cadastros definidos", ("pdf", "jpeg", "png"), names_file=True),
    "certificate_a1": Limit("certificados digitais A1", ("pkcs12",)),
    "signed_answer": Limit("respostas assinadas das plataformas", ("pdf", "csv", "xlsx"), max_rows=200_000),
    "signature": Limit("assinaturas destacadas (.p7s)", ()),
    "trust_anchor": Limit("certificados raiz", ()),
    "document_check": Limit("documentos conferidos na verificação pública", ("pdf",)),
}
MAGIC = {"pdf": (b"%PDF-",), "jpeg": (b"\xff\xd8",), "png": (b"\x89PNG\r\n\x1a\n",)}
ZIP = b"PK\x03\x04"


@dataclass(frozen=True)
class Upload:
    kind: str
    size: int
    type: str


def max_bytes(kind: str) -> int:
    """The largest file of ``kind`` accepted, in bytes."""
    return int(config.upload_max_mb(kind) * MB)


def shown_limit(kind: str) -> str:
    """The limit of ``kind`` as a page shows it beside its file field: "até 5 MB"."""
    return f"até {_mb(config.upload_max_mb(kind))} MB"


def _mb(value: float) -> str:
    return fmt.number(Decimal(str(value)).normalize()) if value != int(value) else fmt.number(int(value))


def _the_file(limit: Limit, filename: str) -> str:
    return f"O arquivo '{filename}'" if limit.names_file and filename else "O arquivo"


def _refuse(field: str, message: str) -> ValidationFailed:
    return ValidationFailed({field: message})


def check(kind: str, data: bytes, filename: str = "", *, field: str = "file") -> Upload:
    """The size of ``data`` within ``kind``'s limit and its type from its content (see the module)."""
    limit = LIMITS[kind]
    if not isinstance(data, (bytes, bytearray)):
        raise _refuse(field, f"{_the_file(limit, filename)} não foi recebido; envie-o de novo.")
    if not data:
        raise _refuse(field, f"{_the_file(limit, filename)} está vazio.")
    allowed = config.upload_max_mb(kind)
    if len(data) > max_bytes(kind):
        size = fmt.number(Decimal(len(data)) / MB, 1)
        raise _refuse(field, f"{_the_file(limit, filename)} tem {size} MB; o limite para {limit.label} é "
                             f"{_mb(allowed)} MB.")
    if not limit.types:
        return Upload(kind, len(data), "")
    if limit.types == ("json",):  # its text and shape are read by read_json
        return Upload(kind, len(data), "json")
    if limit.types == ("pkcs12",):  # a DER SEQUENCE; whether it opens with its password is checked by its reader
        if not data.startswith(b"\x30"):
            raise _refuse(field, "O arquivo não é um certificado A1 (PKCS#12, .pfx ou .p12) pelo conteúdo; envie "
                                 "o arquivo exportado com a chave privada.")
        return Upload(kind, len(data), "pkcs12")
    if set(limit.types) & set(MAGIC):
        found = next((t for t in limit.types if t in MAGIC and data.startswith(MAGIC[t])), "")
        if not found and not {"csv", "xlsx"} & set(limit.types):
            names = [t.upper() for t in limit.types]
            raise _refuse(field, f"{_the_file(limit, filename)} não é {', '.join(names[:-1])} ou {names[-1]} "
                                 "(pelo conteúdo); envie um arquivo num desses formatos.")
        if found:
            return Upload(kind, len(data), found)
    if data.startswith(ZIP) or filename.lower().endswith(".xlsx"):
        if "xlsx" not in limit.types:
            raise _refuse(field, "O arquivo é uma planilha, não um CSV; salve-a como CSV (UTF-8) e envie de novo.")
        _check_workbook(kind, limit, data, field)
        return Upload(kind, len(data), "xlsx")
    _check_text(data, field)
    return Upload(kind, len(data), "csv")


def _check_workbook(kind: str, limit: Limit, data: bytes, field: str) -> None:
    invalid = "O arquivo não é uma planilha XLSX válida; salve-o de novo como XLSX ou envie um CSV (UTF-8)."
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise _refuse(field, invalid) from None
    if "xl/workbook.xml" not in {p.filename for p in parts}:
        raise _refuse(field, invalid)
    unpacked = XLSX_EXPANSION * max_bytes(kind)
    if sum(p.file_size for p in parts) > unpacked:
        raise _refuse(field, f"A planilha descompactada passa de {_mb(unpacked / MB)} MB, o limite para "
                             f"{limit.label}; envie-a em CSV ou em arquivos menores.")


def _check_text(data: bytes, field: str) -> None:
    if b"\x00" in data:
        raise _refuse(field, "O arquivo não é um CSV de texto (tem bytes nulos); salve-o como CSV (UTF-8) e envie "
                             "de novo.")
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(data), _CHUNK):
            decoder.decode(view[start:start + _CHUNK], final=start + _CHUNK >= len(data))
    except UnicodeDecodeError:
        raise _refuse(field, "O arquivo não está em UTF-8; salve o CSV como UTF-8 e envie de novo.") from None


def _too_many_rows(limit: Limit, field: str) -> ValidationFailed:
    return _refuse(field, f"O arquivo passa de {fmt.number(limit.max_rows)} linhas, o limite para {limit.label}; "
                          "divida-o em arquivos menores.")


def _too_wide(limit: Limit, field: str, line: int) -> ValidationFailed:
    return _refuse(field, f"A linha {line} tem mais de {fmt.number(limit.max_columns)} colunas, o limite para "
                          f"{limit.label}; confira o arquivo.")


def _too_long(limit: Limit, field: str, line: int) -> ValidationFailed:
    return _refuse(field, f"A linha {line} tem um campo com mais de {fmt.number(limit.max_field)} caracteres, o "
                          f"limite para {limit.label}; confira o arquivo.")


def read_csv_rows(kind: str, data: bytes, *, field: str = "file") -> Iterator[list[str]]:
    """The rows of a CSV upload, the header first, streamed and capped (see the module)."""
    upload = check(kind, data, "", field=field)
    if upload.type != "csv":
        raise _refuse(field, "O arquivo é uma planilha, não um CSV; salve-a como CSV (UTF-8) e envie de novo.")
    return _csv_rows(LIMITS[kind], data, field)


def _csv_rows(limit: Limit, data: bytes, field: str) -> Iterator[list[str]]:
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    first = stream.readline()
    reader = csv.reader(itertools.chain([first], stream), delimiter=";" if ";" in first else ",")
    rows = -1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field larger" in str(exc):
                raise _too_long(limit, field, reader.line_num) from None
            raise _refuse(field, f"A linha {reader.line_num} não pôde ser lida como CSV (confira as aspas); "
                                 "corrija o arquivo e envie de novo.") from None
        rows += 1
        if limit.max_rows and rows > limit.max_rows:
            raise _too_many_rows(limit, field)
        if len(cells) > limit.max_columns:
            raise _too_wide(limit, field, reader.line_num)
        if any(len(cell) > limit.max_field for cell in cells):
            raise _too_long(limit, field, reader.line_num)
        yield cells


def read_xlsx_rows(kind: str, data: bytes, filename: str = "", *, field: str = "file") -> Iterator[list[str]]:
    """The first sheet's rows of an XLSX upload as text, the header first, capped (see the module)."""
    upload = check(kind, data, filename or "upload.xlsx", field=field)
    if upload.type != "xlsx":
        raise _refuse(field, "O arquivo não é uma planilha XLSX válida; salve-o de novo como XLSX ou envie um CSV "
                             "(UTF-8).")
    return _xlsx_rows(LIMITS[kind], data, field)


def _xlsx_rows(limit: Limit, data: bytes, field: str) -> Iterator[list[str]]:
    from openpyxl import load_workbook  # openpyxl costs ~0.3 s to import; only a workbook needs it

    invalid = "Não foi possível ler a planilha XLSX; confira o arquivo."
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # noqa: BLE001 — any unreadable workbook is the same answer to the user
        raise _refuse(field, invalid) from None
    # openpyxl parses the shared strings with the stdlib's iterparse, whose iterator sits in a reference
    # cycle: the whole parsed tree stays as garbage until a full collection, which a long-lived server
    # process runs rarely. Collect it before the sheet streams, so the peak is that of the sheet alone.
    gc.collect()
    try:
        if not book.worksheets:
            raise _refuse(field, "A planilha não tem nenhuma aba de dados.")
        sheet = book.worksheets[0]
        declared = sheet.max_row is not None and sheet.max_column is not None
        if declared and limit.max_rows and sheet.max_row - 1 > limit.max_rows:
            raise _refuse(field, f"A planilha declara {fmt.number(sheet.max_row)} linhas; o limite para {limit.label} "
                                 f"é {fmt.number(limit.max_rows)} linhas. Apague as linhas vazias do fim da "
                                 "planilha ou divida-a.")
        if declared and sheet.max_column > limit.max_columns:
            raise _refuse(field, f"A planilha declara {fmt.number(sheet.max_column)} colunas; o limite para "
                                 f"{limit.label} é {fmt.number(limit.max_columns)} colunas. Apague as colunas "
                                 "vazias à direita.")
        bounds = {"max_row": sheet.max_row, "max_col": sheet.max_column} if declared else {}
        yield from _sheet_rows(limit, field, sheet.iter_rows(values_only=True, **bounds))
    except ValidationFailed:
        raise
    except Exception:  # noqa: BLE001 — a damaged sheet part is the same answer as a damaged workbook
        raise _refuse(field, invalid) from None
    finally:
        book.close()


def _sheet_rows(limit: Limit, field: str, rows: Iterator[tuple]) -> Iterator[list[str]]:
    for line, values in enumerate(rows, start=1):
        if limit.max_rows and line - 1 > limit.max_rows:
            raise _too_many_rows(limit, field)
        if len(values) > limit.max_columns:
            raise _too_wide(limit, field, line)
        cells = ["" if v is None else str(v) for v in values]
        if any(len(cell) > limit.max_field for cell in cells):
            raise _too_long(limit, field, line)
        yield cells


def read_rows(kind: str, data: bytes, filename: str, *, field: str = "file") -> Iterator[list[str]]:
    """The rows of a CSV or XLSX upload (whichever its content is), the header first, capped."""
    upload = check(kind, data, filename, field=field)
    if upload.type == "xlsx":
        return _xlsx_rows(LIMITS[kind], data, field)
    return _csv_rows(LIMITS[kind], data, field)


def read_json(kind: str, data: bytes, *, field: str = "file") -> object:
    """The JSON document of an upload (see the module): refused in pt-BR when it is not UTF-8 JSON."""
    check(kind, data, "", field=field)
    try:
        return json.loads(bytes(data).decode("utf-8-sig"), parse_float=Decimal)
    except UnicodeDecodeError:
        raise _refuse(field, "O arquivo não está em UTF-8; envie o arquivo .json como o painel o exportou.") from None
    except (ValueError, RecursionError):
        raise _refuse(field, "O arquivo não é um JSON válido; envie o arquivo .json como o painel o exportou.") from None
