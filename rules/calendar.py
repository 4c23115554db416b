"""The legal calendar used by every deadline in the product.

Business days exclude weekends, national and Mato Grosso holidays (``holidays`` package,
Brazil, subdivision MT) and the municipal holidays given as parameters.

Counting follows Lei Federal 9.784/1999, art. 66:
- caput: the start day is excluded and the end day included;
- §1: an end falling on a non-business day moves to the next business day;
- §2: periods in days run continuously;
- §3: periods in months or years run date to date; when the end month lacks that day,
  the period ends on the last day of that month.
"Dias úteis" count business days only.
"""
from __future__ import annotations

import calendar as _calendar
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from functools import lru_cache

import holidays

LEI_9784 = "Lei Federal 9.784/1999, art. 66"


@lru_cache(maxsize=64)
def _state_holidays(year: int) -> dict[date, str]:
    return dict(holidays.Brazil(subdiv="MT", language="pt_BR", years=year).items())


@lru_cache(maxsize=64)
def _national_holidays(year: int) -> dict[date, str]:
    return dict(holidays.Brazil(language="pt_BR", years=year).items())


WEEKEND = {5: "sábado", 6: "domingo"}


class LegalCalendar:
    """Business days and legal period counting for one municipality."""

    def __init__(self, municipal_holidays: Iterable[tuple[date, str]] | Iterable[date] = ()) -> None:
        self._municipal: dict[date, str] = {}
        for item in municipal_holidays:
            if isinstance(item, date):
                self._municipal[item] = "Feriado municipal"
            else:
                day, name = item
                self._municipal[day] = name

    def holiday_name(self, day: date) -> str | None:
        """The holiday's name on ``day``, or None when it is not a holiday."""
        return self._municipal.get(day) or _state_holidays(day.year).get(day)

    def day_off(self, day: date) -> str | None:
        """Why ``day`` is not a business day, as a person says it ("sábado", "feriado nacional:
        Tiradentes", "feriado municipal: Aniversário do Município"), or None on a business day."""
        reasons = [WEEKEND[day.weekday()]] if day.weekday() in WEEKEND else []
        if day in self._municipal:
            reasons.append(f"feriado municipal: {self._municipal[day]}")
        elif day in _national_holidays(day.year):
            reasons.append(f"feriado nacional: {_national_holidays(day.year)[day]}")
        elif day in _state_holidays(day.year):
            reasons.append(f"feriado estadual: {_state_holidays(day.year)[day]}")
        return ", ".join(reasons) or None

    def is_business_day(self, day: date) -> bool:
        return day.weekday() < 5 and self.holiday_name(day) is None

    def next_business_day(self, day: date) -> date:
        """``day`` itself when it is a business day, else the first business day after it."""
        while not self.is_business_day(day):
            day += timedelta(days=1)
        return day

    def add_days(self, start: date, days: int) -> date:
        """End of a period of ``days`` calendar days (art. 66 caput, §1 and §2)."""
        return self.next_business_day(start + timedelta(days=days))

    def add_business_days(self, start: date, days: int) -> date:
        """End of a period of ``days`` business days, the start day excluded."""
        day = start
        counted = 0
        step = 1 if days >= 0 else -1
        while counted < abs(days):
            day += timedelta(days=step)
            if self.is_business_day(day):
                counted += 1
        return day

    def subtract_business_days(self, end: date, days: int) -> date:
        """The latest date that still leaves ``days`` business days before ``end``."""
        return self.add_business_days(end, -days)

    def add_months(self, start: date, months: int, *, move_to_business_day: bool = True) -> date:
        """Date to date in months; a missing day becomes the month's last day (art. 66 §3)."""
        end = add_months(start, months)
        return self.next_business_day(end) if move_to_business_day else end

    def add_years(self, start: date, years: int, *, move_to_business_day: bool = True) -> date:
        return self.add_months(start, 12 * years, move_to_business_day=move_to_business_day)

    def business_days_between(self, start: date, end: date) -> int:
        """Business days after ``start`` up to and including ``end``."""
        count = 0
        day = start
        while day < end:
            day += timedelta(days=1)
            if self.is_business_day(day):
                count += 1
        return count


def add_months(start: date, months: int) -> date:
    """Plain date-to-date month arithmetic (Lei 9.784/1999 art. 66 §3), no business-day move."""
    index = start.year * 12 + (start.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    last = _calendar.monthrange(year, month)[1]
    return date(year, month, min(start.day, last))


def add_hours(moment: datetime, hours: int) -> datetime:
    """A period in hours counted from the exact timestamp (e.g. 24 h to hand over trip data)."""
    return moment + timedelta(hours=hours)
