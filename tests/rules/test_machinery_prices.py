"""Anexo I of Decreto 017/2026 (Nova Lacerda) as dated prices, and their update by art. 12."""
from datetime import date
from decimal import Decimal

import pytest

from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS, RULESET
from rules.machinery.prices import (
    CATALOGUE,
    PRICE_TABLE,
    InvalidIndexVariation,
    PriceIndex,
    PriceTable,
    PriceTableIncomplete,
    price_table_on,
    updated_by_index,
)
from rules.machinery.quote import MachineHours, PassengerTransport, quote
from rules.params import ParameterBook, ParameterMissing, ParameterVersion
from rules.registry import MACHINERY, ruleset

BOOK = ParameterBook(DEFAULT_PARAMETERS)
IN_FORCE = date(2026, 3, 24)


@pytest.mark.parametrize("code, machine, unit, price", [
    pytest.param("01", "Retroescavadeira", "Hora", "300.00", id="Anexo I item 01: retroescavadeira R$ 300,00/hora"),
    pytest.param("02", "Motoniveladora", "Hora", "300.00", id="Anexo I item 02: motoniveladora R$ 300,00/hora"),
    pytest.param("03", "Pá carregadeira", "Hora", "300.00", id="Anexo I item 03: pá carregadeira R$ 300,00/hora"),
    pytest.param("04", "Escavadeira hidráulica", "Hora", "450.00", id="Anexo I item 04: escavadeira R$ 450,00/hora"),
    pytest.param("05", "Caminhão basculante", "Diária (até 200 km)", "1150.00", id="Anexo I item 05: basculante diária R$ 1.150,00"),
    pytest.param("06", "Caminhão basculante", "Meia diária (até 200 km)", "575.00", id="Anexo I item 06: basculante meia diária R$ 575,00"),
    pytest.param("07", "Caminhão basculante", "Km rodado (200 a 550 km)", "15.00", id="Anexo I item 07: basculante R$ 15,00/km"),
    pytest.param("08", "Caminhão prancha com semirreboque", "Viagem (até 200 km)", "1500.00", id="Anexo I item 08: prancha viagem R$ 1.500,00"),
    pytest.param("09", "Caminhão prancha com semirreboque", "Km rodado (200 a 550 km)", "18.00", id="Anexo I item 09: prancha R$ 18,00/km"),
    pytest.param("10", "Ônibus", "Km rodado (até 1100 km)", "5.00", id="Anexo I item 10: ônibus R$ 5,00/km"),
    pytest.param("11", "Micro-ônibus ou van", "Km rodado (até 1100 km)", "4.50", id="Anexo I item 11: van R$ 4,50/km"),
    pytest.param("12", "Transporte de carga de terra/cascalho", "Por viagem ou por carga", "150.00", id="Anexo I item 12: carga R$ 150,00"),
])
def test_anexo_i_rows(code, machine, unit, price):
    item = CATALOGUE[code]
    assert (item.machine, item.unit_label) == (machine, unit)
    assert price_table_on(BOOK, IN_FORCE).price(code) == Decimal(price)


@pytest.mark.parametrize("on, in_force", [
    pytest.param(date(2026, 3, 23), False, id="art. 13: day before the decree, no table"),
    pytest.param(date(2026, 3, 24), True, id="art. 13: decree's date, Anexo I in force"),
])
def test_table_in_force_from_the_decree(on, in_force):
    if in_force:
        assert price_table_on(BOOK, on).effective == IN_FORCE
    else:
        with pytest.raises(ParameterMissing):
            price_table_on(BOOK, on)


@pytest.mark.parametrize("index, percent, code, expected", [
    pytest.param(PriceIndex.INPC, "4.18", "01", "312.54", id="art. 12 INPC 4,18%: 300,00 -> 312,54"),
    pytest.param(PriceIndex.INPC, "4.18", "06", "599.04", id="art. 12 INPC 4,18%: 575,00 -> 599,035 -> 599,04"),
    pytest.param(PriceIndex.INPC, "4.18", "07", "15.63", id="art. 12 INPC 4,18%: 15,00 -> 15,627 -> 15,63"),
    pytest.param(PriceIndex.IPCA, "1", "11", "4.55", id="art. 12 IPCA 1%: 4,50 -> 4,545 -> 4,55 (half up, not half even)"),
    pytest.param(PriceIndex.IPCA, "-0.5", "05", "1144.25", id="art. 12 IPCA deflation -0,5%: 1.150,00 -> 1.144,25"),
])
def test_index_update_rounds_to_centavos(index, percent, code, expected):
    table = price_table_on(BOOK, IN_FORCE)
    version = updated_by_index(table, index, Decimal(percent), date(2027, 1, 1), "Decreto 001/2027 (Nova Lacerda)")
    assert version.name == PRICE_TABLE and version.effective == date(2027, 1, 1)
    assert version.value[code] == Decimal(expected)
    assert index.value in version.note


@pytest.mark.parametrize("percent", [
    pytest.param("-100", id="art. 12: -100% would make prices zero"),
    pytest.param("-150", id="art. 12: -150% would make prices negative"),
    pytest.param("-99.999", id="art. 12: -99,999% would round item 11 to R$ 0,00"),
])
def test_index_update_cannot_zero_prices(percent):
    with pytest.raises(InvalidIndexVariation):
        updated_by_index(price_table_on(BOOK, IN_FORCE), PriceIndex.IPCA, Decimal(percent), date(2027, 1, 1), "x")


def test_update_is_a_new_version_and_a_stored_quote_keeps_its_table():
    update = updated_by_index(price_table_on(BOOK, IN_FORCE), PriceIndex.INPC, Decimal("10"),
                              date(2027, 1, 1), "Decreto 001/2027 (Nova Lacerda)")
    book = BOOK.with_versions([update])
    before = quote([MachineHours("01", Decimal(1))], date(2026, 12, 31), book)
    after = quote([MachineHours("01", Decimal(1))], date(2027, 1, 1), book)
    assert before.total == Decimal("300.00") and after.total == Decimal("330.00")
    assert before.price_table.effective == IN_FORCE and after.price_table.act == "Decreto 001/2027 (Nova Lacerda)"
    assert "24/03/2026" in before.price_table.label


def test_version_missing_an_item_is_refused():
    prices = dict(DEFAULT_PARAMETERS[0].value)
    del prices["12"]
    with pytest.raises(PriceTableIncomplete) as error:
        PriceTable.from_version(ParameterVersion(PRICE_TABLE, IN_FORCE, prices, "x"))
    assert error.value.value == ["12"]


def test_registry_reaches_the_rule_set():
    assert ruleset("nova_lacerda", MACHINERY) is RULESET
    assert [item.code for item in RULESET.catalogue()] == [f"{n:02d}" for n in range(1, 13)]
    assert RULESET.quote([PassengerTransport("11", Decimal(10))], IN_FORCE, BOOK).total == Decimal("45.00")


@pytest.mark.parametrize("on, wage", [
    pytest.param(date(2025, 12, 31), "1518.00", id="Decreto 12.342/2024: R$ 1.518,00 on 31/12/2025"),
    pytest.param(date(2026, 1, 1), "1621.00", id="Decreto 12.797/2025: R$ 1.621,00 from 01/01/2026"),
])
def test_minimum_wage_is_dated(on, wage):
    assert BOOK.get("minimum_wage", on) == Decimal(wage)
