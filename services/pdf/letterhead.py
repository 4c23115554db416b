"""The municipal letterhead and labelled boxes shared by the ride-hailing reports and notices."""
from __future__ import annotations

from fpdf import FPDF

from services.pdf.sticker import BLUE, GREY, Fonts

LEFT = 15.0
WIDTH = 180.0


def letterhead(pdf: FPDF, fonts: Fonts, municipality_name: str, secretariat: str, address: str,
               top: float = 12.0) -> float:
    """Municipality, secretariat and address centred from ``top``; returns the y below the rule."""
    pdf.set_text_color(*BLUE)
    fonts.use(15, bold=True)
    pdf.set_xy(LEFT, top)
    pdf.cell(WIDTH, 8, fonts.text(f"PREFEITURA DE {municipality_name.upper()}"), align="C")
    pdf.set_text_color(0, 0, 0)
    fonts.use(10)
    pdf.set_xy(LEFT, top + 8)
    pdf.cell(WIDTH, 5, fonts.text(secretariat), align="C")
    pdf.set_text_color(*GREY)
    fonts.use(8)
    pdf.set_xy(LEFT, top + 13)
    pdf.cell(WIDTH, 4, fonts.text(address), align="C")
    pdf.set_draw_color(*BLUE)
    pdf.set_line_width(0.6)
    pdf.line(LEFT, top + 19, LEFT + WIDTH, top + 19)
    pdf.set_line_width(0.2)
    pdf.set_text_color(0, 0, 0)
    return top + 23


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


def signature(pdf: FPDF, fonts: Fonts, x: float, y: float, w: float, who: str) -> None:
    pdf.set_draw_color(0, 0, 0)
    pdf.line(x, y, x + w, y)
    fonts.use(8)
    pdf.set_xy(x, y + 1)
    pdf.cell(w, 4, fonts.text(who), align="C")


def footer(pdf: FPDF, fonts: Fonts, text: str) -> None:
    pdf.set_text_color(*GREY)
    fonts.use(7)
    pdf.set_xy(LEFT, 284)
    pdf.cell(WIDTH, 4, fonts.text(text), align="C")
    pdf.set_text_color(0, 0, 0)
