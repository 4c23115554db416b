"""The demo's past: the panel's clock set to a day of it, the months of the last two years and how
busy each was. Every history module replays its records on their own days through the services, so
each date the services check holds and each audit entry is dated the day it tells of. Imports no
other seed module."""
from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta, timezone

from services.shared import clock

HISTORY_MONTHS = 24  # the demo's activity reaches two years back, month by month


@contextmanager
def on(day: date) -> Iterator[None]:
    """The panel's "now" is ``day`` (from 09:00 in Cuiabá, a second further at every reading) while the
    block runs: "today", the DAMs' issue dates and the audit entries' instants are of that day."""
    real = clock.now_utc
    start = datetime.combine(day, time(9), clock.LOCAL_TZ)
    ticks = iter(range(10**6))
    clock.now_utc = lambda: (start + timedelta(seconds=next(ticks))).astimezone(timezone.utc)
    try:
        yield
    finally:
        clock.now_utc = real


def month_starts(first: date, today: date) -> list[date]:
    """The first day of every month from ``first``'s to the one before ``today``'s (the current month
    belongs to the demo's scenario of today)."""
    months, month = [], first.replace(day=1)
    while month < today.replace(day=1):
        months.append(month)
        month = (month + timedelta(days=32)).replace(day=1)
    return months


def history_start(today: date) -> date:
    """The first day of the month ``HISTORY_MONTHS`` months before ``today``'s."""
    month = today.replace(day=1)
    for _ in range(HISTORY_MONTHS):
        month = (month - timedelta(days=1)).replace(day=1)
    return month


def month_end(month: date) -> date:
    return (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)


def workdays(month: date, count: int, rng: random.Random, calendar, not_before: date | None = None) -> list[date]:
    """``count`` business days of ``month`` (on or after ``not_before``), in order, each once while the
    month has enough."""
    days = [month + timedelta(days=n) for n in range((month_end(month) - month).days + 1)]
    days = [d for d in days if calendar.is_business_day(d) and (not_before is None or d >= not_before)]
    if not days:
        return []
    chosen = rng.sample(days, min(count, len(days)))
    return sorted(chosen + [rng.choice(days) for _ in range(count - len(chosen))])


def busy(weights: tuple[float, ...], month: date, base: float, rng: random.Random) -> int:
    """How many records of a kind a month has: ``base`` times the month's weight (January first),
    give or take one."""
    return max(0, round(base * weights[month.month - 1]) + rng.choice((-1, 0, 0, 1)))
