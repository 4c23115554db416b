"""Payment by DAM (Decreto 017/2026, Nova Lacerda, art. 8): full payment, 50% advance, balance in
15 days, extensions up to 30 days, and the suspension of new requests."""
from datetime import date
from decimal import Decimal

import pytest

from rules.calendar import LegalCalendar
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.machinery.payment import (
    ADVANCE,
    BALANCE,
    FULL,
    DueExtension,
    EmergencyWithoutAuthorization,
    ExecutedHoursMissing,
    ExtensionBeyondLimit,
    ExtensionGround,
    ExtensionWithoutJustification,
    InstalmentStatus,
    is_overdue,
    new_requests_allowed,
    payment_plan,
    settle_balance,
)
from rules.machinery.quote import (
    EarthLoads,
    MachineHours,
    PassengerTransport,
    UnknownItem,
    quote,
)
from rules.params import ParameterBook, ParameterVersion

BOOK = ParameterBook(DEFAULT_PARAMETERS)
CAL = LegalCalendar()
ISSUED = date(2026, 4, 6)  # a Monday
DONE = date(2026, 5, 4)  # a Monday
D = Decimal


def hours_plan(hours="10", completion=None, extension=None, book=BOOK, item="01"):
    q = quote([MachineHours(item, D(hours))], ISSUED, book)
    return payment_plan(q, ISSUED, CAL, book, completion=completion, extension=extension)


def test_known_quantities_paid_in_full_before():
    # Art. 8, §1: loads and bus hire are paid in full; DAM due 5 days: 11/04 (Sat) -> 13/04 (Mon)
    q = quote([EarthLoads(3), PassengerTransport("10", D(100))], ISSUED, BOOK)
    plan = payment_plan(q, ISSUED, CAL, BOOK)
    (full,) = plan.instalments
    assert (full.key, full.amount, full.due) == (FULL, D("950.00"), date(2026, 4, 13))
    assert full.reference.endswith("art. 8, §1")
    assert "antes da realização dos serviços" in full.due_rule


@pytest.mark.parametrize("start, due", [
    pytest.param(date(2026, 4, 14), date(2026, 4, 13), id="art. 8 §1: DAM due 13/04 is before a start on 14/04"),
    pytest.param(date(2026, 4, 13), date(2026, 4, 10), id="art. 8 §1: start on the DAM due day, due moves to 10/04"),
    pytest.param(date(2026, 4, 9), date(2026, 4, 8), id="art. 8 §1: start 09/04, due the business day before"),
    pytest.param(date(2026, 4, 6), ISSUED, id="art. 8 §1: start on issue day, due on issue day"),
])
def test_full_payment_falls_due_before_the_service(start, due):
    q = quote([EarthLoads(1)], ISSUED, BOOK)
    assert payment_plan(q, ISSUED, CAL, BOOK, service_start=start).instalments[0].due == due


def test_machine_hours_half_before_and_balance_after():
    # Art. 8, §2: 10 h x R$ 300,00 = R$ 3.000,00; 50% before, the rest after completion
    plan = hours_plan(completion=DONE)
    assert [(i.key, i.amount) for i in plan.instalments] == [(ADVANCE, D("1500.00")), (BALANCE, D("1500.00"))]
    advance, balance = plan.instalments
    assert advance.due == date(2026, 4, 13)
    assert balance.due == date(2026, 5, 19) and balance.reference.endswith("art. 8, §2")


def test_balance_due_unknown_until_completion():
    balance = hours_plan().instalment(BALANCE)
    assert balance.due is None and balance.due_rule == "até 15 dias após a conclusão dos serviços"


def test_mixed_request_has_full_advance_and_balance():
    q = quote([EarthLoads(2), MachineHours("04", D(4))], ISSUED, BOOK)
    plan = payment_plan(q, ISSUED, CAL, BOOK)
    assert [(i.key, i.amount) for i in plan.instalments] == [
        (FULL, D("300.00")), (ADVANCE, D("900.00")), (BALANCE, D("900.00"))]


def test_advance_takes_the_half_centavo():
    book = BOOK.with_versions([ParameterVersion("public_price_table", date(2026, 4, 1),
                                                {**DEFAULT_PARAMETERS[0].value, "01": D("300.01")}, "x")])
    plan = hours_plan("1", book=book)
    assert [i.amount for i in plan.instalments] == [D("150.01"), D("150.00")]


@pytest.mark.parametrize("worked, due, credit, due_on", [
    pytest.param({"01": D(8)}, "900.00", "0.00", date(2026, 5, 19), id="art. 8 §2: 8 h worked, R$ 900,00 due in 15 days"),
    pytest.param({"01": D(5)}, "0.00", "0.00", None, id="art. 8 §2: 5 h worked equals the advance, nothing due"),
    pytest.param({"01": D(4)}, "0.00", "300.00", None, id="art. 8 §2: 4 h worked, R$ 300,00 credit to return"),
    pytest.param({"01": D(0)}, "0.00", "1500.00", None, id="art. 8 §2: machine not used, whole advance returned"),
    pytest.param({"01": D(5), "04": D("0.5")}, "225.00", "0.00", date(2026, 5, 19),
                 id="art. 8 §2: another machine worked 0,5 h, R$ 225,00 due"),
])
def test_balance_on_hours_worked(worked, due, credit, due_on):
    settlement = settle_balance(hours_plan(), worked, DONE, CAL, BOOK)
    assert (settlement.amount_due, settlement.credit_to_return, settlement.due) == (D(due), D(credit), due_on)
    assert settlement.advance == D("1500.00")


def test_credit_message_in_portuguese():
    settlement = settle_balance(hours_plan(), {"01": D(4)}, DONE, CAL, BOOK)
    assert settlement.message == "Crédito de R$ 300,00 a devolver ao interessado"


@pytest.mark.parametrize("completion, holidays_, due", [
    pytest.param(date(2026, 5, 4), (), date(2026, 5, 19), id="art. 8 §2 + Lei 9.784 art. 66: day 15 is 19/05"),
    pytest.param(date(2026, 5, 4), (date(2026, 5, 19),), date(2026, 5, 20), id="art. 66 §1: municipal holiday on day 15 moves to 20/05"),
    pytest.param(date(2026, 4, 6), (), date(2026, 4, 22), id="art. 66 §1: day 15 on Tiradentes (21/04) moves to 22/04"),
])
def test_balance_day_15(completion, holidays_, due):
    calendar = LegalCalendar(holidays_)
    settlement = settle_balance(hours_plan(), {"01": D(9)}, completion, calendar, BOOK)
    assert settlement.due == due


def test_balance_priced_by_the_quote_table_after_an_update():
    plan = hours_plan()
    updated = BOOK.with_versions([ParameterVersion("public_price_table", date(2026, 5, 1),
                                                   {**DEFAULT_PARAMETERS[0].value, "01": D("400.00")}, "x")])
    assert settle_balance(plan, {"01": D(10)}, DONE, CAL, updated).executed == D("3000.00")


@pytest.mark.parametrize("quoted, worked, missing", [
    pytest.param((("01", "6"),), {}, ("01",), id="art. 8 §2: no hours reported for the quoted item 01"),
    pytest.param((("01", "6"), ("04", "2")), {"01": D(6)}, ("04",),
                 id="art. 8 §2: item 04 quoted, only item 01 reported"),
    pytest.param((("01", "6"), ("04", "2")), {"02": D(3)}, ("01", "04"),
                 id="art. 8 §2: hours of an item not quoted do not stand for the quoted ones"),
])
def test_balance_needs_the_executed_hours_of_every_quoted_machine(quoted, worked, missing):
    """Issue 23 item 9: the balance is settled on what was executed; a missing quantity is not 0 h."""
    q = quote([MachineHours(item, D(hours)) for item, hours in quoted], ISSUED, BOOK)
    with pytest.raises(ExecutedHoursMissing) as refused:
        settle_balance(payment_plan(q, ISSUED, CAL, BOOK), worked, DONE, CAL, BOOK)
    assert refused.value.value == missing and refused.value.reference.endswith("art. 8, §2")


@pytest.mark.parametrize("worked", [
    pytest.param({"01": D(0)}, id="art. 8 §2: 0 h stated for a machine not used settles"),
    pytest.param({"01": D(6), "02": D(1)}, id="art. 8 §2: a machine beyond the quote may be reported"),
])
def test_balance_settles_when_every_quoted_machine_is_reported(worked):
    assert settle_balance(hours_plan("6"), worked, DONE, CAL, BOOK).advance == D("900.00")


def test_balance_refuses_other_items():
    with pytest.raises(UnknownItem):
        settle_balance(hours_plan(), {"12": D(1)}, DONE, CAL, BOOK)


@pytest.mark.parametrize("ground, authorization, days", [
    pytest.param(ExtensionGround.NON_PROFIT_OR_VULNERABLE, "", 30, id="art. 8 §3 I: non-profit, 30 days"),
    pytest.param(ExtensionGround.EMERGENCY_OR_PUBLIC_INTEREST, "Ofício 3/2026 do Prefeito", 10,
                 id="art. 8 §3 II: emergency with prior authorization"),
])
def test_extension_after_completion(ground, authorization, days):
    extension = DueExtension(ground, "Associação sem liquidez imediata", days, prior_authorization=authorization)
    plan = hours_plan(completion=DONE, extension=extension)
    assert all(i.due == CAL.add_days(DONE, days) for i in plan.instalments)
    assert all(i.reference.endswith("art. 8, §3") for i in plan.instalments)


def test_extension_of_the_balance_only():
    extension = DueExtension(ExtensionGround.NON_PROFIT_OR_VULNERABLE, "Pessoa em vulnerabilidade", 30, (BALANCE,))
    plan = hours_plan(completion=DONE, extension=extension)
    assert plan.instalment(ADVANCE).due == date(2026, 4, 13)
    assert plan.instalment(BALANCE).due == date(2026, 6, 3)
    settlement = settle_balance(plan, {"01": D(10)}, DONE, CAL, BOOK, extension)
    assert settlement.due == date(2026, 6, 3)


def test_extension_without_completion_has_rule_not_date():
    extension = DueExtension(ExtensionGround.NON_PROFIT_OR_VULNERABLE, "Entidade", 20)
    full = payment_plan(quote([EarthLoads(1)], ISSUED, BOOK), ISSUED, CAL, BOOK, extension=extension).instalments[0]
    assert full.due is None and full.due_rule == "até 20 dias após a conclusão dos serviços"


@pytest.mark.parametrize("extension, error", [
    pytest.param(DueExtension(ExtensionGround.NON_PROFIT_OR_VULNERABLE, "Entidade", 31), ExtensionBeyondLimit,
                 id="art. 8 §3: 31 days refused"),
    pytest.param(DueExtension(ExtensionGround.NON_PROFIT_OR_VULNERABLE, "Entidade", 0), ExtensionBeyondLimit,
                 id="art. 8 §3: zero days refused"),
    pytest.param(DueExtension(ExtensionGround.NON_PROFIT_OR_VULNERABLE, "  ", 10), ExtensionWithoutJustification,
                 id="art. 8 §3: no express justification refused"),
    pytest.param(DueExtension(ExtensionGround.EMERGENCY_OR_PUBLIC_INTEREST, "Enchente", 10),
                 EmergencyWithoutAuthorization, id="art. 8 §3 II: emergency without prior authorization refused"),
])
def test_extension_refusals(extension, error):
    with pytest.raises(error):
        hours_plan(completion=DONE, extension=extension)


def test_other_ground_is_allowed_with_a_warning():
    # Art. 8, §3: "especialmente" — the two cases are examples, not a closed list
    plan = hours_plan(completion=DONE, extension=DueExtension(ExtensionGround.OTHER, "Safra atrasada", 30))
    assert any(not f.ok and not f.blocking for f in plan.findings)


DUE = date(2026, 5, 19)


@pytest.mark.parametrize("paid_on, today, allowed", [
    pytest.param(None, date(2026, 5, 19), True, id="art. 8 §4: unpaid on the due day itself, not yet in default"),
    pytest.param(None, date(2026, 5, 20), False, id="art. 8 §4: unpaid the day after, new requests suspended"),
    pytest.param(date(2026, 5, 25), date(2026, 5, 26), True, id="art. 8 §4: paid late, regularized"),
])
def test_unpaid_instalment_blocks_new_requests(paid_on, today, allowed):
    status = InstalmentStatus("Saldo das horas-máquina", D("900.00"), DUE, paid_on)
    decision = new_requests_allowed([status], today)
    assert decision.ok is allowed and is_overdue(status, today) is not allowed
    if not allowed:
        assert "vencida em 19/05/2026" in decision.reasons()[0] and "art. 8, §4" in decision.reasons()[0]
