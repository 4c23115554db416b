"""The municipal letterhead and labelled boxes shared by every official document of the panel.

A letterhead (:class:`Letterhead`) is: the coat of arms TI uploaded for the municipality (left),
"Estado de Mato Grosso", "Prefeitura Municipal de ...", its CNPJ, the secretariat and the address.
A value the municipality has not set yet is left out (no coat of arms, no CNPJ line): the document
prints a neutral letterhead, never an invented value. ``services.shared.municipalities.letterhead(db, code)``
fills one from the store; pass it as ``head=`` to :func:`letterhead` and the signer's name and role
to :func:`signature`.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from fpdf import FPDF

from rules.fmt import cnpj as show_cnpj
from services.shared.pdf.style import BLUE, GREY, Fonts

LEFT = 15.0
WIDTH = 180.0
STATE = "Estado de Mato Grosso"
ARMS_SIDE = 22.0


@dataclass(frozen=True)
class Letterhead:
    """What heads a document of one municipality; empty strings and None are values not set yet."""

    municipality_name: str
    secretariat: str = ""
    address: str = ""
    cnpj: str = ""  # 14 digits
    coat_of_arms: bytes | None = None  # PNG or JPEG
    signer_name: str = ""
    signer_role: str = ""

    @property
    def prefeitura(self) -> str:
        return f"Prefeitura Municipal de {self.municipality_name}"

    @property
    def cnpj_text(self) -> str:
        return f"CNPJ {show_cnpj(self.cnpj)}" if self.cnpj else ""

    @property
    def signer(self) -> str:
        """"Name — role" of who signs the municipality's documents ("" when not set)."""
        return " — ".join(part for part in (self.signer_name, self.signer_role) if part)


def draw_head(pdf: FPDF, fonts: Fonts, head: Letterhead, x: float, y: float, w: float, h: float,
              centred: bool = True) -> None:
    """The letterhead inside the box (x, y, w, h): coat of arms at the left, the lines beside it."""
    side = min(ARMS_SIDE, h - 2)
    text_x, text_w = x, w
    if head.coat_of_arms:
        pdf.image(io.BytesIO(head.coat_of_arms), x=x + 1, y=y + (h - side) / 2, w=side, h=side,
                  keep_aspect_ratio=True)
        text_x, text_w = x + side + 3, w - side - 3
        if centred:  # keep the text centred on the page, not on what is left beside the arms
            text_x, text_w = x + side + 3, w - 2 * (side + 3)
    lines = [(STATE.upper(), 7.5, False, GREY), (head.prefeitura.upper(), 12.5, True, BLUE)]
    if head.cnpj_text:
        lines.append((head.cnpj_text, 7.5, False, GREY))
    if head.secretariat:
        lines.append((head.secretariat, 9, False, (0, 0, 0)))
    if head.address:
        lines.append((head.address, 7, False, GREY))
    heights = {7: 3.4, 7.5: 3.6, 9: 4.4, 12.5: 6.0}
    total = sum(heights[size] for _, size, _, _ in lines)
    cursor = y + max(0.0, (h - total) / 2)
    for text, size, bold, colour in lines:
        pdf.set_text_color(*colour)
        _fit(pdf, fonts, text, text_w, size, bold)
        pdf.set_xy(text_x, cursor)
        pdf.cell(text_w, heights[size], fonts.text(text), align="C" if centred else "L")
        cursor += heights[size]
    pdf.set_text_color(0, 0, 0)


def _fit(pdf: FPDF, fonts: Fonts, text: str, width: float, size: float, bold: bool) -> None:
    """The font at ``size``, or smaller (down to 60 %) until ``text`` fits ``width``."""
    floor = size * 0.6
    fonts.use(size, bold)
    while size > floor and pdf.get_string_width(fonts.text(text)) > width:
        size -= 0.5
        fonts.use(size, bold)


def letterhead(pdf: FPDF, fonts: Fonts, municipality_name: str, secretariat: str, address: str,
               top: float = 12.0, *, head: Letterhead | None = None) -> float:
    """The letterhead centred from ``top`` with a rule below; returns the y below the rule.

    ``head`` (from ``services.shared.municipalities.letterhead``) adds the coat of arms and the CNPJ; without
    it the letterhead is the neutral one built from the three names given."""
    head = head or Letterhead(municipality_name, secretariat, address)
    draw_head(pdf, fonts, head, LEFT, top, WIDTH, 26)
    pdf.set_draw_color(*BLUE)
    pdf.set_line_width(0.6)
    pdf.line(LEFT, top + 27, LEFT + WIDTH, top + 27)
    pdf.set_line_width(0.2)
    pdf.set_text_color(0, 0, 0)
    return top + 31


def title(pdf: FPDF, fonts: Fonts, y: float, *lines: str) -> float:
    """Centred bold title lines; returns the y below them."""
    fonts.use(13, bold=True)
    for line in lines:
        pdf.set_xy(LEFT, y)
        pdf.cell(WIDTH, 6.5, fonts.text(line), align="C")
        y += 6.5
    return y + 2


def box(pdf: FPDF, fonts: Fonts, x: float, y: float, w: float, label: str, value: str, size: float = 10,
        height: float = 12) -> None:
    """A labelled field: the label small and grey, the value bold below it."""
    pdf.set_draw_color(170, 170, 170)
    pdf.rect(x, y, w, height)
    pdf.set_text_color(*GREY)
    fonts.use(6.5)
    pdf.set_xy(x + 1.5, y + 1)
    pdf.cell(w - 3, 3, fonts.text(label.upper()))
    pdf.set_text_color(0, 0, 0)
    fonts.use(size, bold=True)
    pdf.set_xy(x + 1.5, y + (height - 2) / 2)
    pdf.cell(w - 3, 6, fonts.text(value))


def signature(pdf: FPDF, fonts: Fonts, x: float, y: float, w: float, who: str, role: str = "") -> None:
    """A signature line with who signs below it and, when given, the role on a second line."""
    pdf.set_draw_color(0, 0, 0)
    pdf.line(x, y, x + w, y)
    fonts.use(8, bold=bool(role))
    pdf.set_xy(x, y + 1)
    pdf.cell(w, 4, fonts.text(who), align="C")
    if role:
        fonts.use(7.5)
        pdf.set_xy(x, y + 5)
        pdf.cell(w, 4, fonts.text(role), align="C")


def footer(pdf: FPDF, fonts: Fonts, text: str) -> None:
    """The footer line at the foot of the current page: it sits inside the bottom margin, so the
    automatic page break is held while it is written (else it would open a page of its own)."""
    breaks, margin = pdf.auto_page_break, pdf.b_margin
    pdf.set_auto_page_break(False)
    pdf.set_text_color(*GREY)
    fonts.use(7)
    pdf.set_xy(LEFT, 284)
    pdf.cell(WIDTH, 4, fonts.text(text), align="C")
    pdf.set_text_color(0, 0, 0)
    pdf.set_auto_page_break(breaks, margin=margin)
