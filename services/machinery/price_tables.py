"""The public price table of Nova Lacerda (Decreto 017/2026, Anexo I) as dated versions in the store.

The versions are the dated parameter ``public_price_table`` of the ``parameters`` collection (the
book every quote reads, so a quote always prices with the version in force on its date and keeps
it in ``Quote.price_table``). TI updates the table by the INPC, IPCA or a substitute index (art. 12):
:func:`preview_update` shows every new price before anything is saved, :func:`save_update` saves the
previewed version, refused when another version changed the table it was computed from meanwhile.
A version is never edited; a new one is added from its effective date.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from pymongo.database import Database

from rules import fmt
from rules.machinery.prices import (
    CATALOGUE,
    DECREE,
    PRICE_TABLE,
    InvalidIndexVariation,
    PriceIndex,
    PriceTable,
    updated_by_index,
)
from rules.params import ParameterVersion
from services import store
from services.machinery import booking_requests
from services.shared import audit, clock, exports, parameters
from services.shared.auth import Actor
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.store import DuplicateKeyError, encode, insert_one


@dataclass(frozen=True)
class PriceRow:
    """One item of Anexo I with its price before and after an update."""

    code: str
    machine: str
    unit: str
    current: Decimal
    new: Decimal

    @property
    def change(self) -> Decimal:
        return self.new - self.current


@dataclass(frozen=True)
class PriceUpdate:
    """A previewed update by index: the table it starts from and every new price (nothing saved)."""

    base: PriceTable
    index: PriceIndex
    variation_percent: Decimal
    reference_period: str
    effective: date
    act: str
    rows: tuple[PriceRow, ...]
    next_version: date | None = None

    @property
    def note(self) -> str:
        return (f"Atualização pelo {self.index.value} de {fmt.number(self.variation_percent)}% "
                f"(período de referência {self.reference_period}) sobre a tabela em vigor desde "
                f"{self.base.effective:%d/%m/%Y}; {DECREE}, art. 12")


def _tables(db: Database, municipality: str) -> list[PriceTable]:
    book = parameters.book(db, municipality)
    return [PriceTable.from_version(v) for v in book.history(PRICE_TABLE)]


@booking_requests.module_service("read")
def versions(db: Database, actor: Actor, municipality: str) -> list[PriceTable]:
    """Every version of the price table, newest first."""
    return sorted(_tables(db, municipality), key=lambda t: t.effective, reverse=True)


def _in_force(tables: list[PriceTable], on: date) -> PriceTable:
    earlier = [t for t in tables if t.effective <= on]
    if not earlier:
        raise NotFound(f"Não há tabela de preços em vigor em {on:%d/%m/%Y} ({DECREE}, art. 13).")
    return max(earlier, key=lambda t: t.effective)


@booking_requests.module_service("read")
def in_force(db: Database, actor: Actor, municipality: str, on: date) -> PriceTable:
    """The version in force on ``on`` (the one a quote of that date uses)."""
    return _in_force(_tables(db, municipality), on)


def _percent(raw: object) -> Decimal:
    if isinstance(raw, Decimal):
        return raw
    text = str(raw or "").strip().replace("%", "").replace(" ", "")
    if "," in text:
        text = text.replace(".", "").replace(",", ".")
    return Decimal(text)


def _validated(index: object, variation: object, reference_period: str, effective: date | None,
               act: str, today: date) -> tuple[PriceIndex, Decimal]:
    errors: dict[str, str] = {}
    try:
        chosen = PriceIndex(index)
    except ValueError:
        errors["index"] = "Escolha o índice: INPC, IPCA ou índice substituto (art. 12)."
        chosen = PriceIndex.INPC
    try:
        percent = _percent(variation)
        if not percent.is_finite():
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        errors["variation"] = "Informe a variação do índice em %, por exemplo 4,62."
        percent = Decimal(0)
    else:
        if percent == 0:
            errors["variation"] = "Uma variação de 0% não altera nenhum preço."
        elif percent <= -100:
            errors["variation"] = "A variação tornaria os preços nulos ou negativos (art. 12)."
        elif percent != percent.quantize(Decimal("0.0001")):
            errors["variation"] = "A variação aceita no máximo quatro casas decimais."
    if not reference_period.strip():
        errors["reference_period"] = "Informe o período de referência do índice (ex.: 04/2026 a 03/2027)."
    if effective is None:
        errors["effective"] = "Informe a data a partir da qual os novos preços valem."
    elif effective < today:
        errors["effective"] = ("A nova tabela vale a partir de hoje ou de uma data futura; "
                               "orçamentos já feitos mantêm a tabela com que foram feitos.")
    if not act.strip():
        errors["act"] = "Informe o ato do Poder Executivo que atualiza os preços (art. 12)."
    if errors:
        raise ValidationFailed(errors)
    return chosen, percent


def _update(tables: list[PriceTable], index: PriceIndex, percent: Decimal, reference_period: str,
            effective: date, act: str) -> tuple[PriceUpdate, ParameterVersion]:
    base = _in_force(tables, effective)
    if base.effective == effective:
        raise Conflict(f"Já existe uma versão da tabela em vigor a partir de {effective:%d/%m/%Y}; "
                       "escolha outra data de vigência.", field="effective")
    try:
        version = updated_by_index(base, index, percent, effective, act.strip())
    except InvalidIndexVariation as exc:
        raise ValidationFailed({"variation": str(exc.args[0]) + " (art. 12)."}) from None
    later = sorted(t.effective for t in tables if t.effective > effective)
    rows = tuple(PriceRow(code, CATALOGUE[code].machine, CATALOGUE[code].unit_label, price,
                          Decimal(version.value[code])) for code, price in base.prices)
    update = PriceUpdate(base, index, percent, reference_period.strip(), effective, act.strip(), rows,
                         later[0] if later else None)
    return update, version


@booking_requests.module_service("admin")
def preview_update(db: Database, actor: Actor, municipality: str, index: PriceIndex | str,
                   variation_percent: Decimal | str,
                   reference_period: str, effective: date | None, act: str) -> PriceUpdate:
    """Every new price of an update by index, computed from the table in force on ``effective``; saves nothing."""
    chosen, percent = _validated(index, variation_percent, reference_period, effective, act, clock.today())
    update, _ = _update(_tables(db, municipality), chosen, percent, reference_period, effective, act)
    return update


@booking_requests.module_service("admin")
def save_update(db: Database, actor: Actor, municipality: str, previewed: PriceUpdate) -> PriceTable:
    """Save the previewed update as a new version, with its audit entry, in one unit of work.

    Refused (Conflict) when the table in force on the effective date is no longer the one the
    preview started from, or a version of that date exists: the TI previews again.
    """
    chosen, percent = _validated(previewed.index, previewed.variation_percent, previewed.reference_period,
                                 previewed.effective, previewed.act, clock.today())
    with store.transaction(db):
        update, version = _update(_tables(db, municipality), chosen, percent, previewed.reference_period,
                                  previewed.effective, previewed.act)
        if update.base != previewed.base or update.rows != previewed.rows:
            raise Conflict("A tabela de preços mudou depois da prévia (outra versão foi registrada); "
                           "refaça a prévia antes de salvar.")
        doc = {
            "municipality": municipality, "name": PRICE_TABLE, "effective": version.effective,
            "value": version.value, "act": version.act, "note": update.note,
            "index": chosen.value, "variation_percent": percent, "reference_period": update.reference_period,
            "base_effective": update.base.effective,
            "created_by": actor.username, "created_at": clock.now_utc(),
        }
        try:
            inserted = insert_one(db["parameters"], encode(doc))
        except DuplicateKeyError:
            raise Conflict(f"Já existe uma versão da tabela em vigor a partir de {version.effective:%d/%m/%Y}; "
                           "escolha outra data de vigência.", field="effective") from None
        audit.record(db, actor, municipality, "price_table_update", "parameters", inserted, {}, doc)
    return PriceTable.from_version(ParameterVersion(PRICE_TABLE, version.effective, version.value,
                                                    version.act, update.note))


def rows_of(table: PriceTable) -> list[dict]:
    """The lines of a version as export rows (pt-BR headers, typed values)."""
    return [{"Item": code, "Máquina ou veículo": CATALOGUE[code].machine, "Unidade": CATALOGUE[code].unit_label,
             "Preço (R$)": price, "Em vigor desde": table.effective, "Ato": table.act}
            for code, price in table.prices]


@booking_requests.module_service("read")
def export_csv(db: Database, actor: Actor, municipality: str, effective: date) -> bytes:
    """The version in force from ``effective`` as CSV."""
    return exports.to_csv(rows_of(in_force(db, actor, municipality, effective)))


@booking_requests.module_service("read")
def export_xlsx(db: Database, actor: Actor, municipality: str, effective: date) -> bytes:
    """The version in force from ``effective`` as XLSX."""
    return exports.to_xlsx(rows_of(in_force(db, actor, municipality, effective)), sheet="Tabela de preços")

