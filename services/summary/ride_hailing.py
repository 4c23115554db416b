"""The ride-hailing part of the mayor's office figures: authorizations by status on the last day,
new, renewed and cassadas in the period, inspections done and overdue, drivers and vehicles
registered, and each platform's obligations (see ``services.summary.figures``).

One query per collection for every period of a summary; the authorizations are folded by the
municipality's rule set (``services.ridehailing.registry.Scope``) with one parameter load for all.
"""
from __future__ import annotations

from collections import Counter
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pymongo.database import Database

from rules.base import RuleError
from rules.ridehailing.concepts import EventKind, InsurancePolicy, Platform
from rules.ridehailing.lifecycle import LABELS, Status
from services.ridehailing import registry
from services.shared import clock
from services.store import decode, encode, parse_date
from services.summary.figures import (
    EXPIRING_DAYS,
    PlatformCompliance,
    RideHailingFigures,
)
from services.summary.periods import Period

INSPECTION_TERMS = ("presentation", "failed_inspection", "annual_inspection", "convocation")
AUTH_FIELDS = {"protocol_date": 1, "events": 1, "protocol": 1, "number": 1, "driver_cpf": 1, "plate": 1}


def of_periods(db: Database, municipality: str,
               periods: tuple[Period, ...]) -> tuple[RideHailingFigures, ...]:
    """The ride-hailing figures of each period: one query per collection for all of them."""
    scope = registry.Scope(db, municipality)
    docs = [decode(raw) for raw in db["authorizations"].find({"municipality": municipality}, AUTH_FIELDS)]
    earliest = min(p.start for p in periods).isoformat()
    inspections = [decode(raw) for raw in db["inspections"].find(
        {"municipality": municipality, "performed_on": {"$gte": earliest}}, {"performed_on": 1, "result": 1})]
    platform_docs = [decode(raw) for raw in db["platforms"].find({"municipality": municipality}, PLATFORM_FIELDS)]
    reports = [decode(raw) for raw in db["platform_reports"].find(
        {"municipality": municipality}, {"platform_cnpj": 1, "kind": 1, "on": 1})]
    return tuple(_ride_period(db, municipality, scope, docs, inspections, platform_docs, reports, p) for p in periods)


def _ride_period(db: Database, municipality: str, scope: registry.Scope, docs: list[dict], inspections: list[dict],
                 platform_docs: list[dict], reports: list[dict], period: Period) -> RideHailingFigures:
    end = period.end
    statuses: Counter[Status] = Counter()
    counts: Counter[str] = Counter()
    waits: list[int] = []
    terms = {scope.rules.ref(term) for term in INSPECTION_TERMS}
    for doc in docs:
        events = [(e["kind"], parse_date(e["on"])) for e in doc.get("events", [])]
        if not events or min(on for _, on in events) > end:
            continue  # not yet requested on the last day
        state = scope.state(doc, end)
        statuses[state.status] += 1
        if state.status is Status.ACTIVE and state.valid_until and state.valid_until <= end + timedelta(EXPIRING_DAYS):
            counts["expiring"] += 1
        if _inspection_late(state, end, terms):
            counts["inspections_overdue"] += 1
        for kind, on in events:
            if on not in period:
                continue
            if kind == EventKind.FEE_PAID.value:
                counts["new"] += 1
                waits.append((on - parse_date(doc["protocol_date"])).days)
            elif kind == EventKind.RENEWAL_FEE_PAID.value:
                counts["renewed"] += 1
            elif kind == EventKind.CASSADA.value:
                counts["cassadas"] += 1
    done = [i for i in inspections if parse_date(i["performed_on"]) in period]
    average = (Decimal(sum(waits)) / len(waits)).quantize(Decimal("0.1"), ROUND_HALF_UP) if waits else None
    return RideHailingFigures(
        active=statuses[Status.ACTIVE], new=counts["new"], renewed=counts["renewed"], expiring=counts["expiring"],
        suspended=statuses[Status.SUSPENDED], cassadas=counts["cassadas"],
        drivers=_registered(db, "drivers", municipality, end), vehicles=_registered(db, "vehicles", municipality, end),
        inspections_done=len(done), inspections_failed=sum(1 for i in done if i.get("result") == "failed"),
        inspections_overdue=counts["inspections_overdue"], average_days_to_authorization=average,
        by_status={LABELS[status]: count for status, count in statuses.most_common()},
        platforms=_platforms(db, municipality, scope, platform_docs, reports, end),
    )


def _inspection_late(state: Any, on: date, terms: set[str]) -> bool:
    """Whether a term to show the vehicle for inspection had passed on ``on``."""
    if state.status in (Status.AWAITING_INSPECTION, Status.BLOCKED):
        return state.deadline is not None and state.deadline < on
    return state.status is Status.ACTIVE and any(not f.ok and f.reference in terms for f in state.findings)


def _registered(db: Database, collection: str, municipality: str, day: date) -> int:
    """Records registered up to the end of ``day`` (local time): one count in the store."""
    until = datetime.combine(day + timedelta(days=1), time.min, clock.LOCAL_TZ)
    return db[collection].count_documents({"municipality": municipality, "created_at": {"$lt": encode(until)}})


PLATFORM_FIELDS = {"name": 1, "cnpj": 1, "credentialed_on": 1, "insurer": 1, "insurance_coverage": 1,
                   "insurance_valid_from": 1, "insurance_valid_until": 1}


def _platforms(db: Database, municipality: str, scope: registry.Scope, platform_docs: list[dict], reports: list[dict],
               on: date) -> tuple[PlatformCompliance, ...]:
    """Each platform credentialed by ``on``: APP insurance, lists and ISSQN, as the rule set judges them."""
    rows = []
    for doc in sorted(platform_docs, key=lambda d: d.get("name") or ""):
        credentialed = parse_date(doc.get("credentialed_on"))
        if credentialed is None or credentialed > on:
            continue
        mine = [(r["kind"], parse_date(r["on"])) for r in reports if r.get("platform_cnpj") == doc.get("cnpj")]
        policy = None
        if all(doc.get(name) not in (None, "") for name in PLATFORM_FIELDS if name.startswith("insur")):
            policy = InsurancePolicy(doc["insurer"], Decimal(str(doc["insurance_coverage"])),
                                     parse_date(doc["insurance_valid_from"]), parse_date(doc["insurance_valid_until"]))
        platform = Platform(
            name=doc["name"], cnpj=doc["cnpj"], credentialed_on=credentialed, insurance=policy,
            credentialing=doc.get("status") or "ativo",
            lists_submitted=tuple(d for k, d in mine if k == "lista" and d <= on),
            issqn_paid_competences=tuple(d.replace(day=1) for k, d in mine if k == "issqn" and d <= on))
        try:
            decision = scope.rules.platform_compliance(platform, on, scope.book, scope.calendar(on))
        except RuleError:
            rows.append(PlatformCompliance(doc["name"], None, None, None))
            continue
        # credentialing (art. 6º) comes first and is already required above; the last three are the obligations
        insurance, lists, issqn = (f.ok for f in decision.findings[-3:])
        rows.append(PlatformCompliance(doc["name"], insurance, lists, issqn))
    return tuple(rows)
