"""Read-only figures for the mayor's office. Aggregation is done here in Python (no $group)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from pymongo.database import Database

from services import clock, entities
from services.auth import Actor, authorize
from services.store import encode


@dataclass(frozen=True)
class Overview:
    counts: dict[str, int]
    activity: list[tuple[str, int]]


def overview(db: Database, actor: Actor, municipality: str, days: int = 30) -> Overview:
    """Records per register and audited writes per day over the last ``days`` days."""
    authorize(actor, "summary", municipality)
    counts = {
        spec.label_plural: db[spec.name].count_documents({"municipality": municipality})
        for spec in entities.SPECS.values()
    }
    since = datetime.combine(clock.today() - timedelta(days=days - 1), datetime.min.time(), clock.LOCAL_TZ)
    rows = db["audit"].find({"municipality": municipality, "at": {"$gte": encode(since)}}, {"at": 1})
    per_day = Counter(clock.local_date(r["at"]).strftime("%d/%m") for r in rows)
    ordered = [(d.strftime("%d/%m"), per_day.get(d.strftime("%d/%m"), 0))
               for d in (since.date() + timedelta(days=i) for i in range(days))]
    return Overview(counts, ordered)
