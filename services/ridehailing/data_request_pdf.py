"""The request for trip data delivered to a platform's electronic domicile (CG Decreto 06/2026 art. 11
caput and §2–3; MP Lei 1.552/2025 art. 4 caput and §2–3): A4, with the justification, the period asked
for, the instant of delivery and the 24-hour deadline, and how to answer (a signed file on the portal)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from fpdf import FPDF

from rules.fmt import day, moment
from services.shared.pdf import stamp as auth_stamp
from services.shared.pdf.letterhead import LEFT, WIDTH, Letterhead, box, footer, letterhead, signature, title
from services.shared.pdf.style import Fonts


@dataclass(frozen=True)
class DataRequestPrint:
    municipality_name: str
    secretariat: str
    municipality_address: str
    platform_name: str
    platform_cnpj: str
    justification: str
    period_from: date | None
    period_to: date | None
    delivered_at: datetime  # Cuiabá time
    deadline: datetime  # Cuiabá time
    legal_basis: str
    head: Letterhead | None = None


def _paragraph(pdf: FPDF, fonts: Fonts, text: str, bold: bool = False) -> None:
    fonts.use(10, bold=bold)
    pdf.set_x(LEFT)
    pdf.multi_cell(WIDTH, 5.4, fonts.text(text), align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)


def _period(data: DataRequestPrint) -> str:
    if data.period_from and data.period_to:
        return f"de {day(data.period_from)} a {day(data.period_to)}"
    if data.period_from:
        return f"a partir de {day(data.period_from)}"
    return f"até {day(data.period_to)}" if data.period_to else "o indicado na justificativa"


def render_data_request(data: DataRequestPrint, stamp: auth_stamp.Stamp | None = None) -> bytes:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(True, margin=28)  # the authentication stamp below
    pdf.set_margins(LEFT, 12, LEFT)
    pdf.add_page()
    fonts = Fonts(pdf)
    y = letterhead(pdf, fonts, data.municipality_name, data.secretariat, data.municipality_address, head=data.head)
    y = title(pdf, fonts, y + 2, "NOTIFICAÇÃO", "PEDIDO DE DADOS DE VIAGEM — PRAZO DE 24 HORAS")
    y += 3
    box(pdf, fonts, LEFT, y, 130, "Plataforma notificada", data.platform_name)
    box(pdf, fonts, LEFT + 130, y, 50, "CNPJ", data.platform_cnpj)
    y += 12
    box(pdf, fonts, LEFT, y, 90, "Entregue no domicílio eletrônico em", f"{moment(data.delivered_at)} (Cuiabá)")
    box(pdf, fonts, LEFT + 90, y, 90, "Prazo para a resposta", f"{moment(data.deadline)} (Cuiabá)")
    pdf.set_xy(LEFT, y + 16)
    _paragraph(pdf, fonts, (
        f"Com fundamento em {data.legal_basis}, a Prefeitura Municipal de {data.municipality_name} solicita à "
        "plataforma acima os dados das viagens realizadas no município (data, hora, origem e destino; duração e "
        "distância; mapa do trajeto; condutor e veículo; valor e sua composição; avaliação), "
        f"referentes ao período {_period(data)}."))
    _paragraph(pdf, fonts, f"Justificativa: {data.justification}")
    _paragraph(pdf, fonts, (
        "Prazo: 24 horas contadas da entrega desta notificação no domicílio eletrônico, até o horário indicado "
        "acima."), bold=True)
    _paragraph(pdf, fonts, (
        "Como responder: no portal de serviços da prefeitura, em «Pedidos de dados», a pessoa autorizada pela "
        "plataforma envia o arquivo assinado digitalmente com certificado ICP-Brasil — PDF com assinatura PAdES, "
        "ou CSV/XLSX acompanhado da assinatura destacada (.p7s). O painel verifica a assinatura e registra o "
        "horário do envio."))
    pdf.ln(4)
    head = data.head or Letterhead(data.municipality_name, data.secretariat)
    signature(pdf, fonts, LEFT + 52, max(pdf.get_y() + 20, 230), 76, head.signer_name or data.secretariat,
              (head.signer_role or data.secretariat) if head.signer_name else "")
    footer(pdf, fonts, "Pedido de dados de viagem · emitido pelo Painel Municipal")
    return bytes(pdf.output())
