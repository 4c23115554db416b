"""Anexo II discounts of Decreto 017/2026 (Nova Lacerda): criteria, evidence and the highest rate."""
from datetime import date
from decimal import Decimal

import pytest

from rules.machinery.discounts import (
    DiscountClaim,
    DiscountCriterion,
    Evidence,
    EvidenceKind,
    evaluate_discount,
)
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.params import ParameterBook, ParameterVersion

BOOK = ParameterBook(DEFAULT_PARAMETERS)
ON = date(2026, 4, 10)
C, K = DiscountCriterion, EvidenceKind
D = Decimal


def claim(criterion, kind=None, reference="nº 42", income=None):
    return DiscountClaim(criterion, Evidence(kind, reference) if kind else None, income)


@pytest.mark.parametrize("claims, rate", [
    pytest.param([claim(C.BPC, K.BPC_RECEIPT)], "0.70", id="Anexo II row 1, art. 7 §3 I: BPC receipt 70%"),
    pytest.param([claim(C.BPC)], "0", id="Anexo II row 1: BPC without evidence refused"),
    pytest.param([claim(C.BPC, K.INCOME_STATEMENT)], "0", id="Anexo II row 1: BPC proven by income statement refused"),
    pytest.param([claim(C.BPC, K.BOLSA_FAMILIA_RECEIPT)], "0", id="Anexo II row 1: Bolsa Família is not BPC"),
    pytest.param([claim(C.BPC, K.BPC_RECEIPT, reference="  ")], "0", id="Anexo II row 1: blank document number refused"),
    pytest.param([claim(C.SOCIAL_REPORT, K.SOCIAL_REPORT, "Parecer 12/2026")], "0.70",
                 id="Anexo II row 1, art. 7 second §2: social report 70%"),
    pytest.param([claim(C.SOCIAL_REPORT, K.SOCIAL_REPORT, "")], "0", id="Anexo II row 1: social report without reference refused"),
    pytest.param([claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=D("3241.99"))], "0.35",
                 id="Anexo II row 2: R$ 3.241,99 < 2 x R$ 1.621,00 gets 35%"),
    pytest.param([claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=D("3242.00"))], "0",
                 id="Anexo II row 2: exactly 2 minimum wages (R$ 3.242,00) is not below"),
    pytest.param([claim(C.FAMILY_INCOME, K.BOLSA_FAMILIA_RECEIPT, income=D("800"))], "0.35",
                 id="Anexo II row 2, art. 7 §3 I: Bolsa Família receipt proves income"),
    pytest.param([claim(C.FAMILY_INCOME, K.SOCIAL_REPORT, income=D("800"))], "0.35",
                 id="Anexo II row 2, art. 7 second §2: social report proves income"),
    pytest.param([claim(C.FAMILY_INCOME, K.NON_PROFIT_CHARTER, income=D("800"))], "0",
                 id="Anexo II row 2: a charter does not prove income"),
    pytest.param([claim(C.FAMILY_INCOME, K.INCOME_STATEMENT)], "0", id="Anexo II row 2: income not stated refused"),
    pytest.param([claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=D("-1"))], "0", id="Anexo II row 2: negative income refused"),
    pytest.param([claim(C.NON_PROFIT, K.NON_PROFIT_CHARTER)], "0.30", id="Anexo II row 3: non-profit charter 30%"),
    pytest.param([claim(C.NON_PROFIT, K.INCOME_STATEMENT)], "0", id="Anexo II row 3: non-profit without charter refused"),
    pytest.param([claim(C.NON_PROFIT, K.NON_PROFIT_CHARTER), claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=D(900)),
                  claim(C.BPC, K.BPC_RECEIPT)], "0.70", id="art. 7 §5, Anexo II obs. 1: three criteria, 70% only"),
    pytest.param([claim(C.NON_PROFIT, K.NON_PROFIT_CHARTER), claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=D(900))],
                 "0.35", id="art. 7 §5: 30% and 35%, the highest 35%"),
    pytest.param([claim(C.BPC), claim(C.NON_PROFIT, K.NON_PROFIT_CHARTER)], "0.30",
                 id="art. 7 §5: unproven 70% does not beat proven 30%"),
    pytest.param([], "0", id="Anexo II: no claim, no discount"),
])
def test_discount_rate(claims, rate):
    decision = evaluate_discount(claims, ON, BOOK)
    assert decision.rate == D(rate)
    assert (decision.criterion is None) == (D(rate) == 0)
    assert len(decision.findings) >= len(claims)


def test_reason_names_the_criterion_and_article():
    decision = evaluate_discount([claim(C.SOCIAL_REPORT, K.SOCIAL_REPORT, "Parecer 12/2026")], ON, BOOK)
    assert decision.reason.startswith("Desconto de 70%: Parecer da Secretaria Municipal de Assistência Social")
    assert "Anexo II, 1ª linha" in decision.reason
    assert any("Parecer 12/2026" in f.message for f in decision.findings)


def test_refused_claim_says_why_without_blocking():
    decision = evaluate_discount([claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=D("3242.00"))], ON, BOOK)
    refused = decision.findings[0]
    assert not refused.ok and not refused.blocking
    assert "R$ 3.242,00 não é inferior a R$ 3.242,00" in refused.message
    assert "R$ 1.621,00 em 10/04/2026" in refused.message


NEXT_WAGE = ParameterVersion("minimum_wage", date(2027, 1, 1), D("1700.00"), "Decreto federal hipotético")


@pytest.mark.parametrize("on, income, rate", [
    pytest.param(date(2026, 12, 31), D("3300.00"), "0", id="Anexo II row 2: 31/12/2026 limit R$ 3.242,00 refuses R$ 3.300,00"),
    pytest.param(date(2027, 1, 1), D("3300.00"), "0.35", id="Anexo II row 2: 01/01/2027 new wage, limit R$ 3.400,00"),
    pytest.param(date(2027, 1, 1), D("3400.00"), "0", id="Anexo II row 2: 01/01/2027 exactly R$ 3.400,00 refused"),
])
def test_minimum_wage_of_the_request_date(on, income, rate):
    book = BOOK.with_versions([NEXT_WAGE])
    decision = evaluate_discount([claim(C.FAMILY_INCOME, K.INCOME_STATEMENT, income=income)], on, book)
    assert decision.rate == D(rate)
