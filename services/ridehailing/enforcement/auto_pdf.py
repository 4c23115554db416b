"""Documents of an auto de infração: the auto with the offender's copy (CG art. 22; MP art. 18), the
notification to the offender or the platform (CG art. 25 caput; MP art. 21–22) and the case file,
one PDF of the whole process with a page index, for an auditor or a court.

Each builder takes plain values (``AutoPrint``, ``Section``) and returns the PDF's bytes; the
municipal letterhead is the one of the other ride-hailing documents.
"""
from __future__ import annotations

from dataclasses import dataclass

from fpdf import FPDF

from services.shared.pdf import stamp as auth_stamp
from services.shared.pdf.letterhead import (
    LEFT,
    WIDTH,
    Letterhead,
    footer,
    letterhead,
    signature,
    title,
)
from services.shared.pdf.style import GREY, Fonts


@dataclass(frozen=True)
class Section:
    """A block of the document: label/value rows, then paragraphs. In the case file a ``piece`` starts
    a page and an entry of the index; other sections follow the piece before them."""

    title: str
    rows: tuple[tuple[str, str], ...] = ()
    paragraphs: tuple[str, ...] = ()
    piece: bool = True


@dataclass(frozen=True)
class AutoPrint:
    municipality_name: str
    secretariat: str
    municipality_address: str
    number: str
    act: str
    sections: tuple[Section, ...]
    head: Letterhead | None = None  # coat of arms, CNPJ (services.shared.municipalities.letterhead)


@dataclass(frozen=True)
class NoticePrint:
    auto: AutoPrint
    recipient: str  # "condutor" / "plataforma"
    recipient_name: str
    recipient_document: str
    recipient_address: str
    body: tuple[str, ...]
    title: str = ""  # the heading; the auto's notification by default


def _new(data: AutoPrint, stamp: auth_stamp.Stamp | None) -> tuple[FPDF, Fonts]:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_margins(LEFT, 12, LEFT)
    pdf.set_auto_page_break(True, margin=28)  # the authentication stamp below
    fonts = Fonts(pdf)
    return pdf, fonts


def _page(pdf: FPDF, fonts: Fonts, data: AutoPrint, *lines: str) -> None:
    pdf.add_page()
    y = letterhead(pdf, fonts, data.municipality_name, data.secretariat, data.municipality_address,
                   head=data.head)
    y = title(pdf, fonts, y + 1, *lines)
    pdf.set_xy(LEFT, y)


def _section(pdf: FPDF, fonts: Fonts, section: Section) -> None:
    if pdf.get_y() > 240:
        pdf.add_page()
    fonts.use(10.5, bold=True)
    pdf.set_fill_color(230, 236, 245)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 6.5, fonts.text(section.title.upper()), fill=True, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(1)
    for label, value in section.rows:
        fonts.use(8.5, bold=True)
        pdf.set_x(LEFT)
        pdf.set_text_color(*GREY)
        pdf.cell(52, 5, fonts.text(label))
        pdf.set_text_color(0, 0, 0)
        fonts.use(9.5)
        pdf.multi_cell(WIDTH - 52, 5, fonts.text(value or "—"), new_x="LMARGIN", new_y="NEXT")
    for text in section.paragraphs:
        fonts.use(9.5)
        pdf.set_x(LEFT)
        pdf.multi_cell(WIDTH, 5, fonts.text(text), align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def _footers(pdf: FPDF, fonts: Fonts, text: str) -> None:
    pdf.set_auto_page_break(False)
    total = pdf.page
    for page in range(1, total + 1):
        pdf.page = page
        fonts.use(9)  # a page revisited has no font selected in its content yet: select it anew
        footer(pdf, fonts, f"{text} · página {page} de {total}")
    pdf.page = total


def render_auto(data: AutoPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The auto in two copies: the process's and the offender's (CG art. 22; MP art. 18)."""
    pdf, fonts = _new(data, stamp)
    for copy in ("VIA DO PROCESSO ADMINISTRATIVO", "VIA DO AUTUADO"):
        _page(pdf, fonts, data, f"AUTO DE INFRAÇÃO Nº {data.number}", copy)
        for section in data.sections:
            _section(pdf, fonts, section)
        y = max(pdf.get_y() + 16, 246)
        if y > 259:
            pdf.add_page()
            y = 40
        signature(pdf, fonts, LEFT + 2, y, 80, "Agente fiscalizador (matrícula)")
        signature(pdf, fonts, LEFT + 98, y, 80, "Ciente do autuado — data: ____/____/______")
    _footers(pdf, fonts, f"Auto de infração {data.number} · {data.act} · emitido pelo Painel Municipal")
    return bytes(pdf.output())


def render_notification(data: NoticePrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The notification of the auto to the offender or to the platform (CG art. 25; MP art. 21–22)."""
    pdf, fonts = _new(data.auto, stamp)
    _page(pdf, fonts, data.auto, data.title or f"NOTIFICAÇÃO DO AUTO DE INFRAÇÃO Nº {data.auto.number}",
          f"À {data.recipient.upper()}" if data.recipient == "plataforma" else f"AO {data.recipient.upper()}")
    _section(pdf, fonts, Section("Notificado", (("Nome", data.recipient_name), ("CPF/CNPJ", data.recipient_document),
                                                ("Endereço", data.recipient_address))))
    for section in data.auto.sections[:2]:
        _section(pdf, fonts, section)
    for text in data.body:
        fonts.use(10)
        pdf.set_x(LEFT)
        pdf.multi_cell(WIDTH, 5.4, fonts.text(text), align="J", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    y = max(pdf.get_y() + 18, 245)
    if y > 259:
        pdf.add_page()
        y = 40
    signature(pdf, fonts, LEFT + 2, y, 80, data.auto.secretariat)
    signature(pdf, fonts, LEFT + 98, y, 80, "Recebido em ____/____/______ — assinatura")
    _footers(pdf, fonts, f"Notificação do auto {data.auto.number} · {data.auto.act}")
    return bytes(pdf.output())


def _index(pdf: FPDF, fonts: Fonts, outline: list) -> None:
    # the index is drawn last, in the graphics state of its placeholder: select the font anew
    fonts.use(9)
    fonts.use(13, bold=True)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 8, fonts.text("ÍNDICE DAS PEÇAS"), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    for entry in outline:
        fonts.use(10)
        pdf.set_x(LEFT)
        name = fonts.text(entry.name)
        pdf.cell(WIDTH - 25, 6.5, name)
        pdf.cell(25, 6.5, fonts.text(f"página {entry.page_number}"), align="R", new_x="LMARGIN", new_y="NEXT")


def render_case_file(data: AutoPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    """The whole process in one PDF: a page index, then every piece (auto, notifications and receipts,
    juntada, defence, decision, appeal, penalties, DAM and payment) with its dates and articles."""
    pdf, fonts = _new(data, stamp)
    _page(pdf, fonts, data, f"PROCESSO ADMINISTRATIVO — AUTO DE INFRAÇÃO Nº {data.number}", data.act)
    pdf.insert_toc_placeholder(lambda doc, outline: _index(doc, fonts, outline), pages=1)
    for number, section in enumerate(data.sections):
        if section.piece:
            if number:
                pdf.add_page()
            pdf.start_section(fonts.text(section.title))
            y = letterhead(pdf, fonts, data.municipality_name, data.secretariat, data.municipality_address,
                   head=data.head)
            pdf.set_xy(LEFT, y + 1)
        _section(pdf, fonts, section)
    _footers(pdf, fonts, f"Processo do auto {data.number} · {data.act} · gerado pelo Painel Municipal")
    return bytes(pdf.output())
