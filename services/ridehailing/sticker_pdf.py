"""The vehicle sticker of the ride-hailing authorization (CG art. 15; MP art. 13).

A 100 × 140 mm card to fix inside the vehicle: municipality, authorization number, plate,
validity, the ouvidoria phone and a QR code (segno) with the signed public-check link, whose text
is printed under it for whoever cannot scan. Fonts and QR code: :mod:`services.shared.pdf.style`.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date

from fpdf import FPDF

from rules.fmt import day
from services.shared.pdf.stamp import Stamp
from services.shared.pdf.stamp import draw as draw_stamp
from services.shared.pdf.style import BLUE, GREY, Fonts, qr_png


@dataclass(frozen=True)
class StickerPrint:
    municipality_name: str
    secretariat: str
    act: str
    number: str
    plate: str
    vehicle: str
    valid_until: date
    ouvidoria_phone: str
    check_url: str
    coat_of_arms: bytes | None = None  # PNG/JPEG uploaded by TI; the band is plain without it


def render_sticker(data: StickerPrint, stamp: Stamp | None = None) -> bytes:
    """The sticker; ``stamp`` (the document's authentication code) above the Ouvidoria band."""
    pdf = FPDF(unit="mm", format=(100, 140))
    pdf.set_auto_page_break(False)
    pdf.set_margins(6, 6, 6)
    pdf.add_page()
    fonts = Fonts(pdf)
    width = 88
    pdf.set_fill_color(*BLUE)
    pdf.rect(0, 0, 100, 24, style="F")
    if data.coat_of_arms:
        pdf.set_fill_color(255, 255, 255)
        pdf.rect(3, 3, 18, 18, style="F")
        pdf.image(io.BytesIO(data.coat_of_arms), x=4, y=4, w=16, h=16, keep_aspect_ratio=True)
        pdf.set_fill_color(*BLUE)
    left, inner = (22, 76) if data.coat_of_arms else (6, width)
    pdf.set_text_color(255, 255, 255)
    fonts.use(6)
    pdf.set_xy(left, 2.5)
    pdf.cell(inner, 3, fonts.text("ESTADO DE MATO GROSSO"), align="C")
    prefeitura, size = fonts.text(f"PREFEITURA MUNICIPAL DE {data.municipality_name.upper()}"), 8.0
    fonts.use(size)
    while size > 5 and pdf.get_string_width(prefeitura) > inner - 1:
        size -= 0.25
        fonts.use(size)
    pdf.set_xy(left, 5.5)
    pdf.cell(inner, 4, prefeitura, align="C")
    fonts.use(11, bold=True)
    pdf.set_xy(left, 10)
    pdf.cell(inner, 6, fonts.text("TRANSPORTE POR APLICATIVO"), align="C")
    fonts.use(7)
    pdf.set_xy(left, 16.5)
    pdf.multi_cell(inner, 3, fonts.text("Veículo autorizado · " + data.act), align="C")
    pdf.set_text_color(0, 0, 0)
    fonts.use(8)
    pdf.set_xy(6, 28)
    pdf.cell(width, 4, fonts.text("AUTORIZAÇÃO Nº"), align="C")
    fonts.use(22, bold=True)
    pdf.set_xy(6, 32)
    pdf.cell(width, 10, fonts.text(data.number), align="C")
    fonts.use(8)
    pdf.set_xy(6, 44)
    pdf.cell(width / 2, 4, fonts.text("PLACA"), align="C")
    pdf.cell(width / 2, 4, fonts.text("VÁLIDA ATÉ"), align="C")
    fonts.use(15, bold=True)
    pdf.set_xy(6, 48)
    pdf.cell(width / 2, 8, fonts.text(data.plate), align="C")
    pdf.cell(width / 2, 8, fonts.text(day(data.valid_until)), align="C")
    fonts.use(8)
    pdf.set_xy(6, 57)
    pdf.cell(width, 4, fonts.text(data.vehicle), align="C")
    qr_size = 38
    pdf.image(qr_png(data.check_url), x=(100 - qr_size) / 2, y=63, w=qr_size, h=qr_size)
    fonts.use(8, bold=True)
    pdf.set_xy(6, 102.5)
    pdf.cell(width, 4, fonts.text("Confira a autorização: aponte a câmera para o código"), align="C")
    pdf.set_text_color(*GREY)
    fonts.use(5)
    pdf.set_xy(6, 107)
    pdf.multi_cell(width, 2.4, fonts.text(data.check_url), align="C")
    pdf.set_fill_color(*BLUE)
    pdf.rect(0, 127, 100, 13, style="F")
    pdf.set_text_color(255, 255, 255)
    fonts.use(8)
    pdf.set_xy(6, 128)
    pdf.cell(width, 4, fonts.text("Reclamações e denúncias — Ouvidoria"), align="C")
    fonts.use(13, bold=True)
    pdf.set_xy(6, 132.5)
    pdf.cell(width, 6, fonts.text(data.ouvidoria_phone), align="C")
    draw_stamp(pdf, stamp)
    return bytes(pdf.output())
