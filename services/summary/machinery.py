"""The machinery part of the mayor's office figures (Nova Lacerda, ``services.machinery``):
requests by zone, service and stage, waiting until execution, machine hours and days booked, discounts,
balances overdue and credits to return (see ``services.summary.figures``), read from the days of
``services.summary.bookings_view`` (never from every request), the days booked per machine too (view
``booked``); the machines' names from their register."""
from __future__ import annotations

import statistics
from collections import Counter
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

from pymongo.database import Database

from rules.base import cents
from rules.machinery.discounts import DiscountCriterion
from services.machinery import booking_requests
from services.shared import entities, parameters, views
from services.summary import bookings_view
from services.summary.bookings_view import MILLI
from services.summary.days import Days, keyed, ranked
from services.summary.figures import BookingsFigures
from services.summary.periods import Period


def _percentile(values: list[int], share: float) -> Decimal:
    """The nearest-rank percentile: the smallest value with ``share`` of the values at or below it."""
    ordered = sorted(values)
    rank = max(1, -(-round(share * 100) * len(ordered) // 100))
    return Decimal(ordered[rank - 1])


def _labelled(counts: dict[str, int], labels: dict) -> dict[str, int]:
    shown: Counter[str] = Counter()
    for key, n in counts.items():
        shown[labels.get(key, key)] += n
    return ranked(dict(shown))


def _criterion(name: str) -> str:
    return DiscountCriterion[name].value if name in DiscountCriterion.__members__ else name or "—"


def _names(db: Database, municipality: str, ids: set[str]) -> dict[str, str]:
    """The kind and plate of the machines ``ids`` (those with hours or days in the period, not the fleet)."""
    kinds = dict(entities.SPECS[booking_requests.ASSETS].field("kind").choices)
    found = db[booking_requests.ASSETS].find({"municipality": municipality,
                                              "_id": {"$in": [views.source_key(i) for i in sorted(ids)]}},
                                             {"kind": 1, "identifier": 1})
    return {str(a["_id"]): f"{kinds.get(a.get('kind'), a.get('kind') or '')} {a.get('identifier', '')}".strip()
            for a in found}


def of_period(db: Database, municipality: str, period: Period, days: Days) -> BookingsFigures:
    """Nova Lacerda's machinery bookings of the period, from the stored ``days`` (see the module)."""
    counted = days.within(period.start, period.end)
    waits = [int(wait) for wait, n in sorted(keyed(counted, "wait").items(), key=lambda item: int(item[0]))
             for _ in range(n)]
    waits.sort()
    hours = {asset: Decimal(n) / MILLI for asset, n in keyed(counted, "hours").items()}
    criteria: Counter[str] = Counter()
    for name, n in keyed(counted, "criterion").items():
        criteria[_criterion(name)] += n
    states = days.on(period.end, "owing|n", "owing|v", "credit|n", "credit|v")
    booked = keyed(Days(db, bookings_view.BOOKED, municipality, period.end).within(period.start, period.end),
                   "booked")
    assets = _names(db, municipality, set(hours) | set(booked))
    calendar = parameters.calendar(db, municipality, period.end)
    business = sum(1 for i in range(period.days) if calendar.is_business_day(period.start + timedelta(days=i)))
    return BookingsFigures(
        by_zone=ranked(keyed(counted, "zone")), by_service=_labelled(keyed(counted, "service"), booking_requests.SERVICE_KINDS),
        by_stage=_labelled(keyed(counted, "stage"), booking_requests.STATUS),
        waiting_median_days=Decimal(str(statistics.median(waits))) if waits else None,
        waiting_p90_days=_percentile(waits, 0.9) if waits else None, waiting_count=len(waits),
        hours_per_asset={assets.get(k, k): v for k, v in sorted(hours.items())},
        utilization_per_asset={assets.get(k, k): (Decimal(n * 100) / business).quantize(Decimal("0.1"), ROUND_HALF_UP)
                               for k, n in sorted(booked.items())} if business else {},
        discounts_count_by_criterion=ranked(dict(criteria)), discounts=cents(Decimal(counted["discount"]) / 100),
        balances_overdue=cents(Decimal(states["owing|v"]) / 100), credits_to_return=cents(Decimal(states["credit|v"]) / 100),
        balances_overdue_count=states["owing|n"], credits_count=states["credit|n"],
    )
