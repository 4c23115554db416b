"""The work queue's documents (``queue_view``, ``queue_autos``): written with their counts, read a page at
a time, so Pendências, the Vistorias and the Início cost the same at 3.000 and at 300.000 records
(issue 21).

The counts are data too: one document per municipality and due month (``work_queue_counts``) holds how
many items there are of each kind, due day and kind of term (``<due day>|<horizoned><late-able>|<kind>``),
moved by ``$inc`` whenever items are replaced, in the same unit of work. Whether an item is shown, late or
due within a week on a day follows from those three, so every count of a day is a sum over the
municipality's documents, read in one query (their size grows with the calendar, not with the records).
A write moves the documents of its items' months only: one document for the whole calendar cost each
write the decoding and encoding of every cell (1.800 in Matupá at benchmark scale 100). A page is the
first rows of the index of the order asked.

A filter is :class:`Filter`; ``late`` True keeps the late items, False the others; ``due_until`` the
items due up to a day. Days are numbers in the store (``queue_item``)."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, timedelta

from pymongo.database import Database

from services.ridehailing.queue_item import ALWAYS, HORIZON_DAYS, ITEMS, NEVER, Pendencia, from_row
from services.store import decode

COUNTS = "work_queue_counts"

# Each order of the lists, as the store sorts it and as the same rows sort in Python (``key``).
ORDERS = {
    "due": ("due_n", "protocol"),
    "kind": ("kind", "due_n", "protocol"),
    "plate": ("plate", "due_n", "protocol"),
    "protocol": ("protocol", "due_n"),
}
PY_FIELDS = {"due_n": "due", "kind": "kind", "plate": "plate", "protocol": "protocol"}


@dataclass(frozen=True)
class Filter:
    kinds: tuple[str, ...] = ()
    late: bool | None = None
    due_until: date | None = None

    def keeps(self, item: Pendencia) -> bool:
        """Whether an item computed outside the store passes the same filter."""
        return ((not self.kinds or item.kind in self.kinds) and (self.late is None or item.late == self.late)
                and (self.due_until is None or item.due <= self.due_until))


def key(order: str):
    """The Python sort key of ``order`` (the store's order of the same rows)."""
    names = [PY_FIELDS[name] for name in ORDERS[order]]
    return lambda p: tuple(getattr(p, name) for name in names)


def query(municipality: str, on: date, chosen: Filter) -> dict:
    day = on.toordinal()
    found: dict = {"municipality": municipality, "shown_n": {"$lte": day}}
    if len(chosen.kinds) == 1:  # an equality: the planner reads the kind's own index
        found["kind"] = chosen.kinds[0]
    elif chosen.kinds:
        found["kind"] = {"$in": list(chosen.kinds)}
    if chosen.late is not None:
        found["late_n"] = {"$lte": day} if chosen.late else {"$gt": day}
    if chosen.due_until is not None:
        found["due_n"] = {"$lte": chosen.due_until.toordinal()}
    return found


def _cell(row: dict) -> str:
    horizoned, late_able = row["shown_n"] != ALWAYS, row["late_n"] != NEVER
    return f"{row['due_n']}|{int(horizoned)}{int(late_able)}|{row['kind']}"


def month_of(row: dict) -> str:
    """The due month (``YYYY-MM``) of an item's row: its counts' document."""
    return date.fromordinal(row["due_n"]).strftime("%Y-%m")


def replace(db: Database, municipality: str, owner: str, ids: list[str], rows: list[dict]) -> None:
    """Put ``rows`` in place of the items of the records ``ids`` (``owner``: ``authorization_id`` or
    ``auto_id``) and move the counts of their due months by the difference."""
    delta: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        delta[month_of(row)][_cell(row)] += 1
    old = list(db[ITEMS].find({owner: {"$in": list(ids)}}, {"kind": 1, "due_n": 1, "shown_n": 1, "late_n": 1}))
    for row in old:
        delta[month_of(row)][_cell(row)] -= 1
    if old:
        db[ITEMS].delete_many({owner: {"$in": list(ids)}})
    if rows:
        db[ITEMS].insert_many(rows)
    for month, cells in sorted(delta.items()):
        moved = {f"c.{cell}": n for cell, n in cells.items() if n}
        if moved:
            db[COUNTS].update_one({"_id": f"{municipality}|{month}"},
                                  {"$inc": moved, "$setOnInsert": {"municipality": municipality, "month": month}},
                                  upsert=True)


def forget(db: Database, municipality: str) -> None:
    """Every item of the municipality and its counts gone (a rebuild starts from nothing)."""
    db[ITEMS].delete_many({"municipality": municipality})
    db[COUNTS].delete_many({"municipality": municipality})
    db[COUNTS].delete_one({"_id": municipality})  # the one document of every month, before version 3


@dataclass(frozen=True)
class Cell:
    due: date
    kind: str
    horizoned: bool
    late_able: bool
    n: int
    shown_from: date  # the first day its items are shown (``due`` − the horizon; ``date.min`` when always)

    def counted(self, on: date, chosen: Filter) -> int:
        """``n`` when the cell's items are shown on ``on`` and pass ``chosen``, else 0."""
        if self.shown_from > on:
            return 0
        late = self.late_able and self.due < on
        if chosen.kinds and self.kind not in chosen.kinds:
            return 0
        if (chosen.late is not None and late != chosen.late) or (chosen.due_until is not None
                                                                  and self.due > chosen.due_until):
            return 0
        return self.n


class Cells(list):
    """The counts' cells, with those of each kind at hand: a page and the Início count kind by kind, and a
    count of one kind reads only its cells (a cell per kind and due day: 1.800 in Matupá at benchmark
    scale 100, read some thirty times per render)."""

    def __init__(self, cells: list[Cell]) -> None:
        super().__init__(cells)
        self.by_kind: dict[str, list[Cell]] = defaultdict(list)
        for cell in cells:
            self.by_kind[cell.kind].append(cell)

    def of(self, kinds: tuple[str, ...]) -> list[Cell]:
        return [cell for kind in dict.fromkeys(kinds) for cell in self.by_kind.get(kind, ())]


def tally(db: Database, municipality: str) -> Cells:
    """The municipality's counts (one indexed query: a document per due month)."""
    cells = []
    for cell, n in (item for doc in db[COUNTS].find({"municipality": municipality}, {"c": 1})
                    for item in (doc.get("c") or {}).items()):
        if n:
            due, flags, kind = cell.split("|", 2)
            on = date.fromordinal(int(due))
            horizoned = flags[0] == "1"
            shown_from = on - timedelta(days=HORIZON_DAYS) if horizoned else date.min
            cells.append(Cell(on, kind, horizoned, flags[1] == "1", n, shown_from))
    return Cells(cells)


def count(cells: Cells, on: date, chosen: Filter = Filter()) -> int:
    """How many kept items on ``on`` pass ``chosen``, from the counts (:func:`tally`); of some kinds, from
    their cells only."""
    return sum(cell.counted(on, chosen) for cell in (cells.of(chosen.kinds) if chosen.kinds else cells))


def rows(db: Database, municipality: str, on: date, chosen: Filter, order: str = "due", descending: bool = False,
         limit: int = 25, cells: Cells | None = None) -> list[Pendencia]:
    """The first ``limit`` kept items on ``on`` that pass ``chosen``, in ``order``: read from the index of
    the order; with several kinds, the first ``limit`` of each kind (its own index), merged. With the
    counts (``cells``) the read asks for no more rows than pass: the index is read in order and the items
    not yet shown (an annual vistoria months ahead) lie after the last that passes — asked for more, the
    store read every one of them to find none (19.224 for "Vistoria anual" at benchmark scale 100)."""
    if cells is not None:
        limit = min(limit, count(cells, on, chosen))
    if limit <= 0:  # a limit of 0 is no limit to the store
        return []
    if len(chosen.kinds) > 1:
        found = [p for kind in chosen.kinds for p in rows(db, municipality, on, Filter((kind,), chosen.late,
                                                                                       chosen.due_until), order,
                                                          descending, limit, cells)]
        return sorted(found, key=key(order), reverse=descending)[:limit]
    way = -1 if descending else 1
    cursor = db[ITEMS].find(query(municipality, on, chosen)).sort([(name, way) for name in ORDERS[order]])
    return [from_row(decode(raw), on) for raw in cursor.limit(limit)]


def first(db: Database, municipality: str, on: date, extra: list[Pendencia], chosen: Filter, order: str = "due",
          descending: bool = False, limit: int = 25, cells: Cells | None = None) -> list[Pendencia]:
    """The first ``limit`` items of the kept ones and ``extra`` (computed, few) together, in ``order``:
    the store's first ``limit`` merged with the extra ones that pass ``chosen`` (``cells``: see :func:`rows`)."""
    kept = rows(db, municipality, on, chosen, order, descending, limit, cells)
    return sorted(kept + [p for p in extra if chosen.keeps(p)], key=key(order), reverse=descending)[:limit]
