"""Multa and juros de mora of an overdue DAM, from the rates of the municipality's Código Tributário.

Each municipality's Código Tributário Municipal sets the late-payment charges; the panel holds them
as dated parameters (none in a real store until TI sets them; docs/LEITURAS.md, seção 9):

- ``dam_late_fine_daily_percent``: multa de mora, % of the principal per day of delay;
- ``dam_late_fine_max_percent``: the ceiling of the multa (a fixed multa of 2 % is daily 2, ceiling 2);
- ``dam_late_interest_monthly_percent``: juros de mora, % of the principal per month or fraction of
  a month of delay (CTN, Lei 5.172/1966, art. 161, §1: 1 % a month when the law says nothing else).

Both are counted from the day after the due date (already moved to a business day, CTN art. 210,
parágrafo único) to the day the amount is computed for (the new due date of a 2ª via), and both fall
on the principal less any discount is lost (a discount is only for payment on time).
"""
from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from rules.base import Finding, Level, RuleError, cents
from rules.fmt import count, day
from rules.params import ParameterBook, is_demo_act

FINE_DAILY = "dam_late_fine_daily_percent"
FINE_MAX = "dam_late_fine_max_percent"
INTEREST_MONTHLY = "dam_late_interest_monthly_percent"
HUNDRED = Decimal("100")


class NotOverdue(RuleError):
    """A DAM is reissued with late charges only after its due date."""


@dataclass(frozen=True)
class LateRates:
    """The rates in force on a day, with the act that set each."""

    fine_daily: Decimal
    fine_max: Decimal
    interest_monthly: Decimal
    fine_act: str
    interest_act: str

    def text(self) -> str:
        """What the DAM says will happen after its due date."""
        if self.fine_daily >= self.fine_max:
            fine = f"multa de {_percent(self.fine_max)}"
        else:
            fine = f"multa de {_percent(self.fine_daily)} ao dia, até {_percent(self.fine_max)}"
        basis = "" if is_demo_act(self.fine_act) else f" ({self.fine_act})"  # a demo act is said on Implantação
        return (f"{fine.capitalize()} e juros de {_percent(self.interest_monthly)} ao mês ou fração sobre o valor "
                f"principal{basis}. Vencido, pague a 2ª via com o valor atualizado.")


@dataclass(frozen=True)
class LateCharges:
    """What a DAM owes on ``on`` when it fell due on ``due``."""

    principal: Decimal
    days: int
    months: int
    fine: Decimal
    interest: Decimal
    findings: tuple[Finding, ...]

    @property
    def total(self) -> Decimal:
        return self.principal + self.fine + self.interest


def _percent(value: Decimal) -> str:
    return f"{value.normalize():f}".replace(".", ",") + " %"


def late_rates(book: ParameterBook, on: date) -> LateRates:
    """The municipality's rates in force on ``on`` (raises ParameterMissing when one is not set)."""
    fine = book.version(FINE_DAILY, on)
    interest = book.version(INTEREST_MONTHLY, on)
    return LateRates(Decimal(str(fine.value)), Decimal(str(book.get(FINE_MAX, on))),
                     Decimal(str(interest.value)), fine.act, interest.act)


def _add_months(start: date, months: int) -> date:
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(start.day, calendar.monthrange(year, month)[1]))


def months_or_fraction(due: date, on: date) -> int:
    """Months of delay from ``due`` to ``on``, a fraction of a month counting as a whole one."""
    if on <= due:
        return 0
    months = (on.year - due.year) * 12 + on.month - due.month
    return months + 1 if _add_months(due, months) < on else months


def late_charges(principal: Decimal, due: date, on: date, rates: LateRates) -> LateCharges:
    """Multa and juros on ``principal`` of a DAM due on ``due``, paid (or reissued to fall due) on ``on``."""
    if on <= due:
        raise NotOverdue(f"O DAM vence em {day(due)}: não há atraso em {day(on)}", value=(due, on))
    days = (on - due).days
    months = months_or_fraction(due, on)
    # Código Tributário Municipal: multa per day of delay up to its ceiling
    fine_rate = min(rates.fine_daily * days, rates.fine_max)
    fine = cents(principal * fine_rate / HUNDRED)
    # Código Tributário Municipal (CTN art. 161, §1 when it is silent): juros per month or fraction
    interest_rate = rates.interest_monthly * months
    interest = cents(principal * interest_rate / HUNDRED)
    findings = (
        Finding(True, f"Multa de mora: {count(days, 'dia', 'dias')} de atraso, {_percent(fine_rate)} do principal", rates.fine_act,
                Level.INFO),
        Finding(True, f"Juros de mora: {count(months, 'mês', 'meses')} ou fração, {_percent(interest_rate)} do principal",
                rates.interest_act, Level.INFO),
    )
    return LateCharges(principal, days, months, fine, interest, findings)
