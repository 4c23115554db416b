"""The quote of a request, line by line, priced by Anexo I (Decreto 017/2026, Nova Lacerda).

- Items 01-04: machine hours.
- Items 05/06: dump truck day or half day, each up to 200 km; item 07: km from 200 to 550.
- Item 08: lowboy trip up to 200 km; item 09: km from 200 to 550.
- Items 10/11: bus, minibus or van per km up to 1.100 km.
- Item 12: loads of earth or gravel, the only item with the Anexo II discounts (art. 7, §2).
Distances are round trip (Anexo I, obs. 2). At most 5 loads of item 12 per request
(Decreto 017/2026, art. 9, §1): more is refused and the rest waits for a new request (§2). Earth or gravel carried by dump truck is charged by
item 12 (obs. 3). How items 07/09 combine with 05/06/08 is the parameter ``km_reading_items_07_09``
(see docs/LEITURAS.md, seção 3); the quote records the reading and the price table it used.
Requests outside the table's ranges are refused with a named error.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from enum import Enum

from rules.base import RuleError, cents
from rules.fmt import number
from rules.machinery.discounts import (
    DISCOUNTED_ITEM,
    DiscountClaim,
    DiscountDecision,
    evaluate_discount,
)
from rules.machinery.prices import (
    ANEXO_I,
    CATALOGUE,
    DECREE,
    PriceTable,
    price_table_on,
)
from rules.params import ParameterBook

HUNDREDTH = Decimal("0.01")
MACHINE_ITEMS = ("01", "02", "03", "04")
PASSENGER_ITEMS = ("10", "11")


class KmReading(str, Enum):
    """The two readings of items 07 and 09 (km rodado de 200 a 550 km)."""

    EXCESS_OVER_200 = "excess_over_200"
    WHOLE_DISTANCE = "whole_distance"

    @property
    def text(self) -> str:
        if self is KmReading.EXCESS_OVER_200:
            return ("Itens 07/09: a diária, meia diária ou viagem cobre os primeiros 200 km; "
                    "cada km excedente, até 550 km, é cobrado pelo preço do item 07/09")
        return ("Itens 07/09: acima de 200 km, toda a distância, até 550 km, é cobrada por km "
                "no lugar da diária, meia diária ou viagem")


class QuoteRefused(RuleError):
    """The request cannot be priced by Anexo I."""


class UnknownItem(QuoteRefused):
    """An item code that is not one of Anexo I for that kind of service."""


class InvalidQuantity(QuoteRefused):
    """A quantity that is not an exact number, is not whole where it must be, or has over 2 decimals."""


class QuantityNotPositive(QuoteRefused):
    """A zero or negative quantity or distance."""


class QuantityAboveCeiling(QuoteRefused):
    """A quantity above the panel's ceiling per line (a guard against typing errors)."""


class DistanceAboveLimit(QuoteRefused):
    """A distance over the range of Anexo I (550 km for trucks, 1.100 km for bus or van)."""


class EarthChargedByLoad(QuoteRefused):
    """Earth or gravel carried by dump truck must be quoted by item 12 (Anexo I, obs. 3)."""


class LoadsAboveStageLimit(QuoteRefused):
    """More loads of earth or gravel than art. 9, §1 allows at once (5 per property/requester)."""


class EmptyQuote(QuoteRefused):
    """A request without any service."""


@dataclass(frozen=True)
class MachineHours:
    """Hours of one machine, items 01-04 (estimated hours when requested: art. 8, §2)."""

    item: str
    hours: Decimal


@dataclass(frozen=True)
class DumpTruckDay:
    """One day (item 05) or half day (item 06) of dump truck with its round-trip distance."""

    distance_km: Decimal
    half_day: bool = False
    earth_or_gravel: bool = False


@dataclass(frozen=True)
class LowboyTrip:
    """One lowboy trip (item 08) with its round-trip distance."""

    distance_km: Decimal


@dataclass(frozen=True)
class PassengerTransport:
    """Bus (item 10) or minibus/van (item 11) hire, charged per round-trip km."""

    item: str
    distance_km: Decimal


@dataclass(frozen=True)
class EarthLoads:
    """Loads of earth or gravel, item 12."""

    loads: int


Service = MachineHours | DumpTruckDay | LowboyTrip | PassengerTransport | EarthLoads


@dataclass(frozen=True)
class QuoteLine:
    """One priced line: item, description, unit, quantity, unit price, amount and discount."""

    item: str
    description: str
    unit: str
    quantity: Decimal
    unit_price: Decimal
    amount: Decimal
    discount: Decimal = Decimal("0.00")
    discount_reason: str = ""
    note: str = ""

    @property
    def net(self) -> Decimal:
        return self.amount - self.discount

    @property
    def reference(self) -> str:
        return f"{ANEXO_I}, item {self.item}"


@dataclass(frozen=True)
class Quote:
    """A priced request as of ``on``, keeping the price table and the km reading it used."""

    on: date
    price_table: PriceTable
    km_reading: KmReading
    lines: tuple[QuoteLine, ...]
    discount: DiscountDecision

    @property
    def gross(self) -> Decimal:
        return sum((line.amount for line in self.lines), Decimal("0.00"))

    @property
    def discount_total(self) -> Decimal:
        return sum((line.discount for line in self.lines), Decimal("0.00"))

    @property
    def total(self) -> Decimal:
        return self.gross - self.discount_total

    @property
    def machine_hours_total(self) -> Decimal:
        """Net amount of the machine-hour lines, whose quantity is an estimate (art. 8, §2)."""
        return sum((line.net for line in self.lines if line.item in MACHINE_ITEMS), Decimal("0.00"))

    @property
    def known_total(self) -> Decimal:
        """Net amount of the lines with a quantity known in advance (art. 8, §1)."""
        return self.total - self.machine_hours_total


def checked_quantity(value: object, what: str, ceiling: Decimal, *, whole: bool = False,
                     reference: str = ANEXO_I) -> Decimal:
    """The quantity as a Decimal, or a named error: exact, finite, positive, below the ceiling."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise InvalidQuantity(f"{what}: informe um número exato (inteiro ou decimal)", value, reference)
    quantity = Decimal(value)
    if not quantity.is_finite():
        raise InvalidQuantity(f"{what}: valor não numérico", value, reference)
    if quantity <= 0:
        raise QuantityNotPositive(f"{what}: deve ser maior que zero", value, reference)
    if quantity > ceiling:
        raise QuantityAboveCeiling(f"{what}: acima do limite de {number(ceiling)}", value, reference)
    if whole and quantity != quantity.to_integral_value():
        raise InvalidQuantity(f"{what}: deve ser um número inteiro", value, reference)
    if quantity != quantity.quantize(HUNDREDTH):
        raise InvalidQuantity(f"{what}: no máximo duas casas decimais", value, reference)
    return quantity


def _line(table: PriceTable, code: str, quantity: Decimal, note: str = "") -> QuoteLine:
    item = CATALOGUE[code]
    price = table.price(code)
    return QuoteLine(code, item.machine, item.unit_label, quantity, price,
                     cents(price * quantity), note=note)


def _distance_or_refuse(value: object, limit: int, what: str, reference: str) -> Decimal:
    # Anexo I: trucks up to 550 km (items 07/09), bus and van up to 1.100 km (items 10/11)
    try:
        return checked_quantity(value, what, Decimal(limit), reference=reference)
    except QuantityAboveCeiling as error:
        raise DistanceAboveLimit(
            f"{what} de {number(Decimal(value))} km acima do limite de {number(limit)} km",
            value, reference,
        ) from error


def _with_km(table: PriceTable, base_code: str, km_code: str, distance: Decimal,
             reading: KmReading) -> list[QuoteLine]:
    franchise = Decimal(CATALOGUE[base_code].km_up_to)
    if distance <= franchise:
        # Anexo I, items 05/06/08: the day, half day or trip covers up to 200 km
        return [_line(table, base_code, Decimal(1), f"{number(distance)} km (ida e volta)")]
    if reading is KmReading.EXCESS_OVER_200:
        # Anexo I, items 07/09, first reading: the km beyond 200 are charged per km
        excess = distance - franchise
        return [_line(table, base_code, Decimal(1), f"primeiros {number(franchise)} km"),
                _line(table, km_code, excess, f"{number(excess)} km excedentes de {number(distance)} km")]
    # Anexo I, items 07/09, second reading: the whole distance is charged per km
    return [_line(table, km_code, distance, f"{number(distance)} km (ida e volta), distância total")]


def _lines(service: Service, table: PriceTable, reading: KmReading, ceiling: Decimal) -> list[QuoteLine]:
    if isinstance(service, MachineHours):
        if service.item not in MACHINE_ITEMS:
            raise UnknownItem("Hora-máquina só pelos itens 01 a 04", service.item, ANEXO_I)
        hours = checked_quantity(service.hours, "Horas-máquina", ceiling,
                                 reference=f"{ANEXO_I}, item {service.item}")
        return [_line(table, service.item, hours)]
    if isinstance(service, DumpTruckDay):
        if service.earth_or_gravel:
            # Anexo I, obs. 3: earth or gravel by dump truck is charged by item 12
            raise EarthChargedByLoad("Transporte de terra ou cascalho é cobrado por carga (item 12)",
                                     service, f"{ANEXO_I}, obs. 3")
        code = "06" if service.half_day else "05"
        distance = _distance_or_refuse(service.distance_km, CATALOGUE["07"].km_up_to,
                                       "Distância do caminhão basculante", f"{ANEXO_I}, item 07")
        return _with_km(table, code, "07", distance, reading)
    if isinstance(service, LowboyTrip):
        distance = _distance_or_refuse(service.distance_km, CATALOGUE["09"].km_up_to,
                                       "Distância do caminhão prancha", f"{ANEXO_I}, item 09")
        return _with_km(table, "08", "09", distance, reading)
    if isinstance(service, PassengerTransport):
        if service.item not in PASSENGER_ITEMS:
            raise UnknownItem("Ônibus, micro-ônibus ou van só pelos itens 10 e 11", service.item, ANEXO_I)
        distance = _distance_or_refuse(service.distance_km, CATALOGUE[service.item].km_up_to,
                                       "Distância da viagem", f"{ANEXO_I}, item {service.item}")
        return [_line(table, service.item, distance, "ida e volta")]
    if isinstance(service, EarthLoads):
        loads = checked_quantity(service.loads, "Cargas de terra/cascalho", ceiling, whole=True,
                                 reference=f"{ANEXO_I}, item 12")
        return [_line(table, DISCOUNTED_ITEM, loads)]
    raise UnknownItem("Serviço não previsto no Anexo I", service, ANEXO_I)


def _within_load_limit(lines: list[QuoteLine], on: date, book: ParameterBook) -> None:
    limit = int(book.get("loads_per_stage_limit", on))
    loads = sum((line.quantity for line in lines if line.item == DISCOUNTED_ITEM), Decimal(0))
    if loads > limit:
        # Art. 9, §1: "limitado a até 5 (cinco) por vez"; §2: the rest is a new request, next stage
        raise LoadsAboveStageLimit(
            f"Pedido de {number(loads)} cargas de terra/cascalho: o limite é de {limit} cargas por vez "
            f"para cada propriedade/solicitante; peça até {limit} agora e as demais em nova solicitação, "
            "atendida na próxima etapa do cronograma",
            int(loads), f"{DECREE}, art. 9, §1 e §2")


def _discounted(line: QuoteLine, discount: DiscountDecision) -> QuoteLine:
    if discount.criterion is None:
        return line
    if line.item != DISCOUNTED_ITEM:
        # Art. 7, §2 and Anexo II, obs. 2: discounts only on item 12
        return replace(line, discount_reason="Sem desconto: o Anexo II aplica-se somente ao item 12 "
                                             "(art. 7, §2; Anexo II, obs. 2)")
    return replace(line, discount=cents(line.amount * discount.rate), discount_reason=discount.reason)


def quote(
    services: Sequence[Service], on: date, book: ParameterBook,
    claims: Iterable[DiscountClaim] = (),
) -> Quote:
    """Price the services with the table in force on ``on``; the best proven discount on item 12."""
    if not services:
        raise EmptyQuote("Informe ao menos um serviço", services, ANEXO_I)
    table = price_table_on(book, on)
    reading = KmReading(book.get("km_reading_items_07_09", on))
    ceiling = Decimal(book.get("quote_quantity_ceiling", on))
    discount = evaluate_discount(claims, on, book)
    lines = [line for service in services for line in _lines(service, table, reading, ceiling)]
    _within_load_limit(lines, on, book)
    return Quote(on, table, reading, tuple(_discounted(line, discount) for line in lines), discount)
