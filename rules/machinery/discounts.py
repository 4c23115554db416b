"""Discounts of Anexo II (Decreto 017/2026, Nova Lacerda), only on item 12 of Anexo I.

- 70%: receipt of the Benefício de Prestação Continuada (BPC), or a social report of the
  Secretaria Municipal de Assistência Social (Anexo II; art. 7, §3, I and the second §2-§4);
- 35%: family income below 2 minimum wages in force on the request date (Anexo II; art. 7, §3);
- 30%: non-profit associations and entities duly constituted (Anexo II; art. 2 caput);
- only the highest applies when more than one fits (art. 7, §5; Anexo II, obs. 1);
- only item 12, transport of loads of earth or gravel (art. 7, §2; Anexo II, obs. 2).
Each criterion needs its evidence: a document of an accepted type, or the social report's reference.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import Enum

from rules.base import Finding, Level
from rules.fmt import brl
from rules.machinery.prices import DECREE
from rules.params import ParameterBook

DISCOUNTED_ITEM = "12"
ANEXO_II = f"{DECREE}, Anexo II"


class DiscountCriterion(str, Enum):
    BPC = "Recebimento do Benefício de Prestação Continuada (BPC)"
    SOCIAL_REPORT = "Parecer da Secretaria Municipal de Assistência Social"
    FAMILY_INCOME = "Renda familiar inferior a 2 salários mínimos"
    NON_PROFIT = "Entidade sem fins lucrativos"


class EvidenceKind(str, Enum):
    BPC_RECEIPT = "Comprovante de recebimento do BPC"
    BOLSA_FAMILIA_RECEIPT = "Comprovante de recebimento do Programa Bolsa Família"
    INCOME_STATEMENT = "Comprovante de rendimentos emitido por entidade pública ou privada"
    SOCIAL_REPORT = "Parecer social da Secretaria Municipal de Assistência Social"
    NON_PROFIT_CHARTER = "Estatuto social registrado e comprovante de inscrição no CNPJ"


# Which evidence proves which criterion, and the rate parameter and article behind it.
_RULES: dict[DiscountCriterion, tuple[frozenset[EvidenceKind], str, str]] = {
    # Anexo II, 1st row; art. 7, §3, I
    DiscountCriterion.BPC: (
        frozenset({EvidenceKind.BPC_RECEIPT}), "discount_rate_bpc_or_social_report",
        f"{ANEXO_II}, 1ª linha; art. 7, §3, I",
    ),
    # Anexo II, 1st row; art. 7, second §2 to §4 (parecer social)
    DiscountCriterion.SOCIAL_REPORT: (
        frozenset({EvidenceKind.SOCIAL_REPORT}), "discount_rate_bpc_or_social_report",
        f"{ANEXO_II}, 1ª linha; art. 7, §2 (segundo) a §4",
    ),
    # Anexo II, 2nd row; art. 7, §3, I-II, or the social report when no document exists
    DiscountCriterion.FAMILY_INCOME: (
        frozenset({EvidenceKind.INCOME_STATEMENT, EvidenceKind.BOLSA_FAMILIA_RECEIPT,
                   EvidenceKind.SOCIAL_REPORT}),
        "discount_rate_family_income", f"{ANEXO_II}, 2ª linha; art. 7, §3",
    ),
    # Anexo II, 3rd row; art. 2 caput ("devidamente constituídas")
    DiscountCriterion.NON_PROFIT: (
        frozenset({EvidenceKind.NON_PROFIT_CHARTER}), "discount_rate_non_profit",
        f"{ANEXO_II}, 3ª linha; art. 2, caput",
    ),
}


@dataclass(frozen=True)
class Evidence:
    """A document presented, or the social report, with its number or reference."""

    kind: EvidenceKind
    reference: str


@dataclass(frozen=True)
class DiscountClaim:
    """A criterion claimed with its evidence; family income only for the income criterion."""

    criterion: DiscountCriterion
    evidence: Evidence | None
    family_income: Decimal | None = None


@dataclass(frozen=True)
class DiscountDecision:
    """The discount granted on item 12 (rate 0 when none) and the findings of every claim."""

    rate: Decimal
    criterion: DiscountCriterion | None
    reference: str
    findings: tuple[Finding, ...] = ()

    @property
    def reason(self) -> str:
        if self.criterion is None:
            return ""
        return f"Desconto de {self.rate * 100:.0f}%: {self.criterion.value} ({self.reference})"


NO_DISCOUNT = DiscountDecision(Decimal("0"), None, "")


def _check_claim(claim: DiscountClaim, on: date, book: ParameterBook) -> tuple[Finding, Decimal]:
    accepted, rate_name, reference = _RULES[claim.criterion]
    rate = Decimal(book.get(rate_name, on))
    evidence = claim.evidence
    if evidence is None or evidence.kind not in accepted or not evidence.reference.strip():
        kinds = "; ".join(sorted(kind.value for kind in accepted))
        message = f"{claim.criterion.value}: falta comprovação ({kinds}), com número ou referência"
        return Finding(False, message, reference, Level.WARNING), rate
    if claim.criterion is DiscountCriterion.FAMILY_INCOME:
        # Anexo II, 2nd row: "inferior a 2 salários mínimos" — strictly below, wage of the request date
        wage = Decimal(book.get("minimum_wage", on))
        limit = wage * Decimal(book.get("income_limit_minimum_wages", on))
        income = claim.family_income
        if income is None or not income.is_finite() or income < 0:
            return Finding(False, "Renda familiar não informada ou inválida", reference, Level.WARNING), rate
        if income >= limit:
            message = (f"Renda familiar de {brl(income)} não é inferior a {brl(limit)} "
                       f"(2 salários mínimos de {brl(wage)} em {on:%d/%m/%Y})")
            return Finding(False, message, reference, Level.WARNING), rate
    message = f"{claim.criterion.value}: desconto de {rate * 100:.0f}% comprovado por {evidence.kind.value} nº {evidence.reference.strip()}"
    return Finding(True, message, reference, Level.INFO), rate


def evaluate_discount(
    claims: Iterable[DiscountClaim], on: date, book: ParameterBook
) -> DiscountDecision:
    """The highest proven discount among the claims (art. 7, §5), or none, with every finding."""
    findings: list[Finding] = []
    best = NO_DISCOUNT
    for claim in claims:
        finding, rate = _check_claim(claim, on, book)
        findings.append(finding)
        # Art. 7, §5 and Anexo II, obs. 1: only the highest percentage applies
        if finding.ok and rate > best.rate:
            best = DiscountDecision(rate, claim.criterion, _RULES[claim.criterion][2])
    if best.criterion is not None:
        findings.append(Finding(True, f"Aplicado somente o maior percentual: {best.rate * 100:.0f}%",
                                f"{DECREE}, art. 7, §5; Anexo II, obs. 1", Level.INFO))
    return DiscountDecision(best.rate, best.criterion, best.reference, tuple(findings))
