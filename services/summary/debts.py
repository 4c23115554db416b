"""The charges' part of the mayor's office figures: what is still owed by how long it is overdue (the
aging, today) and the share of the value charged in a period that was paid (see
``services.summary.figures``).

The charges every period of a summary needs are read in one query, with only the fields the figures
read: issued since the earliest period's first day, or still owed.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.dam import charges as charge_rules
from services.dam import charges, debts
from services.store import decode, encode, parse_date
from services.summary.figures import ZERO, DebtsFigures
from services.summary.periods import Period

CHARGE_FIELDS = {"_id": 0, "status": 1, "issued_on": 1, "due_on": 1, "principal": 1, "late": 1, "paid": 1,
                 "credit": 1, "open": 1, "revenue_code": 1, "revenue_kind": 1}


def charge_docs(db: Database, municipality: str, since: date) -> list[dict]:
    """The charges any period from ``since`` needs, in one query: issued since then, or still owed."""
    charges.prepare(db)
    query = {"municipality": municipality, "$or": [{"issued_on": {"$gte": encode(since)}},
                                                   {"status": {"$in": list(charge_rules.OWING)}}]}
    docs = []
    for raw in db[charges.COLLECTION].find(query, CHARGE_FIELDS):
        doc = decode(raw)
        doc["issued_on"], doc["due_on"] = parse_date(doc["issued_on"]), parse_date(doc["due_on"])
        docs.append(doc)
    return docs


def _charged(docs: list[dict], period: Period) -> tuple[int, Decimal, Decimal]:
    """How many charges were issued in ``period`` (cancelled ones left out), the value they charge and
    what was paid of it (an excess owed back is not revenue)."""
    chosen = [d for d in docs if d["status"] != charge_rules.CANCELLED and d["issued_on"] in period]
    issued = sum((d["principal"] + d["late"] for d in chosen), ZERO)
    paid = sum((d["paid"] - (d.get("credit") or ZERO) for d in chosen), ZERO)
    return len(chosen), issued, paid


def of_periods(docs: Iterable[dict], period: Period, previous: Period, today: date) -> DebtsFigures:
    """The aging on ``today`` and the value charged and paid in ``period`` and ``previous``."""
    docs = list(docs)
    aging = debts.fold((d for d in docs if d["status"] in charge_rules.OWING), today).by_bucket()
    count, issued, paid = _charged(docs, period)
    return DebtsFigures(today, {key: (cell.count, cell.amount) for key, cell in aging.items()}, count, issued, paid,
                        *_charged(docs, previous))
