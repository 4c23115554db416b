"""The DAMs' and charges' figures as the summary computed them before they were kept as data (issue 21):
every DAM and charge read and folded per period. Kept only as the oracle of ``tests/test_summary_revenue_view.py``.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.base import cents
from rules.dam import charges as charge_rules
from services.dam import dams, payments
from services.dam import debts as debt_service
from services.store import decode, parse_date
from services.summary.figures import PaymentDifferences, Revenue, RevenueLine
from services.summary.periods import Period

DAM_FIELDS = {"status": 1, "revenue_kind": 1, "amount": 1, "issued_on": 1, "due_on": 1,
              "payment.paid_on": 1, "payment.amount": 1, "payment.flags": 1}


def dam_docs(db: Database, municipality: str, since: date) -> list[dict]:
    """The DAMs any period from ``since`` needs, in one query: issued or paid since then, or still
    unpaid (overdue on a last day); only the fields the figures read."""
    since_text = since.isoformat()
    query = {"municipality": municipality, "$or": [
        {"issued_on": {"$gte": since_text}}, {"payment.paid_on": {"$gte": since_text}}, {"status": dams.ISSUED}]}
    docs = []
    for raw in db[dams.COLLECTION].find(query, DAM_FIELDS):
        doc = decode(raw)
        payment = doc.get("payment") or {}
        docs.append({
            "status": doc["status"], "kind": dams.REVENUE_KINDS.get(doc.get("revenue_kind"), "Outras receitas"),
            "revenue_kind": doc.get("revenue_kind"), "amount": doc["amount"],
            "issued_on": parse_date(doc["issued_on"]), "due_on": parse_date(doc["due_on"]),
            "paid_on": parse_date(payment.get("paid_on")) if payment else None,
            "paid": payment.get("amount") if payment else None, "flags": tuple(payment.get("flags") or ()),
        })
    return docs


def _overdue_on(doc: dict, day: date) -> bool:
    """Issued, due before ``day`` and not paid by it (a DAM paid later was overdue then)."""
    if doc["status"] == dams.CANCELLED or doc["issued_on"] > day or doc["due_on"] >= day:
        return False
    return doc["status"] == dams.ISSUED or (doc["paid_on"] is not None and doc["paid_on"] > day)


def in_period(docs: Iterable[dict], period: Period) -> Revenue:
    """The revenue of ``period`` folded from ``docs`` (as ``dam_docs`` reads them)."""
    lines: dict[tuple[str, date], Counter] = defaultdict(Counter)
    diff: Counter = Counter()
    for doc in docs:
        kind = doc["kind"]
        if doc["status"] != dams.CANCELLED and doc["issued_on"] in period:
            cell = lines[(kind, doc["issued_on"].replace(day=1))]
            cell["issued_count"] += 1
            cell["issued"] += doc["amount"]
        if doc["status"] == dams.PAID and doc["paid_on"] in period:
            received = doc["paid"] if doc["paid"] is not None else doc["amount"]
            cell = lines[(kind, doc["paid_on"].replace(day=1))]
            cell["paid_count"] += 1
            cell["paid"] += received
            _explain(diff, doc["amount"], received, payments.FLAG_LATE in doc["flags"])
        if _overdue_on(doc, period.end):
            cell = lines[(kind, doc["due_on"].replace(day=1))]
            cell["overdue_count"] += 1
            cell["overdue"] += doc["amount"]
    return Revenue(
        tuple(RevenueLine(kind, month, **{k: (cents(v) if not k.endswith("count") else v) for k, v in c.items()})
              for (kind, month), c in sorted(lines.items(), key=lambda item: (item[0][1], item[0][0]))),
        PaymentDifferences(**{k: (cents(v) if not k.endswith("count") else v) for k, v in diff.items()}),
    )


def _explain(diff: Counter, face: Decimal, received: Decimal, late: bool) -> None:
    diff["paid_count"] += 1
    diff["face_value"] += face
    diff["received"] += received
    if received < face:
        diff["short_count"] += 1
        diff["short"] += face - received
    elif received > face:
        diff["over_count"] += 1
        diff["over"] += received - face
    if late:
        diff["late_count"] += 1
        diff["late"] += received


def debts(db: Database, municipality: str, period: Period, previous: Period, today: date) -> tuple:
    """The summary's charges figures as they were folded from every charge before the read models:
    the aging on ``today`` of the owed charges, then (count, charged, paid) of ``period`` and ``previous``."""
    docs = [decode(raw) for raw in db["charges"].find({"municipality": municipality})]
    aging = debt_service.fold((d for d in docs if d["status"] in charge_rules.OWING), today).by_bucket()

    def charged(within: Period) -> tuple[int, Decimal, Decimal]:
        chosen = [d for d in docs if d["status"] != charge_rules.CANCELLED and parse_date(d["issued_on"]) in within]
        return (len(chosen), sum((d["principal"] + d["late"] for d in chosen), Decimal("0")),
                sum((d["paid"] - (d.get("credit") or Decimal("0")) for d in chosen), Decimal("0")))

    return ({key: (cell.count, cell.amount) for key, cell in aging.items()}, *charged(period), *charged(previous))
