"""Reading the views kept per day (``revenue_view``'s month documents: ``bookings_view``, ``autos_view``):
the days of one view read once, what a span of days counted and the states on a day; texts made safe
to be part of a key and read back."""
from __future__ import annotations

from bisect import bisect_right
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
        self._dates = [when for when, _ in self.days]
        self._running: list[dict[str, int]] | None = None  # every key's sum up to each day, made on first use

    def _up_to(self, day: date) -> dict[str, int]:
        """Every key's sum up to the end of ``day`` (the running sums are made once: a summary asks for
        the states at the end of each of its months)."""
        if self._running is None:
            total: Counter = Counter()
            self._running = []
            for _, cell in self.days:
                total.update(cell)
                self._running.append(dict(total))
        index = bisect_right(self._dates, day)
        return self._running[index - 1] if index else {}

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
        sums = self._up_to(day)
        total: Counter = Counter({key: sums.get(key, 0) for key in keys})
        if prefix is not None:
            total.update({k: n for k, n in sums.items() if k.startswith(prefix)})
        return total


def keyed(counts: Counter, prefix: str) -> dict[str, int]:
    """The counts under ``<prefix>|<text>``, by the text (unescaped), the ones left at zero out."""
    return {unquote(key.split("|", 1)[1]): n for key, n in counts.items() if key.startswith(prefix + "|") and n}


def ranked(counts: dict[str, int]) -> dict[str, int]:
    """Most first, ties by name (how the Resumo lists counts by zone, stage, severity…)."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
