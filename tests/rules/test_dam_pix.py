"""Static PIX BR Code: Banco Central's example byte for byte, CRC16-CCITT-FALSE with its
zero padding, ASCII folding and the limits of each field."""
from __future__ import annotations

import binascii
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dam.pix import (
    InvalidTxid,
    PixFieldMissing,
    PixFieldTooLong,
    PixNotAscii,
    ascii_text,
    crc16_ccitt_false,
    dam_txid,
    pix_payload,
)

BCB_KEY = "123e4567-e12b-12d1-a456-426655440000"


def _tlv(payload: str) -> dict[str, str]:
    """Read the top-level EMV fields back, checking every length on the way."""
    fields, index = {}, 0
    while index < len(payload):
        field_id, length = payload[index : index + 2], int(payload[index + 2 : index + 4])
        fields[field_id] = payload[index + 4 : index + 4 + length]
        index += 4 + length
    assert index == len(payload)
    return fields


def test_banco_central_manual_example_byte_for_byte():
    expected = (
        "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000"
        "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
    )
    assert pix_payload(BCB_KEY, "Fulano de Tal", "BRASILIA") == expected


def test_example_with_amount_matches_independently_computed_payload():
    # Same example with field 54; CRC published by a third party and checked with binascii.crc_hqx.
    expected = (
        "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000"
        "5204000053039865406100.505802BR5913Fulano de Tal6008BRASILIA62070503***6304659E"
    )
    assert pix_payload(BCB_KEY, "Fulano de Tal", "BRASILIA", Decimal("100.50")) == expected


def test_crc_check_value_of_ccitt_false():
    assert crc16_ccitt_false(b"123456789") == 0x29B1


def test_crc_below_0x1000_is_zero_padded_to_four_uppercase_digits():
    payload = pix_payload(
        "pix@chapadadosguimaraes.mt.gov.br", "Prefeitura de Chapada", "Chapada dos Guimarães",
        Decimal("123.45"), dam_txid(2026, 6),
    )
    assert payload == (
        "00020126550014br.gov.bcb.pix0133pix@chapadadosguimaraes.mt.gov.br5204000053039865406123.45"
        "5802BR5921Prefeitura de Chapada6015Chapada dos Gui62170513DAM202600000663040A7B"
    )
    assert binascii.crc_hqx(payload[:-4].encode(), 0xFFFF) == 0x0A7B


@pytest.mark.parametrize(
    ("amount", "field_54"),
    [
        pytest.param(None, None, id="no amount: field 54 omitted"),
        pytest.param(Decimal("0"), None, id="zero: field 54 omitted"),
        pytest.param(Decimal("0.01"), "0.01", id="one centavo"),
        pytest.param(Decimal("1234.5"), "1234.50", id="two decimals always"),
        pytest.param(Decimal("80"), "80.00", id="whole reais"),
    ],
)
def test_amount_field(amount, field_54):
    assert _tlv(pix_payload(BCB_KEY, "Prefeitura", "Matupa", amount)).get("54") == field_54


def test_accents_are_stripped_and_name_and_city_cut_to_their_limits():
    fields = _tlv(pix_payload(BCB_KEY, "Prefeitura Municipal de Chapada dos Guimarães", "Chapada dos Guimarães"))
    assert fields["59"] == "Prefeitura Municipal de C"
    assert len(fields["59"]) == 25
    assert fields["60"] == "Chapada dos Gui"
    assert len(fields["60"]) == 15


@pytest.mark.parametrize(
    ("text", "ascii"),
    [
        pytest.param("Guimarães", "Guimaraes", id="tilde"),
        pytest.param("Matupá", "Matupa", id="acute"),
        pytest.param("Conceição", "Conceicao", id="cedilla"),
    ],
)
def test_ascii_text(text, ascii):
    assert ascii_text(text) == ascii


@pytest.mark.parametrize("text", ["Preço €", "東京", "Łódź"], ids=["euro sign", "CJK", "stroke letter"])
def test_what_cannot_be_ascii_is_refused(text):
    with pytest.raises(PixNotAscii):
        pix_payload(BCB_KEY, text, "Cuiaba")


@pytest.mark.parametrize(
    ("txid", "error"),
    [
        pytest.param("A" * 26, InvalidTxid, id="txid of 26 characters"),
        pytest.param("DAM-2026-1", InvalidTxid, id="txid with hyphen"),
        pytest.param("", InvalidTxid, id="empty txid"),
    ],
)
def test_txid_errors(txid, error):
    with pytest.raises(error):
        pix_payload(BCB_KEY, "Prefeitura", "Matupa", Decimal("1.00"), txid)


def test_txid_of_25_characters_accepted():
    assert _tlv(_tlv(pix_payload(BCB_KEY, "P", "M", None, "A" * 25))["62"])["05"] == "A" * 25


def test_key_too_long_refused_and_77_accepted():
    assert "01" + "77" + "k" * 77 in pix_payload("k" * 77, "P", "M")
    with pytest.raises(PixFieldTooLong):
        pix_payload("k" * 78, "P", "M")


def test_name_and_city_are_required():
    with pytest.raises(PixFieldMissing):
        pix_payload(BCB_KEY, "  ", "Matupa")


def test_dam_txid():
    assert dam_txid(2026, 123) == "DAM2026000123"


@given(
    name=st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=40).filter(str.strip),
    city=st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=30).filter(str.strip),
    cents_=st.integers(0, 10**9),
    sequence=st.integers(1, 10**6),
)
def test_any_payload_is_well_formed(name, city, cents_, sequence):
    payload = pix_payload(BCB_KEY, name, city, Decimal(cents_).scaleb(-2), dam_txid(2026, sequence))
    assert payload.isascii()
    fields = _tlv(payload)
    assert list(fields)[0] == "00" and list(fields)[-1] == "63"
    assert len(fields["59"]) <= 25 and len(fields["60"]) <= 15
    assert fields["63"] == f"{binascii.crc_hqx(payload[:-4].encode(), 0xFFFF):04X}"
