"""The notice of an extraordinary vistoria convocation (CG art. 17 §1; MP art. 15 §1): A4.

Addressed to the driver, with a copy to the platform he works for: the vehicle and authorization,
the reason, the last day to present the vehicle and where, and the warning that not attending is an
infraction (CG art. 29 I; MP art. 26 I). Two signature lines for the receipt.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from fpdf import FPDF

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
from services.shared.pdf.style import Fonts


@dataclass(frozen=True)
class ConvocationNoticePrint:
    municipality_name: str
    secretariat: str
    municipality_address: str
    number: str
    called_on: date
    deadline: date
    days: int
    reason: str
    legal_basis: str
    driver_name: str
    driver_cpf: str
    driver_address: str
    authorization: str
    plate: str
    vehicle: str
    copies: tuple[str, ...]
    head: Letterhead | None = None


def _paragraph(pdf: FPDF, fonts: Fonts, text: str, size: float = 10, bold: bool = False) -> None:
    fonts.use(size, bold=bold)
    pdf.set_x(LEFT)
    pdf.multi_cell(WIDTH, 5.4, fonts.text(text), align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)


def render_convocation_notice(data: ConvocationNoticePrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(False)
    pdf.set_margins(LEFT, 12, LEFT)
    pdf.add_page()
    fonts = Fonts(pdf)
    y = letterhead(pdf, fonts, data.municipality_name, data.secretariat, data.municipality_address,
                   head=data.head)
    y = title(pdf, fonts, y + 2, f"NOTIFICAÇÃO Nº {data.number}", "CONVOCAÇÃO PARA VISTORIA EXTRAORDINÁRIA")
    y += 3
    box(pdf, fonts, LEFT, y, 130, "Notificado (condutor)", data.driver_name)
    box(pdf, fonts, LEFT + 130, y, 50, "CPF", data.driver_cpf)
    y += 12
    box(pdf, fonts, LEFT, y, 180, "Endereço", data.driver_address, size=9)
    y += 12
    box(pdf, fonts, LEFT, y, 60, "Autorização", data.authorization)
    box(pdf, fonts, LEFT + 60, y, 40, "Placa", data.plate)
    box(pdf, fonts, LEFT + 100, y, 80, "Veículo", data.vehicle)
    pdf.set_xy(LEFT, y + 19)
    _paragraph(pdf, fonts, (
        f"Com fundamento em {data.legal_basis}, a Prefeitura Municipal de {data.municipality_name} CONVOCA o condutor "
        f"acima identificado a apresentar o veículo de placa {data.plate} para VISTORIA EXTRAORDINÁRIA."))
    _paragraph(pdf, fonts, f"Motivo da convocação: {data.reason or 'a critério da Secretaria'}.")
    _paragraph(pdf, fonts, (
        f"Prazo para comparecimento: até {day(data.deadline)} ({data.days} dias contados de {day(data.called_on)}, "
        f"prorrogado para o primeiro dia útil quando vencer em dia sem expediente), no horário de expediente, "
        f"em {data.secretariat} — {data.municipality_address}."), bold=True)
    _paragraph(pdf, fonts, (
        "Deixar de atender à convocação para vistoria no prazo constitui infração administrativa, sujeita às "
        f"penalidades do ato regulamentar ({data.legal_basis}). Apresente este documento, a CNH e o CRLV do "
        "veículo no ato da vistoria."))
    fonts.use(10, bold=True)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 6, fonts.text("Cópia para ciência da plataforma:"), new_x="LMARGIN", new_y="NEXT")
    fonts.use(10)
    for copy in data.copies:
        pdf.set_x(LEFT)
        pdf.multi_cell(WIDTH, 5.2, fonts.text(f"• {copy}"), align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    fonts.use(10)
    pdf.set_x(LEFT)
    pdf.cell(WIDTH, 5, fonts.text(f"{data.municipality_name}, {day(data.called_on)}."), align="R")
    y = max(pdf.get_y() + 26, 235)
    head = data.head or Letterhead(data.municipality_name, data.secretariat)
    signature(pdf, fonts, LEFT + 52, y, 76, head.signer_name or data.secretariat,
              (head.signer_role or data.secretariat) if head.signer_name else "")
    signature(pdf, fonts, LEFT + 5, y + 24, 76, "Ciente do condutor — data: ____/____/______")
    signature(pdf, fonts, LEFT + 100, y + 24, 75, "Recebido pela plataforma — data: ____/____/______")
    footer(pdf, fonts, f"Notificação {data.number} · emitida pelo Painel Municipal")
    return bytes(pdf.output())
