"""The aging of what is owed (Débitos, the gabinete's "débitos em aberto") kept as data (issue 21).

Reading and folding every owed charge took about 1 s at 25.000 charges (scale 10) on each render.
Now each owed charge counts in one document per municipality × revenue (code, kind) × status × month
of its due date: the month's total (how many, how much still open) and the same per day of the month.
A projection (``services.shared.views``) moves a charge's share from its old cell to its new one with
``$inc`` whenever ``services.dam.charges`` writes it (opened, a DAM attached or cancelled, paid,
abated, refunded, inscribed), in the same unit of work; each charge keeps the share it counts for
(``debts_aging_shares``), so a repeated projection changes nothing.

The aging on a day is then a fold of a few hundred month totals: a month that lies inside one age
bucket counts whole, and only the months that hold a bucket's boundary (today, 30, 90 and 365 days
ago) are read by day — whatever the number of charges.
"""
from __future__ import annotations

import calendar
from datetime import date
from decimal import Decimal

from bson import Decimal128, ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.dam import charges as rules
from services.shared import views
from services.store import decode, ensure_indexes, parse_date

CELLS, SHARES = "debts_aging", "debts_aging_shares"
INDEXES = {CELLS: [([("municipality", 1), ("status", 1), ("month", 1)], {"name": "i_aging_month"})]}
FIELDS = {"municipality": 1, "status": 1, "due_on": 1, "revenue_code": 1, "revenue_kind": 1, "open": 1}
# What the aging reads of every month cell: its totals, never its days (named, not ``{"days": 0}``: the
# embedded store decodes a whole document to drop a field, and extracts only the fields it is asked for).
MONTH_FIELDS = {"month": 1, "revenue_code": 1, "revenue_kind": 1, "n": 1, "open": 1}


def _share(charge: dict | None) -> dict | None:
    """The cell a stored charge counts in and what it still owes there; None when it owes nothing."""
    if not charge or charge.get("status") not in rules.OWING:
        return None
    due = parse_date(charge["due_on"])
    code, kind = charge.get("revenue_code") or "", charge.get("revenue_kind") or ""
    return {"cell": f"{charge['municipality']}|{code}|{kind}|{charge['status']}|{due:%Y-%m}",
            "municipality": charge["municipality"], "revenue_code": code, "revenue_kind": kind,
            "status": charge["status"], "month": f"{due:%Y-%m}", "day": f"{due.day:02d}",
            "open": decode(charge["open"])}


def _move(db: Database, share: dict, sign: int) -> None:
    amount = Decimal128(share["open"] * sign)
    db[CELLS].update_one(
        {"_id": share["cell"]},
        {"$setOnInsert": {k: share[k] for k in ("municipality", "revenue_code", "revenue_kind", "status", "month")},
         "$inc": {"n": sign, "open": amount, f"days.{share['day']}.n": sign, f"days.{share['day']}.open": amount}},
        upsert=True)


def follow(db: Database, charge_id: str) -> None:
    """Move the charge's share to where it counts now (nothing when it has not moved)."""
    try:
        oid = ObjectId(charge_id)
    except (InvalidId, TypeError):
        return
    new = _share(db["charges"].find_one({"_id": oid}, FIELDS))
    held = db[SHARES].find_one({"_id": charge_id})
    old = None if held is None else {**held, "open": decode(held["open"])}
    if old and new and (old["cell"], old["day"], old["open"]) == (new["cell"], new["day"], new["open"]):
        return
    if old:
        _move(db, old, -1)
    if new:
        _move(db, new, +1)
        db[SHARES].replace_one({"_id": charge_id}, {**new, "open": Decimal128(new["open"])}, upsert=True)
    elif old:
        db[SHARES].delete_one({"_id": charge_id})


def _touched(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    if doc_id:
        follow(db, doc_id)


def rebuild(db: Database, municipality: str) -> None:
    """Every owed charge's share of the municipality, from scratch: summed in memory, written in bulk."""
    ensure_indexes(db, INDEXES)
    db[CELLS].delete_many({"municipality": municipality})
    db[SHARES].delete_many({"municipality": municipality})
    built: dict[str, dict] = {}
    shares = []
    for raw in db["charges"].find({"municipality": municipality, "status": {"$in": list(rules.OWING)}}, FIELDS):
        share = _share(decode(raw))
        cell = built.setdefault(share["cell"], {
            "_id": share["cell"], **{k: share[k] for k in ("municipality", "revenue_code", "revenue_kind", "status",
                                                           "month")}, "n": 0, "open": Decimal("0"), "days": {}})
        day = cell["days"].setdefault(share["day"], {"n": 0, "open": Decimal("0")})
        cell["n"], cell["open"] = cell["n"] + 1, cell["open"] + share["open"]
        day["n"], day["open"] = day["n"] + 1, day["open"] + share["open"]
        shares.append({**share, "_id": str(raw["_id"]), "open": Decimal128(share["open"])})
    for cell in built.values():
        cell["open"] = Decimal128(cell["open"])
        cell["days"] = {key: {"n": day["n"], "open": Decimal128(day["open"])} for key, day in cell["days"].items()}
    for rows, name in ((list(built.values()), CELLS), (shares, SHARES)):
        for start in range(0, len(rows), 1000):
            db[name].insert_many(rows[start:start + 1000])


views.register(views.View("debts_aging", ("charges",), _touched, rebuild))


def _whole(month: str, today: date) -> str | None:
    """The bucket the whole month of due dates is in on ``today``; None when a boundary falls inside."""
    year, number = int(month[:4]), int(month[5:])
    first, last = date(year, number, 1), date(year, number, calendar.monthrange(year, number)[1])
    key = rules.bucket(first, today)
    return key if rules.bucket(last, today) == key else None


def cells(db: Database, municipality: str, statuses: list[str], kind: str | None, today: date,
          buckets: set[str] | None = None) -> dict[tuple[str, str], dict[str, tuple[int, Decimal]]]:
    """(count, open) per revenue (code, kind) and age bucket on ``today`` of the owed charges of
    ``statuses`` (and ``kind``; only ``buckets`` when given): month totals, days where a boundary falls."""
    query: dict = {"municipality": municipality, "status": {"$in": statuses}}
    if kind:
        query["revenue_kind"] = kind
    out: dict[tuple[str, str], dict[str, tuple[int, Decimal]]] = {}

    def add(line: tuple[str, str], key: str, n: int, amount: Decimal) -> None:
        if n and (buckets is None or key in buckets):
            count, total = out.setdefault(line, {}).get(key, (0, Decimal("0")))
            out[line][key] = (count + n, total + amount)

    split = []
    for doc in db[CELLS].find(query, MONTH_FIELDS):
        key = _whole(doc["month"], today)
        line = (doc["revenue_code"], doc["revenue_kind"])
        if key is None:
            split.append(doc["_id"])
        else:
            add(line, key, int(doc["n"]), decode(doc["open"]))
    if split:
        for doc in db[CELLS].find({"_id": {"$in": split}}, {"days": 1, "month": 1, "revenue_code": 1, "revenue_kind": 1}):
            year, number = int(doc["month"][:4]), int(doc["month"][5:])
            for day, cell in (doc.get("days") or {}).items():
                add((doc["revenue_code"], doc["revenue_kind"]), rules.bucket(date(year, number, int(day)), today),
                    int(cell["n"]), decode(cell["open"]))
    return out
