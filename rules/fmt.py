"""Brazilian formats for the reasons that rules write (R$ 1.234,56; dd/mm/aaaa; CPF)."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal, getcontext, localcontext

from babel import Locale
from babel.dates import format_date
from babel.numbers import format_currency, format_decimal

from rules.base import cents


def _wide_context(value: Decimal | int) -> localcontext:
    """A decimal context wide enough to quantize ``value`` (babel fails on 1E+25 under 28 digits)."""
    digits = len(Decimal(value).as_tuple().digits) + max(0, Decimal(value).as_tuple().exponent)
    return localcontext(prec=max(getcontext().prec, digits + 10))


def brl(amount: Decimal) -> str:
    """R$ 1.234,56 with an ordinary space, rounded half up to centavos as money is."""
    with _wide_context(amount):
        return format_currency(cents(Decimal(amount)), "BRL", locale="pt_BR").replace("\xa0", " ")


def number(value: Decimal | int, places: int | None = None) -> str:
    """1.234,5 in pt-BR; ``places`` fixes the decimal places when given."""
    with _wide_context(value):
        if places is None:
            return format_decimal(value, locale="pt_BR")
        pattern = "#,##0" + ("." + "0" * places if places else "")
        return format_decimal(value, format=pattern, locale="pt_BR")


PT_BR = Locale.parse("pt_BR")


def plural(count: Decimal | int, one: str, other: str) -> str:
    """The words that go with ``count`` by pt-BR's plural rule (CLDR, through babel): ``one`` for 1
    ("1 atrasada", "1,5 milhão"), ``other`` from 2 on ("2 atrasadas") — never "atrasada(s)". Zero takes
    the plural as Brazilian grammar and usage write it ("0 pendências", "nenhum dia" aside), where
    CLDR's ``i = 0..1`` would give "0 pendência"."""
    return one if count != 0 and PT_BR.plural_form(abs(count)) == "one" else other


def count(value: Decimal | int, one: str, other: str) -> str:
    """A count and its words: "1 DAM baixado", "1.234 DAMs baixados"."""
    return f"{number(value)} {plural(value, one, other)}"


def day(value: date | datetime) -> str:
    return value.strftime("%d/%m/%Y")


def weekday(value: date, short: bool = False) -> str:
    """The day of the week in pt-BR: "segunda-feira", or "Seg" in a table's heading."""
    name = format_date(value, "EEE" if short else "EEEE", locale="pt_BR")
    return name.rstrip(".").capitalize() if short else name


def moment(value: datetime) -> str:
    return value.strftime("%d/%m/%Y %H:%M")


def cpf(digits: str) -> str:
    d = "".join(ch for ch in digits if ch.isdigit())
    return f"{d[:3]}.{d[3:6]}.{d[6:9]}-{d[9:]}" if len(d) == 11 else digits


def cnpj(digits: str) -> str:
    d = "".join(ch for ch in digits if ch.isdigit())
    return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}" if len(d) == 14 else digits
