"""Amount in words in Brazilian Portuguese ("valor por extenso"), as printed on a DAM.

Written here rather than taken from ``num2words``, whose pt-BR output puts a comma after
"mil" and "milhão" ("mil, duzentos e trinta e quatro") and writes "zero reais e cinquenta
centavos". Rules followed (usual grammar of numerals in Portuguese):

- "e" joins hundreds, tens and units inside a group ("duzentos e trinta e quatro");
- between groups, "e" comes only before the last non-zero group when that group is below one
  hundred or a round hundred ("mil e cem", "mil e cinquenta", but "mil duzentos e trinta");
- "cem" alone, "cento e …" otherwise; "mil", never "um mil";
- "de reais" after an exact million or billion ("um milhão de reais");
- no "zero reais" before centavos ("cinquenta centavos"); singular "um real", "um centavo".
"""
from __future__ import annotations

from decimal import Decimal

from rules.base import RuleError, cents

_UNITS = (
    "zero um dois três quatro cinco seis sete oito nove dez onze doze treze quatorze quinze "
    "dezesseis dezessete dezoito dezenove"
).split()
_TENS = "_ _ vinte trinta quarenta cinquenta sessenta setenta oitenta noventa".split()
_HUNDREDS = "_ cento duzentos trezentos quatrocentos quinhentos seiscentos setecentos oitocentos novecentos".split()
_SCALES = ((10**9, "bilhão", "bilhões"), (10**6, "milhão", "milhões"), (10**3, "mil", "mil"))
LIMIT = Decimal("999999999999.99")


class AmountTooLargeForWords(RuleError):
    """Amounts are written in words up to 999 bilhões; negative amounts are refused."""


def _below_thousand(n: int) -> str:
    if n == 100:
        return "cem"
    parts = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        parts.append(_HUNDREDS[hundreds])
    if rest >= 20:
        tens, units = divmod(rest, 10)
        parts.append(_TENS[tens])
        if units:
            parts.append(_UNITS[units])
    elif rest:
        parts.append(_UNITS[rest])
    return " e ".join(parts)


def integer_in_words(n: int) -> str:
    """``1234`` → ``"mil duzentos e trinta e quatro"``."""
    if n == 0:
        return "zero"
    groups: list[tuple[int, str]] = []
    rest = n
    for size, singular, plural in _SCALES:
        count, rest = divmod(rest, size)
        if count:
            name = singular if count == 1 else plural
            groups.append((count, "mil" if (singular == "mil" and count == 1) else f"{_below_thousand(count)} {name}"))
    if rest:
        groups.append((rest, _below_thousand(rest)))
    text = groups[0][1]
    for index, (count, words) in enumerate(groups[1:], start=1):
        last = index == len(groups) - 1
        text += " e " if last and (count < 100 or count % 100 == 0) else " "
        text += words
    return text


def amount_in_words(amount: Decimal) -> str:
    """``Decimal("1234.56")`` → ``"mil duzentos e trinta e quatro reais e cinquenta e seis centavos"``."""
    amount = cents(amount)
    if amount < 0 or amount > LIMIT:
        raise AmountTooLargeForWords("Valor fora do intervalo escrito por extenso", value=amount)
    reais, centavos = divmod(int(amount * 100), 100)
    parts = []
    if reais:
        unit = "real" if reais == 1 else ("de reais" if reais % 10**6 == 0 else "reais")
        parts.append(f"{integer_in_words(reais)} {unit}")
    if centavos:
        parts.append(f"{integer_in_words(centavos)} {'centavo' if centavos == 1 else 'centavos'}")
    return " e ".join(parts) if parts else "zero reais"
