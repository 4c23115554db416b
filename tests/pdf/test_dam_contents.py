"""The DAM as a tax authority issues it (issue 11, item 13), read back from the PDF of a stored DAM:
letterhead with CNPJ, revenue code and description, exercise, breakdown lines, what happens after
the due date, "pagável nos bancos conveniados", the mechanical authentication box and the whole PIX
copy-and-paste text; a store without those values prints a neutral DAM, never an invented one."""
from __future__ import annotations

import io
import re
from datetime import date
from decimal import Decimal

from pypdf import PdfReader

from rules.dam import parameters as dam_parameters
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.params import ParameterVersion
from seed.documents import demo_cnpj
from services.dam import dams, printing
from services.setup import bootstrap, deployment
from tests.conftest import SECRETARIA_MP, TI

CTM = "Lei Complementar 10/2003 (Código Tributário de Matupá), art. 200"
CNPJ = demo_cnpj("24772246")


def set_values(db) -> None:
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, "teste@pix.invalid"),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa"),
                        (dam_parameters.revenue_code_parameter("multa"), "1919.01.00"),
                        (FINE_DAILY, Decimal("0.33")), (FINE_MAX, Decimal("20")), (INTEREST_MONTHLY, Decimal("1"))):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, CTM))
    deployment.set_identity(db, TI, "matupa", CNPJ, "Otávio Nunes Prado", "Secretário Municipal de Administração")


def issue(db, **extra):
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="Francisca Oliveira Gomes", taxpayer_document="529.982.247-25",
        taxpayer_address="Rua Cuiabá, 300", revenue_kind="multa", description="Multa por auto de infração 0012/2026",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 25", amount=Decimal("500.00"), due=date(2026, 3, 20),
        **extra)


def text(db, dam) -> str:
    pdf = printing.pdf(db, SECRETARIA_MP, "matupa", [dam["id"]])
    return " ".join(PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())


def test_a_stored_dam_prints_letterhead_revenue_breakdown_late_rules_and_pix(db, today):
    set_values(db)
    dam = issue(db, discount=Decimal("50.00"), reference="Auto 0012/2026")
    assert dam["amount"] == Decimal("450.00") and dam["principal"] == Decimal("500.00")
    shown = text(db, dam)
    for expected in ("ESTADO DE MATO GROSSO", "PREFEITURA MUNICIPAL DE MATUPÁ",
                     f"CNPJ {CNPJ[:2]}.{CNPJ[2:5]}.{CNPJ[5:8]}/{CNPJ[8:12]}-{CNPJ[12:]}",
                     "1919.01.00", "Multa (auto de infração)", "Auto 0012/2026",
                     "VALOR PRINCIPAL", "R$ 500,00", "(-) DESCONTO", "R$ 50,00", "(+) MULTA DE MORA",
                     "(+) JUROS DE MORA", "(=) TOTAL A PAGAR", "R$ 450,00",
                     "Multa de 0,33 % ao dia, até 20 % e juros de 1 % ao mês ou fração", CTM,
                     "Pagável nos bancos conveniados", "AUTENTICAÇÃO MECÂNICA", "PIX COPIA E COLA"):
        assert expected in shown, expected
    assert "qualquer banco" not in shown
    assert re.sub(r"\s", "", dam["pix_payload"]) in re.sub(r"\s", "", shown)  # the whole code, on two lines


def test_without_the_municipal_values_the_dam_is_neutral(db, today):
    dam = issue(db)
    shown = text(db, dam)
    assert "CNPJ" not in shown.split("CONTRIBUINTE")[0] and "demonstra" not in shown.casefold()
    assert "CÓDIGO DA RECEITA —" in shown and "2026" in shown
    assert "solicite à Prefeitura a 2ª via" in shown
    assert "(=) TOTAL A PAGAR R$ 500,00" in shown


def test_the_exercise_defaults_to_the_year_of_issue(db, today):
    assert issue(db)["reference"] == "2026"
