"""The PDF of stored DAMs as a reader sees it: the barcode read by zbarimg from the rendered page
equals the stored 44 digits, the PIX QR equals the stored payload, the text shows line, amount and
due date. Needs the Debian packages poppler-utils (pdftoppm) and zbar-tools (zbarimg)."""
from __future__ import annotations

import io
import shutil
import subprocess
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from pypdf import PdfReader

from rules.dam import parameters as dam_parameters
from rules.dam.barcode import format_line
from rules.params import ParameterVersion
from services.dam import dams, printing
from services.setup import bootstrap
from services.shared.errors import ValidationFailed
from tests.conftest import SECRETARIA_MP


def issue(db, amount: str, due: date):
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="Francisca Oliveira Gomes", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua Cuiabá, 300, Jardim das Flores", revenue_kind="multa",
        description="Multa por auto de infração 0012/2026", legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 25",
        amount=Decimal(amount), due=due,
    )


def symbols(pdf: bytes, folder: Path) -> list[list[str]]:
    """What zbarimg reads on each page rendered at 200 dpi, as 'TYPE:data'."""
    assert shutil.which("pdftoppm") and shutil.which("zbarimg"), "install poppler-utils and zbar-tools"
    (folder / "dams.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "200", "-png", str(folder / "dams.pdf"), str(folder / "page")], check=True)
    return [subprocess.run(["zbarimg", "-q", str(png)], capture_output=True, text=True).stdout.splitlines()
            for png in sorted(folder.glob("page-*.png"))]


def test_the_printed_barcode_and_pix_are_the_stored_ones(db, today, tmp_path):
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, "teste@pix.invalid"),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, "teste"))
    dam = issue(db, "1234.56", date(2026, 3, 21))
    pdf = printing.pdf(db, SECRETARIA_MP, "matupa", [dam["id"]])
    (page,) = symbols(pdf, tmp_path)
    assert f"I2/5:{dam['barcode']}" in page
    assert f"QR-Code:{dam['pix_payload']}" in page
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert format_line(dam["line"]) in text
    assert "R$ 1.234,56" in text and "23/03/2026" in text and "0001/2026" in text
    assert "Prefeitura Municipal de Matupá".upper() in text


def test_batch_prints_one_page_per_dam_in_order_with_progress(db, today, tmp_path):
    issued = [issue(db, amount, date(2026, 3, 20)) for amount in ("10.00", "20.50", "30.99")]
    calls = []
    pdf = printing.pdf(db, SECRETARIA_MP, "matupa", [d["id"] for d in reversed(issued)], lambda i, n: calls.append((i, n)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    pages = symbols(pdf, tmp_path)
    assert [[s for s in page if s.startswith("I2/5:")] for page in pages] == [
        [f"I2/5:{d['barcode']}"] for d in reversed(issued)]


def test_printing_nothing_is_refused(db, today):
    with pytest.raises(ValidationFailed, match="ao menos um DAM"):
        printing.pdf(db, SECRETARIA_MP, "matupa", [])


def test_a_dam_of_another_municipality_is_neither_read_nor_printed(db, today):
    from services.shared.errors import NotFound
    from tests.conftest import SECRETARIA_CG

    other = dams.issue(
        db, SECRETARIA_CG, "chapada", taxpayer_name="Ana Souza", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua A, 1", revenue_kind="multa", description="Multa", legal_basis="Decreto 06/2026, art. 30",
        amount=Decimal("50.00"), due=date(2026, 3, 20),
    )
    with pytest.raises(NotFound):
        dams.get(db, SECRETARIA_MP, "matupa", other["id"])
    with pytest.raises(NotFound):
        printing.pdf_batch(db, SECRETARIA_MP, "matupa", [other["id"]])
