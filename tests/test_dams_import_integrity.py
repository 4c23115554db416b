"""Return-file import under load (issue 10, defects 10 and 11): the same file imported by 8 users at
once is processed once with the right report; a file above the size limit is refused before
parsing and nothing is stored; the raw file lives outside the document, readable by its hash."""
from __future__ import annotations

import io
import threading
from datetime import date
from decimal import Decimal

import pytest

from rules.dam.bank_return import ReturnPayment, build_return_file, parse_return_lines
from services import store
from services.dam import bank_import, bank_report, dams
from services.shared.errors import PermissionDenied
from tests import figures
from tests.conftest import GABINETE, SECRETARIA_MP
from tests.dams_support import MONDAY


def issue(db):
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="João Pereira Lima", taxpayer_document="529.982.247-25",
        taxpayer_address="Avenida Brasil, 45", revenue_kind="taxa_vistoria", description="Taxa de vistoria",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 15", amount=Decimal("150.00"), due=date(2026, 3, 20),
    )


def return_file(db, count=5, sequence=9) -> bytes:
    payments = [ReturnPayment(issue(db)["barcode"], MONDAY, Decimal("150.00")) for _ in range(count)]
    return build_return_file(payments, generated_on=MONDAY, file_sequence=sequence).encode("latin-1")


def test_eight_concurrent_imports_of_one_file_pay_once_with_one_right_report(db, today):
    data = return_file(db)
    outcomes: list[object] = []
    start = threading.Barrier(8)

    def run() -> None:
        start.wait()
        try:
            outcomes.append(bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data))
        except Exception as exc:  # noqa: BLE001 — every answer is checked below, none lost in the thread
            outcomes.append(exc)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert db["dams"].count_documents({"status": dams.PAID}) == 5
    (record,) = list(db["dam_return_files"].find({}))
    assert record["status"] == bank_import.DONE and record["counts"][bank_report.PAID] == 5
    assert record["counts"][bank_report.DUPLICATED] == 0
    assert db["audit"].count_documents({"action": "import"}) == 1
    assert db["audit"].count_documents({"action": "pay"}) == 5
    assert len(outcomes) == 8
    assert [o for o in outcomes if not isinstance(o, (bank_report.ImportResult, bank_import.ImportInProgress))] == []
    winners = [o for o in outcomes if isinstance(o, bank_report.ImportResult) and not o.already_imported]
    assert len(winners) == 1 and len(winners[0].paid) == 5
    for other in outcomes:
        if isinstance(other, bank_import.ImportInProgress):
            assert "em processamento" in other.message
        else:
            assert len(other.paid) == 5 and not other.duplicated
    figures.concurrency("arquivo retorno", 8, len(outcomes) - len(winners))  # the others did not process it
    again = bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data)
    assert again.already_imported and len(again.paid) == 5


def test_an_import_claimed_by_another_user_just_now_answers_in_processing(db, today):
    data = return_file(db, count=1)
    parsed = parse_return_lines(io.BytesIO(data))
    bank_import._claim(db, SECRETARIA_MP, "matupa", parsed, bank_import.file_digest(data), data)
    with pytest.raises(bank_import.ImportInProgress, match="em processamento desde"):
        bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data)
    assert db["dams"].count_documents({"status": dams.PAID}) == 0


def test_the_same_file_claimed_a_moment_ago_is_not_taken_for_a_resent_sequence(db, today):
    # a concurrent import looked for the file's hash before the first claim landed, then found that
    # claim by its sequence (NSA) and refused the file as "com conteúdo diferente" (seen in a full run)
    data = return_file(db, count=1)
    parsed = parse_return_lines(io.BytesIO(data))
    digest = bank_import.file_digest(data)
    bank_import._claim(db, SECRETARIA_MP, "matupa", parsed, digest, data)
    bank_import._refuse_resent(db, "matupa", parsed, digest)  # the same contents: not refused
    other = return_file(db, count=2)  # the same NSA 9 with other contents still is
    with pytest.raises(bank_import.ReturnFileResent, match="conteúdo diferente"):
        bank_import._refuse_resent(db, "matupa", parse_return_lines(io.BytesIO(other)), bank_import.file_digest(other))


def test_a_claim_left_by_an_import_that_stopped_is_taken_over_after_the_lease(db, today, monkeypatch):
    data = return_file(db, count=2)
    parsed = parse_return_lines(io.BytesIO(data))
    bank_import._claim(db, SECRETARIA_MP, "matupa", parsed, bank_import.file_digest(data), data)
    monkeypatch.setattr(bank_import, "CLAIM_LEASE", bank_import.CLAIM_LEASE * 0)
    result = bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data)
    assert len(result.paid) == 2 and db["audit"].count_documents({"action": "import"}) == 1


def files_kept(data_dir) -> list:
    folder = data_dir / "files"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_a_file_above_the_size_limit_is_refused_before_parsing_and_nothing_is_stored(db, today, data_dir):
    audits = db["audit"].count_documents({})
    too_big = b"A" * (6 * 1024 * 1024)
    with pytest.raises(bank_import.ReturnFileTooLarge) as refused:
        bank_import.import_return_file(db, SECRETARIA_MP, "matupa", too_big)
    assert refused.value.message.startswith("O arquivo tem 6,0 MB; o limite é 5,0 MB.")
    assert db["dam_return_files"].count_documents({}) == 0 and files_kept(data_dir) == []
    assert db["audit"].count_documents({}) == audits


def test_the_size_limit_is_configurable(db, today, monkeypatch):
    data = return_file(db, count=1)
    monkeypatch.setenv("PAINEL_RETURN_FILE_MAX_MB", "0.0001")
    with pytest.raises(bank_import.ReturnFileTooLarge, match="o limite é 0,0 MB"):
        bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data)
    monkeypatch.setenv("PAINEL_RETURN_FILE_MAX_MB", "1")
    assert len(bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data).paid) == 1


def test_the_raw_file_is_kept_outside_the_document_and_read_back_by_its_hash(db, today):
    data = return_file(db, count=3)
    result = bank_import.import_return_file(db, SECRETARIA_MP, "matupa", data)
    (record,) = list(db["dam_return_files"].find({}))
    assert "content" not in record and record["records_done"] == 3 and record["counts"][bank_report.PAID] == 3
    assert store.get_file(db, record["file_sha256"]) == data
    assert bank_import.raw_file(db, SECRETARIA_MP, "matupa", result.file_id) == data
    with pytest.raises(PermissionDenied):
        bank_import.raw_file(db, SECRETARIA_MP, "chapada", result.file_id)


def test_the_parser_reads_a_file_line_by_line(db, today):
    data = return_file(db, count=3)
    parsed = parse_return_lines(io.BytesIO(data))
    assert len(parsed.details) == 3 and parsed.trailer.record_count == 5


def test_gabinete_cannot_pay_dams_by_importing_a_file(db, today):
    data = return_file(db, count=1)
    with pytest.raises(PermissionDenied):
        bank_import.import_return_file(db, GABINETE, "matupa", data)
    assert db["dams"].count_documents({"status": dams.PAID}) == 0
