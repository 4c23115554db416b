"""Due dates of a DAM and whether a payment came late.

A due date that falls on a day without banking or municipal business (weekend, national,
Mato Grosso or municipal holiday) moves to the next business day:

- Código Tributário Nacional (Lei 5.172/1966), art. 210, parágrafo único: periods only begin
  or end on a day of normal business in the office where the act is to be done (taxes and fees);
- Lei Federal 9.784/1999, art. 66, §1: the same for administrative periods (fines, public prices).
"""
from __future__ import annotations

from datetime import date

from rules.base import Finding, Level
from rules.calendar import LegalCalendar
from rules.fmt import count, day

DUE_DATE_RULE = "CTN (Lei 5.172/1966), art. 210, parágrafo único; Lei 9.784/1999, art. 66, §1"


def due_date(requested: date, calendar: LegalCalendar) -> date:
    """The due date printed on the DAM: ``requested`` or, when not a business day, the next one."""
    return calendar.next_business_day(requested)


def due_date_finding(requested: date, calendar: LegalCalendar) -> Finding:
    """Why the printed due date is what it is (shown on screen and in the audit log)."""
    moved = due_date(requested, calendar)
    if moved == requested:
        return Finding(True, f"Vencimento em {day(requested)}, dia útil", DUE_DATE_RULE, Level.INFO)
    reason = calendar.holiday_name(requested) or ("sábado" if requested.weekday() == 5 else "domingo")
    return Finding(
        True,
        f"Vencimento em {day(requested)} ({reason}) prorrogado para o dia útil seguinte, {day(moved)}",
        DUE_DATE_RULE,
        Level.INFO,
    )


def payment_on_time(due: date, paid_on: date, calendar: LegalCalendar) -> Finding:
    """A payment is on time up to the due date, or the next business day when the due date
    turned out not to be one (e.g. a municipal holiday decreed after the DAM was printed)."""
    # CTN art. 210, parágrafo único: the period ends on the first business day
    limit = due_date(due, calendar)
    if paid_on <= limit:
        return Finding(True, f"Pago em {day(paid_on)}, dentro do vencimento ({day(limit)})", DUE_DATE_RULE, Level.INFO)
    late = (paid_on - limit).days
    return Finding(
        False,
        f"Pago em {day(paid_on)}, {count(late, 'dia', 'dias')} após o vencimento ({day(limit)})",
        DUE_DATE_RULE,
        Level.WARNING,
    )
