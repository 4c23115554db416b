"""Rule set of Nova Lacerda for public machinery and vehicle services.

Decreto Municipal 017/2026, of 24/03/2026, regulating Lei Municipal 1.063/2026: price table
(Anexo I), discounts (Anexo II), payment (art. 8), eligibility (art. 2, 5, 6, 10), loads (art. 9)
and order of service (art. 3). Readings of ambiguous provisions: docs/LEITURAS.md, seção 3.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from rules.machinery import discounts as _discounts
from rules.machinery import eligibility as _eligibility
from rules.machinery import payment as _payment
from rules.machinery import prices as _prices
from rules.machinery import quote as _quote
from rules.machinery import schedule as _schedule
from rules.machinery.prices import ANEXO_I, ANEXO_I_PRICES, DECREE, PRICE_TABLE
from rules.params import ParameterVersion

# Art. 13: in force on publication; the decree is dated 24/03/2026 (see docs/LEITURAS.md, seção 3).
DECREE_IN_FORCE = date(2026, 3, 24)
ANEXO_II = f"{DECREE}, Anexo II"
PANEL = "Parâmetro operacional do painel (não fixado pelo Decreto 017/2026)"


def _decree(name: str, value: object, article: str, note: str = "") -> ParameterVersion:
    return ParameterVersion(name, DECREE_IN_FORCE, value, f"{DECREE}, {article}", note)


DEFAULT_PARAMETERS: tuple[ParameterVersion, ...] = (
    ParameterVersion(PRICE_TABLE, DECREE_IN_FORCE, dict(ANEXO_I_PRICES), ANEXO_I,
                     "Preços do Anexo I; atualizáveis por INPC ou IPCA (art. 12)"),
    _decree("km_reading_items_07_09", _quote.KmReading.EXCESS_OVER_200.value, "Anexo I, itens 07 e 09",
            "Leitura: diária/viagem cobre 200 km, excedente por km; alternativa: 'whole_distance'"),
    ParameterVersion("quote_quantity_ceiling", DECREE_IN_FORCE, Decimal("10000"), PANEL,
                     "Teto de horas ou cargas por linha do orçamento, contra erros de digitação"),
    ParameterVersion("minimum_wage", date(2025, 1, 1), Decimal("1518.00"),
                     "Decreto Federal 12.342/2024 (salário mínimo nacional)"),
    ParameterVersion("minimum_wage", date(2026, 1, 1), Decimal("1621.00"),
                     "Decreto Federal 12.797/2025 (salário mínimo nacional)"),
    ParameterVersion("income_limit_minimum_wages", DECREE_IN_FORCE, Decimal("2"), f"{ANEXO_II}, 2ª linha"),
    ParameterVersion("discount_rate_bpc_or_social_report", DECREE_IN_FORCE, Decimal("0.70"),
                     f"{ANEXO_II}, 1ª linha"),
    ParameterVersion("discount_rate_family_income", DECREE_IN_FORCE, Decimal("0.35"), f"{ANEXO_II}, 2ª linha"),
    ParameterVersion("discount_rate_non_profit", DECREE_IN_FORCE, Decimal("0.30"), f"{ANEXO_II}, 3ª linha"),
    ParameterVersion("dam_due_days", DECREE_IN_FORCE, 5, PANEL,
                     "Vencimento do DAM de pagamento antecipado (art. 8, §1: 'vencimento estabelecido no DAM')"),
    _decree("advance_share_machine_hours", Decimal("0.50"), "art. 8, §2"),
    _decree("balance_due_days", 15, "art. 8, §2"),
    _decree("extended_due_max_days", 30, "art. 8, §3"),
    _decree("preferred_notice_days", 30, "art. 2, caput"),
    _decree("loads_per_stage_limit", 5, "art. 9, §1"),
    _decree("load_limit_counting", _schedule.PROPERTY_OR_REQUESTER, "art. 9, §1",
            "Conta por imóvel e por solicitante; alternativa: 'property_and_requester' (o par)"),
)


@dataclass(frozen=True)
class MachineryRuleSet:
    """The entry points screens and services call for Nova Lacerda's machinery services."""

    municipality: str = "nova_lacerda"
    name: str = "Nova Lacerda"
    act: str = f"{DECREE}, regulamenta a Lei Municipal 1.063/2026"
    default_parameters: tuple[ParameterVersion, ...] = DEFAULT_PARAMETERS

    catalogue = staticmethod(_prices.catalogue)
    price_table_on = staticmethod(_prices.price_table_on)
    updated_by_index = staticmethod(_prices.updated_by_index)
    evaluate_discount = staticmethod(_discounts.evaluate_discount)
    quote = staticmethod(_quote.quote)
    payment_plan = staticmethod(_payment.payment_plan)
    settle_balance = staticmethod(_payment.settle_balance)
    new_requests_allowed = staticmethod(_payment.new_requests_allowed)
    check_request = staticmethod(_eligibility.check_request)
    loads_allowance = staticmethod(_schedule.loads_allowance)
    order_of_service = staticmethod(_schedule.order_of_service)


RULESET = MachineryRuleSet()
