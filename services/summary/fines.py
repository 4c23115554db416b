"""The fines' part of the mayor's office figures: autos de infração lavrados in the period by
severity and stage, and the fines' DAMs (revenue kind ``multa``; see ``services.summary.figures``)."""
from __future__ import annotations

from collections import Counter
from datetime import date

from pymongo.database import Database

from services.ridehailing.enforcement import autos
from services.summary import revenue_view
from services.summary.figures import FinesFigures
from services.summary.periods import Period


def of_period(db: Database, municipality: str, period: Period, days: dict[date, dict[str, int]]) -> FinesFigures:
    """Autos lavrados in the period by severity and stage, and the fines' DAMs (revenue kind ``multa``),
    from the stored days of ``revenue_view.stored``."""
    fines = revenue_view.in_period(days, period, only_kind="multa")
    by_severity, by_stage = _autos(db, municipality, period)
    return FinesFigures(
        by_severity=by_severity, by_stage=by_stage,
        issued_count=fines.total("issued_count"), issued=fines.total("issued"),
        paid_count=fines.total("paid_count"), paid=fines.total("paid"),
        overdue_count=fines.total("overdue_count"), overdue=fines.total("overdue"))


def _autos(db: Database, municipality: str, period: Period) -> tuple[dict[str, int], dict[str, int]]:
    """Autos lavrados in the period (committed then; drafts left out) by severity and by stage: one query."""
    query = {"municipality": municipality, "stage": {"$ne": "rascunho"},
             "committed_on": {"$gte": period.start.isoformat(), "$lte": period.end.isoformat()}}
    severities: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    for doc in db[autos.COLLECTION].find(query, {"severity": 1, "stage": 1}):
        severities[(doc.get("severity") or "sem gravidade").capitalize()] += 1
        stages[autos.STAGES.get(doc.get("stage"), doc.get("stage") or "")] += 1
    return dict(severities.most_common()), dict(stages.most_common())
