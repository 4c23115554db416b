"""Amount in words (pt-BR) as printed on the DAM, including num2words' known quirks."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from num2words import num2words

from rules.dam.words import AmountTooLargeForWords, amount_in_words, integer_in_words


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        pytest.param("1234.56", "mil duzentos e trinta e quatro reais e cinquenta e seis centavos",
                     id="no comma after mil (num2words writes 'mil, duzentos')"),
        pytest.param("0.50", "cinquenta centavos", id="no 'zero reais e' before centavos"),
        pytest.param("0.01", "um centavo", id="singular centavo"),
        pytest.param("0", "zero reais", id="zero"),
        pytest.param("1", "um real", id="singular real"),
        pytest.param("1.01", "um real e um centavo", id="singular both"),
        pytest.param("14", "quatorze reais", id="quatorze, the Brazilian spelling"),
        pytest.param("100", "cem reais", id="cem alone"),
        pytest.param("101", "cento e um reais", id="cento e"),
        pytest.param("1000", "mil reais", id="mil, never 'um mil'"),
        pytest.param("1001", "mil e um reais", id="e before a last group below 100"),
        pytest.param("1100", "mil e cem reais", id="e before a round hundred"),
        pytest.param("1230", "mil duzentos e trinta reais", id="no e before a non-round hundred"),
        pytest.param("21000", "vinte e um mil reais", id="vinte e um mil"),
        pytest.param("100100", "cem mil e cem reais", id="cem mil e cem"),
        pytest.param("1000000", "um milhão de reais", id="de reais after an exact million"),
        pytest.param("2000000", "dois milhões de reais", id="plural milhões de reais"),
        pytest.param("1500000", "um milhão e quinhentos mil reais", id="no 'de' when thousands follow"),
        pytest.param("1000000000", "um bilhão de reais", id="de reais after an exact billion"),
        pytest.param(
            "1234567.89",
            "um milhão duzentos e trinta e quatro mil quinhentos e sessenta e sete reais e oitenta e nove centavos",
            id="no commas between groups",
        ),
        pytest.param(
            "999999999.99",
            "novecentos e noventa e nove milhões novecentos e noventa e nove mil novecentos e noventa e nove "
            "reais e noventa e nove centavos",
            id="largest DAM amount",
        ),
    ],
)
def test_amount_in_words(amount, words):
    assert amount_in_words(Decimal(amount)) == words


@pytest.mark.parametrize("amount", ["-0.01", "1000000000000.00"], ids=["negative", "one trillion"])
def test_out_of_range(amount):
    with pytest.raises(AmountTooLargeForWords):
        amount_in_words(Decimal(amount))


@given(st.integers(0, 999_999))
def test_agrees_with_num2words_without_its_commas(n):
    expected = num2words(n, lang="pt_BR").replace(",", "").replace("catorze", "quatorze")
    assert integer_in_words(n) == expected


@given(st.integers(0, 99_999_999_999).map(lambda c: Decimal(c).scaleb(-2)))
def test_never_a_comma_nor_zero_reais_before_centavos(amount):
    words = amount_in_words(amount)
    assert "," not in words
    assert not words.startswith("zero reais e")
    assert "  " not in words
