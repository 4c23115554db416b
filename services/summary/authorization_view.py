"""The authorizations' figures kept as data (issue 21): how many stood in each status on any day, how
many were expiring or late for an inspection, and the fees paid (new, renewed), cassadas and days from
protocol to authorization per day, so the Resumo and its trends read a few month documents instead of
folding every authorization through the rules for every day they show.

Each authorization's *timeline* is folded once per write by the rules (``registry.Scope.state``): its
signature on a day is (status, expiring, late for an inspection), as ``ride_hailing`` counted them. The
signature changes on an event's day or when a date of the law passes (a validity, a deadline); the
timeline finds those days by looking every :data:`STEP` days and narrowing down where the signature
changed (no signature changes twice within a week without an event: a term passes once). Each interval
adds +1 on its first day and −1 on the day after, under ``s|<status>``, ``expiring`` and ``late``, so
"how many on day D" is the sum of the deltas up to D; the events count on their day. The parts are kept
with the DAMs' in ``revenue_view``'s month documents (one mechanism, view ``authorizations``).

A change of the parameters (terms, holidays) moves every timeline: the municipality's view is rebuilt
in the same unit of work.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta

from pymongo.database import Database

from rules.base import RuleError
from rules.registry import NoRuleSet
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services.ridehailing import registry
from services.shared import views
from services.store import decode, parse_date
from services.summary import revenue_view
from services.summary.days import Days
from services.summary.figures import EXPIRING_DAYS

NAME = "authorizations"
FIELDS = {"municipality": 1, "protocol_date": 1, "events": 1, "protocol": 1, "number": 1, "driver_cpf": 1, "plate": 1}
STEP = 7
HORIZON = 800  # days after the last event the timeline is followed (a validity is one year)
FINAL = (Status.REVOKED, Status.CASSADA)
INSPECTION_TERMS = ("presentation", "failed_inspection", "annual_inspection", "convocation")


def _signature(state_on: Callable[[date], AuthorizationState], day: date, terms: set[str]) -> tuple:
    state = state_on(day)
    expiring = (state.status is Status.ACTIVE and state.valid_until is not None
                and state.valid_until <= day + timedelta(EXPIRING_DAYS))
    if state.status in (Status.AWAITING_INSPECTION, Status.BLOCKED):
        late = state.deadline is not None and state.deadline < day
    else:
        late = state.status is Status.ACTIVE and any(not f.ok and f.reference in terms for f in state.findings)
    return state.status, expiring, late


def timeline(scope: registry.Scope, doc: dict) -> list[tuple[date, tuple]]:
    """(first day, signature) of each interval of the authorization's life, in order."""
    terms = {scope.rules.ref(term) for term in INSPECTION_TERMS}
    days = sorted({parse_date(e["on"]) for e in doc.get("events") or []})
    if not days:
        return []
    last_event, end = days[-1], days[-1] + timedelta(HORIZON)
    out: list[tuple[date, tuple]] = []
    state_on = scope.states(doc)

    def sig(day: date) -> tuple:
        return _signature(state_on, day, terms)

    def note(day: date, signature: tuple) -> None:
        if not out or out[-1][1] != signature:
            out.append((day, signature))

    later = days[1:] + [end]
    for start, stop in zip(days, later):  # between two events, and after the last up to the horizon
        current = sig(start)
        note(start, current)
        day = start
        while day < stop:
            if day >= last_event and (current[0] in FINAL or (
                    current[0] is Status.EXPIRED and day > last_event + timedelta(400))):
                break  # nothing changes after the last event any more
            ahead = min(day + timedelta(STEP), stop - timedelta(1))
            if ahead <= day:
                break
            seen = sig(ahead)
            if seen != current:  # the first day of the new signature lies in (day, ahead]
                low, high = day, ahead
                while (high - low).days > 1:
                    middle = low + timedelta((high - low).days // 2)
                    if sig(middle) == current:
                        low = middle
                    else:
                        high = middle
                seen = sig(high)
                note(high, seen)
                current, day = seen, high
            else:
                day = ahead
    return out


def contribution(scope: registry.Scope, doc: dict) -> dict[str, dict[str, int]]:
    """What one authorization (decoded) adds to the month documents (see the module)."""
    try:
        intervals = timeline(scope, doc)
    except RuleError:  # an event sequence the rules refuse counts nowhere, as it can be shown nowhere
        return {}
    parts = revenue_view.Parts(doc["municipality"], NAME)
    add = parts.add
    for index, (first, (status, expiring, late)) in enumerate(intervals):
        after = intervals[index + 1][0] if index + 1 < len(intervals) else None
        for key, on in ((f"s|{status.value}", True), ("expiring", expiring), ("late", late)):
            if on:
                parts.state(first, after, key)
    protocol = parse_date(doc.get("protocol_date"))
    for event in doc.get("events") or []:
        on = parse_date(event["on"])
        if event["kind"] == EventKind.FEE_PAID.value:
            add(on, "new", 1)
            if protocol is not None:
                add(on, "wait", (on - protocol).days)
        elif event["kind"] == EventKind.RENEWAL_FEE_PAID.value:
            add(on, "renewed", 1)
        elif event["kind"] == EventKind.CASSADA.value:
            add(on, "cassadas", 1)
    return parts.done()


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow the authorization ``doc_id``; a change of the parameters rebuilds the municipality."""
    if collection == "parameters":
        if municipality:
            rebuild(db, municipality)
        return
    if doc_id is None:
        return
    key = views.source_key(doc_id)
    raw = db["authorizations"].find_one({"_id": key}, FIELDS)
    mun = raw["municipality"] if raw else municipality
    if not mun:
        return
    scope = _scope(db, mun)
    new = contribution(scope, decode(raw)) if raw and scope else {}
    revenue_view.follow_parts(db, NAME, mun, f"authorizations:{doc_id}", new)


def _scope(db: Database, municipality: str) -> registry.Scope | None:
    """The rule set of the municipality's ride-hailing; None where it has no such service."""
    try:
        return registry.Scope(db, municipality)
    except NoRuleSet:
        return None


def rebuild(db: Database, municipality: str) -> None:
    """Every authorization's timeline of ``municipality``, from scratch (none without the service)."""
    scope = _scope(db, municipality)
    if scope is None:
        return
    rows = [{"_id": f"authorizations:{raw['_id']}", "parts": contribution(scope, decode(raw))}
            for raw in db["authorizations"].find({"municipality": municipality}, FIELDS)]
    revenue_view.write_parts(db, NAME, municipality, rows)


views.register(views.View(NAME, ("authorizations", "parameters"), project, rebuild, version=2))  # 2: month totals


class Levels:
    """The stored days of the view, read once (``days.Days``): levels on a day and events within days."""

    def __init__(self, db: Database, municipality: str) -> None:
        self.days = Days(db, NAME, municipality)

    def on(self, day: date) -> Counter:
        """Every level (``s|<status>``, ``expiring``, ``late``) at the end of ``day``."""
        return self.days.on(day, "expiring", "late", prefix="s|")

    def within(self, first: date, last: date) -> Counter:
        """The events (``new``, ``wait``, ``renewed``, ``cassadas``) counted from ``first`` to ``last``."""
        counted = self.days.within(first, last)
        return Counter({key: counted[key] for key in ("new", "wait", "renewed", "cassadas") if key in counted})
