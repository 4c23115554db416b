"""The edital de notificação as a PDF on the municipal letterhead: the same text as the plain one the clerk
pastes into the Diário Oficial dos Municípios (``rules.edital.edital_lines``), the autos as a table, the
signer's line (CG Decreto 06/2026 art. 25 §1 II; MP Lei 1.552/2025 art. 21 §1)."""
from __future__ import annotations

from pymongo.database import Database

from rules import edital as edital_rules
from rules.fmt import day
from services.ridehailing.enforcement import editais
from services.ridehailing.enforcement.auto_pdf import AutoPrint, _footers, _new, _page
from services.shared import authenticity, municipalities
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.pdf.letterhead import LEFT, WIDTH, signature

COLUMNS = ((24, "Auto nº"), (22, "Lavrado em"), (34, "Infração"), (72, "Autuado"), (0, "CPF/CNPJ"))


@checked
def edital_pdf(db: Database, actor: Actor, municipality: str, edital_id: str) -> bytes:
    """The edital's PDF (two pages at most for a few dozen autos)."""
    authorize(actor, "read", municipality)
    edital = editais._load(db, municipality, edital_id)
    data = editais.text_of(db, municipality, edital)
    town = municipalities.get(db, municipality)
    head = AutoPrint(town.name, town.secretariat, town.address, edital["number"], data.act, (),
                     head=municipalities.letterhead(db, municipality))
    item = authenticity.Item("edital", edital["number"], (editais.COLLECTION, edital_id), (data, edital["number"]))
    return authenticity.issue(db, actor, municipality, item, lambda stamp: _render(head, data, edital, stamp))


def _render(head: AutoPrint, data, edital: dict, stamp) -> bytes:
    pdf, fonts = _new(head, stamp)
    _page(pdf, fonts, head, f"EDITAL DE NOTIFICAÇÃO Nº {edital['number']}")
    lines = edital_rules.edital_lines(data)
    table_at = lines.index("AUTO Nº | LAVRADO EM | INFRAÇÃO | AUTUADO | CPF/CNPJ")
    for text in lines[6:table_at]:  # after the heading and the number, which the letterhead and title carry
        _paragraph(pdf, fonts, text)
    widths = [w or WIDTH - sum(x for x, _ in COLUMNS) for w, _ in COLUMNS]
    fonts.use(8, bold=True)
    pdf.set_fill_color(230, 236, 245)
    pdf.set_x(LEFT)
    for w, (_, label) in zip(widths, COLUMNS):
        pdf.cell(w, 6, fonts.text(label), border=1, fill=True)
    pdf.ln(6)
    fonts.use(8)
    for line in data.lines:
        pdf.set_x(LEFT)
        values = (line.number, day(line.auto_on), edital_rules.article(line.infraction, data.act), line.name,
                  line.document or "—")
        for w, value in zip(widths, values):
            pdf.cell(w, 6, fonts.text(_fit(pdf, value, w)), border=1)
        pdf.ln(6)
    pdf.ln(3)
    closing = lines[table_at + 1 + len(data.lines):]
    for text in closing[:-2]:
        _paragraph(pdf, fonts, text)
    y = max(pdf.get_y() + 14, 230)
    if y > 248:  # the signature stays above the authentication stamp
        pdf.add_page()
        y = 40
    signature(pdf, fonts, LEFT + 45, y, 90, data.signer_name, data.signer_role)
    _footers(pdf, fonts, f"Edital de notificação {edital['number']} · {data.act}")
    return bytes(pdf.output())


def _paragraph(pdf, fonts, text: str) -> None:
    if not text:
        pdf.ln(2)
        return
    fonts.use(10)
    pdf.set_x(LEFT)
    pdf.multi_cell(WIDTH, 5.4, fonts.text(text), align="J", new_x="LMARGIN", new_y="NEXT")


def _fit(pdf, value: str, width: float) -> str:
    """The value cut with an ellipsis to fit its column."""
    text = str(value)
    while text and pdf.get_string_width(text) > width - 2:
        text = text[:-2] + "…"
    return text
