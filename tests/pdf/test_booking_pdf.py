"""Booking documents of Nova Lacerda as a reader sees them (pypdf text; pdftoppm renders a page)."""
from __future__ import annotations

import io
import shutil
import subprocess

import pytest
from pypdf import PdfReader

from services.machinery.booking_pdf import (
    render_quote,
    render_receipt,
    render_service_order,
    render_statement,
    render_week_board,
)
from tests.pdf.booking_data import BPC_FAMILY, WEEK


def text(pdf: bytes) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def test_quote_shows_each_line_the_discount_and_its_evidence_and_the_table():
    shown = text(render_quote(BPC_FAMILY))
    assert "PREFEITURA MUNICIPAL DE NOVA LACERDA" in shown and "ORÇAMENTO" in shown and "0007/2026" in shown
    assert "R$ 150,00" in shown and "R$ 750,00" in shown and "R$ 525,00" in shown and "total R$ 225,00" in shown
    assert "Benefício de Prestação Continuada (BPC) — comprovante nº 8876" in shown
    assert "Tabela de preços em vigor desde 24/03/2026" in shown


def test_service_order_tells_the_team_where_when_and_with_what():
    shown = text(render_service_order(BPC_FAMILY))
    assert "ORDEM DE SERVIÇO" in shown and "20/11/2026" in shown
    assert "Caminhão basculante QBA-1234" in shown and "José Pereira (motorista)" in shown
    assert "Assentamento Guaporé" in shown and "Sítio Boa Esperança" in shown


def test_receipt_shows_the_execution_and_what_was_paid():
    shown = text(render_receipt(BPC_FAMILY))
    assert "COMPROVANTE DE PRESTAÇÃO DE SERVIÇO" in shown and "Cargas entregues 5" in shown
    assert "0031/2026" in shown and "06/11/2026" in shown and "o total de R$ 225,00" in shown


def test_statement_shows_paid_and_open_amounts():
    shown = text(render_statement(BPC_FAMILY))
    assert "EXTRATO" in shown and "pago R$ 225,00 · em aberto R$ 0,00" in shown


@pytest.mark.parametrize("render", [render_quote, render_service_order, render_receipt, render_statement],
                         ids=["quote", "order", "receipt", "statement"])
def test_a_one_day_request_fits_one_page_with_its_footer(render):
    """Issue 22 item 11: no second page holding only the footer."""
    pages = PdfReader(io.BytesIO(render(BPC_FAMILY))).pages
    assert len(pages) == 1 and "Documento emitido pelo Painel Municipal" in pages[0].extract_text()


def test_amounts_of_five_digits_stay_on_one_line_in_the_quote():
    """Issue 22 item 11: "Líquido" wrapped "R$ / 1.200,00"."""
    from dataclasses import replace
    from decimal import Decimal as D

    line = replace(BPC_FAMILY.lines[0], quantity=D("90"), unit_price=D("1350.00"), amount=D("121500.00"),
                   discount=D("85050.00"), net=D("36450.00"))
    rows = [r for r in PdfReader(io.BytesIO(render_quote(replace(BPC_FAMILY, lines=(line,))))).pages[0]
            .extract_text().splitlines() if "R$ 1.350,00" in r]
    assert rows and all(amount in rows[0] for amount in ("R$ 121.500,00", "R$ 85.050,00", "R$ 36.450,00"))


def test_week_board_lists_each_day_with_its_bookings():
    shown = text(render_week_board(WEEK))
    assert "Agenda da semana de 16/11/2026 a 20/11/2026" in shown
    assert "segunda-feira, 16/11/2026" in shown and "Sem serviços agendados" in shown
    assert "Retroescavadeira RE-02" in shown and "0007/2026" in shown


def test_every_document_renders_to_an_image(tmp_path):
    assert shutil.which("pdftoppm"), "install poppler-utils (.ci/run installs it)"
    for name, pdf in {"quote": render_quote(BPC_FAMILY), "order": render_service_order(BPC_FAMILY),
                      "receipt": render_receipt(BPC_FAMILY), "week": render_week_board(WEEK)}.items():
        (tmp_path / f"{name}.pdf").write_bytes(pdf)
        subprocess.run(["pdftoppm", "-png", "-r", "50", "-singlefile", str(tmp_path / f"{name}.pdf"),
                        str(tmp_path / name)], check=True)
        assert (tmp_path / f"{name}.png").stat().st_size > 5000
