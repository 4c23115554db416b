"""DAM parameters: FEBRABAN code and value identifier per municipality, optional PIX."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from rules.dam.barcode import modulo11, parse_line
from rules.dam.parameters import DEFAULT_PARAMETERS, dam_settings
from rules.params import ParameterBook, ParameterMissing, ParameterVersion

ACT = "Decreto municipal (teste)"


def _book(*extra: ParameterVersion) -> ParameterBook:
    code = ParameterVersion("dam_febraban_code", date(2026, 1, 1), "0299", ACT)
    return ParameterBook([*DEFAULT_PARAMETERS, code, *extra])


def test_defaults_give_modulo_10_and_no_pix():
    settings = dam_settings(_book(), date(2026, 3, 1))
    assert (settings.febraban_code, settings.value_identifier, settings.pix) == ("0299", 6, None)
    barcode = settings.barcode(Decimal("10.00"), date(2026, 3, 31), 2026, 1)
    assert barcode.digits[:3] == "816"
    assert settings.pix_payload(Decimal("10.00"), 2026, 1) is None


def test_missing_febraban_code_is_never_a_silent_default():
    with pytest.raises(ParameterMissing):
        dam_settings(ParameterBook(DEFAULT_PARAMETERS), date(2026, 3, 1))


@pytest.mark.parametrize(
    ("on", "identifier"),
    [
        pytest.param(date(2026, 6, 30), 6, id="day before the new agreement: modulo 10"),
        pytest.param(date(2026, 7, 1), 8, id="from the new agreement: modulo 11"),
    ],
)
def test_value_identifier_follows_the_version_in_force(on, identifier):
    book = _book(ParameterVersion("dam_value_identifier", date(2026, 7, 1), 8, ACT))
    settings = dam_settings(book, on)
    assert settings.value_identifier == identifier
    barcode = settings.barcode(Decimal("10.00"), date(2026, 7, 31), 2026, 5)
    assert barcode.value_identifier == str(identifier)
    assert parse_line(barcode.line) == barcode
    if identifier == 8:
        assert int(barcode.digits[3]) == modulo11(barcode.digits[:3] + barcode.digits[4:])


def test_pix_enabled_gives_a_payload_with_the_dam_txid():
    book = _book(
        ParameterVersion("pix_enabled", date(2026, 1, 1), True, ACT),
        ParameterVersion("pix_key", date(2026, 1, 1), "12345678000199", ACT),
        ParameterVersion("pix_merchant_name", date(2026, 1, 1), "Prefeitura de Matupá", ACT),
        ParameterVersion("pix_merchant_city", date(2026, 1, 1), "Matupá", ACT),
    )
    payload = dam_settings(book, date(2026, 3, 1)).pix_payload(Decimal("57.30"), 2026, 42)
    assert "0114" + "12345678000199" in payload
    assert "540557.30" in payload
    assert "5920Prefeitura de Matupa6006Matupa" in payload
    assert "0513DAM2026000042" in payload


def test_pix_enabled_without_key_raises():
    with pytest.raises(ParameterMissing):
        dam_settings(_book(ParameterVersion("pix_enabled", date(2026, 1, 1), True, ACT)), date(2026, 3, 1))
