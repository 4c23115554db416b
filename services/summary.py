"""Read-only figures for the mayor's office. Aggregation is done here in Python (no $group)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.ridehailing.lifecycle import LABELS
from services import clock, dams, entities, municipalities
from services.auth import Actor, authorize
from services.store import decode, encode, parse_date

MAIN_REGISTERS = ("taxpayers", "platforms", "drivers", "vehicles", "authorizations", "inspections")


@dataclass(frozen=True)
class Overview:
    counts: dict[str, int]
    dams_by_situation: dict[str, tuple[int, Decimal]]
    paid_this_year: Decimal
    authorizations_by_status: dict[str, int]
    activity: list[tuple[date, int]]


def overview(db: Database, actor: Actor, municipality: str, days: int = 30) -> Overview:
    """Registers, DAMs by situation, authorizations by status and audited writes per day."""
    authorize(actor, "summary", municipality)
    today = clock.today()
    counts = {
        entities.SPECS[name].label_plural: db[name].count_documents({"municipality": municipality})
        for name in MAIN_REGISTERS if name in entities.SPECS
    }
    by_situation, paid_this_year = _dams(db, municipality, today)
    return Overview(
        counts=counts,
        dams_by_situation=by_situation,
        paid_this_year=paid_this_year,
        authorizations_by_status=_authorizations(db, municipality, today),
        activity=_activity(db, municipality, today, days),
    )


def data_version(db: Database, actor: Actor, municipality: str) -> str:
    """The instant of the municipality's latest audited write: every write of the panel leaves one, so
    figures computed under the same version are still right (one indexed query)."""
    authorize(actor, "summary", municipality)
    latest = db["audit"].find_one({"municipality": municipality}, {"at": 1}, sort=[("at", -1)])
    return decode(latest["at"]).isoformat() if latest else ""


def _dams(db: Database, municipality: str, today: date) -> tuple[dict[str, tuple[int, Decimal]], Decimal]:
    """DAMs by situation (count, face value) and the amount paid this year: one pass, the fields it needs."""
    totals: dict[str, tuple[int, Decimal]] = {}
    paid = Decimal("0")
    fields = {"status": 1, "due_on": 1, "amount": 1, "payment.paid_on": 1, "payment.amount": 1}
    for doc in db[dams.COLLECTION].find({"municipality": municipality}, fields):
        doc = decode(doc)
        doc["due_on"] = parse_date(doc["due_on"])
        label = dams.SITUATIONS[dams.situation(doc, today)]
        count, amount = totals.get(label, (0, Decimal("0")))
        totals[label] = (count + 1, amount + doc["amount"])
        payment = doc.get("payment") or {}
        paid_on = parse_date(payment.get("paid_on")) if doc["status"] == dams.PAID else None
        if paid_on and paid_on.year == today.year:
            paid += payment.get("amount") or Decimal("0")
    return totals, paid


def _authorizations(db: Database, municipality: str, today: date) -> dict[str, int]:
    if "transporte" not in municipalities.get(db, municipality).modules:
        return {}
    from services import ridehailing

    scope = ridehailing.Scope(db, municipality)
    statuses: Counter[str] = Counter()
    for doc in db["authorizations"].find({"municipality": municipality}, ridehailing.ROW_FIELDS):
        statuses[LABELS[scope.state(decode(doc), today).status]] += 1
    return dict(statuses.most_common())


def _activity(db: Database, municipality: str, today: date, days: int) -> list[tuple[date, int]]:
    since = datetime.combine(today - timedelta(days=days - 1), datetime.min.time(), clock.LOCAL_TZ)
    rows = db["audit"].find({"municipality": municipality, "at": {"$gte": encode(since)}}, {"at": 1})
    per_day = Counter(clock.local_date(decode(r["at"])) for r in rows)
    return [(day, per_day.get(day, 0)) for day in (since.date() + timedelta(days=i) for i in range(days))]
