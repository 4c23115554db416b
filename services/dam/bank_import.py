"""Import of the bank's FEBRABAN arrecadação return file: each paid barcode gives a DAM its payment.

Each G record is matched by its 44-digit barcode to a DAM of the municipality:

- ``pago``: an issued (or overdue) DAM becomes paid; a different amount or a late payment is
  flagged on the payment (see :func:`services.dam.payments.check_payment`), never silently accepted;
- ``nao_encontrado``: no DAM of the municipality has that barcode (another órgão's barcode, an
  invalid one, or one never issued here); nothing is written for it;
- ``duplicado``: the barcode already appeared earlier in the same file, or the DAM was already
  paid (by another file or by hand); nothing is written for it;
- ``dam_cancelado``: the DAM had been cancelled; the payment is stored on it, flagged, for the
  treasury to refund or reuse, and the DAM stays cancelled. Except an original replaced by its 2ª
  via whose chain is still unpaid: it is ``pago`` (flagged) and the 2ª via is cancelled
  (:func:`services.dam.payments._apply_payment`); a DAM changed by an earlier line is read again once.

A file is known by the SHA-256 of its records (line ends normalised): importing the same file
again changes nothing and returns the first import's report. A different file with the same
bank, agreement and sequence (NSA) as one already imported is refused: the bank must explain
the resend. Every payment records its origin (file, NSA, line); the report is kept in
``dam_return_files`` and the raw file outside any document (``store.put_file``, by its hash).

Concurrency: the import document is the claim. It is inserted, under the unique index on
(municipality, sha256), BEFORE any line is processed; only the winner processes the file. Another
import of the same file meanwhile is told it is being processed; once done, it gets the
winner's report. A claim left by an import that stopped half-way is taken over (conditional
update on the claim time) after ``CLAIM_LEASE``; lines already paid by that file are recognised.

Size: files above ``PAINEL_RETURN_FILE_MAX_MB`` (default 5 MB) are refused before parsing; the
file is parsed line by line.
"""
from __future__ import annotations

import hashlib
import io
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules import fmt
from rules.dam.bank_return import (
    ReturnDetail,
    ReturnFile,
    ReturnHeader,
    parse_return_lines,
)
from rules.dam.barcode import BarcodeError, parse_barcode
from rules.dam.parameters import FEBRABAN_CODE
from services import store
from services.dam import dams, payments
from services.shared import audit, boundary, clock, config, parameters
from services.shared.auth import Actor, authorize
from services.shared.errors import Conflict, NotFound, ServiceError
from services.store import DuplicateKeyError, decode, encode, ensure_indexes, parse_date

FILES = "dam_return_files"
INDEXES = {
    FILES: [
        ([("municipality", 1), ("sha256", 1)], {"unique": True, "name": "u_return_sha256"}),
        ([("municipality", 1), ("bank_code", 1), ("agreement_code", 1), ("file_sequence", 1)],
         {"name": "i_return_nsa"}),
    ]
}
PROCESSING, DONE = "processando", "processado"
CLAIM_LEASE = timedelta(minutes=30)  # a claim older than this was left by an import that stopped

PAID, UNMATCHED, DUPLICATED, CANCELLED = "pago", "nao_encontrado", "duplicado", "dam_cancelado"
OUTCOMES = {
    PAID: "Baixado (pago)",
    UNMATCHED: "Não encontrado",
    DUPLICATED: "Duplicado",
    CANCELLED: "DAM cancelado (restituir ou aproveitar)",
}


class ReturnFileResent(Conflict):
    """Another file with the same bank, agreement and NSA was already imported."""


class ReturnFileTooLarge(ServiceError):
    """The file is above the configured size (PAINEL_RETURN_FILE_MAX_MB)."""


class ImportInProgress(Conflict):
    """The same file is being imported right now (by another user or tab)."""


@dataclass(frozen=True)
class ImportLine:
    """What happened to one G record of the file."""

    line_number: int
    barcode: str
    paid_on: date
    amount_received: Decimal
    outcome: str
    message: str
    dam_id: str | None = None
    dam_number: str | None = None
    dam_amount: Decimal | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportResult:
    """The report of an import; ``already_imported`` means this call changed nothing."""

    file_id: str
    already_imported: bool
    imported_at: datetime
    imported_by: str
    bank: str
    file_sequence: int
    generated_on: date
    lines: tuple[ImportLine, ...]

    def of(self, outcome: str) -> tuple[ImportLine, ...]:
        return tuple(line for line in self.lines if line.outcome == outcome)

    @property
    def paid(self) -> tuple[ImportLine, ...]:
        return self.of(PAID)

    @property
    def unmatched(self) -> tuple[ImportLine, ...]:
        return self.of(UNMATCHED)

    @property
    def duplicated(self) -> tuple[ImportLine, ...]:
        return self.of(DUPLICATED)

    @property
    def cancelled(self) -> tuple[ImportLine, ...]:
        return self.of(CANCELLED)

    @property
    def different_amount(self) -> tuple[ImportLine, ...]:
        return tuple(line for line in self.lines if payments.FLAG_AMOUNT in line.flags)

    @property
    def late(self) -> tuple[ImportLine, ...]:
        return tuple(line for line in self.lines if payments.FLAG_LATE in line.flags)

    @property
    def total_received(self) -> Decimal:
        return sum((line.amount_received for line in self.lines), Decimal("0.00"))


def file_digest(data: bytes) -> str:
    """SHA-256 of the records, whatever the line ends (CRLF or LF) and trailing blank lines."""
    records = data.replace(b"\r\n", b"\n").rstrip(b"\n")
    return hashlib.sha256(records).hexdigest()


def _own_codes(db: Database, municipality: str) -> set[str]:
    book = parameters.book(db, municipality)
    return {str(version.value) for version in book.history(FEBRABAN_CODE)}


def _unmatched_reason(barcode: str, own_codes: set[str]) -> str:
    try:
        parsed = parse_barcode(barcode)
    except BarcodeError as exc:
        return f"Código de barras inválido: {exc.message}"
    if parsed.segment != "1":
        return f"Código de barras de outro segmento ({parsed.segment}), não de prefeitura"
    if parsed.company_code not in own_codes:
        return f"Código de barras de outro órgão (código FEBRABAN {parsed.company_code})"
    return "Nenhum DAM deste município tem este código de barras"


def _already_paid_reason(dam: dict) -> str:
    payment = dam["payment"]
    origin = payment["origin"]
    where = "baixa manual" if origin["kind"] == "manual" else f"arquivo retorno NSA {origin['file_sequence']}"
    return f"DAM {dam['number']} já tinha pagamento registrado em {fmt.day(payment['paid_on'])} ({where})"


def _line(detail: ReturnDetail, outcome: str, message: str, dam: dict | None = None,
          flags: tuple[str, ...] = ()) -> ImportLine:
    return ImportLine(
        line_number=detail.line_number, barcode=detail.barcode, paid_on=detail.paid_on,
        amount_received=detail.amount_received, outcome=outcome, message=message,
        dam_id=dam["id"] if dam else None, dam_number=dam["number"] if dam else None,
        dam_amount=dam["amount"] if dam else None, flags=flags,
    )


def _settle(db: Database, actor: Actor, dam: dict, detail: ReturnDetail, file_id: str,
            header: ReturnHeader, retry: bool = True) -> ImportLine:
    """Pay one matched DAM from one G record, or say why not. A DAM that changed since the file's DAMs
    were read (e.g. a 2ª via cancelled because an earlier line paid its original) is read again once."""
    payment = dam.get("payment")
    if payment:
        if payment["origin"].get("file_id") == file_id:  # resuming an interrupted import of this file
            return _line(detail, PAID if dam["status"] == dams.PAID else CANCELLED, "Já baixado por este arquivo",
                         dam, tuple(payment["flags"]))
        return _line(detail, DUPLICATED, _already_paid_reason(dam), dam)
    check = payments.check_payment(db, dam, detail.paid_on, detail.amount_received)
    new_payment = {
        "paid_on": detail.paid_on, "amount": detail.amount_received,
        "bank": f"{header.bank_code} {header.bank_name}".strip(),
        "origin": {"kind": "retorno", "file_id": file_id, "file_sequence": header.file_sequence,
                   "line_number": detail.line_number, "record_sequence": detail.record_sequence,
                   "agency": detail.agency, "authentication": detail.authentication},
        "credited_on": detail.credited_on, "flags": list(check.flags), "notes": list(check.notes),
        "recorded_at": clock.now_utc(), "recorded_by": actor.username,
    }
    # an original replaced by its 2ª via is paid (and the 2ª via cancelled) unless the chain already was
    applied = payments._apply_payment(db, actor, dam, new_payment)
    if applied is None and retry:
        fresh = db[dams.COLLECTION].find_one({"_id": ObjectId(dam["id"])}, MATCH_FIELDS)
        return _settle(db, actor, dams.plain(fresh), detail, file_id, header, retry=False)
    if applied is None:
        return _line(detail, DUPLICATED, f"DAM {dam['number']} mudou de situação durante a importação", dam)
    status, stored = applied
    notes, flags = stored["notes"], tuple(stored["flags"])
    outcome = CANCELLED if status == dams.CANCELLED else PAID
    message = "; ".join(notes) if notes else f"DAM {dam['number']} pago"
    return _line(detail, outcome, message, dam, flags)


CHUNK = 500  # barcodes per $in query
# what matching and paying need of a DAM (not its history nor its printing data)
MATCH_FIELDS = {name: 1 for name in ("municipality", "number", "barcode", "amount", "status", "due_on", "issued_on",
                                     "payment", "pays", "cancel_reason", "replaced_by", "chain_root")}


def _dams_by_barcode(db: Database, municipality: str, barcodes: list[str]) -> dict[str, dict]:
    """The municipality's DAMs of those barcodes, read with one ``$in`` query per chunk."""
    found: dict[str, dict] = {}
    for start in range(0, len(barcodes), CHUNK):
        chunk = barcodes[start:start + CHUNK]
        for doc in db[dams.COLLECTION].find({"municipality": municipality, "barcode": {"$in": chunk}}, MATCH_FIELDS):
            found[doc["barcode"]] = dams.plain(doc)
    return found


def _apply(db: Database, actor: Actor, municipality: str, parsed: ReturnFile, file_id: str) -> list[ImportLine]:
    by_barcode = _dams_by_barcode(db, municipality, sorted({d.barcode for d in parsed.details}))
    own_codes = _own_codes(db, municipality)
    seen: dict[str, int] = {}
    lines = []
    for detail in parsed.details:
        if detail.barcode in seen:
            first = seen[detail.barcode]
            lines.append(_line(detail, DUPLICATED, f"Código de barras repetido na linha {first} do arquivo"))
            continue
        seen[detail.barcode] = detail.line_number
        dam = by_barcode.get(detail.barcode)
        if dam is None:
            lines.append(_line(detail, UNMATCHED, _unmatched_reason(detail.barcode, own_codes)))
            continue
        lines.append(_settle(db, actor, dam, detail, file_id, parsed.header))
    return lines


def _line_doc(line: ImportLine) -> dict:
    """A line of the report as stored: empty values left out, to keep a large file's report small."""
    return {key: (list(value) if key == "flags" else value) for key, value in asdict(line).items()
            if value not in (None, (), "")}


def _result(doc: dict, already_imported: bool) -> ImportResult:
    doc = decode(doc)
    lines = tuple(
        ImportLine(**{"message": "", **row, "paid_on": parse_date(row["paid_on"]),
                      "flags": tuple(row.get("flags", ()))})
        for row in doc.get("lines", [])
    )
    return ImportResult(
        file_id=str(doc["_id"]), already_imported=already_imported, imported_at=doc["imported_at"],
        imported_by=doc["imported_by"], bank=f"{doc['bank_code']} {doc['bank_name']}".strip(),
        file_sequence=doc["file_sequence"], generated_on=parse_date(doc["generated_on"]), lines=lines,
    )


def _refuse_resent(db: Database, municipality: str, parsed: ReturnFile, digest: str) -> None:
    """A file whose sequence (NSA) the bank already used for other contents is refused. The same file
    claimed a moment ago by a concurrent import is not "other contents": that import answers it."""
    header = parsed.header
    other = db[FILES].find_one({"municipality": municipality, "bank_code": header.bank_code,
                                "agreement_code": header.agreement_code, "file_sequence": header.file_sequence,
                                "sha256": {"$ne": digest}})
    if other is not None:
        when = fmt.day(clock.local_date(decode(other)["imported_at"]))
        raise ReturnFileResent(
            f"O banco {header.bank_code} já enviou um arquivo com a sequência (NSA) {header.file_sequence}, "
            f"importado em {when}, com conteúdo diferente. Confira com o banco antes de importar."
        )


def _refuse_large(data: bytes) -> None:
    limit = config.return_file_max_mb()
    if len(data) > limit * 1024 * 1024:
        raise ReturnFileTooLarge(
            f"O arquivo tem {fmt.number(Decimal(len(data)) / 1024 / 1024, 1)} MB; o limite é "
            f"{fmt.number(Decimal(str(limit)), 1)} MB. Peça ao banco o arquivo retorno de cada dia "
            "(ou ajuste PAINEL_RETURN_FILE_MAX_MB com a TI)."
        )


def _in_progress(doc: dict) -> ImportInProgress:
    since = clock.to_local(decode(doc)["claimed_at"]).strftime("%d/%m/%Y %H:%M")
    return ImportInProgress(
        f"Este arquivo está em processamento desde {since} (importado por {doc['imported_by']}). "
        "Aguarde alguns instantes e importe de novo para ver o relatório."
    )


def _claim(db: Database, actor: Actor, municipality: str, parsed: ReturnFile, digest: str,
           data: bytes) -> tuple[object | None, ImportResult | None]:
    """Claim the file for this import: (file_id, None) for the winner, (None, report) when it was
    already imported; ImportInProgress while another import holds a fresh claim."""
    key = {"municipality": municipality, "sha256": digest}
    existing = db[FILES].find_one(key)
    now = clock.now_utc()
    if existing is None:
        _refuse_resent(db, municipality, parsed, digest)
        header = parsed.header
        record = {
            **key, "status": PROCESSING, "file_sha256": store.put_file(db, data, f"retorno_{header.file_sequence}.ret"),
            "bank_code": header.bank_code, "bank_name": header.bank_name,
            "agreement_code": header.agreement_code, "company_name": header.company_name,
            "file_sequence": header.file_sequence, "generated_on": header.generated_on,
            "layout_version": header.layout_version, "records": len(parsed.details), "size": len(data),
            "total_amount": parsed.trailer.total_amount,
            "imported_at": now, "imported_by": actor.username, "claimed_at": now, "lines": [],
        }
        try:
            return store.insert_one(db[FILES], encode(record)), None
        except DuplicateKeyError:  # another import claimed the same file a moment ago
            existing = db[FILES].find_one(key)
    if existing["status"] == DONE:
        return None, _result(existing, already_imported=True)
    claimed_at = decode(existing)["claimed_at"]
    if now - claimed_at < CLAIM_LEASE:
        raise _in_progress(existing)
    taken = db[FILES].update_one({"_id": existing["_id"], "status": PROCESSING, "claimed_at": existing["claimed_at"]},
                                 {"$set": encode({"claimed_at": now, "imported_by": actor.username})})
    if taken.modified_count != 1:
        raise _in_progress(existing)
    return existing["_id"], None


@boundary.checked
def import_return_file(db: Database, actor: Actor, municipality: str, data: bytes) -> ImportResult:
    """Read a return file and pay the DAMs it reports; the report says what each line did.

    The same file imported again changes nothing (its first report comes back with
    ``already_imported``); while another import of it runs, ImportInProgress says so. A file above
    the size limit, or that does not follow the layout, is refused whole.
    """
    authorize(actor, "write", municipality)
    _refuse_large(data)
    parsed = parse_return_lines(io.BytesIO(data))
    digest = file_digest(data)
    ensure_indexes(db, INDEXES)
    dams.prepare(db)
    file_id, earlier = _claim(db, actor, municipality, parsed, digest, data)
    if earlier is not None:
        return earlier
    lines = _apply(db, actor, municipality, parsed, str(file_id))
    counts = {outcome: sum(1 for line in lines if line.outcome == outcome) for outcome in OUTCOMES}
    done = {"status": DONE, "lines": [_line_doc(line) for line in lines], "counts": counts,
            "done_at": clock.now_utc()}
    with store.transaction(db):
        db[FILES].update_one({"_id": file_id}, {"$set": encode(done)})
        audit.record(db, actor, municipality, "import", FILES, file_id, {},
                     {"sha256": digest, "bank_code": parsed.header.bank_code,
                      "file_sequence": parsed.header.file_sequence, "counts": counts},
                     note=f"Arquivo retorno NSA {parsed.header.file_sequence}: " +
                          ", ".join(f"{counts[k]} {OUTCOMES[k].lower()}" for k in OUTCOMES))
    return _result(db[FILES].find_one({"_id": file_id}), already_imported=False)


@boundary.checked
def raw_file(db: Database, actor: Actor, municipality: str, file_id: str) -> bytes:
    """The return file exactly as the bank sent it (kept outside the document, by its hash)."""
    authorize(actor, "read", municipality)
    try:
        key = ObjectId(file_id)
    except (InvalidId, TypeError):
        raise NotFound("Arquivo retorno não encontrado.") from None
    doc = db[FILES].find_one({"_id": key, "municipality": municipality}, {"file_sha256": 1})
    if doc is None or not doc.get("file_sha256"):
        raise NotFound("Arquivo retorno não encontrado.")
    return store.get_file(db, doc["file_sha256"])


@boundary.checked
def imported_files(db: Database, actor: Actor, municipality: str, limit: int = 50) -> list[dict]:
    """The return files imported in the municipality, newest first, without their content."""
    authorize(actor, "read", municipality)
    rows = db[FILES].find({"municipality": municipality}, {"lines": 0})
    rows = rows.sort("imported_at", -1).limit(limit)
    return [decode(row) for row in rows]
