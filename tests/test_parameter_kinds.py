"""A new version of a parameter keeps the kind of its earlier ones (issue 22 item 10): TI cannot turn
the UPFM (money) into a text, or a number of days into a decimal, by a slip on the form."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from services.shared import parameters
from services.shared.errors import ValidationFailed
from tests.conftest import TI


def first(db, name: str, value) -> None:
    parameters.add_version(db, TI, "chapada", name, date(2026, 1, 1), value, "Decreto Municipal 1/2026")


@pytest.mark.parametrize("name, earlier, slip, kind", [
    ("upfm_value", Decimal("150.00"), "150,00", "um valor (R$) ou número decimal"),
    ("dam_due_days", 10, Decimal("10.5"), "um número inteiro"),
    ("pix_enabled", True, "sim", "sim/não"),
])
def test_a_version_of_another_kind_is_refused_under_the_value(db, name, earlier, slip, kind):
    db["parameters"].delete_many({"municipality": "chapada", "name": name})
    first(db, name, earlier)
    with pytest.raises(ValidationFailed) as refused:
        parameters.add_version(db, TI, "chapada", name, date(2027, 1, 1), slip, "Decreto Municipal 2/2027")
    assert refused.value.errors["value"].startswith(f"Valor: este parâmetro é {kind} em todas as versões")
    parameters.add_version(db, TI, "chapada", name, date(2027, 1, 1), earlier, "Decreto Municipal 2/2027")
    assert parameters.value(db, "chapada", name, date(2027, 1, 2)) == earlier
