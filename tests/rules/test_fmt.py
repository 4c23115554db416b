"""Brazilian formats of the amounts and numbers that rules write in their reasons."""
from __future__ import annotations

from decimal import Decimal

import pytest

from rules import fmt


@pytest.mark.parametrize("value,places,shown", [
    (Decimal("1234.5"), 2, "1.234,50"),
    (Decimal("0.7"), None, "0,7"),
    (Decimal("1E+25"), None, "10.000.000.000.000.000.000.000.000"),
    (Decimal("123456789012345678901234567890.12"), 2, "123.456.789.012.345.678.901.234.567.890,12"),
], ids=["thousands", "fraction", "huge exponent form", "more digits than the default context"])
def test_number_in_pt_br(value, places, shown):
    assert fmt.number(value, places) == shown


@pytest.mark.parametrize("value,shown", [
    (Decimal("1621"), "R$ 1.621,00"),
    (Decimal("0.005"), "R$ 0,01"),
    (Decimal("1E+25"), "R$ 10.000.000.000.000.000.000.000.000,00"),
])
def test_brl(value, shown):
    assert fmt.brl(value) == shown
