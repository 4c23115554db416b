"""Multa and juros de mora of an overdue DAM (rules/dam/late.py), as tables: both sides of the multa's
ceiling, of each month or fraction, and of the due date; and the PIX payee name that must be cut."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from rules.dam.late import (
    LateRates,
    NotOverdue,
    late_charges,
    late_rates,
    months_or_fraction,
)
from rules.dam.pix import merchant_name_cut
from rules.params import ParameterBook, ParameterMissing, ParameterVersion

ACT = "Código Tributário Municipal (teste), art. 200"
RATES = LateRates(Decimal("0.33"), Decimal("20"), Decimal("1"), ACT, ACT)
FIXED = LateRates(Decimal("2"), Decimal("2"), Decimal("1"), ACT, ACT)  # a fixed 2 % multa
DUE = date(2026, 3, 10)


@pytest.mark.parametrize("paid_on, months", [
    (date(2026, 3, 11), 1), (date(2026, 4, 10), 1), (date(2026, 4, 11), 2), (date(2026, 5, 10), 2),
    (date(2027, 3, 10), 12), (date(2027, 3, 11), 13),
], ids=["one-day", "one-month", "month-and-a-day", "two-months", "a-year", "a-year-and-a-day"])
def test_months_or_fraction(paid_on, months):
    assert months_or_fraction(DUE, paid_on) == months


@pytest.mark.parametrize("due, on, months", [
    (date(2026, 1, 31), date(2026, 2, 28), 1), (date(2026, 1, 31), date(2026, 3, 1), 2),
], ids=["end-of-february-is-a-month", "first-of-march-is-more"])
def test_months_from_the_end_of_a_month(due, on, months):
    assert months_or_fraction(due, on) == months


@pytest.mark.parametrize("rates, days, fine, interest", [
    (RATES, 1, "0.33", "1.00"),
    (RATES, 60, "19.80", "2.00"),
    (RATES, 61, "20.00", "2.00"),   # 61 × 0,33 % = 20,13 %: the ceiling; 10/05 is two whole months
    (RATES, 400, "20.00", "14.00"),
    (FIXED, 1, "2.00", "1.00"),
    (FIXED, 90, "2.00", "3.00"),
], ids=["1-day", "60-days-below-ceiling", "61-days-at-ceiling", "400-days", "fixed-1-day", "fixed-90-days"])
def test_fine_per_day_up_to_its_ceiling_and_interest_per_month(rates, days, fine, interest):
    from datetime import timedelta

    charges = late_charges(Decimal("100.00"), DUE, DUE + timedelta(days=days), rates)
    assert (charges.days, charges.fine, charges.interest) == (days, Decimal(fine), Decimal(interest))
    assert charges.total == Decimal("100.00") + Decimal(fine) + Decimal(interest)
    assert all(f.reference == ACT for f in charges.findings)


def test_amounts_are_rounded_to_centavos_half_up():
    charges = late_charges(Decimal("33.33"), DUE, date(2026, 3, 13), RATES)  # 0,99 % of 33,33 = 0,329967
    assert charges.fine == Decimal("0.33") and charges.interest == Decimal("0.33")


@pytest.mark.parametrize("on", [DUE, date(2026, 3, 9)], ids=["on-the-due-date", "before"])
def test_no_charges_up_to_the_due_date(on):
    with pytest.raises(NotOverdue):
        late_charges(Decimal("100.00"), DUE, on, RATES)


def test_rates_are_dated_parameters_and_missing_ones_are_not_invented():
    book = ParameterBook([ParameterVersion(n, date(2026, 1, 1), Decimal(v), ACT) for n, v in (
        ("dam_late_fine_daily_percent", "0.33"), ("dam_late_fine_max_percent", "20"),
        ("dam_late_interest_monthly_percent", "1"))])
    assert late_rates(book, date(2026, 1, 1)) == RATES
    with pytest.raises(ParameterMissing):
        late_rates(book, date(2025, 12, 31))
    with pytest.raises(ParameterMissing):
        late_rates(ParameterBook(), date(2026, 1, 1))


def test_the_after_due_text_names_rates_and_act():
    assert RATES.text().startswith("Multa de 0,33 % ao dia, até 20 % e juros de 1 % ao mês ou fração")
    assert FIXED.text().startswith("Multa de 2 % e juros de 1 %") and ACT in FIXED.text()


def test_a_demo_act_is_not_printed_on_the_citizens_slip():
    """Issue 22 item 11: "… de demonstração — confirmar o ato municipal" is said once, on Implantação."""
    demo = LateRates(Decimal("2"), Decimal("2"), Decimal("1"), "Código Tributário Municipal de demonstração",
                     "Código Tributário Municipal de demonstração")
    assert "demonstração" not in demo.text() and demo.text().startswith("Multa de 2 % e juros de 1 %")


@pytest.mark.parametrize("name, cut", [
    ("Prefeitura de Matupá", None),
    ("A" * 25, None),
    ("A" * 26, "A" * 25),
    ("Prefeitura Municipal de Chapada dos Guimarães", "Prefeitura Municipal de C"),
], ids=["short", "25", "26", "long"])
def test_the_pix_payee_name_cut_to_25_characters(name, cut):
    assert merchant_name_cut(name) == cut
