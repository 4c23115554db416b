"""The booking rules on charges (Decreto 017/2026, Nova Lacerda, art. 8; issue 19): when the service
may start, how an instalment's charge is said, what the statement adds up, what each DAM describes."""
from datetime import date
from decimal import Decimal

import pytest

from rules.dam.charges import CANCELLED, INSCRIBED, OPEN, PAID, SHORT
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.machinery.payment import (
    ADVANCE,
    FULL,
    ChargeState,
    charge_situation,
    service_may_start,
)
from rules.machinery.quote import EarthLoads, MachineHours, quote
from rules.machinery.statement import (
    ChargeFigures,
    balance_description,
    instalment_description,
    settlement_line,
    statement_totals,
)
from rules.params import ParameterBook

D = Decimal
ART_8_1 = "Decreto 017/2026 (Nova Lacerda), art. 8, §1"
ART_8_2 = "Decreto 017/2026 (Nova Lacerda), art. 8, §2"
FULL_PAID = ChargeState("Pagamento integral antecipado", ART_8_1, PAID, D("0.00"), paid_on=date(2026, 4, 6))
ADVANCE_PAID = ChargeState("Adiantamento de 50%", ART_8_2, PAID, D("0.00"), paid_on=date(2026, 4, 7))
ADVANCE_SHORT = ChargeState("Adiantamento de 50%", ART_8_2, SHORT, D("125.00"))
FULL_OPEN = ChargeState("Pagamento integral antecipado", ART_8_1, OPEN, D("225.00"))
FULL_REOPENED = ChargeState("Pagamento integral antecipado", ART_8_1, OPEN, D("225.00"), has_dam=False)


@pytest.mark.parametrize("upfront, may_start", [
    pytest.param((FULL_PAID,), True, id="art. 8 §1: the full payment paid in full, the service may start"),
    pytest.param((FULL_OPEN,), False, id="art. 8 §1: the full payment not paid, the service waits"),
    pytest.param((FULL_REOPENED,), False, id="art. 8 §1: its DAM cancelled, the charge is still owed"),
    pytest.param((ADVANCE_SHORT,), False, id="art. 8 §2: an advance paid short holds the service"),
    pytest.param((FULL_PAID, ADVANCE_SHORT), False, id="art. 8 §1-§2: every upfront charge, not one of them"),
    pytest.param((FULL_PAID, ADVANCE_PAID), True, id="art. 8 §1-§2: both paid in full"),
    pytest.param((ChargeState("Integral", ART_8_1, INSCRIBED, D("10")),), False,
                 id="art. 8 §1: inscribed in dívida ativa is still owed"),
    pytest.param((), True, id="art. 8 §3: every instalment deferred after completion, nothing upfront"),
])
def test_service_may_start_only_when_every_upfront_charge_is_paid_in_full(upfront, may_start):
    decision = service_may_start(upfront)
    assert decision.ok is may_start
    assert all(f.reference.startswith("Decreto 017/2026 (Nova Lacerda), art. 8") for f in decision.findings)


@pytest.mark.parametrize("state, said", [
    pytest.param(FULL_PAID, "pago em 06/04/2026", id="art. 8 §1: paid in full, with the day"),
    pytest.param(ChargeState("x", ART_8_1, PAID, D("0"), D("75.00"), date(2026, 4, 6)),
                 "pago em 06/04/2026; crédito de R$ 75,00 a restituir", id="CTN art. 165: the excess is owed back"),
    pytest.param(ADVANCE_SHORT, "pago a menor, falta R$ 125,00", id="art. 8 §2: short, its difference DAM out"),
    pytest.param(ChargeState("x", ART_8_2, SHORT, D("125.00"), has_dam=False),
                 "pago a menor, falta R$ 125,00 — emitir DAM da diferença", id="art. 8 §2: short, no DAM for it"),
    pytest.param(FULL_REOPENED, "DAM cancelado — emitir novo DAM", id="art. 3 II: a cancelled DAM, a new one"),
    pytest.param(FULL_OPEN, "em aberto", id="art. 8 §1: its DAM out, unpaid"),
    pytest.param(ChargeState("x", ART_8_1, CANCELLED, D("0")), "débito cancelado", id="art. 8: the charge withdrawn"),
])
def test_how_an_instalment_charge_is_said(state, said):
    assert charge_situation(state) == said


@pytest.mark.parametrize("charges, credit, expected", [
    pytest.param([ChargeFigures(D("900"), D("900"), D("0")), ChargeFigures(D("1200"), D("0"), D("1200"))], D("0"),
                 (D("2100"), D("900"), D("1200"), D("0")),
                 id="art. 8 §2: 7 h on a 6 h quote — advance R$ 900 paid, balance R$ 1.200 open"),
    pytest.param([ChargeFigures(D("900"), D("900"), D("0"))], D("600"), (D("900"), D("900"), D("0"), D("600")),
                 id="art. 8 §2: 1 h worked — nothing open, R$ 600 owed back"),
    pytest.param([ChargeFigures(D("225"), D("100"), D("125"))], D("0"), (D("225"), D("100"), D("125"), D("0")),
                 id="art. 8 §1: paid short, the difference open"),
    pytest.param([ChargeFigures(D("750"), D("800"), D("0"), D("50"))], D("0"), (D("750"), D("800"), D("0"), D("50")),
                 id="CTN art. 165: paid beyond, the excess owed back"),
])
def test_the_statement_adds_the_charges_never_the_estimate(charges, credit, expected):
    totals = statement_totals(charges, credit)
    assert (totals.charged, totals.paid, totals.open, totals.owed_back) == expected


BOOK = ParameterBook(DEFAULT_PARAMETERS)
MIXED = quote([EarthLoads(5), MachineHours("01", D(6))], date(2026, 4, 6), BOOK)


@pytest.mark.parametrize("key, label, has, lacks", [
    pytest.param(FULL, "Pagamento integral antecipado", "item 12", "Retroescavadeira",
                 id="art. 8 §1: the full payment's DAM names the loads, not the hours"),
    pytest.param(ADVANCE, "Adiantamento de 50% das horas-máquina estimadas",
                 "Retroescavadeira: 6 h estimadas, R$ 1.800,00", "item 12",
                 id="art. 8 §2: the advance's DAM names the hours estimated, not the loads"),
])
def test_each_dam_describes_only_what_it_charges(key, label, has, lacks):
    text = instalment_description(key, label, "0001/2026", MIXED)
    assert text.startswith(f"{label} — pedido de serviço 0001/2026: ") and has in text and lacks not in text


def test_the_balance_dam_describes_the_hours_worked_less_the_advance():
    # art. 8 §2: 7 h × R$ 300,00 = R$ 2.100,00 less the R$ 900,00 advance
    assert balance_description("0001/2026", {"01": D(7), "02": D(0)}, D("2100.00"), D("900.00")) == (
        "Saldo das horas-máquina executadas — pedido de serviço 0001/2026: item 01 Retroescavadeira: 7 h "
        "executadas; executado R$ 2.100,00 menos adiantamento R$ 900,00 = R$ 1.200,00")


HEAD = "Acerto das horas executadas (art. 8, §2): valor executado "


@pytest.mark.parametrize("figures, said", [
    pytest.param((D("300.00"), D("900.00"), D("900.00"), D("0.00"), D("600.00")),
                 HEAD + "R$ 300,00 · adiantamento pago R$ 900,00 · crédito de R$ 600,00 a devolver ao interessado",
                 id="art. 8 §2: 1 h worked of 6 quoted — the advance beyond it is owed back"),
    pytest.param((D("2100.00"), D("900.00"), D("900.00"), D("1200.00"), D("0.00")),
                 HEAD + "R$ 2.100,00 · adiantamento pago R$ 900,00 · saldo de R$ 1.200,00 a pagar",
                 id="art. 8 §2: 7 h worked of 6 quoted — the balance to pay"),
    pytest.param((D("1800.00"), D("900.00"), D("900.00"), D("900.00"), D("0.00")),
                 HEAD + "R$ 1.800,00 · adiantamento pago R$ 900,00 · saldo de R$ 900,00 a pagar",
                 id="art. 8 §2: the hours quoted worked — the other half"),
    pytest.param((D("900.00"), D("900.00"), D("900.00"), D("0.00"), D("0.00")),
                 HEAD + "R$ 900,00 · adiantamento pago R$ 900,00 · nada a pagar",
                 id="art. 8 §2: the advance covers the hours worked"),
    pytest.param((D("2100.00"), D("900.00"), D("0.00"), D("1200.00"), D("0.00")),
                 HEAD + "R$ 2.100,00 · adiantamento R$ 900,00, pago R$ 0,00 · saldo de R$ 1.200,00 a pagar",
                 id="art. 8 §3: the advance deferred, not yet paid, is said as such"),
])
def test_the_settlement_is_its_own_line(figures, said):
    assert settlement_line(*figures) == said
