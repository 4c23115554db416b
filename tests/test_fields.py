"""Field validators: what a user types becomes a clean value or a clear pt-BR message."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from services.shared import fields


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


@pytest.mark.parametrize("kind,raw,clean", [
    ("text", "Ro\x00sa\x07", "Rosa"),
    ("text", "Linha\nquebrada", "Linhaquebrada"),
    ("textarea", "Linha 1\nLinha 2\tfim\x00", "Linha 1\nLinha 2\tfim"),
    ("text", "🚕 Táxi", "🚕 Táxi"),
], ids=["NUL and bell in text", "line break in text", "textarea keeps lines", "emoji"])
def test_text_loses_control_characters_and_keeps_the_rest(kind, raw, clean):
    assert fields.parse(kind, raw) == clean


@pytest.mark.parametrize("kind,raw,message", [
    ("text", "a" * 501, "texto longo demais"),
    ("textarea", "a" * 5001, "texto longo demais"),
    ("int", str(2**63), "grande demais"),
    ("int", 10**30, "grande demais"),
], ids=["text over 500", "textarea over 5000", "int over 64 bits", "huge int"])
def test_values_a_store_cannot_keep_are_refused(kind, raw, message):
    with pytest.raises(ValueError, match=message):
        fields.parse(kind, raw)


def test_text_at_its_limit_is_accepted():
    assert fields.parse("text", "a" * 500) == "a" * 500


@pytest.mark.parametrize("raw", [["pf"], {"pf": 1}, ("pf",)], ids=["list", "dict", "tuple"])
def test_a_choice_that_is_not_text_is_refused_with_the_reason(raw):
    with pytest.raises(ValueError, match="opção inválida"):
        fields.parse("choice", raw, (("pf", "Pessoa física"),))


@pytest.mark.parametrize("raw,message", [
    (Decimal("NaN"), "valor inválido"),
    (Decimal("sNaN"), "valor inválido"),
    (Decimal("Infinity"), "valor inválido"),
    ("1e999999", "grande demais"),
    (10**400, "grande demais"),
    ("1.000.000.000.000.000,00", "grande demais"),
], ids=["NaN", "signaling NaN", "infinity", "huge exponent", "huge int", "a quadrillion"])
def test_an_amount_that_is_not_a_finite_sane_number_is_refused_with_the_reason(raw, message):
    with pytest.raises(ValueError, match=message):
        fields.parse("money", raw)


@pytest.mark.parametrize(("kind", "typed", "searched"), [
    ("cpf", "123.456.789-09", "12345678909"),   # a CPF typed with its dots and dash
    ("phone", "(65) 99999-0000", "65999990000"),
    ("cpf", "psg-9x98", "psg-9x98"),            # a plate is no CPF: never its digits "998"
    ("renavam", "QWE1A23", "QWE1A23"),
    ("plate", "psg-9x98", "PSG9X98"),
])
def test_a_search_term_is_matched_as_the_field_keeps_its_values(kind, typed, searched):
    assert fields.search_form(kind, typed) == searched
