"""The authentication stamp every PDF of the panel carries, in the same place on every page: a band at
the foot of the page, above the footer line, with the QR code of the public verification link at the
left and, beside it, "Documento emitido pelo Painel Municipal. Confira a autenticidade em <url> com o
código XXXX-XXXX-XXXX." (and "2ª via de <código>" when the document supersedes another).

The code and the link come from ``services.shared.authenticity`` (:class:`Stamp`); a renderer draws the
stamp on each page it closes with :func:`attach` (the page's footer hook), or on the page it is drawing
with :func:`draw` (a batch of DAMs, one stamp per page). The band is :data:`BAND` mm tall and ends
:data:`BOTTOM` mm above the page's lower edge; a document keeps its content above
:func:`top` of its page. The text is in the core Helvetica (Latin-1 is enough for it: nothing to embed).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the panel's start names a Stamp without loading the PDF libraries
    from fpdf import FPDF

BAND = 12.0      # mm: the QR's side and the band's height
BOTTOM = 14.0    # mm from the lower edge of the page to the band's foot (the footer line sits below it)
GREY = (70, 70, 70)


@dataclass(frozen=True)
class Stamp:
    """What the stamp prints: the code, the page to confer it at and the QR's link (with the code)."""

    code: str          # "ABCD-EFGH-JKLM"
    page_url: str      # "https://painel.exemplo.mt.gov.br/verificar"
    link: str          # page_url + "?codigo=ABCDEFGHJKLM"
    via: str = ""      # "2ª via de WXYZ-..." when it supersedes an earlier issue

    @property
    def text(self) -> str:
        return " ".join(self.lines())

    def lines(self, narrow: bool = False) -> list[str]:
        """The text in the lines it is printed on (``narrow``: the sticker's 100 mm)."""
        lead = [f"{self.via}."] if self.via else []
        if narrow:
            return [*lead, "Documento emitido pelo Painel Municipal.", "Confira a autenticidade em",
                    self.page_url, f"com o código {self.code}."]
        return [*lead, "Documento emitido pelo Painel Municipal.",
                f"Confira a autenticidade em {self.page_url} com o código {self.code}."]


def top(pdf: FPDF) -> float:
    """The y (mm) where the stamp's band begins on a page of ``pdf``: content stays above it."""
    return pdf.h - BOTTOM - BAND


def qr_code(pdf: FPDF, payload: str, x: float, y: float, side: float) -> None:
    """The QR code of ``payload`` (medium error correction, no border: the page gives it) as filled
    squares, one filled rectangle per run of dark modules in a row (sharp at any print resolution), the
    operators written at once in their own graphics state (a batch of 500 DAMs draws two per page: a
    ``pdf.rect`` call per run cost about a tenth of the page). The mask is fixed (any of the eight is valid QR; choosing the best one
    only costs time)."""
    import segno  # here: the panel's start imports this module without drawing anything

    qr = segno.make(payload, error="m", micro=False, mask=0)
    rows = list(qr.matrix)
    k, module = pdf.k, side / len(rows)
    top_pt, height = pdf.h * k, module * k
    ops = ["q 0 g"]
    for row_number, row in enumerate(rows):
        start = None
        base = top_pt - (y + row_number * module) * k
        for column, dark in enumerate([*row, 0]):
            if dark and start is None:
                start = column
            elif not dark and start is not None:
                ops.append(f"{(x + start * module) * k:.2f} {base:.2f} {(column - start) * module * k:.2f} "
                           f"{-height:.2f} re f")  # each run filled on its own, as pdf.rect does
                start = None
    ops.append("Q")
    pdf._out("\n".join(ops))  # noqa: SLF001 — fpdf2's writer of raw page content (pinned version)


def draw(pdf: FPDF, stamp: Stamp | None) -> None:
    """The stamp on the current page of ``pdf`` (nothing when ``stamp`` is None): the QR and three lines
    written with ``pdf.text`` (no line breaking to compute)."""
    if stamp is None:
        return
    left = max(pdf.l_margin, 5.0)
    y = top(pdf)
    qr_code(pdf, stamp.link, left, y, BAND)
    small = pdf.w < 150  # the sticker
    size = 5.5 if small else 6.5
    lines = stamp.lines(narrow=small)
    pdf.set_font("Helvetica", "", size)
    pdf.set_text_color(*GREY)
    step = size * 0.45
    first = y + (BAND - step * len(lines)) / 2 + step * 0.8
    for number, line in enumerate(lines):
        pdf.text(left + BAND + 2.5, first + number * step, line.encode("latin-1", "replace").decode("latin-1"))
    pdf.set_text_color(0, 0, 0)


def attach(pdf: FPDF, stamp: Stamp | None) -> None:
    """Draw ``stamp`` on every page of ``pdf`` as the page is closed (fpdf2's footer hook, so also on the
    pages an automatic page break opens)."""
    if stamp is not None:
        pdf.footer = lambda: draw(pdf, stamp)
