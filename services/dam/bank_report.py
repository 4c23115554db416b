"""The report of a return-file import (:mod:`services.dam.bank_import`): what each G record did, and
the summary kept in ``dam_return_files``.

The stored report is a summary, whatever the file's size: the counts and amounts per outcome, the
count of each payment flag and the first ``PROBLEMS_KEPT`` lines that were not a plain payment
(with their line numbers and reasons). The report of every line is not stored: an import returns it,
and importing the same file again rebuilds it from the file and the payments it made.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from decimal import Decimal

from pymongo.database import Database

from rules import fmt
from rules.dam.bank_return import ReturnDetail
from rules.dam.barcode import BarcodeError, parse_barcode
from rules.dam.parameters import FEBRABAN_CODE
from services.dam import dams, payments
from services.shared import parameters

PAID, UNMATCHED, DUPLICATED, CANCELLED = "pago", "nao_encontrado", "duplicado", "dam_cancelado"
OUTCOMES = {
    PAID: "Baixado (pago)",
    UNMATCHED: "Não encontrado",
    DUPLICATED: "Duplicado",
    CANCELLED: "DAM cancelado (restituir ou aproveitar)",
}
BATCH = 500  # lines read at once (one $in query for their DAMs)
PROBLEMS_KEPT = 40  # problem lines kept in the stored summary (a 30.000-line file's stays under 20 KB)


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

    @property
    def problem(self) -> bool:
        """Not a plain payment: the treasury has something to look at."""
        return self.outcome != PAID or bool(self.flags)


@dataclass
class Summary:
    """Counts, amounts and the first problem lines of an import, kept as the import goes."""

    records_done: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    amounts: dict[str, Decimal] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, Decimal("0.00")))
    flag_counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(payments.FLAGS, 0))
    problems: list[dict] = field(default_factory=list)
    problem_count: int = 0

    def add(self, line: ImportLine) -> None:
        self.records_done += 1
        self.counts[line.outcome] += 1
        self.amounts[line.outcome] += line.amount_received
        for flag in line.flags:
            self.flag_counts[flag] = self.flag_counts.get(flag, 0) + 1
        if line.problem:
            self.problem_count += 1
            if len(self.problems) < PROBLEMS_KEPT:
                self.problems.append(line_doc(line))

    def as_doc(self) -> dict:
        return {"records_done": self.records_done, "counts": dict(self.counts), "amounts": dict(self.amounts),
                "flag_counts": dict(self.flag_counts), "problems": list(self.problems),
                "problem_count": self.problem_count}

    @classmethod
    def of(cls, doc: dict) -> Summary:
        """The summary stored on an import document (decoded); an empty one for a new claim."""
        summary = cls()
        summary.records_done = doc.get("records_done", 0)
        summary.counts.update(doc.get("counts") or {})
        summary.amounts.update(doc.get("amounts") or {})
        summary.flag_counts.update(doc.get("flag_counts") or {})
        summary.problems = list(doc.get("problems") or [])
        summary.problem_count = doc.get("problem_count", 0)
        return summary


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


def line_doc(line: ImportLine) -> dict:
    """A line of the report as stored: empty values left out."""
    return {key: (list(value) if key == "flags" else value) for key, value in asdict(line).items()
            if value not in (None, (), "")}


def unmatched_reason(barcode: str, own_codes: set[str]) -> str:
    try:
        parsed = parse_barcode(barcode)
    except BarcodeError as exc:
        return f"Código de barras inválido: {exc.message}"
    if parsed.segment != "1":
        return f"Código de barras de outro segmento ({parsed.segment}), não de prefeitura"
    if parsed.company_code not in own_codes:
        return f"Código de barras de outro órgão (código FEBRABAN {parsed.company_code})"
    return "Nenhum DAM deste município tem este código de barras"


def already_paid_reason(dam: dict) -> str:
    payment = dam["payment"]
    origin = payment["origin"]
    where = "baixa manual" if origin["kind"] == "manual" else f"arquivo retorno NSA {origin['file_sequence']}"
    return f"DAM {dam['number']} já tinha pagamento registrado em {fmt.day(payment['paid_on'])} ({where})"


def paid_message(dam: dict, notes: list[str]) -> str:
    return "; ".join(notes) if notes else f"DAM {dam['number']} pago"


def changed(detail: ReturnDetail, dam: dict) -> ImportLine:
    """A DAM that changed while its line was paid (nothing written for it)."""
    return report_line(detail, DUPLICATED, f"DAM {dam['number']} mudou de situação durante a importação", dam)


def report_line(detail: ReturnDetail, outcome: str, message: str, dam: dict | None = None,
                flags: tuple[str, ...] = ()) -> ImportLine:
    return ImportLine(
        line_number=detail.line_number, barcode=detail.barcode, paid_on=detail.paid_on,
        amount_received=detail.amount_received, outcome=outcome, message=message,
        dam_id=dam["id"] if dam else None, dam_number=dam["number"] if dam else None,
        dam_amount=dam["amount"] if dam else None, flags=flags,
    )


def own_codes(db: Database, municipality: str) -> set[str]:
    book = parameters.book(db, municipality)
    return {str(version.value) for version in book.history(FEBRABAN_CODE)}


# what matching and paying need of a DAM (not its history nor its printing data)
MATCH_FIELDS = {name: 1 for name in ("municipality", "number", "barcode", "amount", "status", "due_on", "issued_on",
                                     "payment", "pays", "cancel_reason", "replaced_by", "chain_root",
                                     "charge_id", "fine", "interest", "handlers_pending")}
def known_line(dam: dict, detail: ReturnDetail, file_id: str) -> ImportLine | None:
    """The line of a DAM that already has a payment: this file's (a resumed import, or the report
    rebuilt), told as when it was paid; another's, a duplicate. None: the DAM has no payment."""
    payment = dam.get("payment")
    if not payment:
        return None
    if payment["origin"].get("file_id") == file_id:
        outcome = PAID if dam["status"] == dams.PAID else CANCELLED
        return report_line(detail, outcome, paid_message(dam, payment["notes"]), dam, tuple(payment["flags"]))
    return report_line(detail, DUPLICATED, already_paid_reason(dam), dam)


def dams_by_barcode(db: Database, municipality: str, barcodes: list[str]) -> dict[str, dict]:
    """The municipality's DAMs of those barcodes, read with one ``$in`` query per chunk."""
    found: dict[str, dict] = {}
    for start in range(0, len(barcodes), BATCH):
        chunk = barcodes[start:start + BATCH]
        for doc in db[dams.COLLECTION].find({"municipality": municipality, "barcode": {"$in": chunk}}, MATCH_FIELDS):
            found[doc["barcode"]] = dams.plain(doc)
    return found


def batches(db: Database, municipality: str, details: tuple[ReturnDetail, ...]
             ) -> Iterator[tuple[list[ReturnDetail], dict[str, dict]]]:
    """The lines in batches of ``BATCH``, each with its DAMs (read outside any unit of work)."""
    for start in range(0, len(details), BATCH):
        batch = list(details[start:start + BATCH])
        yield batch, dams_by_barcode(db, municipality, sorted({d.barcode for d in batch}))


def judge(detail: ReturnDetail, dam: dict | None, seen: dict[str, int], codes: set[str]) -> ImportLine | None:
    """The line's outcome when no payment is needed to know it (None: its DAM is to be paid)."""
    if detail.barcode in seen:
        return report_line(detail, DUPLICATED, f"Código de barras repetido na linha {seen[detail.barcode]} do arquivo")
    seen[detail.barcode] = detail.line_number
    if dam is None:
        return report_line(detail, UNMATCHED, unmatched_reason(detail.barcode, codes))
    return None


def replay(db: Database, municipality: str, details: tuple[ReturnDetail, ...], file_id: str) -> list[ImportLine]:
    """The report of lines already processed, rebuilt from the file and the DAMs (nothing written)."""
    codes, seen, lines = own_codes(db, municipality), {}, []
    for batch, by_barcode in batches(db, municipality, details):
        for detail in batch:
            dam = by_barcode.get(detail.barcode)
            lines.append(judge(detail, dam, seen, codes) or known_line(dam, detail, file_id) or changed(detail, dam))
    return lines
