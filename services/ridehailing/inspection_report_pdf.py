"""The vistoria report (laudo de vistoria) of a ride-hailing vehicle: A4.

Letterhead, the authorization and the vehicle, date, kind and inspector, the checklist of the
municipality's law (CG art. 14 I–IX; MP art. 14 §1) with each item's result and article, the result
approved or failed and, when failed, the pendências and the 5-day deadline to fix them with the
service suspended meanwhile (CG art. 17 §2; MP art. 15 §2).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from fpdf import FPDF
from fpdf.fonts import FontFace

from rules.fmt import day
from services.shared.pdf import stamp as auth_stamp
from services.shared.pdf.letterhead import (
    LEFT,
    WIDTH,
    Letterhead,
    box,
    footer,
    letterhead,
    signature,
    title,
)
from services.shared.pdf.style import GREY, Fonts

GREEN = (27, 122, 62)
RED = (178, 34, 34)
RESULTS = {True: "Conforme", False: "Não conforme", None: "Não verificado"}


@dataclass(frozen=True)
class ChecklistLine:
    code: str
    text: str
    ok: bool | None
    reference: str


@dataclass(frozen=True)
class InspectionReportPrint:
    municipality_name: str
    secretariat: str
    municipality_address: str
    act: str
    authorization: str
    protocol: str
    driver_name: str
    driver_cpf: str
    plate: str
    vehicle: str
    renavam: str
    kind: str
    performed_on: date
    inspector: str
    items: tuple[ChecklistLine, ...]
    approved: bool
    pendings: tuple[str, ...]
    fix_deadline: date | None
    fix_reference: str
    notes: str
    head: Letterhead | None = None


def _checklist(pdf: FPDF, fonts: Fonts, items: tuple[ChecklistLine, ...]) -> None:
    fonts.use(8)
    heading = FontFace(emphasis="BOLD", fill_color=(225, 233, 240))
    with pdf.table(col_widths=(12, 88, 24, 56), text_align=("CENTER", "LEFT", "CENTER", "LEFT"),
                   headings_style=heading, line_height=3.6, padding=0.9, width=WIDTH) as table:
        table.row([fonts.text(t) for t in ("Item", "Exigência", "Resultado", "Fundamento legal")])
        for item in items:
            colour = GREEN if item.ok else RED
            row = table.row()
            row.cell(fonts.text(item.code))
            row.cell(fonts.text(item.text))
            row.cell(fonts.text(RESULTS[item.ok]), style=FontFace(emphasis="BOLD", color=colour))
            row.cell(fonts.text(item.reference))


def render_inspection_report(data: InspectionReportPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(True, margin=28)  # the authentication stamp below
    pdf.set_margins(LEFT, 12, LEFT)
    pdf.add_page()
    fonts = Fonts(pdf)
    y = letterhead(pdf, fonts, data.municipality_name, data.secretariat, data.municipality_address,
                   head=data.head)
    y = title(pdf, fonts, y + 1, "LAUDO DE VISTORIA VEICULAR",
              "TRANSPORTE REMUNERADO PRIVADO INDIVIDUAL POR APLICATIVO")
    fonts.use(8)
    pdf.set_text_color(*GREY)
    pdf.set_xy(LEFT, y - 1)
    pdf.cell(WIDTH, 4, fonts.text(f"Checklist de {data.act}"), align="C")
    pdf.set_text_color(0, 0, 0)
    y += 5
    box(pdf, fonts, LEFT, y, 90, "Autorização", data.authorization)
    box(pdf, fonts, LEFT + 90, y, 90, "Protocolo do requerimento", data.protocol)
    y += 12
    box(pdf, fonts, LEFT, y, 130, "Condutor", data.driver_name)
    box(pdf, fonts, LEFT + 130, y, 50, "CPF", data.driver_cpf)
    y += 12
    box(pdf, fonts, LEFT, y, 90, "Veículo", data.vehicle)
    box(pdf, fonts, LEFT + 90, y, 40, "Placa", data.plate)
    box(pdf, fonts, LEFT + 130, y, 50, "RENAVAM", data.renavam)
    y += 12
    box(pdf, fonts, LEFT, y, 60, "Vistoria", data.kind)
    box(pdf, fonts, LEFT + 60, y, 40, "Data", day(data.performed_on))
    box(pdf, fonts, LEFT + 100, y, 80, "Vistoriador", data.inspector or "—")
    pdf.set_xy(LEFT, y + 16)
    _checklist(pdf, fonts, data.items)
    pdf.ln(4)
    fonts.use(12, bold=True)
    pdf.set_fill_color(*(GREEN if data.approved else RED))
    pdf.set_text_color(255, 255, 255)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 9, fonts.text("RESULTADO: " + ("APROVADO" if data.approved else "REPROVADO")), align="C",
             fill=True, new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)
    pdf.ln(2)
    if not data.approved:
        fonts.use(10, bold=True)
        pdf.cell(WIDTH, 6, fonts.text("Pendências a sanar"), new_x="LMARGIN", new_y="NEXT")
        fonts.use(9)
        for pending in data.pendings:
            pdf.multi_cell(WIDTH, 4.8, fonts.text(f"• {pending}"), align="L", new_x="LMARGIN", new_y="NEXT")
        fonts.use(10, bold=True)
        pdf.ln(1)
        pdf.multi_cell(WIDTH, 5.2, fonts.text(
            f"Prazo para sanar as pendências: até {day(data.fix_deadline)} (5 dias). Até a aprovação em nova "
            f"vistoria o veículo não pode realizar o serviço ({data.fix_reference})."),
            align="L", new_x="LMARGIN", new_y="NEXT")
    if data.notes:
        fonts.use(9)
        pdf.ln(1)
        pdf.multi_cell(WIDTH, 4.8, fonts.text(f"Observações: {data.notes}"), new_x="LMARGIN", new_y="NEXT")
    y = max(pdf.get_y() + 10, 252)
    if y > 265:  # the names below the lines end above the authentication stamp
        pdf.add_page()
        y = 40
    pdf.set_auto_page_break(False)
    signature(pdf, fonts, LEFT + 5, y, 75, f"Vistoriador: {data.inspector or ''}".strip())
    signature(pdf, fonts, LEFT + 100, y, 75, f"Condutor (ciente): {data.driver_name}")
    footer(pdf, fonts, f"{data.municipality_name}, {day(data.performed_on)} · Laudo emitido pelo Painel Municipal")
    return bytes(pdf.output())
