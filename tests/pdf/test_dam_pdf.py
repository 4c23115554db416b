"""The DAM PDF as a reader sees it: barcode decoded by zbarimg from the rendered page, the PIX
QR decoded too, and the text (pypdf) showing line, amount, due date and taxpayer.

Needs the Debian packages poppler-utils (pdftoppm) and zbar-tools (zbarimg)."""
from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from pypdf import PdfReader

from rules.dam.barcode import dam_barcode
from rules.dam.pix import dam_txid, pix_payload
from services.dam.slip_pdf import DamPrint, render_dam, render_dams

AMOUNT = Decimal("1234.56")
BARCODE = dam_barcode(AMOUNT, "0299", date(2026, 4, 6), 2026, 123)
PIX = pix_payload("pix@chapada.mt.gov.br", "Prefeitura de Chapada dos Guimarães", "Chapada dos Guimarães",
                  AMOUNT, dam_txid(2026, 123))

DAM = DamPrint(
    municipality_name="Prefeitura Municipal de Chapada dos Guimarães",
    secretariat="Secretaria Municipal de Fazenda",
    municipality_address="Rua Fernando Corrêa da Costa, 21, Centro, Chapada dos Guimarães/MT, CEP 78195-000",
    number="0123/2026",
    taxpayer_name="João da Silva Araújo",
    taxpayer_document="12345678909",
    taxpayer_address="Rua das Acácias, 150, Bom Jardim, Chapada dos Guimarães/MT",
    description="Taxa de autorização do transporte remunerado privado individual de passageiros, autorização 0042/2026",
    legal_basis="Decreto 06/2026 (Chapada dos Guimarães), art. 20",
    amount=AMOUNT,
    issued_on=date(2026, 3, 6),
    due_on=date(2026, 4, 6),
    barcode=BARCODE.digits,
    instructions=("Pagável em qualquer banco, correspondente ou aplicativo até o vencimento.",
                  "Após o vencimento, emita novo DAM."),
    pix_payload=PIX,
)


def _decode(pdf: bytes, tmp_path: Path) -> list[list[str]]:
    """Symbols read by zbarimg on each page rendered at 200 dpi, as 'TYPE:data' strings."""
    assert shutil.which("pdftoppm") and shutil.which("zbarimg"), "install poppler-utils and zbar-tools"
    (tmp_path / "dam.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "200", "-png", str(tmp_path / "dam.pdf"), str(tmp_path / "page")], check=True)
    pages = []
    for png in sorted(tmp_path.glob("page-*.png")):
        result = subprocess.run(["zbarimg", "-q", str(png)], capture_output=True, text=True)
        pages.append(result.stdout.splitlines())
    return pages


def test_barcode_and_pix_qr_are_read_back_from_the_rendered_page(tmp_path):
    (symbols,) = _decode(render_dam(DAM), tmp_path)
    assert f"I2/5:{BARCODE.digits}" in symbols
    assert f"QR-Code:{PIX}" in symbols


def test_text_shows_line_amount_due_date_taxpayer_and_words():
    text = PdfReader(io.BytesIO(render_dam(DAM))).pages[0].extract_text()
    assert BARCODE.formatted_line in text
    assert "R$ 1.234,56" in text
    assert "06/04/2026" in text
    assert "123.456.789-09" in text
    assert "João da Silva Araújo" in text
    assert "Mil duzentos e trinta e quatro reais e cinquenta e seis centavos" in text
    assert "Decreto 06/2026 (Chapada dos Guimarães), art. 20" in text
    assert "Via do contribuinte".upper() in text and "Via do banco".upper() in text


def test_many_dams_one_page_each_with_progress(tmp_path):
    second = replace(
        DAM,
        number="0124/2026",
        taxpayer_document="11222333000181",
        amount=Decimal("80.00"),
        barcode=dam_barcode(Decimal("80.00"), "0299", date(2026, 4, 30), 2026, 124, value_identifier=8).digits,
        due_on=date(2026, 4, 30),
        pix_payload=None,
    )
    calls = []
    pdf = render_dams([DAM, second], progress=lambda i, n: calls.append((i, n)))
    assert calls == [(1, 2), (2, 2)]
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 2
    second_text = reader.pages[1].extract_text()
    assert "11.222.333/0001-81" in second_text and "R$ 80,00" in second_text and "Oitenta reais" in second_text
    pages = _decode(pdf, tmp_path)
    assert f"I2/5:{second.barcode}" in pages[1]
    assert not any(symbol.startswith("QR-Code:") for symbol in pages[1])


def test_barcode_measures_about_103_by_13_mm_with_quiet_zones_of_5_mm(tmp_path):
    from PIL import Image

    dpi = 200
    mm = dpi / 25.4
    (tmp_path / "dam.pdf").write_bytes(render_dam(DAM))
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(tmp_path / "dam.pdf"), str(tmp_path / "p")], check=True)
    image = Image.open(next(tmp_path.glob("p-*.png"))).convert("L").point(lambda v: 0 if v < 128 else 255)
    width, height = image.size
    pixels = image.load()

    def scanline(y: int) -> bytes:
        return image.crop((0, y, width, y + 1)).tobytes()

    def is_barcode(y: int) -> bool:
        """Bars are vertical: the scanline repeats 6 mm below and has over 100 edges."""
        line = scanline(y)
        edges = sum(a != b for a, b in zip(line, line[1:]))
        return edges > 100 and line == scanline(y + int(6 * mm))

    row = next(y for y in range(height // 2, height) if is_barcode(y))  # the barcode is on the bank part
    black = [x for x in range(width) if pixels[x, row] == 0]
    first, last = black[0], black[-1]
    top = bottom = row
    while pixels[first, top - 1] == 0:
        top -= 1
    while pixels[first, bottom + 1] == 0:
        bottom += 1
    assert 101 <= (last - first + 1) / mm <= 105
    assert 12.5 <= (bottom - top + 1) / mm <= 13.5
    quiet = int(5 * mm)
    for y in range(top - 2, bottom + 3):
        assert all(pixels[x, y] == 255 for x in range(first - quiet, first)), "left quiet zone"
        assert all(pixels[x, y] == 255 for x in range(last + 1, last + 1 + quiet)), "right quiet zone"


def test_a_bad_barcode_is_refused_before_drawing():
    from rules.dam.barcode import InvalidCheckDigit

    with pytest.raises(InvalidCheckDigit):
        digits = BARCODE.digits
        render_dam(replace(DAM, barcode=digits[:3] + str((int(digits[3]) + 1) % 10) + digits[4:]))


def test_without_dejavu_the_core_fonts_still_print_portuguese(monkeypatch, tmp_path):
    import services.dam.slip_pdf as dam_pdf

    monkeypatch.setattr(dam_pdf, "FONT_DIR", tmp_path / "no-fonts")
    pdf = render_dam(replace(DAM, description="x " * 400))
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert "João da Silva Araújo" in text
    assert BARCODE.formatted_line in text
    (symbols,) = _decode(pdf, tmp_path)
    assert f"I2/5:{BARCODE.digits}" in symbols
