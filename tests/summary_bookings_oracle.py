"""The machinery figures as the summary computed them before ``services.summary.bookings_view``: every
request of the municipality decoded and folded for each period (the oracle of
``tests/test_summary_bookings_view.py``; code as it was in ``services.summary.machinery`` and
``services.summary.trends``)."""
from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from pymongo.database import Database

from rules.base import cents
from rules.machinery.discounts import DiscountCriterion
from services.machinery import booking_requests
from services.shared import entities, parameters
from services.store import decode, parse_date
from services.summary.autos_view import day_of as _day
from services.summary.figures import BookingsFigures
from services.summary.periods import Period
from services.summary.trends import REQUEST_STEPS, _trend, month_ends, waiting_row

REQUEST_FIELDS = {"status": 1, "requested_on": 1, "refusal.on": 1, "execution.started_on": 1,
                  "execution.ended_on": 1, "technical_visit.visited_on": 1, "social_report.requested_on": 1,
                  "social_report.answered_on": 1}

def _percentile(values: list[int], share: float) -> Decimal:
    """The nearest-rank percentile: the smallest value with ``share`` of the values at or below it."""
    ordered = sorted(values)
    rank = max(1, -(-round(share * 100) * len(ordered) // 100))
    return Decimal(ordered[rank - 1])


def of_period(db: Database, municipality: str, period: Period) -> BookingsFigures:
    """Nova Lacerda's machinery bookings of the period: one query per collection (see the module)."""
    fields = {"requested_on": 1, "zone": 1, "services": 1, "status": 1, "execution.started_on": 1,
              "execution.ended_on": 1, "execution.meters": 1, "quote.on": 1, "quote.discount_total": 1,
              "quote.discount.criterion": 1, "settlement": 1}
    zones: Counter[str] = Counter()
    services_: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    criteria: Counter[str] = Counter()
    waits: list[int] = []
    hours: dict[str, Decimal] = defaultdict(Decimal)
    discounts = overdue = credits = Decimal("0")
    owing = crediting = 0
    for raw in db[booking_requests.REQUESTS].find({"municipality": municipality}, fields):
        doc = decode(raw)
        requested = parse_date(doc.get("requested_on"))
        if requested in period:
            zones[doc.get("zone") or "Sem zona"] += 1
            stages[booking_requests.STATUS.get(doc.get("status"), doc.get("status") or "")] += 1
            for kind in {s.get("kind") for s in doc.get("services") or []}:
                services_[booking_requests.SERVICE_KINDS.get(kind, kind)] += 1
        execution = doc.get("execution") or {}
        started = parse_date(execution.get("started_on"))
        if started in period and requested is not None:
            waits.append((started - requested).days)
        if parse_date(execution.get("ended_on")) in period:
            for meter in execution.get("meters") or []:
                if meter.get("start") is not None and meter.get("end") is not None:
                    hours[str(meter.get("asset_id"))] += Decimal(str(meter["end"])) - Decimal(str(meter["start"]))
        quote = doc.get("quote") or {}
        if parse_date(quote.get("on")) in period and Decimal(str(quote.get("discount_total") or 0)) > 0:
            discounts += Decimal(str(quote["discount_total"]))
            name = (quote.get("discount") or {}).get("criterion") or ""
            criteria[DiscountCriterion[name].value if name in DiscountCriterion.__members__ else name or "—"] += 1
        settlement = doc.get("settlement") or {}
        due, paid = parse_date(settlement.get("due")), parse_date(settlement.get("paid_on"))
        if Decimal(str(settlement.get("amount_due") or 0)) > 0 and due and due < period.end and (
                paid is None or paid > period.end):
            overdue += Decimal(str(settlement["amount_due"]))
            owing += 1
        completed, returned = parse_date(settlement.get("completed_on")), parse_date(settlement.get("credit_returned_on"))
        if Decimal(str(settlement.get("credit_to_return") or 0)) > 0 and completed and completed <= period.end and (
                returned is None or returned > period.end):
            credits += Decimal(str(settlement["credit_to_return"]))
            crediting += 1
    kinds = dict(entities.SPECS[booking_requests.ASSETS].field("kind").choices)
    assets = {str(a["_id"]): f"{kinds.get(a.get('kind'), a.get('kind') or '')} {a.get('identifier', '')}".strip()
              for a in db[booking_requests.ASSETS].find({"municipality": municipality}, {"kind": 1, "identifier": 1})}
    booked: Counter[str] = Counter()
    for row in db[booking_requests.BOOKINGS].find({"municipality": municipality, "day": {
            "$gte": period.start.isoformat(), "$lte": period.end.isoformat()}}, {"asset_id": 1}):
        booked[str(row.get("asset_id"))] += 1
    calendar = parameters.calendar(db, municipality, period.end)
    business = sum(1 for i in range(period.days) if calendar.is_business_day(period.start + timedelta(days=i)))
    return BookingsFigures(
        by_zone=dict(zones.most_common()), by_service=dict(services_.most_common()), by_stage=dict(stages.most_common()),
        waiting_median_days=Decimal(str(statistics.median(waits))) if waits else None,
        waiting_p90_days=_percentile(waits, 0.9) if waits else None, waiting_count=len(waits),
        hours_per_asset={assets.get(k, k): v for k, v in sorted(hours.items())},
        utilization_per_asset={assets.get(k, k): (Decimal(n * 100) / business).quantize(Decimal("0.1"), ROUND_HALF_UP)
                               for k, n in sorted(booked.items())} if business else {},
        discounts_count_by_criterion=dict(criteria.most_common()), discounts=cents(discounts),
        balances_overdue=cents(overdue), credits_to_return=cents(credits), balances_overdue_count=owing,
        credits_count=crediting,
    )


def request_waiting_on(doc: dict, day: date) -> bool:
    """A request protocolled by ``day``, neither refused nor started by then."""
    requested, refused, started = (_day(doc, "requested_on"), _day(doc, "refusal", "on"),
                                   _day(doc, "execution", "started_on"))
    return bool(requested and requested <= day and not (refused and refused <= day)
                and not (started and started <= day))



def machinery_trends(db: Database, municipality: str, period: Period) -> list:
    """Requests served (execution ended) in each month and waiting at its end."""
    found = [decode(raw) for raw in db[booking_requests.REQUESTS].find({"municipality": municipality},
                                                                        REQUEST_FIELDS)]
    ended = [_day(d, "execution", "ended_on") for d in found]
    ends = month_ends(period)
    return [_trend("served", "Pedidos atendidos no mês", ends, lambda a, b: _within(ended, a, b), True),
            _trend("waiting", "Pedidos aguardando no fim do mês", ends,
                   lambda _first, last: sum(1 for d in found if request_waiting_on(d, last)))]


def _within(days: list, first: date, last: date) -> int:
    return sum(1 for day in days if day is not None and first <= day <= last)


def waiting_requests(db: Database, municipality: str, today: date) -> list:
    """Requests waiting for the technical visit, the social report or the quote, aged from their last
    step (every request waiting a step read by the status index, as the Resumo did)."""
    found = [decode(raw) for raw in db[booking_requests.REQUESTS].find(
        {"municipality": municipality, "status": {"$in": list(REQUEST_STEPS)}}, REQUEST_FIELDS)]
    rows = []
    for status, label in REQUEST_STEPS.items():
        since = []
        for d in (d for d in found if d.get("status") == status):
            steps = [_day(d, "requested_on"), _day(d, "technical_visit", "visited_on"),
                     _day(d, "social_report", "requested_on"), _day(d, "social_report", "answered_on")]
            known = [step for step in steps if step is not None and step <= today]
            since.append(max(known) if known else today)
        rows.append(waiting_row(status, label, since, today))
    return rows
