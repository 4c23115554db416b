"""The ride-hailing authorization certificate (alvará): A4, who, which vehicle, number and validity.

Carries the legal basis of the municipality's act, the fee payment that issued it and the same
QR code with the signed public-check link as the sticker. The letterhead (coat of arms, CNPJ) and
the signer's name and role come from ``head`` (``services.shared.municipalities.letterhead``); without a
signer set, the line under the signature names the secretariat only.
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
    letterhead,
    signature,
)
from services.shared.pdf.style import BLUE, GREY, Fonts, qr_png


@dataclass(frozen=True)
class CertificatePrint:
    municipality_name: str
    secretariat: str
    municipality_address: str
    act: str
    legal_basis: str
    number: str
    protocol: str
    issued_on: date
    valid_until: date
    driver_name: str
    driver_cpf: str
    cnh: str
    plate: str
    vehicle: str
    renavam: str
    holder: str
    check_url: str
    head: Letterhead | None = None


def _field(pdf: FPDF, fonts: Fonts, x: float, y: float, w: float, label: str, value: str) -> None:
    box(pdf, fonts, x, y, w, label, value, size=11, height=13)


def render_certificate(data: CertificatePrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(False)
    pdf.add_page()
    fonts = Fonts(pdf)
    y = letterhead(pdf, fonts, data.municipality_name, data.secretariat, data.municipality_address, top=12,
                   head=data.head)
    fonts.use(14, bold=True)
    pdf.set_xy(LEFT, y + 2)
    pdf.cell(WIDTH, 7, fonts.text("AUTORIZAÇÃO PARA TRANSPORTE REMUNERADO PRIVADO"), align="C")
    pdf.set_xy(LEFT, y + 9)
    pdf.cell(WIDTH, 7, fonts.text("INDIVIDUAL DE PASSAGEIROS POR APLICATIVO"), align="C")
    fonts.use(12, bold=True)
    pdf.set_text_color(*BLUE)
    pdf.set_xy(LEFT, y + 18)
    pdf.cell(WIDTH, 7, fonts.text(f"Nº {data.number}"), align="C")
    pdf.set_text_color(0, 0, 0)
    fonts.use(10)
    pdf.set_xy(LEFT, y + 30)
    pdf.multi_cell(WIDTH, 5.5, fonts.text(
        f"A Prefeitura Municipal de {data.municipality_name}, com fundamento em {data.act}, AUTORIZA o condutor "
        f"abaixo identificado a prestar o serviço de transporte remunerado privado individual de passageiros "
        f"por meio de plataforma tecnológica, com o veículo descrito, no período de validade indicado, "
        f"observadas as obrigações do ato regulamentar."), align="J")
    y = 108
    _field(pdf, fonts, LEFT, y, 120, "Condutor", data.driver_name)
    _field(pdf, fonts, LEFT + 120, y, 60, "CPF", data.driver_cpf)
    y += 13
    _field(pdf, fonts, LEFT, y, 90, "CNH", data.cnh)
    _field(pdf, fonts, LEFT + 90, y, 90, "Protocolo do requerimento", data.protocol)
    y += 13
    _field(pdf, fonts, LEFT, y, 120, "Veículo", data.vehicle)
    _field(pdf, fonts, LEFT + 120, y, 60, "Placa", data.plate)
    y += 13
    _field(pdf, fonts, LEFT, y, 60, "RENAVAM", data.renavam)
    _field(pdf, fonts, LEFT + 60, y, 120, "Vínculo com o veículo", data.holder)
    y += 13
    _field(pdf, fonts, LEFT, y, 90, "Expedida em", day(data.issued_on))
    _field(pdf, fonts, LEFT + 90, y, 90, "Válida até", day(data.valid_until))
    y += 22
    fonts.use(8)
    pdf.set_text_color(*GREY)
    pdf.set_xy(LEFT, y)
    pdf.multi_cell(125, 4.2, fonts.text(
        f"Validade: {data.legal_basis}. O veículo deve portar o selo de identificação com o número desta "
        f"autorização. A vistoria é anual e a alteração de dados cadastrais deve ser comunicada em até 7 dias. "
        f"Confira a situação atualizada pelo QR Code ao lado ou pelo endereço:"))
    fonts.use(6)
    pdf.set_x(LEFT)
    pdf.multi_cell(125, 3, fonts.text(data.check_url))
    pdf.image(qr_png(data.check_url), x=LEFT + WIDTH - 40, y=y, w=40, h=40)
    pdf.set_text_color(0, 0, 0)
    fonts.use(10)
    pdf.set_xy(LEFT, 238)
    pdf.cell(WIDTH, 5, fonts.text(f"{data.municipality_name}, {day(data.issued_on)}."), align="C")
    head = data.head or Letterhead(data.municipality_name, data.secretariat)
    if head.signer_name:
        signature(pdf, fonts, LEFT + 45, 255, 90, head.signer_name, head.signer_role or data.secretariat)
    else:
        signature(pdf, fonts, LEFT + 45, 255, 90, data.secretariat)
    pdf.set_text_color(*GREY)
    fonts.use(7)
    pdf.set_xy(LEFT, 284)
    pdf.cell(WIDTH, 4, fonts.text("A situação da autorização se confere pelo QR Code grande; a autenticidade deste "
                                  "documento, pelo código acima."), align="C")
    return bytes(pdf.output())
