"""Reading the views kept per day (``revenue_view``'s month documents: ``bookings_view``, ``autos_view``…):
what a span of days counted and the states on a day, from each month's totals and the days of the
months a question cuts inside; texts made safe to be part of a key and read back."""
from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from datetime import date, timedelta
from urllib.parse import quote, unquote

from pymongo.database import Database

MONTHS = "summary_months"  # the month documents of every view kept per day (written by revenue_view)
TOTALS = "summary_month_totals"  # each month document's totals, small: what a question reads of most months


def safe(text: object) -> str:
    """A text as a part of a field name: no dot, no dollar, no "|" (our separator), reversible."""
    return quote(str(text), safe=" -_()/,'").replace(".", "%2E")


def month_id(municipality: str, day: date, name: str) -> str:
    """The ``_id`` of the month document (and of its totals) of view ``name`` holding ``day``."""
    return f"{municipality}:{day:%Y-%m}:{name}"


def _months_query(name: str, municipality: str, until: date | None) -> dict:
    query: dict = {"municipality": municipality, "view": name}
    if until is not None:
        query["month"] = {"$lte": f"{until:%Y-%m}"}
    return query


def month_totals(db: Database, name: str, municipality: str, until: date | None = None) -> dict[date, dict[str, int]]:
    """Each month's totals of view ``name`` of the municipality (up to ``until``'s month), by its first
    day: one query, the day fields left in the store."""
    return {date.fromisoformat(doc["month"] + "-01"): doc.get("m") or {}
            for doc in db[TOTALS].find(_months_query(name, municipality, until))}


def days_in(db: Database, name: str, municipality: str, months: list[date]) -> dict[date, dict[str, int]]:
    """Every day's fields of view ``name`` of the municipality in ``months`` (their first days): one query."""
    days: dict[date, dict[str, int]] = {}
    query = {"_id": {"$in": [month_id(municipality, month, name) for month in months]}}
    for doc in db[MONTHS].find(query):
        days.update(month_days(doc["month"], doc))
    return days


def month_days(month: str, doc: dict) -> dict[date, dict[str, int]]:
    """The day fields of one month document (``{"d14": {...}}`` or flat ``{"d14.key": n}``)."""
    year, number = (int(p) for p in month.split("-"))
    days: dict[date, dict[str, int]] = defaultdict(dict)
    for name, value in doc.items():
        if not name.startswith("d"):
            continue
        if isinstance(value, dict):
            days[date(year, number, int(name[1:]))].update(value)
        elif "." in name:
            day, key = name.split(".", 1)
            days[date(year, number, int(day[1:]))][key] = value
    return days


class Days:
    """The stored days of view ``name`` of one municipality (up to ``until``'s month): what a span of days
    counted and the states on a day.

    It reads each month's totals (``m``) in one query, and the day fields only of the months a question
    cuts inside (a period starting on the 10th, a state on a day before the month's end), in one more
    query per question that needs new months: a summary reads a few months by day, whatever the number
    of months or of records behind them.
    """

    def __init__(self, db: Database | None, name: str, municipality: str, until: date | None = None) -> None:
        self._source = (db, name, municipality)
        self._months: dict[date, dict[str, int]] = (
            month_totals(db, name, municipality, until) if db is not None else {})
        self._by_day: dict[date, dict[date, dict[str, int]]] = {}  # the months read by day
        self._timeline: list[tuple[date, dict[str, int]]] | None = None
        self._running: list[dict[str, int]] | None = None  # every key's sum up to each entry, made on first use

    @classmethod
    def of(cls, cells: dict[date, dict[str, int]]) -> Days:
        """Days folded elsewhere (every day known): a store whose view was never built."""
        days = cls(None, "", "")
        for when, cell in cells.items():
            month = when.replace(day=1)
            days._months.setdefault(month, {})
            days._by_day.setdefault(month, {})[when] = cell
        return days

    def _read(self, cuts: tuple[date, ...]) -> None:
        """Read by day the months a cut falls inside (a cut divides the days before it from the rest)."""
        wanted = {cut.replace(day=1) for cut in cuts if cut.day != 1} & set(self._months) - set(self._by_day)
        if not wanted:
            return
        db, name, municipality = self._source
        found = days_in(db, name, municipality, sorted(wanted))
        for month in wanted:
            self._by_day[month] = {when: cell for when, cell in found.items() if when.replace(day=1) == month}
        self._timeline = self._running = None

    def entries(self, *cuts: date) -> list[tuple[date, dict[str, int]]]:
        """(day, fields) in order, exact at each of ``cuts``: a month no cut falls inside is one entry
        on its first day, with its totals."""
        self._read(cuts)
        if self._timeline is None:
            timeline = []
            for month, totals in sorted(self._months.items()):
                if month in self._by_day:
                    timeline += sorted(self._by_day[month].items())
                elif totals:
                    timeline.append((month, totals))
            self._timeline = timeline
        return self._timeline

    def within(self, first: date, last: date) -> Counter:
        """Every key counted from ``first`` to ``last``."""
        total: Counter = Counter()
        for when, cell in self.entries(first, last + timedelta(days=1)):
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

    def _up_to(self, day: date) -> dict[str, int]:
        """Every key's sum up to the end of ``day`` (the running sums are made once per reading: a summary
        asks for the states at the end of each of its months)."""
        entries = self.entries(day + timedelta(days=1))
        if self._running is None:
            total: Counter = Counter()
            self._running = []
            for _, cell in entries:
                total.update(cell)
                self._running.append(dict(total))
        index = bisect_right([when for when, _ in entries], day)
        return self._running[index - 1] if index else {}


def keyed(counts: Counter, prefix: str) -> dict[str, int]:
    """The counts under ``<prefix>|<text>``, by the text (unescaped), the ones left at zero out."""
    return {unquote(key.split("|", 1)[1]): n for key, n in counts.items() if key.startswith(prefix + "|") and n}


def ranked(counts: dict[str, int]) -> dict[str, int]:
    """Most first, ties by name (how the Resumo lists counts by zone, stage, severity…)."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
