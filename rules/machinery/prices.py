"""Anexo I of Decreto 017/2026 (Nova Lacerda): the public price table as dated data.

The catalogue (item, machine, unit, distance limits) is the text of Anexo I. The prices are a
dated parameter, ``public_price_table``: a mapping item code -> price in force from a date,
set by an act. Art. 12 lets the Executive update the prices by the INPC or IPCA (or an index
replacing them); :func:`updated_by_index` makes that update a new version, rounded to centavos.
A quote keeps the :class:`PriceTable` it used, so it can be shown later exactly as it was.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import Enum

from rules.base import RuleError, cents
from rules.params import ParameterBook, ParameterVersion

DECREE = "Decreto 017/2026 (Nova Lacerda)"
ANEXO_I = f"{DECREE}, Anexo I"
PRICE_TABLE = "public_price_table"


class Unit(str, Enum):
    """How an item of Anexo I is charged."""

    HOUR = "hora"
    DAY = "diária"
    HALF_DAY = "meia diária"
    KM = "km rodado"
    TRIP = "viagem"
    LOAD = "carga"


@dataclass(frozen=True)
class CatalogueItem:
    """One line of Anexo I without its price: what is charged and within which distance."""

    code: str
    machine: str
    unit: Unit
    unit_label: str
    service: str
    km_from: int | None = None
    km_up_to: int | None = None


# Anexo I, items 01-12, as written (the "tipo de serviço" column is illustrative: obs. 1).
CATALOGUE: dict[str, CatalogueItem] = {
    item.code: item
    for item in (
        CatalogueItem("01", "Retroescavadeira", Unit.HOUR, "Hora", "Limpeza, valas, tanques"),
        CatalogueItem("02", "Motoniveladora", Unit.HOUR, "Hora",
                      "Nivelar, terrenos, espalhar materiais"),
        CatalogueItem("03", "Pá carregadeira", Unit.HOUR, "Hora", "Carga de materiais"),
        CatalogueItem("04", "Escavadeira hidráulica", Unit.HOUR, "Hora",
                      "Escavações profundas ou serviços pesados"),
        CatalogueItem("05", "Caminhão basculante", Unit.DAY, "Diária (até 200 km)",
                      "Transporte de calcário, insumos", km_up_to=200),
        CatalogueItem("06", "Caminhão basculante", Unit.HALF_DAY, "Meia diária (até 200 km)",
                      "Transporte de calcário, insumos; transporte de curta duração", km_up_to=200),
        CatalogueItem("07", "Caminhão basculante", Unit.KM, "Km rodado (200 a 550 km)",
                      "Para maiores distâncias", km_from=200, km_up_to=550),
        CatalogueItem("08", "Caminhão prancha com semirreboque", Unit.TRIP,
                      "Viagem (até 200 km)", "Transporte de máquinas até áreas de atendimento",
                      km_up_to=200),
        CatalogueItem("09", "Caminhão prancha com semirreboque", Unit.KM,
                      "Km rodado (200 a 550 km)", "Para maiores distâncias",
                      km_from=200, km_up_to=550),
        CatalogueItem("10", "Ônibus", Unit.KM, "Km rodado (até 1100 km)",
                      "Locação eventual para transporte coletivo", km_up_to=1100),
        CatalogueItem("11", "Micro-ônibus ou van", Unit.KM, "Km rodado (até 1100 km)",
                      "Locação para transporte de pequeno grupo", km_up_to=1100),
        CatalogueItem("12", "Transporte de carga de terra/cascalho", Unit.LOAD,
                      "Por viagem ou por carga", "Definido conforme rota e volume"),
    )
}

# Anexo I, column "custo referencial (R$)", in force from the decree's publication (art. 13).
ANEXO_I_PRICES: dict[str, Decimal] = {
    "01": Decimal("300.00"), "02": Decimal("300.00"), "03": Decimal("300.00"),
    "04": Decimal("450.00"), "05": Decimal("1150.00"), "06": Decimal("575.00"),
    "07": Decimal("15.00"), "08": Decimal("1500.00"), "09": Decimal("18.00"),
    "10": Decimal("5.00"), "11": Decimal("4.50"), "12": Decimal("150.00"),
}


def catalogue() -> tuple[CatalogueItem, ...]:
    """The items of Anexo I in order, without prices."""
    return tuple(CATALOGUE[code] for code in sorted(CATALOGUE))


class PriceIndex(str, Enum):
    """Indexes art. 12 allows for updating Anexo I."""

    INPC = "INPC"
    IPCA = "IPCA"
    SUBSTITUTE = "índice substituto"


class PriceTableIncomplete(RuleError):
    """A price version lacks an item of Anexo I."""


class InvalidIndexVariation(RuleError):
    """An index variation that would make a price zero or negative."""


@dataclass(frozen=True)
class PriceTable:
    """The prices of Anexo I in force from ``effective``, as set by ``act``."""

    effective: date
    act: str
    prices: tuple[tuple[str, Decimal], ...]
    note: str = ""

    def price(self, code: str) -> Decimal:
        return dict(self.prices)[code]

    @property
    def label(self) -> str:
        return f"Tabela de preços em vigor desde {self.effective:%d/%m/%Y} ({self.act})"

    @classmethod
    def from_version(cls, version: ParameterVersion) -> "PriceTable":
        missing = sorted(set(CATALOGUE) - set(version.value))
        if missing:
            raise PriceTableIncomplete(
                "A tabela de preços não traz todos os itens do Anexo I", value=missing,
                reference=ANEXO_I,
            )
        prices = tuple((code, cents(Decimal(version.value[code]))) for code in sorted(CATALOGUE))
        return cls(version.effective, version.act, prices, version.note)


def price_table_on(book: ParameterBook, on: date) -> PriceTable:
    """The price table in force on ``on`` (raises ParameterMissing before the decree)."""
    return PriceTable.from_version(book.version(PRICE_TABLE, on))


def updated_by_index(
    table: PriceTable, index: PriceIndex, variation_percent: Decimal, effective: date, act: str
) -> ParameterVersion:
    """A new price version: every price times (1 + variation), rounded to centavos (art. 12)."""
    factor = 1 + Decimal(variation_percent) / 100
    if not factor.is_finite() or factor <= 0:
        raise InvalidIndexVariation(
            "A variação do índice tornaria os preços nulos ou negativos",
            value=variation_percent, reference=f"{DECREE}, art. 12",
        )
    prices = {code: cents(price * factor) for code, price in table.prices}
    if any(price <= 0 for price in prices.values()):
        raise InvalidIndexVariation(
            "A variação do índice tornaria algum preço nulo", value=variation_percent,
            reference=f"{DECREE}, art. 12",
        )
    note = f"Atualização pelo {index.value} de {variation_percent}% sobre a tabela de {table.effective:%d/%m/%Y}"
    return ParameterVersion(PRICE_TABLE, effective, prices, act, note)
