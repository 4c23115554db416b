"""The ride-hailing part of the mayor's office figures: authorizations by status on the last day,
new, renewed and cassadas in the period, inspections done and overdue, drivers and vehicles
registered, and each platform's obligations (see ``services.summary.figures``).

One query per collection for every period of a summary; the authorizations' states, the drivers and
vehicles registered and the vistorias done are read from views kept per day (``authorization_view``,
``records_view``), the platforms are judged by the municipality's rule set.
"""
from __future__ import annotations

from collections import Counter
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from pymongo.database import Database

from rules.base import RuleError
from rules.ridehailing.concepts import InsurancePolicy, Platform
from rules.ridehailing.lifecycle import LABELS, Status
from services.ridehailing import registry
from services.store import decode, parse_date
from services.summary import authorization_view, records_view
from services.summary.days import Days
from services.summary.figures import (
    PlatformCompliance,
    RideHailingFigures,
)
from services.summary.periods import Period


def of_periods(db: Database, municipality: str,
               periods: tuple[Period, ...]) -> tuple[RideHailingFigures, ...]:
    """The ride-hailing figures of each period: the authorizations from their kept timelines
    (``authorization_view``), one query per other collection for all of them."""
    scope = registry.Scope(db, municipality)
    levels = authorization_view.Levels(db, municipality)
    records = Days(db, records_view.NAME, municipality)
    platform_docs = [decode(raw) for raw in db["platforms"].find({"municipality": municipality}, PLATFORM_FIELDS)]
    reports = [decode(raw) for raw in db["platform_reports"].find(
        {"municipality": municipality}, {"platform_cnpj": 1, "kind": 1, "on": 1})]
    return tuple(_ride_period(db, municipality, scope, levels, records, platform_docs, reports, p) for p in periods)


def _ride_period(db: Database, municipality: str, scope: registry.Scope, levels: authorization_view.Levels,
                 records: Days, platform_docs: list[dict], reports: list[dict], period: Period) -> RideHailingFigures:
    end = period.end
    level = levels.on(end)
    events = levels.within(period.start, end)
    statuses = Counter({Status(key[2:]): n for key, n in level.items() if key.startswith("s|") and n})
    registered, done = records.on(end, "drivers", "vehicles"), records.within(period.start, end)
    average = ((Decimal(events["wait"]) / events["new"]).quantize(Decimal("0.1"), ROUND_HALF_UP)
               if events["new"] else None)
    order = list(Status)
    return RideHailingFigures(
        active=statuses[Status.ACTIVE], new=events["new"], renewed=events["renewed"], expiring=level["expiring"],
        suspended=statuses[Status.SUSPENDED], cassadas=events["cassadas"],
        drivers=registered["drivers"], vehicles=registered["vehicles"],
        inspections_done=done["insp"], inspections_failed=done["insp_failed"],
        inspections_overdue=level["late"], average_days_to_authorization=average,
        by_status={LABELS[status]: count for status, count in
                   sorted(statuses.items(), key=lambda item: (-item[1], order.index(item[0])))},
        platforms=_platforms(db, municipality, scope, platform_docs, reports, end),
    )


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
