"""Import of the bank's FEBRABAN arrecadação return file: each paid barcode gives a DAM its payment.

Each G record is matched by its 44-digit barcode to a DAM of the municipality:

- ``pago``: an issued (or overdue) DAM becomes paid; a different amount or a late payment is
  flagged on the payment (see :func:`services.dams.check_payment`), never silently accepted;
- ``nao_encontrado``: no DAM of the municipality has that barcode (another órgão's barcode, an
  invalid one, or one never issued here); nothing is written for it;
- ``duplicado``: the barcode already appeared earlier in the same file, or the DAM was already
  paid (by another file or by hand); nothing is written for it;
- ``dam_cancelado``: the DAM had been cancelled; the payment is stored on it, flagged, for the
  treasury to refund or reuse, and the DAM stays cancelled.

A file is known by the SHA-256 of its records (line ends normalised): importing the same file
again changes nothing and returns the first import's report. A different file with the same
bank, agreement and sequence (NSA) as one already imported is refused: the bank must explain
the resend. Every payment records its origin (file, NSA, line), and the file with its report is
kept in ``dam_return_files``.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from datetime import date, datetime
from decimal import Decimal

from pymongo.database import Database

from rules import fmt
from rules.dam.bank_return import ReturnDetail, ReturnFile, ReturnHeader, parse_return_file
from rules.dam.barcode import BarcodeError, parse_barcode
from rules.dam.parameters import FEBRABAN_CODE
from services import audit, clock, dams, parameters
from services.auth import Actor, authorize
from services.errors import Conflict
from services.store import DuplicateKeyError, decode, encode, ensure_indexes, insert_one, parse_date

FILES = "dam_return_files"
INDEXES = {
    FILES: [
        ([("municipality", 1), ("sha256", 1)], {"unique": True, "name": "u_return_sha256"}),
        ([("municipality", 1), ("bank_code", 1), ("agreement_code", 1), ("file_sequence", 1)],
         {"name": "i_return_nsa"}),
    ]
}
PROCESSING, DONE = "processando", "processado"

PAID, UNMATCHED, DUPLICATED, CANCELLED = "pago", "nao_encontrado", "duplicado", "dam_cancelado"
OUTCOMES = {
    PAID: "Baixado (pago)",
    UNMATCHED: "Não encontrado",
    DUPLICATED: "Duplicado",
    CANCELLED: "DAM cancelado (restituir ou aproveitar)",
}


class ReturnFileResent(Conflict):
    """Another file with the same bank, agreement and NSA was already imported."""


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
        return tuple(line for line in self.lines if dams.FLAG_AMOUNT in line.flags)

    @property
    def late(self) -> tuple[ImportLine, ...]:
        return tuple(line for line in self.lines if dams.FLAG_LATE in line.flags)

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
            header: ReturnHeader) -> ImportLine:
    """Pay one matched DAM from one G record, or say why not."""
    payment = dam.get("payment")
    if payment:
        if payment["origin"].get("file_id") == file_id:  # resuming an interrupted import of this file
            return _line(detail, PAID if dam["status"] == dams.PAID else CANCELLED, "Já baixado por este arquivo",
                         dam, tuple(payment["flags"]))
        return _line(detail, DUPLICATED, _already_paid_reason(dam), dam)
    check = dams.check_payment(db, dam, detail.paid_on, detail.amount_received)
    flags, notes = list(check.flags), list(check.notes)
    if dam["status"] == dams.CANCELLED:
        flags.append(dams.FLAG_CANCELLED)
        notes.append(f"DAM {dam['number']} estava cancelado: {dam.get('cancel_reason') or ''}".rstrip(": "))
    new_payment = {
        "paid_on": detail.paid_on, "amount": detail.amount_received,
        "bank": f"{header.bank_code} {header.bank_name}".strip(),
        "origin": {"kind": "retorno", "file_id": file_id, "file_sequence": header.file_sequence,
                   "line_number": detail.line_number, "record_sequence": detail.record_sequence,
                   "agency": detail.agency, "authentication": detail.authentication},
        "credited_on": detail.credited_on, "flags": flags, "notes": notes,
        "recorded_at": clock.now_utc(), "recorded_by": actor.username,
    }
    if not dams._apply_payment(db, actor, dam, new_payment):
        return _line(detail, DUPLICATED, f"DAM {dam['number']} mudou de situação durante a importação", dam)
    outcome = CANCELLED if dam["status"] == dams.CANCELLED else PAID
    message = "; ".join(notes) if notes else f"DAM {dam['number']} pago"
    return _line(detail, outcome, message, dam, tuple(flags))


def _apply(db: Database, actor: Actor, municipality: str, parsed: ReturnFile, file_id: str) -> list[ImportLine]:
    barcodes = sorted({d.barcode for d in parsed.details})
    found = db[dams.COLLECTION].find({"municipality": municipality, "barcode": {"$in": barcodes}},
                                     {"_id": 1, "barcode": 1})
    by_barcode = {doc["barcode"]: str(doc["_id"]) for doc in found}
    own_codes = _own_codes(db, municipality)
    seen: dict[str, int] = {}
    lines = []
    for detail in parsed.details:
        if detail.barcode in seen:
            first = seen[detail.barcode]
            lines.append(_line(detail, DUPLICATED, f"Código de barras repetido na linha {first} do arquivo"))
            continue
        seen[detail.barcode] = detail.line_number
        dam_id = by_barcode.get(detail.barcode)
        if dam_id is None:
            lines.append(_line(detail, UNMATCHED, _unmatched_reason(detail.barcode, own_codes)))
            continue
        dam = dams.get(db, actor, municipality, dam_id)
        lines.append(_settle(db, actor, dam, detail, file_id, parsed.header))
    return lines


def _line_doc(line: ImportLine) -> dict:
    return {**asdict(line), "flags": list(line.flags)}


def _result(doc: dict, already_imported: bool) -> ImportResult:
    doc = decode(doc)
    lines = tuple(
        ImportLine(**{**row, "paid_on": parse_date(row["paid_on"]), "flags": tuple(row["flags"])})
        for row in doc.get("lines", [])
    )
    return ImportResult(
        file_id=str(doc["_id"]), already_imported=already_imported, imported_at=doc["imported_at"],
        imported_by=doc["imported_by"], bank=f"{doc['bank_code']} {doc['bank_name']}".strip(),
        file_sequence=doc["file_sequence"], generated_on=parse_date(doc["generated_on"]), lines=lines,
    )


def _refuse_resent(db: Database, municipality: str, parsed: ReturnFile) -> None:
    header = parsed.header
    other = db[FILES].find_one({"municipality": municipality, "bank_code": header.bank_code,
                                "agreement_code": header.agreement_code, "file_sequence": header.file_sequence})
    if other is not None:
        when = fmt.day(clock.local_date(decode(other)["imported_at"]))
        raise ReturnFileResent(
            f"O banco {header.bank_code} já enviou um arquivo com a sequência (NSA) {header.file_sequence}, "
            f"importado em {when}, com conteúdo diferente. Confira com o banco antes de importar."
        )


def import_return_file(db: Database, actor: Actor, municipality: str, data: bytes) -> ImportResult:
    """Read a return file and pay the DAMs it reports; the report says what each line did.

    The same file imported again changes nothing (its first report comes back with
    ``already_imported``). A file that does not follow the layout is refused whole.
    """
    authorize(actor, "write", municipality)
    parsed = parse_return_file(data)
    digest = file_digest(data)
    ensure_indexes(db, INDEXES)
    dams.prepare(db)
    existing = db[FILES].find_one({"municipality": municipality, "sha256": digest})
    if existing is not None and existing["status"] == DONE:
        return _result(existing, already_imported=True)
    if existing is None:
        _refuse_resent(db, municipality, parsed)
        header = parsed.header
        record = {
            "municipality": municipality, "sha256": digest, "status": PROCESSING,
            "bank_code": header.bank_code, "bank_name": header.bank_name,
            "agreement_code": header.agreement_code, "company_name": header.company_name,
            "file_sequence": header.file_sequence, "generated_on": header.generated_on,
            "layout_version": header.layout_version, "records": len(parsed.details),
            "total_amount": parsed.trailer.total_amount, "content": data.decode("latin-1"),
            "imported_at": clock.now_utc(), "imported_by": actor.username, "lines": [],
        }
        try:
            file_id = insert_one(db[FILES], encode(record))
        except DuplicateKeyError:  # another user imported the same file a moment ago
            return _result(db[FILES].find_one({"municipality": municipality, "sha256": digest}), already_imported=True)
    else:
        file_id = existing["_id"]
    lines = _apply(db, actor, municipality, parsed, str(file_id))
    counts = {outcome: sum(1 for line in lines if line.outcome == outcome) for outcome in OUTCOMES}
    done = {"status": DONE, "lines": [_line_doc(line) for line in lines], "counts": counts}
    db[FILES].update_one({"_id": file_id}, {"$set": encode(done)})
    audit.record(db, actor, municipality, "import", FILES, file_id, {},
                 {"sha256": digest, "bank_code": parsed.header.bank_code, "file_sequence": parsed.header.file_sequence,
                  "counts": counts},
                 note=f"Arquivo retorno NSA {parsed.header.file_sequence}: " +
                      ", ".join(f"{counts[k]} {OUTCOMES[k].lower()}" for k in OUTCOMES))
    return _result(db[FILES].find_one({"_id": file_id}), already_imported=False)


def imported_files(db: Database, actor: Actor, municipality: str, limit: int = 50) -> list[dict]:
    """The return files imported in the municipality, newest first, without their content."""
    authorize(actor, "read", municipality)
    rows = db[FILES].find({"municipality": municipality}, {"content": 0, "lines": 0})
    rows = rows.sort("imported_at", -1).limit(limit)
    return [decode(row) for row in rows]
