"""What every document of the panel draws with: the house colours, the fonts and the QR code.

Fonts: DejaVu Sans when installed (accents), subset once per process
(:mod:`services.shared.pdf.fonts`), else Helvetica (Latin-1).
"""
from __future__ import annotations

import io
from pathlib import Path

import segno
from fpdf import FPDF

from services.shared.pdf import fonts as shared_fonts

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
BLUE = (31, 95, 139)
GREY = (90, 90, 90)


class Fonts:
    """DejaVu Sans when installed, else the core Helvetica; ``text`` keeps what the font can print."""

    def __init__(self, pdf: FPDF) -> None:
        files = shared_fonts.font_files({("DejaVu", ""): "DejaVuSans.ttf", ("DejaVu", "B"): "DejaVuSans-Bold.ttf"},
                                        FONT_DIR)
        if files is not None:
            shared_fonts.add_fonts(pdf, files)
            self.family, self.unicode = "DejaVu", True
        else:
            self.family, self.unicode = "Helvetica", False
        self.pdf = pdf

    def use(self, size: float, bold: bool = False) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", size)

    def text(self, value: str) -> str:
        if self.unicode:
            return shared_fonts.printable(value)
        return value.encode("latin-1", "replace").decode("latin-1")


def qr_png(url: str) -> io.BytesIO:
    """The QR code of ``url`` as a PNG (medium error correction, no border: the page gives it)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=10, border=0)
    buffer.seek(0)
    return buffer
