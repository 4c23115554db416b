"""One upload guard (issue 20, deliverable 2; defects 3, 7 and 8): every file a user sends is capped in
bytes, rows, columns and fields, its type is checked from its content, and the refusal is a pt-BR
message naming the limit, with nothing written."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import time
import tracemalloc
import zipfile
from datetime import date
from pathlib import Path

import pytest
from openpyxl import Workbook

from services.machinery import attachments, protocol
from services.ridehailing import platform_lists, trip_data
from services.ridehailing.enforcement import autos
from services.shared import config, entity_files, uploads
from services.shared.errors import ValidationFailed
from tests.enforcement_support import driver, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_bookings import CLERK, HOURS6, NL, form, nl  # noqa: F401 — nl is a fixture
from tests.test_platform_obligations import TODAY, platform

CG = ACTORS["chapada"]
MB = 1024 * 1024
HEADER = b"CPF;Placa;Nome\n"


def workbook(cell: str) -> bytes:
    book = Workbook()
    book.active.append(["CPF", "Placa", "Nome"])
    book.active[cell] = "x"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def without_dimension(data: bytes) -> bytes:
    """The same workbook with the <dimension> element taken out of its sheet."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            body = source.read(item)
            if item.filename.startswith("xl/worksheets/"):
                body = re.sub(rb"<dimension [^>]*/>", b"", body)
            target.writestr(item, body)
    return out.getvalue()


def files_kept(data_dir: Path) -> int:
    return sum(1 for p in data_dir.rglob("*") if p.is_file() and "files" in p.parts)


def refusal(call, *args, **kwargs) -> str:
    with pytest.raises(ValidationFailed) as refused:
        call(*args, **kwargs)
    return " ".join(refused.value.errors.values())


# ---- defect 7: a tiny workbook that declares a huge sheet ----

@pytest.mark.parametrize("cell", ["XFD1048576", "A1048576", "ZZ2"])
def test_a_workbook_declaring_a_huge_sheet_is_refused_at_once(db, cell):
    data, pid = workbook(cell), platform(db, "chapada")
    assert len(data) < 10_000
    tracemalloc.start()
    started = time.perf_counter()
    try:
        message = refusal(platform_lists.receive_list, db, CG, "chapada", pid, TODAY, data, "lista.xlsx", commit=True)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    seconds = time.perf_counter() - started
    assert seconds < 3 and peak < 30 * MB, (seconds, peak, message)
    assert "planilha" in message and ("linhas" in message or "colunas" in message)
    assert re.search(r"\d", message)  # the limit is named
    assert db[platform_lists.LISTS].count_documents({}) == 0


def test_a_sheet_without_a_declared_dimension_is_capped_row_by_row(db):
    data = without_dimension(workbook("A1048576"))
    assert b"<dimension" not in zipfile.ZipFile(io.BytesIO(data)).read("xl/worksheets/sheet1.xml")
    started = time.perf_counter()
    message = refusal(platform_lists.receive_list, db, CG, "chapada", platform(db, "chapada"), TODAY, data, "l.xlsx")
    assert time.perf_counter() - started < 5
    assert f"{uploads.LIMITS['platform_list'].max_rows:,}".replace(",", ".") in message


def test_a_workbook_within_the_caps_without_a_dimension_is_still_read(db):
    book = Workbook()
    book.active.append(["CPF", "Placa", "Nome"])
    book.active.append(["111.444.777-35", "QBC1D23", "Sem dimensão"])
    buffer = io.BytesIO()
    book.save(buffer)
    report = platform_lists.receive_list(db, CG, "chapada", platform(db, "chapada"), TODAY,
                                         without_dimension(buffer.getvalue()), "l.xlsx")
    assert report.ok and report.rows == 1


@pytest.mark.parametrize("data,expected", [
    (b"CPF;Placa;Nome\n1;2;3\n", "não é uma planilha XLSX"),
    (b"PK\x03\x04garbage", "não é uma planilha XLSX"),
], ids=["csv named xlsx", "broken zip"])
def test_the_type_of_a_list_comes_from_its_content(db, data, expected):
    assert expected in refusal(platform_lists.receive_list, db, CG, "chapada", platform(db, "chapada"), TODAY, data,
                               "lista.xlsx")


def test_a_zip_that_is_not_a_workbook_is_refused():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("word/document.xml", "<x/>")
    assert "não é uma planilha XLSX" in refusal(uploads.check, "platform_list", out.getvalue(), "lista.xlsx")


# ---- defect 8: a CSV field over 128 KiB, and no size limit ----

def test_a_csv_field_over_128_kib_is_a_pt_br_refusal_naming_the_limit_and_the_line(db):
    data = HEADER + b"111.444.777-35;QBC1D23;Ana\n" + b"111.444.777-35;QBC1D23;" + b"x" * 200_000 + b"\n"
    pid = platform(db, "chapada")
    for call in (lambda: platform_lists.receive_list(db, CG, "chapada", pid, TODAY, data, "l.csv"),
                 lambda: trip_data.import_trips(db, CG, "chapada", pid, data, "v.csv"),
                 lambda: entity_files.import_csv(db, CG, "taxpayers", "chapada",
                                                 b"Nome / Raz\xc3\xa3o social;CPF/CNPJ\nAna;1\n" + b"x" * 200_000)):
        message = refusal(call)
        assert "linha 3" in message and "50.000 caracteres" in message, message


def test_a_csv_over_the_row_cap_is_refused_naming_it(db):
    cap = uploads.LIMITS["platform_list"].max_rows
    data = HEADER + b"111.444.777-35;QBC1D23;Ana\n" * (cap + 1)
    message = refusal(platform_lists.receive_list, db, CG, "chapada", platform(db, "chapada"), TODAY, data, "l.csv")
    assert f"{cap:,}".replace(",", ".") + " linhas" in message


def test_an_18_mb_platform_list_is_refused_at_once_with_its_size_and_the_limit(db, data_dir):
    data = HEADER + b"\n" * (18 * MB - len(HEADER))
    started = time.perf_counter()
    message = refusal(platform_lists.receive_list, db, CG, "chapada", platform(db, "chapada"), TODAY, data, "l.csv",
                      commit=True)
    assert message == "O arquivo tem 18,0 MB; o limite para listas das plataformas é 5 MB."
    assert time.perf_counter() - started < 2 and db[platform_lists.LISTS].count_documents({}) == 0


def test_a_25_mb_trip_file_and_a_34_mb_register_csv_are_refused(db):
    pid = platform(db, "chapada")
    trips = refusal(trip_data.import_trips, db, CG, "chapada", pid, b"data_hora\n" + b"\n" * 25 * MB, "v.csv",
                    commit=True)
    assert trips == "O arquivo tem 25,0 MB; o limite para arquivos de viagens é 10 MB."
    register = refusal(entity_files.import_csv, db, CG, "taxpayers", "chapada", b"Nome\n" + b"\n" * 34 * MB,
                       commit=True)
    assert register == "O arquivo tem 34,0 MB; o limite para importação de cadastros é 5 MB."
    assert db[trip_data.TRIP_IMPORTS].count_documents({}) == 0


def test_the_limit_of_a_kind_is_set_by_its_variable_and_documented(db, monkeypatch):
    monkeypatch.setenv("PAINEL_PLATFORM_LIST_MAX_MB", "1")
    data = HEADER + b"\n" * (MB + MB // 2)
    assert refusal(platform_lists.receive_list, db, CG, "chapada", platform(db, "chapada"), TODAY, data, "l.csv") \
        == "O arquivo tem 1,5 MB; o limite para listas das plataformas é 1 MB."
    monkeypatch.setenv("PAINEL_RETURN_FILE_MAX_MB", "2")
    assert config.return_file_max_mb() == 2 == config.upload_max_mb("return_file")
    readme = (config.PROJECT_DIR / "README.md").read_text(encoding="utf-8")
    for kind in config.UPLOAD_LIMITS:
        assert config.upload_variable(kind) in readme, kind


# ---- defect 3 (files): a 20 MB evidence file, a 30 MB attachment ----

def test_a_20_mb_evidence_file_is_refused_and_no_auto_is_lavrado(db, today, data_dir):
    cpf, _ = driver(db, "chapada", seed=2)
    before = files_kept(data_dir)
    photo = b"\xff\xd8\xff\xe0" + b"\0" * (20 * MB)
    with pytest.raises(ValidationFailed) as refused:
        lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 9), cpf, evidence=[("Foto", "foto.jpg", photo)])
    assert refused.value.errors == {
        "evidence": "O arquivo 'foto.jpg' tem 20,0 MB; o limite para provas e anexos dos autos é 10 MB."}
    assert db[autos.COLLECTION].count_documents({}) == 0 and files_kept(data_dir) == before


def test_evidence_must_be_a_pdf_jpeg_or_png_by_its_content(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    with pytest.raises(ValidationFailed) as refused:
        lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 9), cpf,
                evidence=[("Foto", "foto.jpg", b"MZ\x90\x00 a program")])
    assert "PDF, JPEG ou PNG" in refused.value.errors["evidence"]
    assert db[autos.COLLECTION].count_documents({}) == 0


def test_a_30_mb_attachment_is_refused_and_nothing_is_kept(db, nl, data_dir):  # noqa: F811
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    before = files_kept(data_dir)
    message = refusal(attachments.add_attachment, db, CLERK, NL, rid, b"%PDF-1.7\n" + b"0" * (30 * MB), "rg.pdf")
    assert message == "O arquivo 'rg.pdf' tem 30,0 MB; o limite para anexos dos pedidos de serviço é 10 MB."
    assert "PDF, JPEG ou PNG" in refusal(attachments.add_attachment, db, CLERK, NL, rid, b"PK\x03\x04x", "a.docx")
    assert files_kept(data_dir) == before
    assert attachments.add_attachment(db, CLERK, NL, rid, b"\x89PNG\r\n\x1a\nfoto", "foto.png")


# ---- the cost of an upload ----

# Each read is measured in a fresh interpreter with the cyclic collector off: tracemalloc counts every
# thread of the process (a test worker runs other tests' threads), and a long-lived server process runs
# a full collection rarely, so garbage left in a cycle counts as held memory, as it does in production.
PEAK = """
import gc, sys, tracemalloc
import openpyxl  # imported once per process, not per read
from services.shared import uploads
data = open(sys.argv[1], "rb").read()
gc.collect()
gc.disable()
tracemalloc.start()
rows = sum(1 for _ in uploads.read_rows("platform_list", data, sys.argv[2]))
print(rows, tracemalloc.get_traced_memory()[1])
"""


def peak_of_reading(tmp_path, data: bytes, filename: str) -> tuple[int, int]:
    path = tmp_path / filename
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-c", PEAK, str(path), filename], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1], check=True)
    rows, peak = done.stdout.split()
    return int(rows), int(peak)


def test_reading_a_few_mb_list_costs_less_than_ten_times_its_size(tmp_path):
    line = "529.982.247-25;QBC1D23;José da Silva Conceição\n".encode()
    data = HEADER + line * (2 * MB // len(line))
    rows, peak = peak_of_reading(tmp_path, data, "l.csv")
    assert rows > 40_000 and peak < 10 * len(data)


def test_reading_a_workbook_costs_less_than_ten_times_its_size(tmp_path):
    book = Workbook(write_only=True)
    sheet = book.create_sheet()
    sheet.append(["CPF", "Placa", "Nome"])
    for n in range(40_000):
        sheet.append([f"{n:011d}", f"QBC{n % 10}D{n % 100:02d}", f"Nome número {n}"])
    buffer = io.BytesIO()
    book.save(buffer)
    data = buffer.getvalue()
    rows, peak = peak_of_reading(tmp_path, data, "l.xlsx")
    assert rows == 40_001 and peak < 10 * len(data)
