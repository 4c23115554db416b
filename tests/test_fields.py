"""Field validators: what a user types becomes a clean value or a clear pt-BR message."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from services import fields


@pytest.mark.parametrize("kind,raw,clean", [
    ("cpf", "529.982.247-25", "52998224725"),
    ("cnpj", "11.222.333/0001-81", "11222333000181"),
    ("cpf_cnpj", "11222333000181", "11222333000181"),
    ("plate", "abc-1234", "ABC1234"),
    ("plate", "ABC1D23", "ABC1D23"),
    ("money", "R$ 1.234,56", Decimal("1234.56")),
    ("money", "10,005", Decimal("10.01")),
    ("date", "29/02/2028", date(2028, 2, 29)),
    ("bool", "Sim", True),
    ("phone", "(65) 99999-8888", "65999998888"),
    ("int", "1.200", 1200),
], ids=lambda v: str(v))
def test_valid_inputs_are_cleaned(kind, raw, clean):
    assert fields.parse(kind, raw) == clean


@pytest.mark.parametrize("kind,raw,message", [
    ("cpf", "529.982.247-26", "CPF inválido"),
    ("cpf", "111.111.111-11", "CPF inválido"),
    ("cnpj", "11.222.333/0001-82", "CNPJ inválido"),
    ("plate", "AB-12345", "placa inválida"),
    ("renavam", "12345678901", "RENAVAM inválido"),
    ("money", "12,3,4", "valor inválido"),
    ("money", "-5", "negativo"),
    ("date", "31/02/2026", "data inválida"),
    ("email", "fulano@", "e-mail inválido"),
], ids=lambda v: str(v))
def test_invalid_inputs_are_refused_with_the_reason(kind, raw, message):
    with pytest.raises(ValueError, match=message):
        fields.parse(kind, raw)


@pytest.mark.parametrize("kind,value,shown", [
    ("money", Decimal("1234.5"), "R$ 1.234,50"),
    ("cpf", "52998224725", "529.982.247-25"),
    ("cnpj", "11222333000181", "11.222.333/0001-81"),
    ("date", date(2026, 3, 9), "09/03/2026"),
    ("plate", "ABC1234", "ABC-1234"),
    ("plate", "ABC1D23", "ABC1D23"),
    ("phone", "65999998888", "(65) 99999-8888"),
])
def test_values_are_shown_in_brazilian_formats(kind, value, shown):
    assert fields.show(kind, value) == shown
