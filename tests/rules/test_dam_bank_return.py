"""FEBRABAN arrecadação return file (A/G/Z, 150 positions): real Itaú and Banco do Brasil
files, a generated file with every case the import must handle, and malformed files."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from rules.dam.bank_return import (
    CountMismatch,
    EmptyReturnFile,
    MalformedRecord,
    NotAReturnFile,
    RecordOutOfPlace,
    ReturnPayment,
    TotalMismatch,
    build_return_file,
    parse_return_file,
)
from rules.dam.barcode import dam_barcode, parse_barcode

REAL_FILES = Path(__file__).resolve().parents[1] / "data" / "febraban150"
ITAU = REAL_FILES / "WilliamSampaio_febraban_barcode__specs__Modelo_arquivo_retorno_tipo_G.txt"
BB = sorted(REAL_FILES.glob("umbrellaTech_*.ret"))


@pytest.mark.parametrize(
    ("path", "bank", "sequence", "generated", "details", "total"),
    [
        pytest.param(ITAU, "341", 1, date(2017, 4, 5), 2, Decimal("334.72"), id="Itaú, CRLF"),
        pytest.param(BB[0], "001", 453, date(2014, 8, 5), 144, Decimal("21729.40"), id="BB NSA 453, LF"),
        pytest.param(BB[1], "001", 454, date(2014, 8, 6), 28, Decimal("7141.20"), id="BB NSA 454, LF"),
        pytest.param(BB[2], "001", 455, date(2014, 8, 7), 181, Decimal("23794.20"), id="BB NSA 455, LF"),
        pytest.param(BB[3], "001", 456, date(2014, 8, 8), 185, Decimal("26384.80"), id="BB NSA 456, LF"),
        pytest.param(BB[4], "001", 457, date(2014, 8, 9), 149, Decimal("17814.10"), id="BB NSA 457, LF"),
    ],
)
def test_real_files(path, bank, sequence, generated, details, total):
    parsed = parse_return_file(path.read_bytes())
    assert parsed.header.bank_code == bank
    assert parsed.header.file_sequence == sequence
    assert parsed.header.generated_on == generated
    assert parsed.header.layout_version == "04"
    assert len(parsed.details) == details
    assert parsed.trailer.record_count == details + 2
    assert parsed.trailer.total_amount == total
    assert sum(d.amount_received for d in parsed.details) == total


def test_real_files_hold_689_paid_barcodes_all_valid():
    barcodes = [d.barcode for path in [ITAU, *BB] for d in parse_return_file(path.read_bytes()).details]
    assert len(barcodes) == 689
    assert all(parse_barcode(b) for b in barcodes)


def test_itau_detail_fields():
    first = parse_return_file(ITAU.read_bytes()).details[0]
    assert first.line_number == 2
    assert first.barcode == "81630000002418502990000000000100222031701000"
    assert first.paid_on == date(2017, 4, 4)
    assert first.credited_on == date(2017, 4, 5)
    assert first.amount_received == Decimal("241.85")
    assert first.fee == Decimal("1.40")
    assert first.record_sequence == 1
    assert first.agency == "09332"
    assert first.channel == "2"
    assert first.authentication == "001 093300001040417C"
    assert first.payment_method == "1"


def test_header_fields_of_banco_do_brasil():
    header = parse_return_file(BB[0].read_bytes()).header
    assert (header.agreement_code, header.company_name, header.bank_name) == ("110288", "JUCEP", "BANCO DO BRASIL  S/A")


def test_str_and_bytes_are_both_accepted():
    text = ITAU.read_text(encoding="latin-1")
    assert parse_return_file(text) == parse_return_file(ITAU.read_bytes())


def _barcode(amount: str, sequence: int) -> str:
    return dam_barcode(Decimal(amount), "0299", date(2026, 3, 31), 2026, sequence).digits


GENERATED = [
    ReturnPayment(_barcode("150.00", 1), date(2026, 3, 30), Decimal("150.00"), authentication="matched"),
    ReturnPayment(_barcode("80.00", 2), date(2026, 3, 30), Decimal("80.00"), authentication="unmatched"),
    ReturnPayment(_barcode("45.10", 3), date(2026, 3, 30), Decimal("45.10"), authentication="duplicate 1"),
    ReturnPayment(_barcode("45.10", 3), date(2026, 3, 31), Decimal("45.10"), authentication="duplicate 2"),
    ReturnPayment(_barcode("200.00", 4), date(2026, 4, 2), Decimal("190.00"), credited_on=date(2026, 4, 3),
                  fee=Decimal("1.25"), agency="1234", authentication="different amount"),
]


@pytest.mark.parametrize("line_end", ["\r\n", "\n"], ids=["CRLF", "LF"])
def test_generated_file_round_trips(line_end):
    content = build_return_file(GENERATED, generated_on=date(2026, 4, 3), file_sequence=12, line_end=line_end)
    assert all(len(line) == 150 for line in content.split(line_end)[:-1])
    parsed = parse_return_file(content.encode("latin-1"))
    assert parsed.header.file_sequence == 12
    assert parsed.trailer.record_count == 7
    assert parsed.trailer.total_amount == Decimal("510.20")
    assert [d.barcode for d in parsed.details] == [p.barcode for p in GENERATED]
    assert [d.amount_received for d in parsed.details] == [p.amount_received for p in GENERATED]
    assert [d.record_sequence for d in parsed.details] == [1, 2, 3, 4, 5]
    different = parsed.details[4]
    assert parse_barcode(different.barcode).amount == Decimal("200.00")
    assert (different.amount_received, different.fee) == (Decimal("190.00"), Decimal("1.25"))
    assert (different.paid_on, different.credited_on, different.agency) == (date(2026, 4, 2), date(2026, 4, 3), "1234")
    assert parsed.details[2].barcode == parsed.details[3].barcode


def _lines() -> list[str]:
    return build_return_file(GENERATED[:2], generated_on=date(2026, 4, 3)).split("\r\n")[:-1]


def _replace(line: str, start: int, text: str) -> str:
    return line[: start - 1] + text + line[start - 1 + len(text) :]


def _broken(case: str) -> str:
    a, g1, g2, z = _lines()
    files = {
        "short line": [a, g1[:149], g2, z],
        "letters in amount": [a, g1, _replace(g2, 82, "00000000A000"), z],
        "impossible payment date": [a, _replace(g1, 22, "20260230"), g2, z],
        "count mismatch": [a, g1, g2, _replace(z, 2, "000005")],
        "total mismatch": [a, g1, g2, _replace(z, 8, "00000000000023001")],
        "no header": [g1, g2, z],
        "no trailer": [a, g1, g2],
        "unknown record": [a, g1, "B" + g2[1:], z],
        "record after trailer": [a, g1, z, g2],
        "remittance, not return": [_replace(a, 2, "1"), g1, g2, z],
        "empty": [],
    }
    return "\r\n".join(files[case])


@pytest.mark.parametrize(
    ("case", "error", "line_number"),
    [
        pytest.param("short line", MalformedRecord, 2, id="149 positions"),
        pytest.param("letters in amount", MalformedRecord, 3, id="letter in amount received"),
        pytest.param("impossible payment date", MalformedRecord, 2, id="30 February"),
        pytest.param("count mismatch", CountMismatch, 4, id="Z says 5 records, file has 4"),
        pytest.param("total mismatch", TotalMismatch, 4, id="Z total differs from the sum"),
        pytest.param("no header", RecordOutOfPlace, 1, id="starts with G"),
        pytest.param("no trailer", RecordOutOfPlace, 3, id="ends with G"),
        pytest.param("unknown record", RecordOutOfPlace, 3, id="record B among details"),
        pytest.param("record after trailer", RecordOutOfPlace, 3, id="Z in the middle"),
        pytest.param("remittance, not return", NotAReturnFile, 1, id="remittance code 1"),
        pytest.param("empty", EmptyReturnFile, 1, id="empty file"),
    ],
)
def test_malformed_files_name_the_line(case, error, line_number):
    with pytest.raises(error) as caught:
        parse_return_file(_broken(case))
    assert caught.value.line_number == line_number
    assert f"Linha {line_number}" in str(caught.value)
