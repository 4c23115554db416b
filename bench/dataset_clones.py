"""Nova Lacerda's machinery and the autos de infração at the dataset's scale, cloned from the replay.

``bench/dataset_services.py`` writes one set of each through the services (61 requests, 23 autos).
This module reads those chains back and clones them in stored form until the counts of
``dataset_plan.cloned_counts`` are reached. A chain is a record with everything that names it: a
request with its charges, DAMs, bookings and audit entries; the autos of one driver with their fine
charges, DAMs and audit entries. Each clone gets new ids, new protocol, auto and DAM numbers (from the
municipality's counters, in the year of its shifted dates; barcode and PIX computed again), other
people (a requester cloned with a new CPF/CNPJ and name; the autos move to a driver without autos of
the same municipality) and its dates moved by whole weeks (weekdays kept) inside the span its law
allows (the decree or act in force up to today, never after). Bookings keep one machine and one
operator per day: a clone that would collide goes to another crew, a clone of the machines and
operators (a fleet) made when none is free. Autos with a sanction (they change an authorization)
are not cloned.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta
from typing import Any, Callable

from bson import ObjectId
from pymongo.database import Database

from bench.dataset_plan import LOCAL, TODAY
from seed import people as people_seed
from services.dam import dams

BATCH = 20000
NL = "nova_lacerda"
REQUESTS_PER_REQUESTER = 4  # a requester asks again: about four requests each
KEEP = frozenset({"price_table", "effective", "version_id", "licence_valid_until", "password_hash"})
FUTURE = frozenset({"due", "due_on", "requested_due", "defence_deadline", "limit", "deadline", "until",
                    "standing_checked_on", "licence_valid_until"})  # dates that may lie after today
CLAMPED = frozenset({"standing_checked_on"})  # checked "today": a clone never checks after the dataset's today
ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
TEXT = re.compile(r"(?<![\d/])(?:(\d{2})/(\d{2})/(\d{4})|(\d{4}/\d{4})|(\d{2})/(\d{4}))(?![\d/])")
PLATE_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"


def _walk(value: Any, visit: Callable[[str | None, Any], None], key: str | None = None) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in KEEP:
                _walk(v, visit, k)
    elif isinstance(value, list):
        for v in value:
            _walk(v, visit, key)
    else:
        visit(key, value)


def span(docs: list[dict]) -> tuple[date, date]:
    """The first and last day a chain's documents name (dates that may be ahead, such as due dates, aside)."""
    days: list[date] = []

    def visit(key: str | None, value: Any) -> None:
        if isinstance(value, datetime):
            days.append(value.astimezone(LOCAL).date())
        elif isinstance(value, str) and len(value) == 10 and ISO.fullmatch(value) and key not in FUTURE:
            days.append(date.fromisoformat(value))

    for doc in docs:
        _walk(doc, visit)
    return min(days), max(days)


class Rewrite:
    """One clone's changes: ids, exact strings (numbers, CPFs, ids as text), names inside texts and
    the shift of every date (datetimes, ISO days, dd/mm/yyyy and mm/yyyy inside texts)."""

    def __init__(self, shift: timedelta) -> None:
        self.shift = shift
        self.ids: dict[ObjectId, ObjectId] = {}
        self.exact: dict[str, str] = {}
        self.names: list[tuple[str, str]] = []

    def new_id(self, old: ObjectId, new: ObjectId) -> None:
        self.ids[old] = new
        self.exact[str(old)] = str(new)

    def text(self, match: re.Match) -> str:
        day, month, year, number, month_only, month_year = match.groups()
        if number:
            return self.exact.get(number, number)
        if day:
            moved = date(int(year), int(month), int(day)) + self.shift
            return f"{moved:%d/%m/%Y}"
        moved = date(int(month_year), int(month_only), 15) + self.shift
        return f"{moved:%m/%Y}"

    def __call__(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: (v if k in KEEP else self(v, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        if isinstance(value, str):
            found = self.exact.get(value)
            if found is not None:
                return found
            if len(value) == 10 and ISO.fullmatch(value):
                moved = date.fromisoformat(value) + self.shift
                return min(moved, TODAY).isoformat() if key in CLAMPED else moved.isoformat()
            if "/" in value:
                value = TEXT.sub(self.text, value)
            for old, new in self.names:
                if old in value:
                    value = value.replace(old, new)
            return value
        if isinstance(value, datetime):
            return value + self.shift
        if isinstance(value, ObjectId):
            return self.ids.get(value, value)
        return value


class Cloner:
    """Clones the replayed chains into ``db`` up to the planned counts."""

    def __init__(self, db: Database, rng: Any) -> None:
        self.db, self.rng = db, rng
        self.counters = {c["_id"]: c["seq"] for c in db["counters"].find({})}
        self.drawn: set[str] = set()  # the counters this cloner moved
        self.buffers: dict[str, list[dict]] = defaultdict(list)
        self.counts: Counter[str] = Counter()
        self.documents: set[str] = set()  # CPF/CNPJ already in use (requesters, operators)
        self.settings = {mun: dams._settings(db, mun, TODAY) for mun in ("chapada", "matupa", NL)}
        self.spans: dict[str, tuple[date, date]] = {}
        self.linked: dict[str, list[tuple[str, dict]]] = defaultdict(list)  # record id -> its charges, DAMs, bookings
        owners = {"$in": ["booking_requests", "autos"]}
        for name, query, key in (("charges", {"owner.collection": owners}, "owner"),
                                 (dams.COLLECTION, {"pays.collection": owners}, "pays")):
            for doc in db[name].find(query):
                self.linked[doc[key]["id"]].append((name, doc))
        for doc in db["machinery_bookings"].find({}):
            self.linked[doc["request_id"]].append(("machinery_bookings", doc))
        self.audit = self._audit_of(db)

    def _audit_of(self, db: Database) -> dict[str, list[dict]]:
        """The audit entries of the records a chain clones (by the services' load user, ``carga.*``; then
        the payment handlers', ``sistema.dam``), by record: read by record id on the audit's index, not by
        scanning the whole audit (6,5 million entries at scale 100, in each process)."""
        ids: dict[str, set[str]] = defaultdict(set)
        for name in ("booking_requests", "autos", "machinery_assets", "machinery_operators", "machinery_requesters"):
            ids[name] |= {str(d["_id"]) for d in db[name].find({}, {"_id": 1})}
        for links in self.linked.values():
            for name, doc in links:
                ids[name].add(str(doc["_id"]))
        handled = {dams.COLLECTION, "booking_requests", "autos"}  # what a payment's handlers record
        loaded: dict[str, list[dict]] = defaultdict(list)
        paid: dict[str, list[dict]] = defaultdict(list)
        for name, found in ids.items():
            chosen = sorted(found)
            for start in range(0, len(chosen), 500):
                for entry in db["audit"].find({"collection": name, "doc_id": {"$in": chosen[start:start + 500]}}):
                    if str(entry.get("username", "")).startswith("carga."):
                        loaded[entry["doc_id"]].append(entry)
                    elif entry.get("username") == "sistema.dam" and name in handled:
                        paid[entry["doc_id"]].append(entry)
        return defaultdict(list, {doc_id: loaded.get(doc_id, []) + paid.get(doc_id, [])
                                  for doc_id in loaded.keys() | paid.keys()})

    def new_id(self) -> ObjectId:
        return ObjectId(self.rng.randbytes(12))

    def number(self, mun: str, kind: str, year: int) -> tuple[int, str]:
        key = f"{mun}/{kind}/{year}"
        self.counters[key] = self.counters.get(key, 0) + 1
        self.drawn.add(key)
        return self.counters[key], f"{self.counters[key]:04d}/{year}"

    def add(self, collection: str, doc: dict) -> None:
        buffer = self.buffers[collection]
        buffer.append(doc)
        if len(buffer) >= BATCH:
            self.flush(collection)

    def flush(self, collection: str | None = None) -> None:
        for name in [collection] if collection else list(self.buffers):
            if self.buffers[name]:
                self.db[name].insert_many(self.buffers[name])
                self.counts[name] += len(self.buffers[name])
                self.buffers[name] = []

    def finish(self) -> Counter[str]:
        self.flush()
        for key in sorted(self.drawn):  # only these: another process may be drawing another municipality's
            self.db["counters"].update_one({"_id": key}, {"$set": {"seq": self.counters[key]}}, upsert=True)
        return self.counts

    def person_document(self, old: str) -> str:
        while True:
            new = people_seed.cpf(self.rng) if len(old) == 11 else people_seed.cnpj(self.rng)
            if new not in self.documents:
                self.documents.add(new)
                return new

    def shift(self, docs: list[dict], first_day: date) -> timedelta:
        """Whole weeks, so that the chain and its audit entries stay between ``first_day`` and today."""
        key = str(docs[0]["_id"])  # a template's span, once
        found = self.spans.get(key)
        if found is None:
            found = self.spans[key] = span(docs + [e for doc in docs for e in self.audit.get(str(doc["_id"]), ())])
        low, high = self.span = found
        earliest, latest = -((low - first_day).days // 7), (TODAY - high).days // 7
        return timedelta(weeks=self.rng.randint(earliest, latest) if earliest <= latest else 0)

    # -- the chain's own records --
    def chain_docs(self, collection: str, record: dict) -> list[tuple[str, dict]]:
        return [(collection, record), *self.linked.get(str(record["_id"]), ())]

    def write_chain(self, mun: str, docs: list[tuple[str, dict]], rewrite: Rewrite) -> None:
        """New ids and numbers in ``rewrite``, then every document and audit entry rewritten and queued."""
        for _, doc in docs:
            rewrite.new_id(doc["_id"], self.new_id())
        for name, doc in docs:
            if name == dams.COLLECTION:
                year = (date.fromisoformat(doc["issued_on"]) + rewrite.shift).year
                sequence, rewrite.exact[doc["number"]] = self.number(mun, "dam", year)
            elif name == "booking_requests":
                year = (date.fromisoformat(doc["requested_on"]) + rewrite.shift).year
                _, rewrite.exact[doc["protocol"]] = self.number(mun, "maquinas_protocolo", year)
            elif name == "autos" and doc.get("number"):
                year = (date.fromisoformat(doc["auto_on"]) + rewrite.shift).year
                _, rewrite.exact[doc["number"]] = self.number(mun, "auto", year)
        for name, doc in docs:
            new = rewrite(doc)
            number = new.get("number") or new.get("protocol")
            if number and name in (dams.COLLECTION, "booking_requests", "autos"):
                sequence, year = number.split("/")  # past 9999 a number has five digits
                new["sequence"], new["year"] = int(sequence), int(year)
            if name == dams.COLLECTION:
                self.price_dam(mun, new)
            self.add(name, new)
            for entry in self.audit.get(str(doc["_id"]), ()):
                self.add("audit", {**rewrite(entry), "_id": self.new_id()})

    def price_dam(self, mun: str, doc: dict) -> None:
        """The printed barcode, line and PIX of the DAM's new number and due date."""
        amount = doc["amount"].to_decimal()
        barcode = self.settings[mun].barcode(amount, date.fromisoformat(doc["due_on"]), doc["year"], doc["sequence"])
        doc.update(barcode=barcode.digits, line=barcode.line,
                   pix_payload=self.settings[mun].pix_payload(amount, doc["year"], doc["sequence"])
                   if doc.get("pix_payload") else None)
