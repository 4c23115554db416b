"""FEBRABAN arrecadação barcode (44 digits) and its linha digitável (48 digits).

Reference: FEBRABAN, "Layout Padrão de Arrecadação/Recebimento com Utilização do Código de
Barras", versão 7 (01/03/2023) — the layout for taxes, fees and utility bills, not the bank
boleto ("ficha de compensação"). Positions of the barcode:

==========  ===========================================================================
01          product: 8 = arrecadação
02          segment: 1 = prefeituras
03          value identifier: 6 or 7 = check digits modulo 10; 8 or 9 = modulo 11
            (6 and 8: the value is in reais; 7 and 9: a quantity of currency/reference)
04          general check digit over the other 43 digits
05–15       value, 11 digits with 2 implied decimals
16–19       FEBRABAN code of the company/órgão (the municipality)
20–44       free field of the company/órgão (25 digits)
==========  ===========================================================================

Free field of a DAM (our choice, see docs/LEITURAS.md, seção 4): due date AAAAMMDD (positions
20–27, where FEBRABAN asks a due date to be placed when the free field carries one), the
year of the DAM number (28–31) and its sequence in that year, 13 digits (32–44).

The linha digitável is the barcode in four blocks of 11 digits, each followed by its own
check digit computed with the same modulo as the general one.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from rules.base import RuleError

SPEC = "FEBRABAN, Layout Padrão de Arrecadação/Recebimento com Código de Barras, v7"
PRODUCT_ARRECADACAO = "8"
SEGMENT_PREFEITURAS = "1"
VALUE_IN_REAIS_MODULO_10 = 6
VALUE_IN_REAIS_MODULO_11 = 8
_MODULO_10 = ("6", "7")
_MODULO_11 = ("8", "9")
MAX_AMOUNT = Decimal("999999999.99")
MAX_SEQUENCE = 10**13 - 1


class BarcodeError(RuleError):
    """A barcode or linha digitável that does not follow the FEBRABAN arrecadação layout."""


class NotDigits(BarcodeError):
    """Only digits are allowed (separators are dropped from a linha digitável first)."""


class WrongLength(BarcodeError):
    """A barcode has 44 digits and a linha digitável 48."""


class NotArrecadacao(BarcodeError):
    """Product digit is not 8: a bank boleto or something else, not an arrecadação barcode."""


class UnknownValueIdentifier(BarcodeError):
    """The third digit must be 6, 7, 8 or 9: it chooses the modulo of the check digits."""


class InvalidCheckDigit(BarcodeError):
    """A check digit does not match; ``block`` is 0 for the general one, 1–4 for the line's."""

    def __init__(self, message: str, value: object, block: int, expected: int, found: int) -> None:
        super().__init__(message, value=value, reference=SPEC)
        self.block = block
        self.expected = expected
        self.found = found


class AmountOutOfRange(BarcodeError):
    """The value must be positive, in centavos, and fit the 11 positions (up to 999.999.999,99)."""


class InvalidFebrabanCode(BarcodeError):
    """The FEBRABAN code of the municipality has exactly 4 digits."""


class InvalidDamNumber(BarcodeError):
    """The DAM number (year and sequence) must fit the free field: year 4 digits, sequence 13."""


class InvalidFreeField(BarcodeError):
    """The free field does not carry a DAM reference (e.g. an impossible due date)."""


def _only_digits(text: str, what: str) -> str:
    if not text or not text.isascii() or not text.isdigit():
        raise NotDigits(f"{what} deve conter somente algarismos", value=text, reference=SPEC)
    return text


def modulo10(digits: str) -> int:
    """Check digit modulo 10: weights 2, 1, 2, 1… from the right, digits of each product summed;
    the digit is 10 minus the remainder of the sum by 10, and 0 when the remainder is 0."""
    _only_digits(digits, "Sequência")
    total = 0
    for position, char in enumerate(reversed(digits)):
        product = int(char) * (2 if position % 2 == 0 else 1)
        total += product // 10 + product % 10
    remainder = total % 10
    return 0 if remainder == 0 else 10 - remainder


def modulo11(digits: str) -> int:
    """Check digit modulo 11 of arrecadação: weights 2 to 9 from the right, repeating; the digit
    is 11 minus the remainder, except remainder 0 or 1 gives 0 and remainder 10 gives 1."""
    _only_digits(digits, "Sequência")
    total = sum(int(char) * (2 + position % 8) for position, char in enumerate(reversed(digits)))
    remainder = total % 11
    # FEBRABAN arrecadação, módulo 11: resto 0 ou 1 -> DV 0; resto 10 -> DV 1 (not the boleto rule)
    if remainder in (0, 1):
        return 0
    if remainder == 10:
        return 1
    return 11 - remainder


def check_digit(digits: str, value_identifier: str) -> int:
    """The check digit of ``digits`` in the modulo the value identifier (6–9) chooses."""
    if value_identifier in _MODULO_10:
        return modulo10(digits)
    if value_identifier in _MODULO_11:
        return modulo11(digits)
    raise UnknownValueIdentifier(
        "Identificador de valor deve ser 6, 7 (módulo 10), 8 ou 9 (módulo 11)",
        value=value_identifier,
        reference=SPEC,
    )


@dataclass(frozen=True)
class DamReference:
    """What the free field of a DAM barcode carries."""

    due_date: date
    year: int
    sequence: int

    @property
    def number(self) -> str:
        return f"{self.sequence:04d}/{self.year}"


@dataclass(frozen=True)
class ArrecadacaoBarcode:
    """A validated 44-digit arrecadação barcode and what it says."""

    digits: str

    @property
    def segment(self) -> str:
        return self.digits[1]

    @property
    def value_identifier(self) -> str:
        return self.digits[2]

    @property
    def amount(self) -> Decimal | None:
        """The value in reais (identifiers 6 and 8); None for a quantity of currency (7, 9)."""
        if self.value_identifier not in ("6", "8"):
            return None
        return Decimal(int(self.digits[4:15])) / 100

    @property
    def company_code(self) -> str:
        return self.digits[15:19]

    @property
    def free_field(self) -> str:
        return self.digits[19:44]

    @property
    def line(self) -> str:
        """The 48-digit linha digitável: four blocks of 11 digits, each with its check digit."""
        return "".join(block + str(check_digit(block, self.value_identifier)) for block in _blocks(self.digits))

    @property
    def formatted_line(self) -> str:
        """The linha digitável as printed: ``81630000002-3 41850299000-0 …``."""
        return format_line(self.line)

    def dam_reference(self) -> DamReference:
        """Due date and DAM number read back from the free field (our layout)."""
        field = self.free_field
        try:
            due = date(int(field[0:4]), int(field[4:6]), int(field[6:8]))
        except ValueError:
            raise InvalidFreeField(
                "Campo livre não traz uma data de vencimento AAAAMMDD válida", value=field, reference=SPEC
            ) from None
        return DamReference(due_date=due, year=int(field[8:12]), sequence=int(field[12:25]))


def _blocks(digits: str) -> list[str]:
    return [digits[i : i + 11] for i in range(0, 44, 11)]


def _general_digit(digits: str) -> int:
    return check_digit(digits[:3] + digits[4:], digits[2])


def parse_barcode(digits: str) -> ArrecadacaoBarcode:
    """Validate a 44-digit barcode (product, value identifier, general check digit)."""
    _only_digits(digits, "Código de barras")
    if len(digits) != 44:
        raise WrongLength("Código de barras de arrecadação tem 44 dígitos", value=digits, reference=SPEC)
    if digits[0] != PRODUCT_ARRECADACAO:
        raise NotArrecadacao("Código de barras não é de arrecadação (produto 8)", value=digits, reference=SPEC)
    expected = _general_digit(digits)
    if int(digits[3]) != expected:
        raise InvalidCheckDigit(
            f"Dígito verificador geral inválido: esperado {expected}, encontrado {digits[3]}",
            value=digits, block=0, expected=expected, found=int(digits[3]),
        )
    return ArrecadacaoBarcode(digits)


def parse_line(line: str) -> ArrecadacaoBarcode:
    """Turn a linha digitável (separators allowed) back into its barcode, validating every digit."""
    digits = "".join(ch for ch in line if ch not in " .-\t")
    _only_digits(digits, "Linha digitável")
    if len(digits) != 48:
        raise WrongLength("Linha digitável de arrecadação tem 48 dígitos", value=line, reference=SPEC)
    if digits[0] != PRODUCT_ARRECADACAO:
        raise NotArrecadacao("Linha digitável não é de arrecadação (produto 8)", value=line, reference=SPEC)
    identifier = digits[2]
    blocks = [digits[i : i + 12] for i in range(0, 48, 12)]
    for number, block in enumerate(blocks, start=1):
        expected = check_digit(block[:11], identifier)
        if int(block[11]) != expected:
            raise InvalidCheckDigit(
                f"Dígito verificador do bloco {number} inválido: esperado {expected}, encontrado {block[11]}",
                value=line, block=number, expected=expected, found=int(block[11]),
            )
    return parse_barcode("".join(block[:11] for block in blocks))


def format_line(line: str) -> str:
    """``816300000023415850299000…`` → ``81630000002-3 41850299000-0 …``."""
    return " ".join(f"{line[i:i + 11]}-{line[i + 11]}" for i in range(0, 48, 12))


def dam_barcode(
    amount: Decimal,
    febraban_code: str,
    due_date: date,
    year: int,
    sequence: int,
    value_identifier: int = VALUE_IN_REAIS_MODULO_10,
) -> ArrecadacaoBarcode:
    """The barcode of a DAM: product 8, segment 1 (prefeituras), value in reais.

    ``value_identifier`` is 6 (modulo 10) or 8 (modulo 11), as agreed with the collecting bank
    (municipal parameter ``dam_value_identifier``); ``febraban_code`` is the 4-digit code
    FEBRABAN assigned to the municipality (parameter ``dam_febraban_code``).
    """
    if value_identifier not in (VALUE_IN_REAIS_MODULO_10, VALUE_IN_REAIS_MODULO_11):
        raise UnknownValueIdentifier(
            "DAM usa identificador de valor 6 (módulo 10) ou 8 (módulo 11), valor em reais",
            value=value_identifier, reference=SPEC,
        )
    amount = Decimal(amount)
    if not amount.is_finite() or amount <= 0 or amount > MAX_AMOUNT or amount != amount.quantize(Decimal("0.01")):
        raise AmountOutOfRange(
            "Valor do DAM deve ser positivo, em centavos, e caber em 11 posições (até R$ 999.999.999,99)",
            value=amount, reference=SPEC,
        )
    if len(febraban_code) != 4 or not febraban_code.isascii() or not febraban_code.isdigit():
        raise InvalidFebrabanCode(
            "Código FEBRABAN do município deve ter 4 algarismos", value=febraban_code, reference=SPEC
        )
    if not 1000 <= year <= 9999 or not 1 <= sequence <= MAX_SEQUENCE:
        raise InvalidDamNumber(
            "Número do DAM não cabe no campo livre (ano com 4 algarismos, sequência até 13)",
            value=(sequence, year), reference=SPEC,
        )
    free_field = f"{due_date:%Y%m%d}{year:04d}{sequence:013d}"
    value = f"{int(amount * 100):011d}"
    head = f"{PRODUCT_ARRECADACAO}{SEGMENT_PREFEITURAS}{value_identifier}"
    without_digit = head + value + febraban_code + free_field
    general = check_digit(without_digit, str(value_identifier))
    return ArrecadacaoBarcode(head + str(general) + value + febraban_code + free_field)
