"""The DAM as printed: A4, one page per DAM, a taxpayer part and a bank part with the barcode.

The barcode is Interleaved 2 of 5 (``FPDF.interleaved2of5``), narrow bar 0,254 mm, wide 3×,
about 103 × 13 mm, with blank quiet zones of more than 5 mm on both sides, as the FEBRABAN
arrecadação layout asks. Where the municipality has PIX, a QR code (segno) and its
"copia e cola" text are printed on the taxpayer part.

Fonts: DejaVu Sans (Debian package ``fonts-dejavu-core``) for the Portuguese accents, subset
once per process (:mod:`services.pdf.fonts`); when it is not installed, the PDF core font
Helvetica (Latin-1, enough for Portuguese). The linha digitável and the PIX code are ASCII by
their layouts and use the core Courier, which costs nothing to embed. The QR code is drawn as vector squares (sharp at any print resolution).
"""
from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import segno
from fpdf import FPDF

from rules.dam.barcode import parse_barcode
from rules.dam.words import amount_in_words
from rules.fmt import brl, cnpj, cpf, day
from services.pdf import fonts as shared_fonts

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
NARROW_BAR_MM = 0.254
BARCODE_HEIGHT_MM = 13.0
LEFT = 10.0
WIDTH = 190.0
CUT_Y = 178.0
GREY = (90, 90, 90)


@dataclass(frozen=True)
class DamPrint:
    """Everything printed on one DAM, as plain values (the store service fills it)."""

    municipality_name: str
    secretariat: str
    municipality_address: str
    number: str
    taxpayer_name: str
    taxpayer_document: str
    taxpayer_address: str
    description: str
    legal_basis: str
    amount: Decimal
    issued_on: date
    due_on: date
    barcode: str
    instructions: tuple[str, ...] = ()
    pix_payload: str | None = None


class _Fonts:
    """The sans family in use (DejaVu when installed, else Helvetica) and the mono one (Courier)."""

    def __init__(self, pdf: FPDF) -> None:
        files = shared_fonts.font_files({("DejaVu", ""): "DejaVuSans.ttf", ("DejaVu", "B"): "DejaVuSans-Bold.ttf"},
                                        FONT_DIR)
        if files is not None:
            shared_fonts.add_fonts(pdf, files)
            self.sans, self.mono, self.unicode = "DejaVu", "Courier", True
        else:
            self.sans, self.mono, self.unicode = "Helvetica", "Courier", False


def _document(digits: str) -> str:
    only = "".join(ch for ch in digits if ch.isdigit())
    return cnpj(only) if len(only) == 14 else cpf(only)


def qr_code(pdf: FPDF, payload: str, x: float, y: float, side: float) -> None:
    """The QR code of ``payload`` (medium error correction, no border: the page gives it) as filled
    squares, one rectangle per run of dark modules in a row. The mask is fixed (any of the eight
    is valid QR; choosing the best one only costs time)."""
    qr = segno.make(payload, error="m", micro=False, mask=0)
    rows = list(qr.matrix)
    module = side / len(rows)
    pdf.set_fill_color(0, 0, 0)
    for row_number, row in enumerate(rows):
        start = None
        for column, dark in enumerate([*row, 0]):
            if dark and start is None:
                start = column
            elif not dark and start is not None:
                pdf.rect(x + start * module, y + row_number * module, (column - start) * module, module, style="F")
                start = None


class _DamPage:
    def __init__(self, pdf: FPDF, fonts: _Fonts, dam: DamPrint) -> None:
        self.pdf, self.fonts, self.dam = pdf, fonts, dam
        self.barcode = parse_barcode(dam.barcode)

    def font(self, size: float, bold: bool = False, mono: bool = False) -> None:
        self.pdf.set_font(self.fonts.mono if mono else self.fonts.sans, "B" if bold else "", size)

    def fitted_font(self, value: str, width: float, size: float, bold: bool = False) -> None:
        """The largest size up to ``size`` (not below 60 % of it) at which ``value`` fits ``width``."""
        floor = size * 0.6
        self.font(size, bold)
        while size > floor and self.pdf.get_string_width(self.text(value)) > width:
            size -= 0.5
            self.font(size, bold)

    def text(self, value: str) -> str:
        if self.fonts.unicode:
            return shared_fonts.printable(value)
        return value.encode("latin-1", "replace").decode("latin-1")

    def field(self, x: float, y: float, w: float, h: float, label: str, value: str,
              size: float = 9, bold: bool = False, align: str = "L", max_lines: int = 1) -> None:
        """A ruled box with a small grey label on top and its value below."""
        pdf = self.pdf
        pdf.rect(x, y, w, h)
        pdf.set_text_color(*GREY)
        self.font(6)
        pdf.set_xy(x + 1, y + 0.6)
        pdf.cell(w - 2, 2.6, self.text(label.upper()))
        pdf.set_text_color(0, 0, 0)
        self.font(size, bold)
        line_h = size * 0.45
        inner = w - 2.4
        text = self.text(value)
        if "\n" not in text and pdf.get_string_width(text) <= inner - 0.5:  # fits one line: no line breaking
            lines = [text]
        else:
            lines = pdf.multi_cell(inner, line_h, text, dry_run=True, output="LINES")
        if len(lines) > max_lines:
            lines = lines[:max_lines]
            ellipsis = "…" if self.fonts.unicode else "..."
            last = lines[-1].rstrip()
            while last and pdf.get_string_width(last + ellipsis) > inner - 1:
                last = last[:-1]
            lines[-1] = last + ellipsis
        for number, line in enumerate(lines):
            pdf.set_xy(x + 1.2, y + 3.6 + number * line_h)
            pdf.cell(inner, line_h, line, align=align)

    def header(self, y: float, part: str) -> float:
        pdf, dam = self.pdf, self.dam
        pdf.rect(LEFT, y, WIDTH, 20)
        self.fitted_font(dam.municipality_name.upper(), 126, 12, bold=True)
        pdf.set_xy(LEFT + 2, y + 2)
        pdf.cell(128, 5.5, self.text(dam.municipality_name.upper()))
        self.fitted_font(dam.secretariat, 126, 9)
        pdf.set_xy(LEFT + 2, y + 8)
        pdf.cell(128, 4.5, self.text(dam.secretariat))
        self.fitted_font(dam.municipality_address, 126, 7)
        pdf.set_text_color(*GREY)
        pdf.set_xy(LEFT + 2, y + 13)
        pdf.cell(128, 4, self.text(dam.municipality_address))
        pdf.set_text_color(0, 0, 0)
        pdf.line(LEFT + 132, y, LEFT + 132, y + 20)
        self.font(15, bold=True)
        pdf.set_xy(LEFT + 132, y + 1.5)
        pdf.cell(58, 7, "DAM", align="C")
        self.font(6.5)
        pdf.set_xy(LEFT + 132, y + 8.3)
        pdf.cell(58, 3, self.text("Documento de Arrecadação Municipal"), align="C")
        self.font(9, bold=True)
        pdf.set_xy(LEFT + 132, y + 12)
        pdf.cell(58, 4, self.text(f"Nº {dam.number}"), align="C")
        self.font(6.5)
        pdf.set_text_color(*GREY)
        pdf.set_xy(LEFT + 132, y + 16)
        pdf.cell(58, 3, self.text(part.upper()), align="C")
        pdf.set_text_color(0, 0, 0)
        return y + 20

    def taxpayer_rows(self, y: float) -> float:
        dam = self.dam
        self.field(LEFT, y, 140, 10, "Contribuinte", dam.taxpayer_name, bold=True)
        self.field(LEFT + 140, y, 50, 10, "CPF/CNPJ", _document(dam.taxpayer_document))
        return y + 10

    def dates_and_amount(self, y: float) -> float:
        dam = self.dam
        self.field(LEFT, y, 45, 10, "Data de emissão", day(dam.issued_on), align="C")
        self.field(LEFT + 45, y, 45, 10, "Vencimento", day(dam.due_on), bold=True, align="C")
        self.field(LEFT + 90, y, 50, 10, "Nº do DAM", dam.number, align="C")
        self.field(LEFT + 140, y, 50, 10, "Valor a pagar", brl(dam.amount), size=11, bold=True, align="R")
        return y + 10

    def line_box(self, y: float, size: float) -> float:
        self.pdf.set_xy(LEFT, y)
        self.font(size, bold=True, mono=True)
        self.pdf.cell(WIDTH, size * 0.5, self.barcode.formatted_line, align="C")
        return y + size * 0.5

    def taxpayer_part(self) -> None:
        pdf, dam = self.pdf, self.dam
        y = self.header(10, "Via do contribuinte")
        y = self.taxpayer_rows(y)
        self.field(LEFT, y, WIDTH, 10, "Endereço", dam.taxpayer_address)
        y += 10
        self.field(LEFT, y, WIDTH, 19, "Discriminação da receita", dam.description, bold=True, max_lines=3)
        y += 19
        self.field(LEFT, y, WIDTH, 14, "Fundamentação legal", dam.legal_basis, size=8, max_lines=2)
        y += 14
        y = self.dates_and_amount(y)
        self.field(LEFT, y, WIDTH, 10, "Valor por extenso", amount_in_words(dam.amount).capitalize(), size=8)
        y += 10
        instructions_w = WIDTH - 50 if dam.pix_payload else WIDTH
        block_h = 52
        text = "\n".join(f"• {item}" for item in dam.instructions) or "—"
        self.field(LEFT, y, instructions_w, block_h, "Instruções", text, size=8, max_lines=10)
        if dam.pix_payload:
            self.pix_box(LEFT + instructions_w, y, 50, block_h)
        y += block_h + 3
        pdf.set_text_color(*GREY)
        self.font(6)
        pdf.set_xy(LEFT, y)
        caption = "LINHA DIGITÁVEL (para pagamento pela internet ou aplicativo do banco)"
        pdf.cell(WIDTH, 3, self.text(caption), align="C")
        pdf.set_text_color(0, 0, 0)
        self.line_box(y + 3.5, 11)

    def pix_box(self, x: float, y: float, w: float, h: float) -> None:
        pdf = self.pdf
        pdf.rect(x, y, w, h)
        self.font(7, bold=True)
        pdf.set_xy(x, y + 1)
        pdf.cell(w, 3, "PAGUE COM PIX", align="C")
        qr_code(pdf, self.dam.pix_payload, x + (w - 30) / 2, y + 5, 30)
        self.font(4.6, mono=True)
        pdf.set_xy(x + 1.5, y + 36.5)
        pdf.multi_cell(w - 3, 1.9, self.dam.pix_payload, align="L", wrapmode="CHAR")

    def cut_line(self) -> None:
        pdf = self.pdf
        pdf.set_draw_color(*GREY)
        pdf.set_dash_pattern(dash=1.2, gap=1)
        pdf.line(LEFT, CUT_Y, LEFT + WIDTH, CUT_Y)
        pdf.set_dash_pattern()
        pdf.set_draw_color(0, 0, 0)
        pdf.set_text_color(*GREY)
        self.font(6)
        pdf.set_xy(LEFT + WIDTH - 40, CUT_Y - 3.5)
        pdf.cell(40, 3, self.text(("✂ " if self.fonts.unicode else "") + "Corte aqui"), align="R")
        pdf.set_text_color(0, 0, 0)

    def bank_part(self) -> None:
        dam, pdf = self.dam, self.pdf
        y = self.header(CUT_Y + 6, "Via do banco")
        y = self.taxpayer_rows(y)
        y = self.dates_and_amount(y)
        self.field(LEFT, y, WIDTH, 10, "Discriminação da receita", dam.description, size=8)
        y += 10 + 5
        y = self.line_box(y, 12) + 6
        barcode_w = 406 * NARROW_BAR_MM
        pdf.set_fill_color(0, 0, 0)
        pdf.interleaved2of5(self.barcode.digits, x=LEFT + 5, y=y, w=3 * NARROW_BAR_MM, h=BARCODE_HEIGHT_MM)
        self.font(6)
        pdf.set_text_color(*GREY)
        pdf.set_xy(LEFT + 5 + barcode_w + 12, y)
        pdf.multi_cell(WIDTH - barcode_w - 17, 3, self.text("Autenticação mecânica"), align="C")
        pdf.set_text_color(0, 0, 0)

    def draw(self) -> None:
        self.pdf.add_page()
        self.pdf.set_line_width(0.2)
        self.taxpayer_part()
        self.cut_line()
        self.bank_part()


def render_dams(dams: Sequence[DamPrint], progress: Callable[[int, int], None] | None = None) -> bytes:
    """One PDF with one A4 page per DAM; ``progress(i, n)`` is called after each page."""
    pdf = FPDF(orientation="P", unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(LEFT, 10, LEFT)
    pdf.set_title("Documento de Arrecadação Municipal")
    pdf.set_creator("Painel Municipal")
    fonts = _Fonts(pdf)
    total = len(dams)
    for index, dam in enumerate(dams, start=1):
        _DamPage(pdf, fonts, dam).draw()
        if progress is not None:
            progress(index, total)
    return bytes(pdf.output())


def render_dam(dam: DamPrint) -> bytes:
    """A PDF with a single DAM."""
    return render_dams([dam])
