"""The autos' figures as the summary computed them before ``services.summary.autos_view``: every auto of
the municipality read and folded for each period and month (the oracle of
``tests/test_summary_autos_view.py``; code as it was in ``services.summary.fines`` and ``trends``)."""
from __future__ import annotations

from collections import Counter
from datetime import date

from pymongo.database import Database

from services.ridehailing.enforcement import autos
from services.store import decode
from services.summary.autos_view import day_of, stage_on
from services.summary.periods import Period
from services.summary.trends import AUTO_STAGES, _trend, month_ends, waiting_row

AUTO_FIELDS = {"status": 1, "stage": 1, "auto_on": 1, "committed_on": 1, "defence.filed_on": 1,
               "decision.decided_on": 1, "appeal.filed_on": 1, "appeal.decision.decided_on": 1}
NOT_LAVRADO = ("rascunho", "descartado")


def by_severity_and_stage(db: Database, municipality: str, period: Period) -> tuple[dict[str, int], dict[str, int]]:
    query = {"municipality": municipality, "stage": {"$ne": "rascunho"},
             "committed_on": {"$gte": period.start.isoformat(), "$lte": period.end.isoformat()}}
    severities: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    for doc in db[autos.COLLECTION].find(query, {"severity": 1, "stage": 1}):
        severities[(doc.get("severity") or "sem gravidade").capitalize()] += 1
        stages[autos.STAGES.get(doc.get("stage"), doc.get("stage") or "")] += 1
    return dict(severities.most_common()), dict(stages.most_common())


def found(db: Database, municipality: str) -> list[dict]:
    return [decode(raw) for raw in db[autos.COLLECTION].find(
        {"municipality": municipality, "status": {"$nin": list(NOT_LAVRADO)}}, AUTO_FIELDS)]


def autos_trends(db: Database, municipality: str, period: Period) -> list:
    docs = found(db, municipality)
    ends = month_ends(period)
    lavrados = [day_of(d, "auto_on") or day_of(d, "committed_on") for d in docs]
    decided = [day_of(d, "decision", "decided_on") for d in docs]
    trends = [_trend("autos_lavrados", "Autos lavrados no mês", ends, lambda a, b: _within(lavrados, a, b), True),
              _trend("autos_decided", "Autos decididos no mês", ends, lambda a, b: _within(decided, a, b), True)]
    for stage, label in AUTO_STAGES.items():
        trends.append(_trend(f"autos_{stage}", label + " no fim do mês", ends,
                             lambda _first, last, s=stage: sum(stage_on(d, last) == s for d in docs)))
    return trends


def waiting_autos(db: Database, municipality: str, today: date) -> list:
    docs = found(db, municipality)
    defences = [day_of(d, "defence", "filed_on") for d in docs if stage_on(d, today) == "defesa"]
    appeals = [day_of(d, "appeal", "filed_on") for d in docs if stage_on(d, today) == "recurso"]
    return [waiting_row("defences", "Defesas aguardando decisão", [d for d in defences if d], today),
            waiting_row("appeals", "Recursos aguardando decisão", [d for d in appeals if d], today)]


def _within(days: list, first: date, last: date) -> int:
    return sum(1 for day in days if day is not None and first <= day <= last)


