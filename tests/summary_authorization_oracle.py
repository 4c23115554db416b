"""The authorizations' figures as the summary computed them before they were kept as data (issue 21):
every authorization folded through the rules on each day asked. Kept only as the oracle of
``tests/test_summary_authorization_view.py``."""
from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

from pymongo.database import Database

from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from services.ridehailing import registry
from services.store import decode, parse_date
from services.summary.figures import EXPIRING_DAYS

TERMS = ("presentation", "failed_inspection", "annual_inspection", "convocation")


def docs(db: Database, municipality: str) -> list[dict]:
    return [decode(raw) for raw in db["authorizations"].find({"municipality": municipality})
            if raw.get("events")]


def levels_on(scope: registry.Scope, found: list[dict], end: date) -> Counter:
    """Statuses (``s|<status>``), expiring and late for an inspection on ``end``, as counted before."""
    terms = {scope.rules.ref(term) for term in TERMS}
    out: Counter = Counter()
    for doc in found:
        if min(parse_date(e["on"]) for e in doc["events"]) > end:
            continue
        state = scope.state(doc, end)
        out[f"s|{state.status.value}"] += 1
        if state.status is Status.ACTIVE and state.valid_until and state.valid_until <= end + timedelta(EXPIRING_DAYS):
            out["expiring"] += 1
        if state.status in (Status.AWAITING_INSPECTION, Status.BLOCKED):
            late = state.deadline is not None and state.deadline < end
        else:
            late = state.status is Status.ACTIVE and any(not f.ok and f.reference in terms for f in state.findings)
        out["late"] += late
    return +out


def events_within(found: list[dict], first: date, last: date) -> Counter:
    out: Counter = Counter()
    for doc in found:
        for event in doc["events"]:
            on = parse_date(event["on"])
            if not first <= on <= last:
                continue
            if event["kind"] == EventKind.FEE_PAID.value:
                out["new"] += 1
                out["wait"] += (on - parse_date(doc["protocol_date"])).days
            elif event["kind"] == EventKind.RENEWAL_FEE_PAID.value:
                out["renewed"] += 1
            elif event["kind"] == EventKind.CASSADA.value:
                out["cassadas"] += 1
    return +out
