"""Quotes by Anexo I of Decreto 017/2026 (Nova Lacerda): lines, km ranges and refusals."""
from datetime import date
from decimal import Decimal

import pytest

from rules.machinery.discounts import (
    DiscountClaim,
    DiscountCriterion,
    Evidence,
    EvidenceKind,
)
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.machinery.quote import (
    DistanceAboveLimit,
    DumpTruckDay,
    EarthChargedByLoad,
    EarthLoads,
    EmptyQuote,
    InvalidQuantity,
    KmReading,
    LoadsAboveStageLimit,
    LowboyTrip,
    MachineHours,
    PassengerTransport,
    QuantityAboveCeiling,
    QuantityNotPositive,
    UnknownItem,
    quote,
)
from rules.params import ParameterBook, ParameterMissing, ParameterVersion

BOOK = ParameterBook(DEFAULT_PARAMETERS)
ON = date(2026, 4, 10)
WHOLE = BOOK.with_versions([ParameterVersion("km_reading_items_07_09", date(2026, 4, 1),
                                             KmReading.WHOLE_DISTANCE.value, "Decreto 050/2026 (hipotético)")])
D = Decimal


def lines(q):
    return [(line.item, line.quantity, line.amount) for line in q.lines]


@pytest.mark.parametrize("service, expected", [
    pytest.param(MachineHours("01", D(1)), [("01", D(1), D("300.00"))], id="Anexo I item 01: 1 h"),
    pytest.param(MachineHours("02", D("0.01")), [("02", D("0.01"), D("3.00"))], id="Anexo I item 02: 0,01 h"),
    pytest.param(MachineHours("03", D("7.5")), [("03", D("7.5"), D("2250.00"))], id="Anexo I item 03: 7,5 h"),
    pytest.param(MachineHours("04", D("2.25")), [("04", D("2.25"), D("1012.50"))], id="Anexo I item 04: 2,25 h"),
    pytest.param(DumpTruckDay(D(200)), [("05", 1, D("1150.00"))], id="Anexo I item 05: 200 km within the day"),
    pytest.param(DumpTruckDay(D(201)), [("05", 1, D("1150.00")), ("07", D(1), D("15.00"))],
                 id="Anexo I item 07 (1st reading): 201 km = day + 1 km"),
    pytest.param(DumpTruckDay(D("200.01")), [("05", 1, D("1150.00")), ("07", D("0.01"), D("0.15"))],
                 id="Anexo I item 07 (1st reading): 200,01 km = day + 0,01 km"),
    pytest.param(DumpTruckDay(D(550)), [("05", 1, D("1150.00")), ("07", D(350), D("5250.00"))],
                 id="Anexo I item 07 (1st reading): 550 km = day + 350 km"),
    pytest.param(DumpTruckDay(D(200), half_day=True), [("06", 1, D("575.00"))], id="Anexo I item 06: half day 200 km"),
    pytest.param(DumpTruckDay(D(201), half_day=True), [("06", 1, D("575.00")), ("07", D(1), D("15.00"))],
                 id="Anexo I item 06+07 (1st reading): half day 201 km"),
    pytest.param(LowboyTrip(D(200)), [("08", 1, D("1500.00"))], id="Anexo I item 08: trip 200 km"),
    pytest.param(LowboyTrip(D(201)), [("08", 1, D("1500.00")), ("09", D(1), D("18.00"))],
                 id="Anexo I item 09 (1st reading): 201 km = trip + 1 km"),
    pytest.param(LowboyTrip(D(550)), [("08", 1, D("1500.00")), ("09", D(350), D("6300.00"))],
                 id="Anexo I item 09 (1st reading): 550 km = trip + 350 km"),
    pytest.param(PassengerTransport("10", D(1100)), [("10", D(1100), D("5500.00"))], id="Anexo I item 10: bus 1.100 km"),
    pytest.param(PassengerTransport("11", D(1100)), [("11", D(1100), D("4950.00"))], id="Anexo I item 11: van 1.100 km"),
    pytest.param(PassengerTransport("11", D("0.5")), [("11", D("0.5"), D("2.25"))], id="Anexo I item 11: van 0,5 km"),
    pytest.param(EarthLoads(1), [("12", D(1), D("150.00"))], id="Anexo I item 12: 1 load"),
    pytest.param(EarthLoads(5), [("12", D(5), D("750.00"))], id="Anexo I item 12: 5 loads"),
])
def test_lines_first_reading(service, expected):
    q = quote([service], ON, BOOK)
    assert lines(q) == expected
    assert q.km_reading is KmReading.EXCESS_OVER_200
    assert q.total == sum(amount for _, _, amount in expected)


@pytest.mark.parametrize("service, expected", [
    pytest.param(DumpTruckDay(D(200)), [("05", 1, D("1150.00"))], id="Anexo I item 05 (2nd reading): 200 km still a day"),
    pytest.param(DumpTruckDay(D(201)), [("07", D(201), D("3015.00"))], id="Anexo I item 07 (2nd reading): 201 km all per km"),
    pytest.param(DumpTruckDay(D(550), half_day=True), [("07", D(550), D("8250.00"))],
                 id="Anexo I item 07 (2nd reading): half day 550 km all per km"),
    pytest.param(LowboyTrip(D(200)), [("08", 1, D("1500.00"))], id="Anexo I item 08 (2nd reading): 200 km a trip"),
    pytest.param(LowboyTrip(D(201)), [("09", D(201), D("3618.00"))], id="Anexo I item 09 (2nd reading): 201 km all per km"),
])
def test_lines_second_reading(service, expected):
    q = quote([service], ON, WHOLE)
    assert lines(q) == expected
    assert q.km_reading is KmReading.WHOLE_DISTANCE
    assert "toda a distância" in q.km_reading.text


def test_quote_shows_reading_and_line_fields():
    q = quote([DumpTruckDay(D(260))], ON, BOOK)
    assert "primeiros 200 km" in q.km_reading.text
    km = q.lines[1]
    assert (km.item, km.description, km.unit, km.unit_price) == ("07", "Caminhão basculante", "Km rodado (200 a 550 km)", D("15.00"))
    assert km.note == "60 km excedentes de 260 km"
    assert km.reference == "Decreto 017/2026 (Nova Lacerda), Anexo I, item 07"
    assert (km.discount, km.discount_reason) == (D("0.00"), "")


@pytest.mark.parametrize("service, error", [
    pytest.param(DumpTruckDay(D(551)), DistanceAboveLimit, id="Anexo I item 07: 551 km refused"),
    pytest.param(DumpTruckDay(D("550.01")), DistanceAboveLimit, id="Anexo I item 07: 550,01 km refused"),
    pytest.param(DumpTruckDay(D(551), half_day=True), DistanceAboveLimit, id="Anexo I item 07: half day 551 km refused"),
    pytest.param(LowboyTrip(D(551)), DistanceAboveLimit, id="Anexo I item 09: 551 km refused"),
    pytest.param(PassengerTransport("10", D(1101)), DistanceAboveLimit, id="Anexo I item 10: 1.101 km refused"),
    pytest.param(PassengerTransport("11", D(1101)), DistanceAboveLimit, id="Anexo I item 11: 1.101 km refused"),
    pytest.param(MachineHours("01", D(0)), QuantityNotPositive, id="Anexo I item 01: zero hours refused"),
    pytest.param(MachineHours("04", D(-1)), QuantityNotPositive, id="Anexo I item 04: negative hours refused"),
    pytest.param(DumpTruckDay(D(0)), QuantityNotPositive, id="Anexo I item 05: zero km refused"),
    pytest.param(LowboyTrip(D(-10)), QuantityNotPositive, id="Anexo I item 08: negative km refused"),
    pytest.param(PassengerTransport("10", D(0)), QuantityNotPositive, id="Anexo I item 10: zero km refused"),
    pytest.param(EarthLoads(0), QuantityNotPositive, id="Anexo I item 12: zero loads refused"),
    pytest.param(EarthLoads(-2), QuantityNotPositive, id="Anexo I item 12: negative loads refused"),
    pytest.param(EarthLoads(D("2.5")), InvalidQuantity, id="Anexo I item 12: half a load refused"),
    pytest.param(MachineHours("01", D("1.001")), InvalidQuantity, id="Anexo I item 01: over 2 decimals refused"),
    pytest.param(MachineHours("01", 1.5), InvalidQuantity, id="Anexo I item 01: float refused"),
    pytest.param(MachineHours("01", D("NaN")), InvalidQuantity, id="Anexo I item 01: NaN refused"),
    pytest.param(MachineHours("01", D("Infinity")), InvalidQuantity, id="Anexo I item 01: infinity refused"),
    pytest.param(MachineHours("01", D(10001)), QuantityAboveCeiling, id="panel ceiling: 10.001 h refused"),
    pytest.param(MachineHours("05", D(1)), UnknownItem, id="Anexo I: item 05 is not a machine hour"),
    pytest.param(PassengerTransport("09", D(10)), UnknownItem, id="Anexo I: item 09 is not bus or van"),
    pytest.param(DumpTruckDay(D(100), earth_or_gravel=True), EarthChargedByLoad,
                 id="Anexo I obs. 3: earth by dump truck goes to item 12"),
])
def test_refusals(service, error):
    with pytest.raises(error) as raised:
        quote([service], ON, BOOK)
    assert raised.value.message and raised.value.reference.startswith("Decreto 017/2026 (Nova Lacerda), Anexo I")


def test_ceiling_itself_is_accepted():
    assert quote([MachineHours("01", D(10000))], ON, BOOK).total == D("3000000.00")


def test_distance_refusal_names_the_limit():
    with pytest.raises(DistanceAboveLimit) as raised:
        quote([PassengerTransport("10", D(1101))], ON, BOOK)
    assert "1.101 km acima do limite de 1.100 km" in raised.value.message
    assert raised.value.value == D(1101) and raised.value.reference.endswith("item 10")


def test_empty_quote_refused():
    with pytest.raises(EmptyQuote):
        quote([], ON, BOOK)


def test_no_quote_before_the_decree():
    with pytest.raises(ParameterMissing):
        quote([EarthLoads(1)], date(2026, 3, 23), BOOK)


BPC = DiscountClaim(DiscountCriterion.BPC, Evidence(EvidenceKind.BPC_RECEIPT, "NB 123"))


@pytest.mark.parametrize("claims, loads, discount, net", [
    pytest.param([BPC], 5, "525.00", "225.00", id="Anexo II 70% BPC: 5 loads R$ 750,00 -> R$ 225,00"),
    pytest.param([DiscountClaim(DiscountCriterion.FAMILY_INCOME, Evidence(EvidenceKind.INCOME_STATEMENT, "CTPS 1"),
                                D("3000"))], 1, "52.50", "97.50", id="Anexo II 35% income: 1 load -> R$ 97,50"),
    pytest.param([DiscountClaim(DiscountCriterion.NON_PROFIT, Evidence(EvidenceKind.NON_PROFIT_CHARTER, "CNPJ 1"))],
                 3, "135.00", "315.00", id="Anexo II 30% non-profit: 3 loads -> R$ 315,00"),
    pytest.param([], 2, "0.00", "300.00", id="Anexo II: no claim, no discount"),
])
def test_discount_on_item_12_line(claims, loads, discount, net):
    q = quote([EarthLoads(loads), MachineHours("01", D(1))], ON, BOOK, claims)
    earth, hours = q.lines
    assert earth.discount == D(discount) and earth.net == D(net)
    assert hours.discount == D("0.00")
    assert q.total == D(net) + D("300.00") and q.discount_total == D(discount)
    if claims:
        assert "Anexo II" in earth.discount_reason
        assert "somente ao item 12" in hours.discount_reason


def test_discount_rounds_to_centavos_on_updated_prices():
    book = BOOK.with_versions([ParameterVersion("public_price_table", date(2027, 1, 1),
                                                {**DEFAULT_PARAMETERS[0].value, "12": D("156.27")}, "x")])
    claim = DiscountClaim(DiscountCriterion.FAMILY_INCOME, Evidence(EvidenceKind.INCOME_STATEMENT, "1"), D("100"))
    earth = quote([EarthLoads(1)], date(2027, 1, 1), book, [claim]).lines[0]
    assert earth.discount == D("54.69")  # 156,27 x 35% = 54,6945
    assert earth.net == D("101.58")


@pytest.mark.parametrize("services, total", [
    pytest.param([EarthLoads(5)], D("750.00"), id="art. 9 §1: 5 loads at once are priced"),
    pytest.param([EarthLoads(2), EarthLoads(3)], D("750.00"), id="art. 9 §1: 2 + 3 loads in one request are priced"),
    pytest.param([EarthLoads(6)], LoadsAboveStageLimit, id="art. 9 §1: 6 loads are refused, not charged"),
    pytest.param([EarthLoads(3), EarthLoads(3)], LoadsAboveStageLimit,
                 id="art. 9 §1: 3 + 3 loads in one request are refused"),
])
def test_five_load_limit(services, total):
    if isinstance(total, Decimal):
        assert quote(services, ON, BOOK).total == total
        return
    with pytest.raises(total) as raised:
        quote(services, ON, BOOK)
    assert raised.value.reference == "Decreto 017/2026 (Nova Lacerda), art. 9, §1 e §2"
    assert "limite é de 5 cargas" in raised.value.message and "nova solicitação" in raised.value.message
