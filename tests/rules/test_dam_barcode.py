"""FEBRABAN arrecadação barcode and linha digitável: spec examples, real published pairs, real
barcodes paid at banks, our DAM free field, and every named error."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dam.barcode import (
    AmountOutOfRange,
    InvalidCheckDigit,
    InvalidDamNumber,
    InvalidFebrabanCode,
    InvalidFreeField,
    NotArrecadacao,
    NotDigits,
    UnknownValueIdentifier,
    WrongLength,
    dam_barcode,
    format_line,
    modulo10,
    modulo11,
    parse_barcode,
    parse_line,
)

REAL_FILES = Path(__file__).resolve().parents[1] / "data" / "febraban150"


@pytest.mark.parametrize(
    ("digits", "expected"),
    [
        pytest.param("01230067896", 3, id="FEBRABAN worked example: sum 37, remainder 7 -> 3"),
        pytest.param("0", 0, id="remainder 0 -> 0, not 10"),
        pytest.param("5", 9, id="5x2=10, digits summed 1 -> 9"),
        pytest.param("9", 1, id="9x2=18, digits summed 9 -> 1"),
        pytest.param("18", 2, id="weights 2,1 from the right: 8x2=16 (7) + 1 -> 2"),
    ],
)
def test_modulo10(digits, expected):
    assert modulo10(digits) == expected


@pytest.mark.parametrize(
    ("digits", "expected"),
    [
        pytest.param("01230067896", 0, id="FEBRABAN worked example: sum 176, remainder 0 -> 0"),
        pytest.param("6", 0, id="remainder 1 -> 0 (not 10)"),
        pytest.param("5", 1, id="remainder 10 -> 1"),
        pytest.param("1", 9, id="remainder 2 -> 9"),
        pytest.param("9", 4, id="9x2=18, remainder 7 -> 4"),
        pytest.param("10000000", 2, id="8th digit from the right weighs 9: remainder 9 -> 2"),
        pytest.param("100000000", 9, id="9th digit from the right weighs 2 again: remainder 2 -> 9"),
    ],
)
def test_modulo11_arrecadacao_rule(digits, expected):
    assert modulo11(digits) == expected


# Published pairs (public test suites of boleto libraries, taken from real bills).
REAL_PAIRS = [
    pytest.param(
        "83860000005096000190000008017823000034306271",
        "838600000050096000190009000801782309000343062712",
        id="energy bill, identifier 6, modulo 10 (mrmgomes/boleto-utils)",
    ),
    pytest.param(
        "84630000000299902962020041013600000200644114",
        "846300000003299902962024004101360008002006441147",
        id="telecom bill, identifier 6, modulo 10 (mrmgomes/boleto-utils)",
    ),
    pytest.param(
        "85820000000572503282035607082021053959190446",
        "858200000007572503282030560708202107539591904460",
        id="government (GPS), identifier 8, modulo 11 (mrmgomes/boleto-utils)",
    ),
    pytest.param(
        "85820000001669802701163000128001867222025113",
        "858200000015669802701162300012800189672220251130",
        id="GPS printed by Receita Federal, identifier 8, modulo 11",
    ),
]


@pytest.mark.parametrize(("barcode", "line"), REAL_PAIRS)
def test_real_pairs_convert_both_ways(barcode, line):
    assert parse_barcode(barcode).line == line
    assert parse_line(line).digits == barcode


def _real_barcodes() -> list[str]:
    barcodes = []
    for path in sorted(REAL_FILES.glob("*")):
        if path.suffix == ".md":
            continue
        for record in path.read_text(encoding="latin-1").splitlines():
            if record.startswith("G"):
                barcodes.append(record[37:81])
    return barcodes


def test_every_barcode_paid_at_a_bank_validates_and_round_trips():
    barcodes = _real_barcodes()
    assert len(barcodes) == 689
    for barcode in barcodes:
        parsed = parse_barcode(barcode)
        assert parse_line(parsed.line).digits == barcode


def test_prefeitura_barcode_from_itau_file_reads_its_fields():
    parsed = parse_barcode("81630000002418502990000000000100222031701000")
    assert (parsed.segment, parsed.value_identifier) == ("1", "6")
    assert parsed.amount == Decimal("241.85")
    assert parsed.company_code == "0299"
    assert parsed.free_field == "0000000000100222031701000"
    assert parsed.formatted_line == GOOD_LINE


def test_dam_barcode_layout_and_reference_round_trip():
    barcode = dam_barcode(Decimal("1234.56"), "0299", date(2026, 4, 6), 2026, 123)
    digits = barcode.digits
    assert len(digits) == 44
    assert digits[:3] == "816"
    assert digits[4:15] == "00000123456"
    assert digits[15:19] == "0299"
    assert digits[19:27] == "20260406"
    assert digits[27:31] == "2026"
    assert digits[31:44] == "0000000000123"
    assert int(digits[3]) == modulo10(digits[:3] + digits[4:])
    assert parse_barcode(digits) == barcode
    reference = barcode.dam_reference()
    assert (reference.due_date, reference.year, reference.sequence) == (date(2026, 4, 6), 2026, 123)
    assert reference.number == "0123/2026"


def test_dam_barcode_modulo_11_when_the_municipality_chooses_identifier_8():
    barcode = dam_barcode(Decimal("80.00"), "1234", date(2026, 1, 30), 2026, 7, value_identifier=8)
    digits = barcode.digits
    assert digits[:3] == "818"
    assert int(digits[3]) == modulo11(digits[:3] + digits[4:])
    blocks = [barcode.line[i : i + 12] for i in range(0, 48, 12)]
    assert all(int(block[11]) == modulo11(block[:11]) for block in blocks)


@pytest.mark.parametrize(
    "amount",
    [
        pytest.param(Decimal("0.01"), id="smallest amount: one centavo"),
        pytest.param(Decimal("999999999.99"), id="largest amount that fits 11 positions"),
    ],
)
def test_amount_limits_accepted(amount):
    assert parse_barcode(dam_barcode(amount, "0299", date(2026, 4, 6), 2026, 1).digits).amount == amount


@pytest.mark.parametrize(
    "amount",
    [
        pytest.param(Decimal("0"), id="zero refused"),
        pytest.param(Decimal("-1.00"), id="negative refused"),
        pytest.param(Decimal("1000000000.00"), id="one billion does not fit 11 positions"),
        pytest.param(Decimal("10.005"), id="fraction of a centavo refused"),
        pytest.param(Decimal("NaN"), id="not a number refused"),
    ],
)
def test_amount_out_of_range(amount):
    with pytest.raises(AmountOutOfRange):
        dam_barcode(amount, "0299", date(2026, 4, 6), 2026, 1)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        pytest.param({"febraban_code": "123"}, InvalidFebrabanCode, id="FEBRABAN code with 3 digits"),
        pytest.param({"febraban_code": "12a4"}, InvalidFebrabanCode, id="FEBRABAN code with a letter"),
        pytest.param({"sequence": 0}, InvalidDamNumber, id="sequence 0"),
        pytest.param({"sequence": 10**13}, InvalidDamNumber, id="sequence with 14 digits"),
        pytest.param({"year": 999}, InvalidDamNumber, id="year with 3 digits"),
        pytest.param({"value_identifier": 7}, UnknownValueIdentifier, id="identifier 7 is not value in reais"),
    ],
)
def test_dam_barcode_refuses_bad_inputs(kwargs, error):
    arguments = {"amount": Decimal("10.00"), "febraban_code": "0299", "due_date": date(2026, 4, 6),
                 "year": 2026, "sequence": 1} | kwargs
    with pytest.raises(error):
        dam_barcode(**arguments)


def test_largest_sequence_fits():
    barcode = dam_barcode(Decimal("10.00"), "0299", date(2026, 4, 6), 2026, 10**13 - 1)
    assert barcode.dam_reference().sequence == 10**13 - 1


GOOD_LINE = "81630000002-2 41850299000-9 00000001002-5 22031701000-1"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param("81630000002241850299000900000001002522031701000x", NotDigits, id="letter in line"),
        pytest.param("", NotDigits, id="empty line"),
        pytest.param("81630000002241850299000900000001002522031701000", WrongLength, id="47 digits"),
        pytest.param("8163000000224185029900090000000100252203170100011", WrongLength, id="49 digits"),
        pytest.param("216300000022418502990009000000010025220317010001", NotArrecadacao, id="product 2"),
        pytest.param("815300000022418502990009000000010025220317010001", UnknownValueIdentifier, id="identifier 5"),
    ],
)
def test_parse_line_errors(text, error):
    with pytest.raises(error):
        parse_line(text)


@pytest.mark.parametrize("block", [1, 2, 3, 4], ids=lambda b: f"check digit of block {b} wrong")
def test_parse_line_names_the_block_with_a_wrong_check_digit(block):
    digits = GOOD_LINE.replace(" ", "").replace("-", "")
    position = block * 12 - 1
    wrong = str((int(digits[position]) + 1) % 10)
    with pytest.raises(InvalidCheckDigit) as caught:
        parse_line(digits[:position] + wrong + digits[position + 1 :])
    assert caught.value.block == block
    assert caught.value.expected == int(digits[position])


def test_parse_line_catches_a_wrong_general_check_digit_with_good_block_digits():
    barcode = "81630000002418502990000000000100222031701000"
    forged = barcode[:3] + "4" + barcode[4:]
    line = "".join(block + str(modulo10(block)) for block in (forged[i : i + 11] for i in range(0, 44, 11)))
    with pytest.raises(InvalidCheckDigit) as caught:
        parse_line(line)
    assert caught.value.block == 0


@pytest.mark.parametrize(
    ("barcode", "error"),
    [
        pytest.param("8163000000241850299000000000010022203170100", WrongLength, id="43 digits"),
        pytest.param("81630000002418502990000000000100222031701000 ", NotDigits, id="trailing space"),
        pytest.param("81640000002418502990000000000100222031701000", InvalidCheckDigit, id="general digit wrong"),
        pytest.param("23790000002418502990000000000100222031701000", NotArrecadacao, id="bank boleto"),
    ],
)
def test_parse_barcode_errors(barcode, error):
    with pytest.raises(error):
        parse_barcode(barcode)


def test_free_field_without_a_date_is_not_a_dam():
    with pytest.raises(InvalidFreeField):
        parse_barcode("81630000002418502990000000000100222031701000").dam_reference()


def test_format_line_groups_blocks():
    assert format_line(GOOD_LINE.replace(" ", "").replace("-", "")) == GOOD_LINE
    assert parse_line(GOOD_LINE).formatted_line == GOOD_LINE


dams = st.builds(
    dam_barcode,
    amount=st.integers(1, 99999999999).map(lambda c: Decimal(c).scaleb(-2)),
    febraban_code=st.from_regex(r"\A[0-9]{4}\Z"),
    due_date=st.dates(date(2000, 1, 1), date(2099, 12, 31)),
    year=st.integers(2000, 2099),
    sequence=st.integers(1, 10**13 - 1),
    value_identifier=st.sampled_from([6, 8]),
)


@given(dams)
def test_any_dam_round_trips_through_its_line(barcode):
    parsed = parse_line(barcode.formatted_line)
    assert parsed == barcode
    assert parsed.dam_reference() == barcode.dam_reference()


@given(dams.filter(lambda b: b.value_identifier == "6"), st.integers(0, 47), st.integers(1, 9))
def test_modulo10_line_detects_any_single_wrong_digit(barcode, position, shift):
    line = barcode.line
    typo = line[:position] + str((int(line[position]) + shift) % 10) + line[position + 1 :]
    with pytest.raises((InvalidCheckDigit, NotArrecadacao, UnknownValueIdentifier)):
        parse_line(typo)
