"""FEBRABAN arrecadação return file: records of 150 positions, header A, details G, trailer Z.

Reference: FEBRABAN, "Layout Padrão de Arrecadação/Recebimento com Utilização do Código de
Barras", arquivo retorno, layout versions 04 and 05 (same positions for A, G and Z):

- A (header): 2 remittance code (2 = retorno), 3–22 agreement code, 23–42 company name,
  43–45 bank code, 46–65 bank name, 66–73 generation date AAAAMMDD, 74–79 file sequence
  (NSA), 80–81 layout version, 82–98 service ("CODIGO DE BARRAS");
- G (one paid barcode): 2–21 account of the company at the bank, 22–29 payment date,
  30–37 credit date, 38–81 barcode, 82–93 amount received (2 decimals), 94–100 bank fee,
  101–108 record sequence (NSR), 109–116 collecting agency, 117 capture channel,
  118–140 authentication or transaction code, 141 payment method;
- Z (trailer): 2–7 number of records including A and Z, 8–24 total amount received.

Line ends vary by bank (CRLF or LF); both are accepted. The amount received may differ from
the value inside the barcode: matching and flagging are the import service's job.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from rules.base import RuleError, cents
from rules.fmt import brl

LAYOUT = "FEBRABAN, Layout Padrão de Arrecadação/Recebimento, arquivo retorno (registros A, G e Z)"
RECORD_LENGTH = 150
RETORNO = "2"


class ReturnFileError(RuleError):
    """A return file that does not follow the layout; ``line_number`` says where (1-based)."""

    def __init__(self, message: str, line_number: int, value: object = None) -> None:
        super().__init__(f"Linha {line_number}: {message}", value=value, reference=LAYOUT)
        self.line_number = line_number


class EmptyReturnFile(ReturnFileError):
    """The file has no records."""


class MalformedRecord(ReturnFileError):
    """A record of the wrong length, with a letter where a number or date belongs."""


class RecordOutOfPlace(ReturnFileError):
    """Records must be one A, then G records, then one Z, and nothing after it."""


class NotAReturnFile(ReturnFileError):
    """The header says it is a remittance (code 1) or another service, not a retorno."""


class CountMismatch(ReturnFileError):
    """The trailer's record count differs from the records in the file."""


class TotalMismatch(ReturnFileError):
    """The trailer's total differs from the sum of the amounts received."""


@dataclass(frozen=True)
class ReturnHeader:
    agreement_code: str
    company_name: str
    bank_code: str
    bank_name: str
    generated_on: date
    file_sequence: int
    layout_version: str


@dataclass(frozen=True)
class ReturnDetail:
    """One paid barcode as the bank reports it."""

    line_number: int
    account: str
    paid_on: date
    credited_on: date | None
    barcode: str
    amount_received: Decimal
    fee: Decimal
    record_sequence: int
    agency: str
    channel: str
    authentication: str
    payment_method: str


@dataclass(frozen=True)
class ReturnTrailer:
    record_count: int
    total_amount: Decimal


@dataclass(frozen=True)
class ReturnFile:
    header: ReturnHeader
    details: tuple[ReturnDetail, ...]
    trailer: ReturnTrailer


def _number(line: str, start: int, end: int, number: int, what: str) -> int:
    field = line[start - 1 : end]
    if not field.isascii() or not field.isdigit():
        raise MalformedRecord(f"{what} (posições {start}–{end}) deve ser numérico", number, field)
    return int(field)


def _money(line: str, start: int, end: int, number: int, what: str) -> Decimal:
    return Decimal(_number(line, start, end, number, what)).scaleb(-2)


def _date(line: str, start: int, number: int, what: str, optional: bool = False) -> date | None:
    field = line[start - 1 : start + 7]
    if optional and field == "00000000":
        return None
    try:
        return date(int(field[0:4]), int(field[4:6]), int(field[6:8]))
    except ValueError:
        raise MalformedRecord(f"{what} (posições {start}–{start + 7}) não é data AAAAMMDD", number, field) from None


def _header(line: str, number: int) -> ReturnHeader:
    if line[1] != RETORNO:
        raise NotAReturnFile("código de remessa deve ser 2 (retorno)", number, line[1])
    return ReturnHeader(
        agreement_code=line[2:22].strip(),
        company_name=line[22:42].strip(),
        bank_code=f"{_number(line, 43, 45, number, 'Código do banco'):03d}",
        bank_name=line[45:65].strip(),
        generated_on=_date(line, 66, number, "Data de geração"),
        file_sequence=_number(line, 74, 79, number, "NSA"),
        layout_version=line[79:81],
    )


def _detail(line: str, number: int) -> ReturnDetail:
    barcode = line[37:81]
    if not barcode.isascii() or not barcode.isdigit():
        raise MalformedRecord("código de barras (posições 38–81) deve ter 44 algarismos", number, barcode)
    return ReturnDetail(
        line_number=number,
        account=line[1:21].strip(),
        paid_on=_date(line, 22, number, "Data de pagamento"),
        credited_on=_date(line, 30, number, "Data de crédito", optional=True),
        barcode=barcode,
        amount_received=_money(line, 82, 93, number, "Valor recebido"),
        fee=_money(line, 94, 100, number, "Valor da tarifa"),
        record_sequence=_number(line, 101, 108, number, "NSR"),
        agency=line[108:116].strip(),
        channel=line[116],
        authentication=line[117:140].strip(),
        payment_method=line[140],
    )


def _trailer(line: str, number: int) -> ReturnTrailer:
    return ReturnTrailer(
        record_count=_number(line, 2, 7, number, "Total de registros"),
        total_amount=_money(line, 8, 24, number, "Valor total"),
    )


def parse_return_file(content: bytes | str) -> ReturnFile:
    """Read a whole return file (see :func:`parse_return_lines`)."""
    text = content.decode("latin-1") if isinstance(content, bytes) else content
    return parse_return_lines(text.split("\n"))


def parse_return_lines(lines: Iterable[bytes | str]) -> ReturnFile:
    """Read a return file line by line (a file object streams it), checking layout, order of
    records, count and total of the trailer. Lines end in LF or CRLF; blank lines at the end are
    ignored. Only the records' values are kept, never the file's text."""
    header: ReturnHeader | None = None
    trailer: ReturnTrailer | None = None
    details: list[ReturnDetail] = []
    blank_since = 0
    number = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.decode("latin-1") if isinstance(raw, bytes) else raw
        line = line.rstrip("\n")
        line = line[:-1] if line.endswith("\r") else line
        if line == "":
            blank_since = blank_since or number
            continue
        if blank_since:
            raise MalformedRecord(f"registro com 0 posições; o layout tem {RECORD_LENGTH}", blank_since, "")
        if len(line) != RECORD_LENGTH:
            raise MalformedRecord(f"registro com {len(line)} posições; o layout tem {RECORD_LENGTH}", number, line)
        if header is None:
            if line[0] != "A":
                raise RecordOutOfPlace("o arquivo deve começar pelo registro A (header)", 1, line[0])
            header = _header(line, number)
        elif trailer is not None:  # the Z seen before was not the last record
            raise RecordOutOfPlace("registro 'Z' fora de lugar; esperado G (detalhe)", number - 1, "Z")
        elif line[0] == "Z":
            trailer = _trailer(line, number)
        elif line[0] == "G":
            details.append(_detail(line, number))
        else:
            raise RecordOutOfPlace(f"registro '{line[0]}' fora de lugar; esperado G (detalhe)", number, line[0])
    last = (blank_since - 1) if blank_since else number
    if header is None:
        raise EmptyReturnFile("arquivo vazio", 1)
    if trailer is None:
        raise RecordOutOfPlace("o arquivo deve terminar pelo registro Z (trailer)", last, "G" if details else "A")
    if trailer.record_count != last:
        raise CountMismatch(
            f"trailer informa {trailer.record_count} registros; o arquivo tem {last}", last, trailer.record_count
        )
    total = sum((d.amount_received for d in details), Decimal("0.00"))
    if trailer.total_amount != total:
        raise TotalMismatch(
            f"trailer informa total {brl(trailer.total_amount)}; a soma dos detalhes é {brl(total)}",
            last,
            trailer.total_amount,
        )
    return ReturnFile(header=header, details=tuple(details), trailer=trailer)


@dataclass(frozen=True)
class ReturnPayment:
    """One payment to write in a generated return file (for tests and demonstrations)."""

    barcode: str
    paid_on: date
    amount_received: Decimal
    credited_on: date | None = None
    fee: Decimal = Decimal("0")
    account: str = ""
    agency: str = ""
    channel: str = "1"
    authentication: str = ""
    payment_method: str = "1"


def _cents(amount: Decimal, width: int) -> str:
    return f"{int(cents(amount) * 100):0{width}d}"


def build_return_file(
    payments: Sequence[ReturnPayment],
    *,
    generated_on: date,
    file_sequence: int = 1,
    bank_code: str = "001",
    bank_name: str = "BANCO DO BRASIL S.A.",
    agreement_code: str = "",
    company_name: str = "PREFEITURA",
    line_end: str = "\r\n",
) -> str:
    """A return file as a bank would send it, with one G record per payment, in order.

    Duplicated barcodes, unknown barcodes and amounts different from the barcode's are written
    as given: that is what the import service must recognise.
    """
    header = (
        f"A{RETORNO}{agreement_code:<20.20}{company_name:<20.20}{bank_code:0>3.3}{bank_name:<20.20}"
        f"{generated_on:%Y%m%d}{file_sequence:06d}04{'CODIGO DE BARRAS':<17}"
    )
    records = [header.ljust(RECORD_LENGTH)]
    for sequence, p in enumerate(payments, start=1):
        credited = p.credited_on or p.paid_on
        detail = (
            f"G{p.account:<20.20}{p.paid_on:%Y%m%d}{credited:%Y%m%d}{p.barcode:<44.44}"
            f"{_cents(p.amount_received, 12)}{_cents(p.fee, 7)}{sequence:08d}{p.agency:<8.8}"
            f"{p.channel:1.1}{p.authentication:<23.23}{p.payment_method:1.1}"
        )
        records.append(detail.ljust(RECORD_LENGTH))
    total = sum((Decimal(p.amount_received) for p in payments), Decimal("0"))
    records.append(f"Z{len(payments) + 2:06d}{_cents(total, 17)}".ljust(RECORD_LENGTH))
    return line_end.join(records) + line_end
