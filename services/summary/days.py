"""Reading the views kept per day (``revenue_view``'s month documents: ``bookings_view``, ``autos_view``):
the days of one view read once, what a span of days counted and the states on a day; texts made safe
to be part of a key and read back."""
from __future__ import annotations

from collections import Counter
from datetime import date
from urllib.parse import quote, unquote

from pymongo.database import Database

from services.summary import revenue_view


def safe(text: object) -> str:
    """A text as a part of a field name: no dot, no dollar, no "|" (our separator), reversible."""
    return quote(str(text), safe=" -_()/,'").replace(".", "%2E")


class Days:
    """The stored days of view ``name`` of one municipality, read once (one query): what a period counted."""

    def __init__(self, db: Database, name: str, municipality: str, until: date | None = None) -> None:
        self.days = sorted(revenue_view.days_of(db, name, municipality, until).items())

    def within(self, first: date, last: date) -> Counter:
        """Every key counted from ``first`` to ``last``."""
        total: Counter = Counter()
        for when, cell in self.days:
            if when > last:
                break
            if when >= first:
                total.update(cell)
        return total

    def on(self, day: date, *keys: str, prefix: str | None = None) -> Counter:
        """The states ``keys`` (``waiting``, ``owing|n``…), or every one under ``prefix``, at the end of ``day``."""
        total: Counter = Counter()
        for when, cell in self.days:
            if when > day:
                break
            for key in keys:
                total[key] += cell.get(key, 0)
            if prefix is not None:
                total.update({k: n for k, n in cell.items() if k.startswith(prefix)})
        return total


def keyed(counts: Counter, prefix: str) -> dict[str, int]:
    """The counts under ``<prefix>|<text>``, by the text (unescaped), the ones left at zero out."""
    return {unquote(key.split("|", 1)[1]): n for key, n in counts.items() if key.startswith(prefix + "|") and n}


def ranked(counts: dict[str, int]) -> dict[str, int]:
    """Most first, ties by name (how the Resumo lists counts by zone, stage, severity…)."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
