"""The Agenda's queue kept as data (issue 21): the requests to schedule, placed a page at a time.

Reading every request waiting to be scheduled and ordering them all on each render of the Agenda
grew with the queue (2.952 requests at benchmark scale 100). The order of art. 3 depends on the day
only through the regional schedule (the zones' order in force that day, §1); inside a zone the
localities follow their first protocol and, inside a locality, the protocol order (§2). So the view
keeps, in the same unit of work as the request's change:

- ``machinery_schedule_items``: one document per request ``a_agendar`` (what a row of the queue shows,
  its protocol key, its zone and locality, whether a justified urgency puts it ahead, §2);
- ``machinery_schedule_groups``: per locality (and one group for the requests ahead) how many wait
  and the protocol key of the earliest (``rules.machinery.schedule.QueueGroup``).

A page then reads the groups (one per locality: bounded by the municipality's map, not by the queue),
orders them by the rule for the day asked, and reads from the one or two groups it overlaps only its
rows, by index.
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules.machinery.schedule import QueuedRequest, QueueGroup, entry_reason, group_order, justified
from services.machinery import booking_requests, localities
from services.machinery.booking_requests import REQUESTS
from services.shared import list_counts, views
from services.store import decode, encode, ensure_indexes

ITEMS = "machinery_schedule_items"
GROUPS = "machinery_schedule_groups"
WAITING = "a_agendar"
INDEXES = {
    ITEMS: [([("municipality", 1), ("ahead", 1), ("zone", 1), ("locality", 1), ("at", 1), ("protocol", 1)],
             {"name": "i_schedule_items_order"}),
            ([("request_id", 1)], {"name": "i_schedule_items_request", "unique": True})],
    GROUPS: [([("municipality", 1), ("ahead", 1), ("zone", 1), ("locality", 1)],
              {"name": "u_schedule_groups_place", "unique": True})],
}
FIELDS = {"municipality": 1, "protocol": 1, "protocolled_at": 1, "zone": 1, "locality": 1, "urgent": 1,
          "urgency_justification": 1, "requester.name": 1, "services": 1, "status": 1}
ORDER = [("at", 1), ("protocol", 1)]
_prepared: weakref.WeakSet = weakref.WeakSet()


@dataclass(frozen=True)
class QueueEntry:
    """A request on the schedule board, in the order of art. 3."""

    position: int
    request_id: str
    protocol: str
    requester: str
    zone: str
    locality: str
    services: str
    reason: str
    reference: str
    urgent: bool
    status: str


@dataclass(frozen=True)
class ZonePlace:
    """Where one request stands in its zone's queue: position of total, and the justifications of the
    requests moved ahead of it by urgency (art. 3 §2) — the clerk's text, no one's name or data."""

    zone: str
    position: int
    total: int
    moved_ahead: tuple[str, ...]


@dataclass(frozen=True)
class QueuePage:
    """A page of the queue: its entries, how many requests the filter holds, and the page shown."""

    entries: tuple[QueueEntry, ...]
    total: int
    page: int
    pages: int


def prepare(db: Database) -> None:
    """Create the indexes (idempotent), once per database handle."""
    if db not in _prepared:
        ensure_indexes(db, INDEXES)
        _prepared.add(db)


def _item(doc: dict) -> dict:
    """The stored row of a waiting request (``doc`` decoded)."""
    request = _queued(doc)
    return {"municipality": doc["municipality"], "request_id": str(doc["_id"]), "protocol": doc["protocol"],
            "at": doc["protocolled_at"], "zone": request.zone, "locality": request.locality,
            "ahead": justified(request), "urgent": request.urgent, "justification": request.justification,
            "requester": doc["requester"]["name"],
            "services": booking_requests.describe_services(doc.get("services", [])), "status": doc["status"]}


def _queued(doc: dict) -> QueuedRequest:
    return QueuedRequest(doc["protocol"], doc.get("protocolled_at") or doc.get("at"), doc.get("zone", ""),
                         doc.get("locality", ""), bool(doc.get("urgent")),
                         doc.get("urgency_justification", doc.get("justification", "")) or "")


def _place(row: dict) -> dict:
    """The group a row belongs to: the requests ahead form one group, the others one per locality."""
    if row["ahead"]:
        return {"municipality": row["municipality"], "ahead": True, "zone": "", "locality": ""}
    return {"municipality": row["municipality"], "ahead": False, "zone": row["zone"], "locality": row["locality"]}


def _members(place: dict) -> dict:
    """The rows of a group (those ahead keep their zone and locality, shown on the row)."""
    if place["ahead"]:
        return {"municipality": place["municipality"], "ahead": True}
    return {key: place[key] for key in ("municipality", "ahead", "zone", "locality")}


def _regroup(db: Database, place: dict, change: int) -> None:
    """Add ``change`` to the place's count and set its earliest protocol again (gone when empty)."""
    db[GROUPS].update_one(place, {"$inc": {"count": change}}, upsert=True)
    first = next(iter(db[ITEMS].find(_members(place), {"at": 1, "protocol": 1}).sort(ORDER).limit(1)), None)
    if first is None:
        db[GROUPS].delete_one(place)
    else:
        db[GROUPS].update_one(place, {"$set": {"first_at": first["at"], "first_protocol": first["protocol"]}})


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow one write of a request: its row in or out of the queue, its groups counted again."""
    if not municipality or not doc_id or collection != REQUESTS:
        return
    prepare(db)
    rid = str(doc_id)
    raw = db[REQUESTS].find_one({"_id": views.source_key(rid), "municipality": municipality}, FIELDS)
    new = _item(decode(raw)) if raw and raw.get("status") == WAITING else None
    old = db[ITEMS].find_one({"request_id": rid})
    if old is not None:
        db[ITEMS].delete_one({"_id": old["_id"]})
        _regroup(db, _place(old), -1)
    if new is not None:
        db[ITEMS].insert_one(encode(new))
        _regroup(db, _place(new), 1)


def rebuild(db: Database, municipality: str) -> None:
    """The queue of the municipality from scratch (nothing where the module is off)."""
    if not booking_requests.runs_module(db, municipality):
        return
    ensure_indexes(db, INDEXES)
    _prepared.add(db)
    db[ITEMS].delete_many({"municipality": municipality})
    db[GROUPS].delete_many({"municipality": municipality})
    rows = [_item(decode(raw)) for raw in db[REQUESTS].find({"municipality": municipality, "status": WAITING},
                                                            FIELDS)]
    groups: dict[tuple, dict] = {}
    for row in rows:
        place = _place(row)
        group = groups.setdefault(tuple(place.values()), {**place, "count": 0, "first_at": row["at"],
                                                         "first_protocol": row["protocol"]})
        group["count"] += 1
        if (row["at"], row["protocol"]) < (group["first_at"], group["first_protocol"]):
            group["first_at"], group["first_protocol"] = row["at"], row["protocol"]
    if rows:
        db[ITEMS].insert_many([encode(row) for row in rows])
        db[GROUPS].insert_many([encode(group) for group in groups.values()])


views.register(views.View("machinery_schedule", (REQUESTS,), project, rebuild))


# ---- reading a page ----

def _segments(db: Database, municipality: str, day: date) -> list[dict]:
    """The groups in the order of service on ``day``: the requests ahead, then the localities."""
    stored = [decode(raw) for raw in db[GROUPS].find({"municipality": municipality})]
    ahead = [g for g in stored if g["ahead"]]
    regular = {(g["zone"], g["locality"]): g for g in stored if not g["ahead"]}
    order = group_order((QueueGroup(g["zone"], g["locality"], (g["first_at"], g["first_protocol"]), g["count"])
                         for g in regular.values()),
                        localities.zone_order(localities.localities(db, municipality, day)))
    return ahead + [regular[(g.zone, g.locality)] for g in order]


def _place_query(group: dict, search: dict | None) -> dict:
    found = _members(group)
    return {**found, **search} if search else found


def _term(search: str) -> str:
    return "".join(ch for ch in str(search or "") if ch.isprintable()).strip()[:200]


def search_filter(search: str) -> dict | None:
    """The rows whose protocol or requester holds the term (escaped, case-insensitive); None: all."""
    term = _term(search)
    if not term:
        return None
    pattern = {"$regex": re.escape(term), "$options": "i"}
    return {"$or": [{"protocol": pattern}, {"requester": pattern}]}


def _entry(position: int, row: dict) -> QueueEntry:
    reason, reference = entry_reason(_queued(row))
    return QueueEntry(position, row["request_id"], row["protocol"], row["requester"], row["zone"], row["locality"],
                      row["services"], reason, reference, bool(row["urgent"]), row["status"])


def _before(row: dict) -> dict:
    """The rows of the same place earlier in protocol order than ``row``."""
    at = encode(row["at"])
    return {"$or": [{"at": {"$lt": at}}, {"at": at, "protocol": {"$lt": row["protocol"]}}]}


def queue_page(db: Database, municipality: str, day: date, page: int, per_page: int,
               search: str = "") -> QueuePage:
    """Page ``page`` of the queue on ``day`` (``per_page`` rows), the whole queue or the rows matching
    ``search``, each with its position in the whole queue."""
    prepare(db)
    segments = _segments(db, municipality, day)
    matching = search_filter(search)
    counts = [g["count"] if matching is None else db[ITEMS].count_documents(_place_query(g, matching))
              for g in segments]
    total = sum(counts)
    pages = list_counts.pages(total, per_page)
    page = max(1, min(page, pages))
    start, end = (page - 1) * per_page, page * per_page
    entries, seen, before = [], 0, 0
    for group, count in zip(segments, counts):
        if seen + count > start and seen < end:
            skip = max(0, start - seen)
            cursor = db[ITEMS].find(_place_query(group, matching)).sort(ORDER).skip(skip).limit(end - seen - skip)
            for n, raw in enumerate(cursor):
                row = decode(raw)
                if matching is None:
                    position = before + skip + n + 1
                else:  # where it stands in the whole queue, not among the matches
                    position = before + db[ITEMS].count_documents({**_place_query(group, None), **_before(row)}) + 1
                entries.append(_entry(position, row))
        seen += count
        before += group["count"]
    return QueuePage(tuple(entries), total, page, pages)


def queue_rows(db: Database, municipality: str, day: date, search: str = "") -> list[QueueEntry]:
    """The whole queue on ``day`` (or the rows matching ``search``), in order: what an export writes."""
    prepare(db)
    term = _term(search).casefold()
    entries, before = [], 0
    for group in _segments(db, municipality, day):
        for n, raw in enumerate(db[ITEMS].find(_place_query(group, None)).sort(ORDER)):
            row = decode(raw)
            if term in row["protocol"].casefold() or term in row["requester"].casefold():
                entries.append(_entry(before + n + 1, row))
        before += group["count"]
    return entries


def zone_place(db: Database, municipality: str, request_id: str, day: date) -> ZonePlace | None:
    """Where the request waiting to be scheduled stands in its zone's part of the queue on ``day`` (None when
    it is not waiting): the requests ahead of the order of protocol (art. 3 §2) of that zone first, then its
    localities in order. A request protocolled after it but placed before it is one moved ahead."""
    prepare(db)
    raw = db[ITEMS].find_one({"municipality": municipality, "request_id": str(request_id)})
    if raw is None:
        return None
    mine = decode(raw)
    key = (mine["at"], mine["protocol"])
    position, total, moved = 0, 0, []
    for group in _segments(db, municipality, day):
        if not group["ahead"] and group["zone"] != mine["zone"]:
            continue
        for row in map(decode, db[ITEMS].find({**_members(group), "zone": mine["zone"]}).sort(ORDER)):
            total += 1
            if row["request_id"] == mine["request_id"]:
                position = total
            elif not position and row["ahead"] and (row["at"], row["protocol"]) > key:
                moved.append(row["justification"].strip())
    return ZonePlace(mine["zone"], position, total, tuple(moved))
