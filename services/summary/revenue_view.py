"""The DAMs' figures kept as data (issue 21): what each DAM adds to the mayor's office revenue, per
municipality × month × day × revenue kind, so a summary reads a few month documents instead of
decoding every DAM.

Each DAM keeps its last *contribution* in ``summary_contributions`` (``{bucket_id: {field: int}}``,
money in centavos); when it changes, the projection computes its new contribution with the rules of
``services.summary.revenue`` and ``$inc``s the month documents of ``summary_months`` by the difference
(``chapada:2026-03:revenue``, fields ``d14.<figure>|<kind>|n`` and ``|v``), in the same unit of work,
and the month's totals (``m.<figure>|<kind>|n``) in ``summary_month_totals``, under the same ``_id``: a
summary reads the totals of every month and the days only of the months its periods start or end
inside (``services.summary.days.Days``), so what it reads grows with neither the records nor the days.

Issued and paid are counted on their day. Overdue is a state on a day: a DAM enters it on the day
after its due date (or its issue, if later) and leaves it on the day it is paid, so it adds +1 on the
first day and −1 on the last, keyed by its due month; "overdue on day D" is the sum of every delta up
to D. A cancelled DAM contributes nothing (it never counted, not even for past days).

The charges (``services.dam.charges``, the money loop) add the "value charged × paid" of the summary
the same way, on their issue day: ``charged|<kind>|n`` (one charge), ``|v`` (principal and late charges)
and ``|p`` (what was paid of it, an excess owed back left out); a cancelled charge counts nowhere.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.dam import charges as charge_rules
from services.dam import charges, dams, payments
from services.shared import views
from services.store import decode, parse_date
from services.summary.days import MONTHS, TOTALS, Days, month_days, month_id
from services.summary.figures import PaymentDifferences, Revenue, RevenueLine
from services.summary.periods import Period

CONTRIBUTIONS, NAME = "summary_contributions", "revenue"
DIFF = ("paid_count", "face_value", "received", "short_count", "short", "over_count", "over", "late_count", "late")
FIELDS = {"municipality": 1, "status": 1, "revenue_kind": 1, "amount": 1, "issued_on": 1, "due_on": 1,
          "payment.paid_on": 1, "payment.amount": 1, "payment.flags": 1}
CHARGE_FIELDS = {"municipality": 1, "status": 1, "revenue_kind": 1, "issued_on": 1, "principal": 1, "late": 1,
                 "paid": 1, "credit": 1}


def _centavos(value: Decimal) -> int:
    return int((Decimal(value) * 100).to_integral_value())


def _bucket(municipality: str, day: date) -> str:
    return month_id(municipality, day, NAME)


def contribution(doc: dict) -> dict[str, dict[str, int]]:
    """What one DAM (decoded) adds to the month documents, as the figures of ``revenue.in_period`` count it."""
    parts: dict[str, Counter] = defaultdict(Counter)
    status, mun = doc["status"], doc["municipality"]
    if status == dams.CANCELLED:
        return {}
    kind = doc.get("revenue_kind") or "_"
    amount = _centavos(doc["amount"])
    issued_on, due_on = parse_date(doc["issued_on"]), parse_date(doc["due_on"])
    payment = doc.get("payment") or {}
    paid_on = parse_date(payment.get("paid_on")) if payment else None

    def add(day: date, key: str, n: int, v: int) -> None:
        cell = parts[_bucket(mun, day)]
        cell[f"d{day.day:02d}.{key}|n"] += n
        cell[f"d{day.day:02d}.{key}|v"] += v

    add(issued_on, f"issued|{kind}", 1, amount)
    if status == dams.PAID and paid_on is not None:
        received = _centavos(payment["amount"]) if payment.get("amount") is not None else amount
        add(paid_on, f"paid|{kind}", 1, received)
        diff = _explain(amount, received, payments.FLAG_LATE in (payment.get("flags") or ()))
        cell = parts[_bucket(mun, paid_on)]
        for name, number in diff.items():
            cell[f"d{paid_on.day:02d}.diff|{kind}|{name}"] += number
    first = max(issued_on, due_on + timedelta(days=1))
    last = None if status == dams.ISSUED else paid_on  # the first day no longer overdue
    if status == dams.ISSUED or (last is not None and last > first):
        add(first, f"overdue|{kind}|{due_on:%Y-%m}", 1, amount)
        if last is not None:
            add(last, f"overdue|{kind}|{due_on:%Y-%m}", -1, -amount)
    return {bucket: {k: v for k, v in cell.items() if v} for bucket, cell in parts.items()}


def charge_contribution(doc: dict) -> dict[str, dict[str, int]]:
    """What one charge (decoded) adds on its issue day: one charge, the value charged and what was paid
    of it (an excess owed back is not revenue); nothing when it was cancelled."""
    if doc["status"] == charge_rules.CANCELLED:
        return {}
    issued_on, kind = parse_date(doc["issued_on"]), doc.get("revenue_kind") or "_"
    zero = Decimal("0")
    figures = {"n": 1, "v": _centavos((doc.get("principal") or zero) + (doc.get("late") or zero)),
               "p": _centavos((doc.get("paid") or zero) - (doc.get("credit") or zero))}
    return {_bucket(doc["municipality"], issued_on):
            {f"d{issued_on.day:02d}.charged|{kind}|{name}": v for name, v in figures.items() if v}}


SOURCES = {dams.COLLECTION: (FIELDS, contribution), charges.COLLECTION: (CHARGE_FIELDS, charge_contribution)}


def _explain(face: int, received: int, late: bool) -> Counter:
    diff: Counter = Counter(paid_count=1, face_value=face, received=received)
    if received < face:
        diff.update(short_count=1, short=face - received)
    elif received > face:
        diff.update(over_count=1, over=received - face)
    if late:
        diff.update(late_count=1, late=received)
    return diff


def _apply(db: Database, municipality: str, delta: dict[str, Counter], name: str = NAME) -> None:
    """``$inc`` each month document by ``delta`` (``{bucket: {"dDD.key": n}}``), and its totals (the
    document of the same ``_id`` in ``summary_month_totals``, ``m.key``) by the sum of its days: what
    ``days.month_totals`` reads."""
    for bucket, cell in delta.items():
        incs = {k: v for k, v in cell.items() if v}
        if not incs:
            continue
        totals: Counter = Counter()
        for field, number in incs.items():
            totals["m." + field.split(".", 1)[1]] += number
        labels = {"municipality": municipality, "month": bucket.split(":")[1], "view": name}
        db[MONTHS].update_one({"_id": bucket}, {"$inc": incs, "$set": labels}, upsert=True)
        moved = {k: v for k, v in totals.items() if v}  # a +1 and a −1 on two days of a month move no total
        db[TOTALS].update_one({"_id": bucket}, {"$inc": moved, "$set": labels} if moved else {"$set": labels},
                              upsert=True)


def follow_parts(db: Database, name: str, municipality: str, source: str, new: dict[str, dict[str, int]]) -> None:
    """Move the month documents of view ``name`` by what ``source`` adds now (``new``, as a contribution
    is written: ``{bucket: {"dDD.key": n}}``) minus what it added before, and keep ``new`` as its part.
    The one mechanism of the views kept per day (this one and ``authorization_view``)."""
    stored_parts = db[CONTRIBUTIONS].find_one({"_id": source}) or {}
    old = stored_parts.get("parts") or {}
    if new == old:
        return
    delta: dict[str, Counter] = defaultdict(Counter)
    for bucket, cell in new.items():
        delta[bucket].update(cell)
    for bucket, cell in old.items():
        delta[bucket].subtract(cell)
    _apply(db, municipality, delta, name)
    db[CONTRIBUTIONS].update_one({"_id": source}, {"$set": {"municipality": municipality, "view": name, "parts": new}},
                                 upsert=True)


class Parts:
    """One record's contribution to view ``name`` while it is folded: ``add`` counts on a day, ``state``
    counts from a first day to the day before ``stop`` (+n, then −n; None: still in it), ``done`` gives
    the parts as :func:`follow_parts` keeps them (``{bucket: {"dDD.key": n}}``, no zero, no empty bucket)."""

    def __init__(self, municipality: str, name: str) -> None:
        self.municipality, self.name = municipality, name
        self.cells: dict[str, Counter] = defaultdict(Counter)

    def add(self, day: date, key: str, n: int) -> None:
        self.cells[month_id(self.municipality, day, self.name)][f"d{day.day:02d}.{key}"] += n

    def state(self, first: date | None, stop: date | None, key: str, n: int = 1) -> None:
        if first is None or (stop is not None and stop <= first):
            return
        self.add(first, key, n)
        if stop is not None:
            self.add(stop, key, -n)

    def done(self) -> dict[str, dict[str, int]]:
        kept = {bucket: {k: v for k, v in cell.items() if v} for bucket, cell in self.cells.items()}
        return {bucket: cell for bucket, cell in kept.items() if cell}


def follow_record(db: Database, name: str, collection: str, fields: dict, contribute: Callable[[dict], dict],
                  municipality: str | None, doc_id: str | None) -> None:
    """:func:`follow_parts` for the record ``doc_id`` of ``collection`` as ``contribute`` folds it (read
    with ``fields``); a record gone takes its part away."""
    if doc_id is None:
        return
    raw = db[collection].find_one({"_id": views.source_key(doc_id)}, fields)
    mun = raw["municipality"] if raw else municipality
    if mun:
        follow_parts(db, name, mun, f"{collection}:{doc_id}", contribute(decode(raw)) if raw else {})


def rebuild_records(db: Database, name: str, collection: str, fields: dict, contribute: Callable[[dict], dict],
                    municipality: str) -> None:
    """View ``name`` of ``municipality`` from scratch, from every record of ``collection``."""
    write_parts(db, name, municipality, [{"_id": f"{collection}:{raw['_id']}", "parts": contribute(decode(raw))}
                                         for raw in db[collection].find({"municipality": municipality}, fields)])


def write_parts(db: Database, name: str, municipality: str, rows: list[dict]) -> None:
    """View ``name`` of ``municipality`` from scratch: ``rows`` are the parts (``_id`` the source, ``parts``)."""
    db[MONTHS].delete_many({"municipality": municipality, "view": name})
    db[TOTALS].delete_many({"municipality": municipality, "view": name})
    db[CONTRIBUTIONS].delete_many({"municipality": municipality, "view": name})
    totals: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        for bucket, cell in row["parts"].items():
            totals[bucket].update(cell)
    docs = [{**row, "municipality": municipality, "view": name} for row in rows]
    for start in range(0, len(docs), 1000):
        db[CONTRIBUTIONS].insert_many(docs[start:start + 1000])
    _apply(db, municipality, totals, name)


def built(db: Database, municipality: str) -> bool:
    """Whether the municipality's month documents of this view were built (see :func:`folded_days`)."""
    return db[views.META].find_one({"_id": f"{NAME}_built:{municipality}"}, {"_id": 1}) is not None


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Bring the month documents up to date after the DAM or charge ``doc_id`` of ``collection`` changed
    (the first change of a municipality never built builds them whole: a store older than this view)."""
    if doc_id is None:
        return
    key = views.source_key(doc_id)
    fields, contribute = SOURCES[collection]
    raw = db[collection].find_one({"_id": key}, fields)
    mun = raw["municipality"] if raw else municipality
    if mun and not built(db, mun):
        rebuild(db, mun)
        return
    follow_parts(db, NAME, mun, f"{collection}:{doc_id}", contribute(decode(raw)) if raw else {})


def _folded(db: Database, municipality: str) -> tuple[list[dict], dict[str, Counter]]:
    """Every DAM's and charge's contribution and their sum per month document, from the records."""
    totals: dict[str, Counter] = defaultdict(Counter)
    rows = []
    for collection, (fields, contribute) in SOURCES.items():
        for raw in db[collection].find({"municipality": municipality}, fields):
            parts = contribute(decode(raw))
            for bucket, cell in parts.items():
                totals[bucket].update(cell)
            rows.append({"_id": f"{collection}:{raw['_id']}", "municipality": municipality, "view": NAME,
                         "parts": parts})
    return rows, totals


def rebuild(db: Database, municipality: str) -> None:
    """The month documents and every DAM's contribution of ``municipality``, from scratch."""
    db[MONTHS].delete_many({"municipality": municipality, "view": NAME})
    db[TOTALS].delete_many({"municipality": municipality, "view": NAME})
    db[CONTRIBUTIONS].delete_many({"municipality": municipality, "view": NAME})
    rows, totals = _folded(db, municipality)
    if rows:
        db[CONTRIBUTIONS].insert_many(rows)
    _apply(db, municipality, totals)
    db[views.META].update_one({"_id": f"{NAME}_built:{municipality}"}, {"$set": {"built": True}}, upsert=True)


views.register(views.View(NAME, tuple(SOURCES), project, rebuild, version=3))  # 2: the charges; 3: month totals


def folded_days(db: Database, municipality: str, until: date) -> dict[date, dict[str, int]]:
    """Every day's fields of the municipality up to ``until``, folded from its DAMs and charges: a
    municipality never built (written in bulk without audit and no rebuild since), read without writing."""
    days: dict[date, dict[str, int]] = {}
    last = f"{until:%Y-%m}"
    for bucket, cell in _folded(db, municipality)[1].items():
        month = bucket.split(":")[1]
        if month <= last:
            days.update(month_days(month, {k: v for k, v in cell.items() if v}))
    return days


def stored(db: Database, municipality: str, until: date) -> Days:
    """The days of ``revenue_view`` of the municipality up to ``until``; a municipality never built (DAMs
    written in bulk without audit and no rebuild since) is folded from its DAMs instead, as before that
    view, without writing during a read."""
    if built(db, municipality):
        return Days(db, NAME, municipality, until)
    return Days.of(folded_days(db, municipality, until))


def _money(centavos: int) -> Decimal:
    return (Decimal(centavos) / 100).quantize(Decimal("0.01"))


def _parsed(key: str, only_kind: str | None) -> tuple[str, str, str, date | None] | None:
    """(figure, revenue label, the Revenue field it adds to, due month of an overdue key) of a day key,
    or None for a key the revenue does not read (charges, another kind)."""
    figure, kind, *rest = key.split("|")
    if figure == "charged" or (only_kind is not None and kind != only_kind):
        return None
    label = dams.REVENUE_KINDS.get(kind, "Outras receitas")
    if figure == "overdue":
        return figure, label, "overdue_count" if rest[1] == "n" else "overdue", date.fromisoformat(rest[0] + "-01")
    if figure == "diff":
        return figure, label, rest[0], None
    return figure, label, f"{figure}_count" if rest[0] == "n" else figure, None


def in_period(days: Days, period: Period, only_kind: str | None = None) -> Revenue:
    """The revenue of ``period`` (as ``revenue.in_period`` folds it) from the stored days (``days.Days``:
    a month inside the period or before it may come whole, on its first day)."""
    lines: dict[tuple[str, date], Counter] = defaultdict(Counter)
    diff: Counter = Counter()
    parsed: dict[str, tuple | None] = {}  # each key split once (a day holds the same few hundred keys)
    for day, cell in days.entries(period.start, period.end + timedelta(days=1)):
        if day > period.end:
            break
        before, month_of_day = day < period.start, None
        for key, number in cell.items():
            if key not in parsed:
                parsed[key] = _parsed(key, only_kind)
            found = parsed[key]
            if found is None:
                continue
            figure, label, name, month = found
            if figure == "overdue":
                lines[(label, month)][name] += number
            elif before:
                continue
            elif figure == "diff":
                diff[name] += number
            else:
                month_of_day = month_of_day or day.replace(day=1)
                lines[(label, month_of_day)][name] += number
    return Revenue(
        tuple(RevenueLine(kind, month, **{k: (_money(v) if not k.endswith("count") else v) for k, v in c.items()})
              for (kind, month), c in sorted(lines.items(), key=lambda item: (item[0][1], item[0][0]))
              if any(c.values())),
        PaymentDifferences(**{k: (_money(v) if not k.endswith("count") else v) for k, v in diff.items() if v}),
    )


def charged_in_period(days: Days, period: Period) -> tuple[int, Decimal, Decimal]:
    """How many charges were issued in ``period`` (cancelled ones left out), the value they charge and
    what was paid of it, from the stored days."""
    total: Counter = Counter()
    for key, number in days.within(period.start, period.end).items():
        if key.startswith("charged|"):
            total[key.rsplit("|", 1)[1]] += number
    return total["n"], _money(total["v"]), _money(total["p"])
