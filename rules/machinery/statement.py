"""What the documents of a service request say about money (Decreto 017/2026, Nova Lacerda, art. 8).

- The DAM of one instalment describes only what it charges: the full payment (art. 8, §1) the
  services of known quantity, the advance (§2) the machine hours estimated, the balance (§2) the
  hours worked less the advance (:func:`instalment_description`, :func:`balance_description`).
- The statement adds up the charges (débitos) of the request, never the estimate: what was
  charged (what the DAMs charged: principal plus the late charges of the DAMs paid, an advance
  abated by the settlement still at what its DAM charged), paid, still open, and owed back to
  the requester — the advance beyond the hours worked (art. 8, §2) and any payment beyond a
  charge (CTN art. 165) (:func:`statement_totals`).
- The settlement of the hours worked is its own line: value executed, advance paid, balance to
  pay or credit to return (:func:`settlement_line`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from rules.fmt import brl, number
from rules.machinery.payment import ADVANCE, FULL
from rules.machinery.prices import CATALOGUE
from rules.machinery.quote import MACHINE_ITEMS, Quote, QuoteLine

ZERO = Decimal("0.00")


def _known_line(line: QuoteLine) -> str:
    return f"item {line.item} {line.description} ({line.unit.lower()}): {number(line.quantity)}, {brl(line.net)}"


def _hours_line(line: QuoteLine) -> str:
    return f"item {line.item} {line.description}: {number(line.quantity)} h estimadas, {brl(line.net)}"


def instalment_description(key: str, label: str, protocol: str, quote: Quote) -> str:
    """The discriminação of the DAM of one upfront instalment: its label and only the lines it
    charges — the known quantities for the full payment (art. 8, §1), the machine hours estimated
    for the advance (art. 8, §2)."""
    if key == FULL:
        covered = "; ".join(_known_line(line) for line in quote.lines if line.item not in MACHINE_ITEMS)
    elif key == ADVANCE:
        covered = ("; ".join(_hours_line(line) for line in quote.lines if line.item in MACHINE_ITEMS)
                   + f" (estimativa {brl(quote.machine_hours_total)})")
    else:
        raise ValueError(key)
    return f"{label} — pedido de serviço {protocol}: {covered}"


def balance_description(protocol: str, worked_hours: Mapping[str, Decimal], executed: Decimal,
                        advance: Decimal) -> str:
    """The discriminação of the balance DAM (art. 8, §2): the hours worked, their value and the
    advance already paid."""
    worked = "; ".join(f"item {item} {CATALOGUE[item].machine if item in CATALOGUE else item}: "
                       f"{number(hours)} h executadas" for item, hours in sorted(worked_hours.items()) if hours)
    return (f"Saldo das horas-máquina executadas — pedido de serviço {protocol}: {worked}; executado "
            f"{brl(executed)} menos adiantamento {brl(advance)} = {brl(executed - advance)}")


def settlement_line(executed: Decimal, advance: Decimal, advance_paid: Decimal, amount_due: Decimal,
                    credit_to_return: Decimal) -> str:
    """The settlement of the hours worked on its own line (art. 8, §2): the value executed, the advance
    paid, then the balance to pay or the credit to return. The rows of the statement keep what each
    DAM charged; this line says what the hours worked come to against the advance."""
    paid = (f"adiantamento pago {brl(advance_paid)}" if advance_paid == advance
            else f"adiantamento {brl(advance)}, pago {brl(advance_paid)}")
    head = f"Acerto das horas executadas (art. 8, §2): valor executado {brl(executed)} · {paid}"
    if credit_to_return > 0:
        return f"{head} · crédito de {brl(credit_to_return)} a devolver ao interessado"
    if amount_due > 0:
        return f"{head} · saldo de {brl(amount_due)} a pagar"
    return f"{head} · nada a pagar"


@dataclass(frozen=True)
class ChargeFigures:
    """One charge of the request: what it charges in all, what was paid, what is open, any credit."""

    charged: Decimal
    paid: Decimal
    open: Decimal
    credit: Decimal = ZERO


@dataclass(frozen=True)
class StatementTotals:
    charged: Decimal
    paid: Decimal
    open: Decimal
    owed_back: Decimal


def statement_totals(charges: Iterable[ChargeFigures], credit_to_return: Decimal = ZERO) -> StatementTotals:
    """The request's money from its charges: charged, paid and open add the charges; owed back adds
    the advance beyond the hours worked (``credit_to_return``, art. 8, §2, while not yet returned)
    and every payment beyond a charge (CTN art. 165). The estimate of the balance is no charge."""
    listed = list(charges)
    return StatementTotals(
        charged=sum((c.charged for c in listed), ZERO), paid=sum((c.paid for c in listed), ZERO),
        open=sum((c.open for c in listed), ZERO),
        owed_back=sum((c.credit for c in listed), ZERO) + credit_to_return)
