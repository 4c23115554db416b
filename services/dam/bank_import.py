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

Chunks: the lines are paid in chunks, each one unit of work (``store.transaction``) that also saves
the import's progress (the next line, the running summary) on its document; a chunk holds the
store's write lock about ``CHUNK_SECONDS`` at most, then leaves it free ``YIELD_SECONDS`` and lets the
saves waiting for it go first (``store.transaction(after_waiting=True)``), so another clerk's write
waits for one chunk at most, well under a second. The stored report is the summary
(:mod:`services.dam.bank_report`), never one line of text per record.

Concurrency and resumption: the import document is the claim. It is inserted, under the unique
index on (municipality, sha256), BEFORE any line is processed; only the winner processes the file.
Another import of the same file meanwhile is told it is being processed; once done, it gets the
winner's report (rebuilt from the file and the payments it made). An import that stops half-way
releases its claim (an error) or leaves it (a kill); the file sent again takes the claim over at
once (released, or its process is gone from this machine) or after ``CLAIM_LEASE`` without a chunk,
and continues from the saved progress; a chunk commits only while its import still holds the claim,
and lines already paid by that file are recognised, so no DAM is paid twice.

Size: files above ``PAINEL_RETURN_FILE_MAX_MB`` (default 5 MB) are refused before parsing; the
file is parsed line by line.
"""
from __future__ import annotations

import hashlib
import io
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules import fmt
from rules.dam.bank_return import ReturnDetail, ReturnFile, ReturnHeader, parse_return_lines
from services import store
from services.dam import dams, outbox, payments
from services.dam.bank_report import (
    CANCELLED,
    MATCH_FIELDS,
    OUTCOMES,
    PAID,
    ImportLine,
    ImportResult,
    Summary,
    batches,
    changed,
    judge,
    known_line,
    own_codes,
    paid_message,
    replay,
    report_line,
)
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
CLAIM_LEASE = timedelta(minutes=2)  # a claim without a chunk for this long was left by an import that stopped
RELEASED = datetime(1970, 1, 1, tzinfo=UTC)  # the claim time of an import that stopped on an error
CHUNK_SECONDS = 0.2  # a chunk's unit of work holds the write lock about this long at most...
YIELD_SECONDS = 0.15  # ...then leaves it free this long (SQLite's busy wait polls every 100 ms)
Progress = Callable[[int, int], None]
log = logging.getLogger(__name__)


class ReturnFileResent(Conflict):
    """Another file with the same bank, agreement and NSA was already imported."""


class ReturnFileTooLarge(ServiceError):
    """The file is above the configured size (PAINEL_RETURN_FILE_MAX_MB)."""


class ImportInProgress(Conflict):
    """The same file is being imported right now (by another user or tab)."""


@dataclass
class _Claim:
    """The import's hold on its file: the document, the token its chunks commit under, where to go on."""

    file_id: ObjectId
    token: str
    next_line: int
    summary: Summary


def file_digest(data: bytes) -> str:
    """SHA-256 of the records, whatever the line ends (CRLF or LF) and trailing blank lines."""
    records = data.replace(b"\r\n", b"\n").rstrip(b"\n")
    return hashlib.sha256(records).hexdigest()


def _settle(db: Database, actor: Actor, dam: dict, detail: ReturnDetail, file_id: str,
            header: ReturnHeader, calendar: Callable[[date], object], retry: bool = True) -> ImportLine:
    """Pay one matched DAM from one G record, or say why not. A DAM that changed since the file's DAMs
    were read (e.g. a 2ª via cancelled because an earlier line paid its original) is read again once."""
    known = known_line(dam, detail, file_id)
    if known is not None:
        return known
    check = payments.check_payment(db, dam, detail.paid_on, detail.amount_received, calendar(detail.paid_on))
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
        return _settle(db, actor, dams.plain(fresh), detail, file_id, header, calendar, retry=False)
    if applied is None:
        return changed(detail, dam)
    status, stored = applied
    return report_line(detail, CANCELLED if status == dams.CANCELLED else PAID, paid_message(dam, stored["notes"]),
                       dam, tuple(stored["flags"]))


def _save_progress(db: Database, claim: _Claim, changes: dict) -> None:
    """Inside the chunk's unit of work: the progress, only while this import still holds the claim."""
    saved = db[FILES].update_one({"_id": claim.file_id, "claim": claim.token, "status": PROCESSING},
                                 {"$set": encode({**changes, "claimed_at": clock.now_utc()})})
    if saved.modified_count != 1:
        raise ImportInProgress("Outra importação assumiu este arquivo enquanto ele era processado. "
                               "Aguarde alguns instantes e importe de novo para ver o relatório.")


def _process(db: Database, actor: Actor, municipality: str, parsed: ReturnFile, claim: _Claim,
             progress: Progress | None) -> list[ImportLine]:
    """Pay the lines from the claim's next line on, chunk by chunk; the lines processed now."""
    file_id, details, total = str(claim.file_id), parsed.details, len(parsed.details)
    seen = {}
    for detail in details:  # the lines done before (by an import that stopped) still count as seen
        if detail.line_number >= claim.next_line:
            break
        seen.setdefault(detail.barcode, detail.line_number)
    todo = tuple(d for d in details if d.line_number >= claim.next_line)
    codes, calendars, lines = own_codes(db, municipality), {}, []

    def calendar(day: date) -> object:
        if day not in calendars:
            calendars[day] = parameters.calendar(db, municipality, day)
        return calendars[day]

    for batch, by_barcode in batches(db, municipality, todo):
        while batch:
            held = time.monotonic()
            with store.transaction(db, after_waiting=True):  # a save waiting since the last chunk first
                done = []
                while batch and (not done or time.monotonic() - held < CHUNK_SECONDS):
                    detail = batch.pop(0)
                    dam = by_barcode.get(detail.barcode)
                    line = judge(detail, dam, seen, codes)
                    done.append(line or _settle(db, actor, dam, detail, file_id, parsed.header, calendar))
                    claim.summary.add(done[-1])
                _save_progress(db, claim, {"next_line": done[-1].line_number + 1, **claim.summary.as_doc()})
            lines.extend(done)
            if progress is not None:
                progress(claim.summary.records_done, total)
            if claim.summary.records_done < total:  # leave the lock free longer than a busy writer's poll
                time.sleep(YIELD_SECONDS)
    return lines


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


def _holder() -> dict:
    return {"host": socket.gethostname(), "pid": os.getpid()}


def _holder_gone(doc: dict) -> bool:
    """The claim's process has ended (it ran on this machine and is no longer there): a kill."""
    holder = doc.get("holder") or {}
    if holder.get("host") != socket.gethostname() or not holder.get("pid") or holder["pid"] == os.getpid():
        return False
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _claim(db: Database, actor: Actor, municipality: str, parsed: ReturnFile, digest: str,
           data: bytes) -> tuple[_Claim | None, dict | None]:
    """Claim the file for this import: (claim, None) for the winner, (None, its document) when it was
    already imported; ImportInProgress while another import holds a live claim."""
    key = {"municipality": municipality, "sha256": digest}
    existing = db[FILES].find_one(key)
    now, token = clock.now_utc(), uuid.uuid4().hex
    if existing is None:
        _refuse_resent(db, municipality, parsed, digest)
        header = parsed.header
        record = {
            **key, "status": PROCESSING, "file_sha256": store.put_file(db, data, f"retorno_{header.file_sequence}.ret"),
            "bank_code": header.bank_code, "bank_name": header.bank_name,
            "agreement_code": header.agreement_code, "company_name": header.company_name,
            "file_sequence": header.file_sequence, "generated_on": header.generated_on,
            "layout_version": header.layout_version, "records": len(parsed.details), "size": len(data),
            "total_amount": parsed.trailer.total_amount, "imported_at": now, "imported_by": actor.username,
            "claimed_at": now, "claim": token, "holder": _holder(), "next_line": 0, **Summary().as_doc(),
        }
        try:
            return _Claim(store.insert_one(db[FILES], encode(record)), token, 0, Summary()), None
        except DuplicateKeyError:  # another import claimed the same file a moment ago
            existing = db[FILES].find_one(key)
    if existing["status"] == DONE:
        return None, existing
    claimed_at = decode(existing)["claimed_at"]
    if now - claimed_at < CLAIM_LEASE and not _holder_gone(existing):
        raise _in_progress(existing)
    taken = db[FILES].update_one({"_id": existing["_id"], "status": PROCESSING, "claimed_at": existing["claimed_at"]},
                                 {"$set": encode({"claimed_at": now, "imported_by": actor.username, "claim": token,
                                                  "holder": _holder()})})
    if taken.modified_count != 1:
        raise _in_progress(existing)
    return _Claim(existing["_id"], token, existing.get("next_line", 0), Summary.of(decode(existing))), None


def _release(db: Database, claim: _Claim) -> None:
    """An import stopped on an error: its claim is let go, so the file sent again continues at once."""
    try:
        db[FILES].update_one({"_id": claim.file_id, "claim": claim.token, "status": PROCESSING},
                             {"$set": {"claimed_at": RELEASED}})
    except Exception:
        log.warning("claim of return file %s not released", claim.file_id, exc_info=True)


def _result(doc: dict, lines: list[ImportLine], already_imported: bool) -> ImportResult:
    doc = decode(doc)
    return ImportResult(
        file_id=str(doc["_id"]), already_imported=already_imported, imported_at=doc["imported_at"],
        imported_by=doc["imported_by"], bank=f"{doc['bank_code']} {doc['bank_name']}".strip(),
        file_sequence=doc["file_sequence"], generated_on=parse_date(doc["generated_on"]), lines=tuple(lines),
    )


@boundary.checked
def import_return_file(db: Database, actor: Actor, municipality: str, data: bytes,
                       progress: Progress | None = None) -> ImportResult:
    """Read a return file and pay the DAMs it reports; the report says what each line did.

    The same file imported again changes nothing (its first report comes back with
    ``already_imported``); while another import of it runs, ImportInProgress says so; one that
    stopped half-way continues. A file above the size limit, or that does not follow the layout, is
    refused whole. ``progress(lines done, lines)`` is called after each chunk.
    """
    authorize(actor, "write", municipality)
    _refuse_large(data)
    parsed = parse_return_lines(io.BytesIO(data))
    digest = file_digest(data)
    ensure_indexes(db, INDEXES)
    dams.prepare(db)
    claim, earlier = _claim(db, actor, municipality, parsed, digest, data)
    if earlier is not None:
        lines = replay(db, municipality, parsed.details, str(earlier["_id"]))
        _complete_follow_ups(db, municipality, parsed)
        return _result(earlier, lines, already_imported=True)
    before = tuple(d for d in parsed.details if d.line_number < claim.next_line)
    try:
        lines = replay(db, municipality, before, str(claim.file_id)) if before else []
        lines += _process(db, actor, municipality, parsed, claim, progress)
        counts = claim.summary.counts
        with store.transaction(db, after_waiting=True):  # right after the last chunk: a waiting save first
            _save_progress(db, claim, {"status": DONE, "done_at": clock.now_utc()})
            db[FILES].update_one({"_id": claim.file_id}, {"$unset": {"claim": "", "holder": "", "next_line": ""}})
            audit.record(db, actor, municipality, "import", FILES, claim.file_id, {},
                         {"sha256": digest, "bank_code": parsed.header.bank_code,
                          "file_sequence": parsed.header.file_sequence, "counts": counts},
                         note=f"Arquivo retorno NSA {parsed.header.file_sequence}: " +
                              ", ".join(f"{counts[k]} {OUTCOMES[k].lower()}" for k in OUTCOMES))
    except BaseException:
        _release(db, claim)
        raise
    _complete_follow_ups(db, municipality, parsed)
    return _result(db[FILES].find_one({"_id": claim.file_id}), lines, already_imported=False)


def _complete_follow_ups(db: Database, municipality: str, parsed: ReturnFile) -> None:
    """Any DAM of the file paid earlier whose follow-up is still pending (a handler failed, the process
    stopped) runs it now: importing the file again is a retry, as the DAM page's is. Reads only the
    pending DAMs (indexed), never the file's thousands."""
    barcodes = {detail.barcode for detail in parsed.details}
    for doc in db[dams.COLLECTION].find({"handlers_pending": True}, {"_id": 1, "barcode": 1, "municipality": 1}):
        if doc.get("municipality") == municipality and doc.get("barcode") in barcodes:
            outbox.dam_paid(db, str(doc["_id"]))


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
    rows = db[FILES].find({"municipality": municipality}, {"lines": 0, "problems": 0})
    rows = rows.sort("imported_at", -1).limit(limit)
    return [decode(row) for row in rows]
