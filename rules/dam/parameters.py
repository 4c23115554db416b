"""Municipal parameters of the DAM and the barcode and PIX they produce.

Names (dated, per municipality, in the ParameterBook):

- ``dam_febraban_code``: the 4-digit code FEBRABAN assigned to the municipality for
  arrecadação (positions 16–19 of the barcode). No default: it comes from the municipality's
  agreement with FEBRABAN and its collecting bank, and a made-up code would print DAMs that
  no bank accepts. Until it is set, :class:`rules.params.ParameterMissing` is raised.
- ``dam_value_identifier``: 6 (check digits modulo 10) or 8 (modulo 11), value in reais, as
  agreed with the collecting bank; default 6.
- ``pix_enabled`` (default False), ``pix_key``, ``pix_merchant_name``, ``pix_merchant_city``:
  the static PIX printed on the DAM, when the municipality has a PIX key for its revenue.
- ``dam_revenue_code_<kind>`` (``dam_revenue_code_taxa_autorizacao``...): the municipality's code of
  that revenue kind in its chart of revenues, as text (``1121.01.01``); no default. A DAM of a kind
  without a code prints the kind's description only, and the Implantação page lists the parameter.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from rules.dam.barcode import SPEC, ArrecadacaoBarcode, dam_barcode
from rules.dam.pix import MANUAL, dam_txid, pix_payload
from rules.params import ParameterBook, ParameterMissing, ParameterVersion

FEBRABAN_CODE = "dam_febraban_code"
VALUE_IDENTIFIER = "dam_value_identifier"
PIX_ENABLED = "pix_enabled"
PIX_KEY = "pix_key"
PIX_MERCHANT_NAME = "pix_merchant_name"
PIX_MERCHANT_CITY = "pix_merchant_city"
REVENUE_CODE_PREFIX = "dam_revenue_code_"
# The revenues a DAM may collect, each with its code in a parameter (REVENUE_CODE_PREFIX + kind).
REVENUE_KINDS = {
    "taxa_autorizacao": "Taxa de autorização",
    "taxa_vistoria": "Taxa de vistoria",
    "multa": "Multa (auto de infração)",
    "preco_publico": "Preço público por item",
    "parcela": "Parcela de preço público",
    "outras": "Outras receitas municipais",
}

DEFAULT_PARAMETERS: tuple[ParameterVersion, ...] = (
    ParameterVersion(
        VALUE_IDENTIFIER, date(2000, 1, 1), 6, SPEC,
        "6 = valor em reais, DV módulo 10; 8 = módulo 11 (conforme convênio com o banco arrecadador)",
    ),
    ParameterVersion(PIX_ENABLED, date(2000, 1, 1), False, MANUAL, "PIX no DAM somente com chave do município"),
)


@dataclass(frozen=True)
class PixSettings:
    key: str
    merchant_name: str
    merchant_city: str


@dataclass(frozen=True)
class DamSettings:
    """What the DAM needs from the parameters in force on its issue date."""

    febraban_code: str
    value_identifier: int
    pix: PixSettings | None

    def barcode(self, amount: Decimal, due: date, year: int, sequence: int) -> ArrecadacaoBarcode:
        return dam_barcode(amount, self.febraban_code, due, year, sequence, self.value_identifier)

    def pix_payload(self, amount: Decimal, year: int, sequence: int) -> str | None:
        """The PIX "copia e cola" of the DAM, or None when the municipality has no PIX."""
        if self.pix is None:
            return None
        pix = self.pix
        return pix_payload(pix.key, pix.merchant_name, pix.merchant_city, amount, dam_txid(year, sequence))


def dam_settings(book: ParameterBook, on: date) -> DamSettings:
    """The DAM parameters in force on ``on`` (raises ParameterMissing for a missing one)."""
    pix = None
    if book.get(PIX_ENABLED, on):
        pix = PixSettings(book.get(PIX_KEY, on), book.get(PIX_MERCHANT_NAME, on), book.get(PIX_MERCHANT_CITY, on))
    return DamSettings(
        febraban_code=str(book.get(FEBRABAN_CODE, on)),
        value_identifier=int(book.get(VALUE_IDENTIFIER, on)),
        pix=pix,
    )


def revenue_code_parameter(kind: str) -> str:
    """The parameter holding the code of the revenue ``kind``."""
    return REVENUE_CODE_PREFIX + kind


def revenue_code(book: ParameterBook, on: date, kind: str) -> str:
    """The municipality's code of the revenue ``kind`` in force on ``on`` ("" when it has none)."""
    try:
        return str(book.get(revenue_code_parameter(kind), on) or "").strip()
    except ParameterMissing:
        return ""
