"""The DAM as printed: A4, one page per DAM, a taxpayer part and a bank part with the barcode.

The barcode is Interleaved 2 of 5 (``FPDF.interleaved2of5``), narrow bar 0,254 mm, wide 3×,
about 103 × 13 mm, with blank quiet zones of more than 5 mm on both sides, as the FEBRABAN
arrecadação layout asks. Where the municipality has PIX, a QR code (segno) and its
"copia e cola" text (at 7,5 pt, the whole code) are printed on the taxpayer part. The taxpayer part
carries the letterhead, the revenue code, the exercise, the breakdown (principal, discount, multa,
juros, total) and what happens after the due date; the bank part says where it is payable and has
the box for the bank's mechanical authentication.

Fonts: DejaVu Sans (Debian package ``fonts-dejavu-core``) for the Portuguese accents, subset
once per process (:mod:`services.shared.pdf.fonts`); when it is not installed, the PDF core font
Helvetica (Latin-1, enough for Portuguese). The linha digitável and the PIX code are ASCII by
their layouts and use the core Courier, which costs nothing to embed. The QR code is drawn as vector squares (sharp at any print resolution).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

from fpdf import FPDF

from rules.dam.barcode import parse_barcode
from rules.dam.words import amount_in_words
from rules.fmt import brl, cnpj, cpf, day
from services.shared.pdf import fonts as shared_fonts
from services.shared.pdf import stamp as auth_stamp
from services.shared.pdf.letterhead import Letterhead, draw_head
from services.shared.pdf.stamp import Stamp, qr_code  # qr_code: the PIX QR, drawn as the stamp's

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
NARROW_BAR_MM = 0.254
BARCODE_HEIGHT_MM = 13.0
LEFT = 10.0
WIDTH = 190.0
CUT_Y = 181.0
HEADER_H = 24.0
GREY = (90, 90, 90)
PAYABLE_AT = "Pagável nos bancos conveniados, seus correspondentes e aplicativos, até o vencimento"
AFTER_DUE_NEUTRAL = ("Vencido, este DAM não deve ser pago: solicite à Prefeitura a 2ª via com o valor "
                     "atualizado pelos acréscimos legais.")


@dataclass(frozen=True)
class DamPrint:
    """Everything printed on one DAM, as plain values (the store service fills it).

    ``amount`` is the total to pay; ``principal`` (None: the amount), ``discount``, ``fine`` and
    ``interest`` are its breakdown lines. ``head`` is the letterhead (coat of arms, CNPJ); without it
    a neutral one is built from the three names. ``after_due`` says what happens after the due date."""

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
    head: Letterhead | None = None
    revenue_code: str = ""
    revenue_name: str = ""
    reference: str = ""
    principal: Decimal | None = None
    discount: Decimal = Decimal("0")
    fine: Decimal = Decimal("0")
    interest: Decimal = Decimal("0")
    after_due: str = ""
    via: str = ""  # "2ª via do DAM 0001/2026" when it replaces an overdue one

    @property
    def letterhead(self) -> Letterhead:
        name = self.municipality_name.removeprefix("Prefeitura Municipal de ").removeprefix("Prefeitura de ")
        return self.head or Letterhead(name, self.secretariat, self.municipality_address)


class _Fonts:
    """The sans family in use (DejaVu when installed, else Helvetica) and the mono one (Courier);
    ``use`` and ``text`` as the letterhead asks of its fonts."""

    def __init__(self, pdf: FPDF) -> None:
        files = shared_fonts.font_files({("DejaVu", ""): "DejaVuSans.ttf", ("DejaVu", "B"): "DejaVuSans-Bold.ttf"},
                                        FONT_DIR)
        if files is not None:
            shared_fonts.add_fonts(pdf, files)
            self.sans, self.mono, self.unicode = "DejaVu", "Courier", True
        else:
            self.sans, self.mono, self.unicode = "Helvetica", "Courier", False
        self.pdf = pdf

    def use(self, size: float, bold: bool = False) -> None:
        self.pdf.set_font(self.sans, "B" if bold else "", size)

    def text(self, value: str) -> str:
        if self.unicode:
            return shared_fonts.printable(value)
        return value.encode("latin-1", "replace").decode("latin-1")


def _document(digits: str) -> str:
    only = "".join(ch for ch in digits if ch.isdigit())
    return cnpj(only) if len(only) == 14 else cpf(only)


class _DamPage:
    def __init__(self, pdf: FPDF, fonts: _Fonts, dam: DamPrint) -> None:
        self.pdf, self.fonts, self.dam = pdf, fonts, dam
        self.barcode = parse_barcode(dam.barcode)

    def font(self, size: float, bold: bool = False, mono: bool = False) -> None:
        self.pdf.set_font(self.fonts.mono if mono else self.fonts.sans, "B" if bold else "", size)

    def text(self, value: str) -> str:
        return self.fonts.text(value)

    def field(self, x: float, y: float, w: float, h: float, label: str, value: str,
              size: float = 9, bold: bool = False, align: str = "L", max_lines: int = 1, mono: bool = False) -> None:
        """A ruled box with a small grey label on top and its value below."""
        pdf = self.pdf
        pdf.rect(x, y, w, h)
        pdf.set_text_color(*GREY)
        self.font(6)
        pdf.set_xy(x + 1, y + 0.6)
        pdf.cell(w - 2, 2.6, self.text(label.upper()))
        pdf.set_text_color(0, 0, 0)
        self.font(size, bold, mono)
        line_h = size * 0.45
        inner = w - 2.4
        text = value if mono else self.text(value)
        if "\n" not in text and pdf.get_string_width(text) <= inner - 0.5:  # fits one line: no line breaking
            lines = [text]
        else:
            lines = pdf.multi_cell(inner, line_h, text, dry_run=True, output="LINES",
                                   wrapmode="CHAR" if mono else "WORD")
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
        pdf.rect(LEFT, y, WIDTH, HEADER_H)
        draw_head(pdf, self.fonts, dam.letterhead, LEFT + 1, y + 1, 130, HEADER_H - 2, centred=False)
        pdf.line(LEFT + 132, y, LEFT + 132, y + HEADER_H)
        self.font(15, bold=True)
        pdf.set_xy(LEFT + 132, y + 1.5)
        pdf.cell(58, 7, "DAM", align="C")
        self.font(6.5)
        pdf.set_xy(LEFT + 132, y + 8.3)
        pdf.cell(58, 3, self.text("Documento de Arrecadação Municipal"), align="C")
        self.font(9, bold=True)
        pdf.set_xy(LEFT + 132, y + 12)
        pdf.cell(58, 4, self.text(f"Nº {dam.number}"), align="C")
        if dam.via:
            self.font(7, bold=True)
            pdf.set_xy(LEFT + 132, y + 16)
            pdf.cell(58, 3.5, self.text(dam.via), align="C")
        self.font(6.5)
        pdf.set_text_color(*GREY)
        pdf.set_xy(LEFT + 132, y + 20)
        pdf.cell(58, 3, self.text(part.upper()), align="C")
        pdf.set_text_color(0, 0, 0)
        return y + HEADER_H

    def taxpayer_rows(self, y: float) -> float:
        dam = self.dam
        self.field(LEFT, y, 140, 10, "Contribuinte", dam.taxpayer_name, bold=True)
        self.field(LEFT + 140, y, 50, 10, "CPF/CNPJ", _document(dam.taxpayer_document))
        return y + 10

    def revenue_row(self, y: float) -> float:
        dam = self.dam
        self.field(LEFT, y, 40, 10, "Código da receita", dam.revenue_code or "—", bold=True, align="C")
        self.field(LEFT + 40, y, 100, 10, "Receita", dam.revenue_name or dam.description)
        self.field(LEFT + 140, y, 50, 10, "Exercício / referência", dam.reference or str(dam.issued_on.year),
                   align="C")
        return y + 10

    def dates_and_amount(self, y: float) -> float:
        dam = self.dam
        self.field(LEFT, y, 45, 10, "Data de emissão", day(dam.issued_on), align="C")
        self.field(LEFT + 45, y, 45, 10, "Vencimento", day(dam.due_on), bold=True, align="C")
        self.field(LEFT + 90, y, 50, 10, "Nº do DAM", dam.number, align="C")
        self.field(LEFT + 140, y, 50, 10, "Valor a pagar", brl(dam.amount), size=11, bold=True, align="R")
        return y + 10

    def breakdown(self, y: float) -> float:
        dam = self.dam
        principal = dam.amount if dam.principal is None else dam.principal
        lines = (("Valor principal", principal), ("(-) Desconto", dam.discount), ("(+) Multa de mora", dam.fine),
                 ("(+) Juros de mora", dam.interest), ("(=) Total a pagar", dam.amount))
        width = WIDTH / len(lines)
        for index, (label, value) in enumerate(lines):
            self.field(LEFT + index * width, y, width, 10, label, brl(value), bold=index == len(lines) - 1,
                       align="R")
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
        self.field(LEFT, y, WIDTH, 9, "Endereço", dam.taxpayer_address, size=8.5)
        y = self.revenue_row(y + 9)
        self.field(LEFT, y, WIDTH, 12, "Discriminação da receita", dam.description, size=8.5, bold=True, max_lines=2)
        y += 12
        self.field(LEFT, y, WIDTH, 10, "Fundamentação legal", dam.legal_basis, size=7.5, max_lines=2)
        y = self.dates_and_amount(y + 10)
        y = self.breakdown(y)
        self.field(LEFT, y, WIDTH, 8, "Valor por extenso", amount_in_words(dam.amount).capitalize(), size=8)
        y += 8
        after_due = dam.after_due or AFTER_DUE_NEUTRAL
        self.field(LEFT, y, WIDTH, 10, "Após o vencimento", after_due, size=7.5, bold=True, max_lines=2)
        y += 10
        instructions_w = WIDTH - 42 if dam.pix_payload else WIDTH
        block_h = 32
        text = "\n".join(f"• {item}" for item in dam.instructions) or "—"
        self.field(LEFT, y, instructions_w, block_h, "Instruções", text, size=7.5, max_lines=8)
        if dam.pix_payload:
            self.pix_box(LEFT + instructions_w, y, 42, block_h)
            y += block_h
            self.field(LEFT, y, WIDTH, 11, "PIX copia e cola (copie o código inteiro no aplicativo do banco)",
                       dam.pix_payload, size=7.5, mono=True, max_lines=2)
            y += 11
        else:
            y += block_h
        pdf.set_text_color(*GREY)
        self.font(6)
        pdf.set_xy(LEFT, y + 1)
        caption = "LINHA DIGITÁVEL (para pagamento pela internet ou aplicativo do banco)"
        pdf.cell(WIDTH, 3, self.text(caption), align="C")
        pdf.set_text_color(0, 0, 0)
        self.line_box(y + 4, 11)

    def pix_box(self, x: float, y: float, w: float, h: float) -> None:
        pdf = self.pdf
        pdf.rect(x, y, w, h)
        self.font(7, bold=True)
        pdf.set_xy(x, y + 0.8)
        pdf.cell(w, 3, "PAGUE COM PIX", align="C")
        side = h - 5.5
        qr_code(pdf, self.dam.pix_payload, x + (w - side) / 2, y + 4.5, side)

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
        pdf = self.pdf
        y = self.header(CUT_Y + 5, "Via do banco")
        y = self.taxpayer_rows(y)
        y = self.dates_and_amount(y)
        y = self.revenue_row(y)
        self.font(7.5, bold=True)
        pdf.set_xy(LEFT, y + 1)
        pdf.cell(WIDTH, 3.5, self.text(PAYABLE_AT), align="C")
        y = self.line_box(y + 6, 12) + 5
        barcode_w = 406 * NARROW_BAR_MM
        pdf.set_fill_color(0, 0, 0)
        pdf.interleaved2of5(self.barcode.digits, x=LEFT + 5, y=y, w=3 * NARROW_BAR_MM, h=BARCODE_HEIGHT_MM)
        box_x = LEFT + 5 + barcode_w + 10
        pdf.set_draw_color(170, 170, 170)  # light: a scanner reading the barcode sees no bar in it
        pdf.rect(box_x, y - 3, LEFT + WIDTH - box_x, 16)  # above the authentication stamp
        pdf.set_draw_color(0, 0, 0)
        self.font(6)
        pdf.set_text_color(*GREY)
        pdf.set_xy(box_x + 1, y - 2.4)
        pdf.cell(LEFT + WIDTH - box_x - 2, 3, self.text("AUTENTICAÇÃO MECÂNICA"))
        pdf.set_text_color(0, 0, 0)

    def draw(self) -> None:
        self.pdf.add_page()
        self.pdf.set_line_width(0.2)
        self.taxpayer_part()
        self.cut_line()
        self.bank_part()


def render_dams(dams: Sequence[DamPrint], progress: Callable[[int, int], None] | None = None,
                stamps: Sequence[Stamp] | None = None) -> bytes:
    """One PDF with one A4 page per DAM; ``progress(i, n)`` is called after each page; ``stamps`` (one per
    DAM) are the authentication stamps (``services.shared.authenticity``) drawn at the foot of each page."""
    pdf = FPDF(orientation="P", unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(LEFT, 10, LEFT)
    pdf.set_title("Documento de Arrecadação Municipal")
    pdf.set_creator("Painel Municipal")
    fonts = _Fonts(pdf)
    total = len(dams)
    for index, dam in enumerate(dams, start=1):
        _DamPage(pdf, fonts, dam).draw()
        if stamps is not None:
            auth_stamp.draw(pdf, stamps[index - 1])
        if progress is not None:
            progress(index, total)
    return bytes(pdf.output())


def render_dam(dam: DamPrint, stamp: Stamp | None = None) -> bytes:
    """A PDF with a single DAM."""
    return render_dams([dam], stamps=None if stamp is None else [stamp])
