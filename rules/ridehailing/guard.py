"""Dates the rules can count with: deadlines run forward years, so far-off dates are refused."""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from datetime import date

from rules.base import RuleError

EARLIEST = date(1900, 1, 1)
LATEST = date(2199, 12, 31)


class DateOutOfRange(RuleError):
    """A date outside the years the legal calendar counts (1900–2199)."""


def check_dates(*values: object) -> None:
    """Raise DateOutOfRange when any date inside ``values`` (or their fields) is out of range."""
    for value in values:
        if isinstance(value, date):
            plain = value if type(value) is date else value.date()
            if not EARLIEST <= plain <= LATEST:
                raise DateOutOfRange(f"Data {value:%d/%m/%Y} fora do intervalo aceito", value=value)
        elif is_dataclass(value) and not isinstance(value, type):
            check_dates(*(getattr(value, f.name) for f in fields(value)))
        elif isinstance(value, (tuple, list, frozenset, set)):
            check_dates(*value)
