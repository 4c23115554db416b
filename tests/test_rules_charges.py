"""The standing and the aging of a charge (rules/dam/charges.py), as tables from the acts they follow."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

import pytest

from rules.dam import charges as rules

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize("principal, late, paid, status, open_, credit", [
    pytest.param("225.00", "0", "0", rules.OPEN, "225.00", "0", id="nothing paid: em aberto"),
    pytest.param("225.00", "0", "100.00", rules.SHORT, "125.00", "0",
                 id="NL Decreto 017/2026 art. 8 §1: paid short, the difference stays open"),
    pytest.param("225.00", "0", "225.00", rules.PAID, "0", "0", id="paid in full"),
    pytest.param("100.00", "15.53", "115.53", rules.PAID, "0", "0",
                 id="CTN art. 161: a 2ª via paid carries its multa and juros into what is owed"),
    pytest.param("100.00", "15.53", "100.00", rules.SHORT, "15.53", "0",
                 id="CTN art. 161: the principal alone does not settle a 2ª via's late charges"),
    pytest.param("100.00", "0", "215.53", rules.PAID, "0", "115.53",
                 id="CTN art. 165: paid twice, the excess is a credit to refund"),
])
def test_standing(principal, late, paid, status, open_, credit):
    state = rules.standing(D(principal), D(late), D(paid))
    assert (state.status, state.open, state.credit) == (status, D(open_), D(credit))
    assert state.open - state.credit == D(principal) + D(late) - D(paid)


@pytest.mark.parametrize("inscribed, cancelled, paid, status", [
    pytest.param(True, False, "0", rules.INSCRIBED, id="Lei 4.320/1964 art. 39 §1: inscribed, still owed"),
    pytest.param(True, False, "225.00", rules.PAID, id="Lei 6.830/1980 art. 2: an inscribed charge paid is paid"),
    pytest.param(False, True, "0", rules.CANCELLED, id="a withdrawn charge"),
])
def test_inscribed_and_cancelled(inscribed, cancelled, paid, status):
    assert rules.standing(D("225.00"), D("0"), D(paid), inscribed=inscribed, cancelled=cancelled).status == status


@pytest.mark.parametrize("due_on, bucket", [
    pytest.param(date(2026, 12, 1), "a_vencer", id="due today: a vencer"),
    pytest.param(date(2026, 11, 30), "1_30", id="1 day overdue"),
    pytest.param(date(2026, 11, 1), "1_30", id="30 days overdue"),
    pytest.param(date(2026, 10, 31), "31_90", id="31 days overdue"),
    pytest.param(date(2026, 9, 2), "31_90", id="90 days overdue"),
    pytest.param(date(2026, 9, 1), "91_365", id="91 days overdue"),
    pytest.param(date(2025, 12, 1), "91_365", id="365 days overdue"),
    pytest.param(date(2025, 11, 30), "mais_365", id="366 days overdue"),
])
def test_aging_buckets(due_on, bucket):
    assert rules.bucket(due_on, TODAY) == bucket


@pytest.mark.parametrize("status, due_on, allowed", [
    pytest.param(rules.OPEN, date(2026, 8, 1), True, id="Lei 4.320/1964 art. 39 §1: open beyond the term"),
    pytest.param(rules.OPEN, date(2026, 10, 1), False, id="open within the term"),
    pytest.param(rules.SHORT, date(2026, 8, 1), True, id="the difference of a short payment"),
    pytest.param(rules.PAID, date(2026, 8, 1), False, id="paid: nothing to inscribe"),
    pytest.param(rules.INSCRIBED, date(2026, 8, 1), False, id="already inscribed"),
])
def test_inscribable_after_the_municipal_term(status, due_on, allowed):
    assert rules.inscribable(status, due_on, TODAY, 90) is allowed
