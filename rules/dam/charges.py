"""A charge (débito): what the municipality is owed, and where its payments leave it.

A charge has a principal (net of any discount) and a due date; each DAM issued for it (the original,
every 2ª via with its multa and juros, a DAM for a difference left open) is a document *of* the
charge. Every payment of any of its DAMs is a payment of the charge (docs/LEITURAS.md, seção 19):

- what is owed is the principal plus the late charges (multa and juros de mora) of the DAMs that
  received a payment — a 2ª via paid carries its late charges into the charge;
- ``paid`` is the sum of the payments; ``balance = principal + late - paid``;
- nothing paid: *aberto*; part paid: *pago a menor*, the difference open for a new DAM;
  paid in full: *pago*; paid beyond: *pago* with the excess as a credit owed back to the taxpayer
  (CTN art. 165, restituição) — never silently absorbed;
- *inscrito em dívida ativa* (Lei 4.320/1964 art. 39 §1; Lei 6.830/1980 art. 2) is still open:
  a later payment settles it as any other;
- *cancelado*: the charge itself was withdrawn (the record it charged no longer owes it).

Aging: an open charge is *a vencer* or overdue by 1–30, 31–90, 91–365 or more than 365 days.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

OPEN, SHORT, PAID, CANCELLED, INSCRIBED = "aberto", "pago_a_menor", "pago", "cancelado", "inscrito"
STATUSES = {
    OPEN: "Em aberto",
    SHORT: "Pago a menor",
    PAID: "Pago",
    CANCELLED: "Cancelado",
    INSCRIBED: "Inscrito em dívida ativa",
}
# the statuses in which something is still owed (the delinquency and aging read these)
OWING = (OPEN, SHORT, INSCRIBED)
ZERO = Decimal("0")

LEGAL_BASIS_ACTIVE_DEBT = ("Lei 4.320/1964, art. 39, §§1º-2º (dívida ativa tributária e não tributária); "
                           "Lei 6.830/1980, art. 2º (inscrição e certidão de dívida ativa)")
LEGAL_BASIS_REFUND = "CTN (Lei 5.172/1966), art. 165 (restituição do pagamento indevido ou a maior)"


@dataclass(frozen=True)
class Standing:
    """Where a charge stands after its payments: status, what is owed in all, open and owed back."""

    status: str
    owed: Decimal
    paid: Decimal
    open: Decimal
    credit: Decimal


def standing(principal: Decimal, late: Decimal, paid: Decimal, *, inscribed: bool = False,
             cancelled: bool = False) -> Standing:
    """The standing of a charge of ``principal`` whose paid DAMs carried ``late`` charges and whose
    payments add up to ``paid``: open = principal + late - paid while positive, the excess a credit."""
    owed = principal + late
    balance = owed - paid
    open_ = max(balance, ZERO)
    credit = max(-balance, ZERO)
    if cancelled:  # withdrawn: nothing is owed, and anything paid is owed back
        return Standing(CANCELLED, ZERO, paid, ZERO, paid)
    if open_ == ZERO:
        status = PAID
    elif inscribed:
        status = INSCRIBED
    elif paid > ZERO:
        status = SHORT
    else:
        status = OPEN
    return Standing(status, owed, paid, open_, credit)


def settled(status: str) -> bool:
    """Paid in full: the one state in which a record may act on its charge's payment
    (e.g. NL art. 8 §1: the service only after payment in full)."""
    return status == PAID


# ---- aging ----

BUCKETS = (
    ("a_vencer", "A vencer", None, 0),
    ("1_30", "Vencido há 1–30 dias", 1, 30),
    ("31_90", "Vencido há 31–90 dias", 31, 90),
    ("91_365", "Vencido há 91–365 dias", 91, 365),
    ("mais_365", "Vencido há mais de 365 dias", 366, None),
)
BUCKET_LABELS = {key: label for key, label, _low, _high in BUCKETS}


def days_overdue(due_on: date, today: date) -> int:
    """Days since the due date (0 or less: not overdue)."""
    return (today - due_on).days


def bucket(due_on: date, today: date) -> str:
    """The aging bucket of an open charge due on ``due_on``."""
    late = days_overdue(due_on, today)
    for key, _label, low, high in BUCKETS:
        if low is None and late <= 0:
            return key
        if low is not None and late >= low and (high is None or late <= high):
            return key
    raise AssertionError(late)  # pragma: no cover — the buckets cover every integer


def inscribable(status: str, due_on: date, today: date, min_days: int) -> bool:
    """An open charge overdue for more than ``min_days`` may be inscribed in dívida ativa (Lei 4.320/1964
    art. 39 §1: the credits not paid on their due date, after the term the municipality sets)."""
    return status in (OPEN, SHORT) and days_overdue(due_on, today) > min_days
