"""The periods the mayor's office compares: a period (first and last day, both included, dates of
America/Cuiaba), the previous period of the same length and the same period of the previous year."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from services.shared.errors import ValidationFailed


def day_a_year_before(day: date) -> date:
    """The same day of the previous year; 29 February falls on the 28th."""
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


@dataclass(frozen=True)
class Period:
    """From ``start`` to ``end``, both included."""

    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValidationFailed({"end": "Período: a data final é anterior à inicial."})

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def previous(self) -> Period:
        """The period of the same length that ends the day before this one starts."""
        end = self.start - timedelta(days=1)
        return Period(end - timedelta(days=self.days - 1), end)

    def year_before(self) -> Period:
        return Period(day_a_year_before(self.start), day_a_year_before(self.end))

    def __contains__(self, day: object) -> bool:
        return isinstance(day, date) and self.start <= day <= self.end

    def months(self) -> list[date]:
        """The first day of every month the period touches."""
        months, month = [], self.start.replace(day=1)
        while month <= self.end:
            months.append(month)
            month = (month + timedelta(days=32)).replace(day=1)
        return months
