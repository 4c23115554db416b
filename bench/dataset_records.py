"""The dataset's registry records and audit entries, in stored form, cloned from the services.

:class:`Records` holds the generator's state and builds what ``entities.create`` writes (the values
cleaned by the entity's spec, each distinct text once) and the entry ``audit.record`` writes: the
first record of each entity in a municipality is also written by the real service into a
:class:`~bench.dataset_store.Sink` and must come out the same, field for field and in the same order
(the generator stops otherwise). It also makes the staff users, the taxpayers and the audit updates
that bring the log to its size. The DAMs (``bench/dataset_dams.py``) and ride-hailing
(``bench/dataset_ridehailing.py``) build on it.
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from datetime import time as clock_time
from typing import Any, Iterator

from pymongo.database import Database

from bench.dataset_plan import DAYS, LOCAL, SEED, TODAY
from bench.dataset_store import Sink, Writer
from seed import people as people_seed
from seed import ridehailing as ride_seed
from services.shared import audit, clock, entities, schema
from services.shared.auth import SYSTEM, Actor
from services.store import decode, encode

_OFFSETS: dict[date, timedelta] = {}


def _changes(before: dict, after: dict) -> dict:
    """``audit.changed_fields`` in stored form: each value encoded once."""
    changes = {}
    for key in sorted(set(before) | set(after)):
        if key in audit.HIDDEN_FIELDS:
            continue
        old, new = encode(before.get(key)), encode(after.get(key))
        if old != new:
            changes[key] = {"before": old, "after": new}
    return changes


def creation_changes(fields: dict) -> dict:
    """The changes of a creation (nothing before), from stored values: every field that is not None."""
    return {k: {"before": None, "after": fields[k]} for k in sorted(fields)
            if fields[k] is not None and k not in audit.HIDDEN_FIELDS}


def _same_as_service(built: list[tuple[str, dict]], written: list[tuple[str, dict]]) -> None:
    """Stop when a document built here differs from what the service wrote (a service changed)."""
    for (name, doc), (real_name, real) in zip(built, written, strict=True):
        if (name, list(doc.items())) != (real_name, list(real.items())):
            raise RuntimeError(f"O gerador não reproduz mais o documento de {real_name} escrito pelo serviço; "
                               "atualize o gerador (bench/dataset*.py).")


def _audit_template() -> dict:
    """One entry written by ``audit.record``: its fields in the order the service writes them."""
    sink = Sink(random.Random(0))
    audit.record(sink, SYSTEM, None, "create", "audit", None, {}, {}, "")
    (_, entry), = sink.take()
    return entry


def instant(day: date, rng: random.Random) -> datetime:
    """A moment of office hours (Cuiabá) on ``day``, in UTC (Cuiabá's offset looked up once per day)."""
    offset = _OFFSETS.get(day)
    if offset is None:
        offset = _OFFSETS[day] = datetime.combine(day, clock_time(12), LOCAL).utcoffset()
    local = datetime(day.year, day.month, day.day, rng.randint(7, 17), rng.randint(0, 59), rng.randint(0, 59),
                     tzinfo=timezone.utc)
    return local - offset


class Records:
    """The generator's state and the registry records and audit entries every part of it writes."""

    def __init__(self, db: Database, scale: int, fraction: float = 1.0, dry: bool = False) -> None:
        self.db, self.scale, self.fraction = db, scale, fraction
        self.rng = random.Random(SEED * 1000 + scale)
        self.sink = Sink(self.rng)
        self.out = Writer(db, dry)
        self.now = datetime.combine(TODAY, clock_time(12), LOCAL).astimezone(timezone.utc)
        self.counters: dict[str, int] = {}
        self.taken: set[tuple[str, ...]] = set()  # (municipality, CPF or plate) already generated, per register
        self.statuses: Counter[str] = Counter()
        self.held: dict[str, list[dict]] = defaultdict(list)  # records audit updates may still change
        self.audit_entries: Counter[str | None] = Counter()
        self.audit_template = _audit_template()
        self.checked: set[tuple[str, str]] = set()  # (entity, municipality) whose first record the service wrote
        self.specs: dict[tuple[str, str], schema.EntitySpec] = {}
        self.parsed: dict[tuple[str, str], Any] = {}  # (field, text) -> clean value
        self.stored_events: dict[Any, list[dict]] = {}  # authorization id -> its events in stored form
        self.due_dates: dict[date, tuple[date, str, str | None]] = {}  # per municipality: its calendar

    # -- service calls captured by the sink, at a chosen moment --
    @contextmanager
    def at(self, moment: datetime) -> Iterator[None]:
        saved = clock.now_utc
        clock.now_utc = lambda: moment
        try:
            yield
        finally:
            clock.now_utc = saved

    def create(self, actor: Actor, entity: str, mun: str, values: dict, moment: datetime, keep: str = "queue") -> dict:
        """A record as ``entities.create`` writes it; its audit entry is queued. ``keep``: "queue" the
        record too, "hold" it for later audit updates, or "return" it for the caller to finish and queue.

        The values are cleaned by the entity's spec (each distinct text once) and the record and entry
        built here; the first record of each entity in a municipality is also written by the real
        service and must come out the same, field for field and in the same order."""
        check = (entity, mun) not in self.checked
        state = self.rng.getstate() if check else None
        clean = self.clean(entity, mun, values)
        record = encode({**clean, "municipality": mun, "version": 1, "created_at": moment, "updated_at": moment,
                         "created_by": actor.username})
        record["_id"] = self.sink.new_id()
        entry = self.entry(actor, mun, "create", entity, record["_id"], creation_changes({k: record[k] for k in clean}), "",
                           moment)
        if check:
            self.checked.add((entity, mun))
            self.rng.setstate(state)
            with self.at(moment):
                entities.create(self.sink, actor, entity, mun, values)
            _same_as_service([(entity, record), ("audit", entry)], self.sink.take())
        self.count_audit(mun)
        if keep == "hold":
            self.held[entity].append(record)
        elif keep == "queue":
            self.out.add(entity, record)
        self.out.add("audit", entry)
        return record

    def clean(self, entity: str, mun: str, values: dict) -> dict:
        """``entities.validate`` with the municipality's spec; a text already seen in a field is not parsed again."""
        spec = self.specs.get((entity, mun))
        if spec is None:
            spec = self.specs[(entity, mun)] = entities.spec_for(self.sink, entity, mun)
        clean: dict[str, Any] = {}
        unknown: dict[str, Any] = {}
        for f in spec.fields:
            raw = values.get(f.name)
            if isinstance(raw, str) and (f.name, raw) in self.parsed:
                clean[f.name] = self.parsed[(f.name, raw)]
            else:
                clean[f.name] = unknown[f.name] = raw
        if unknown:
            parsed = entities.validate(spec, unknown, partial=True)
            for name, raw in unknown.items():
                clean[name] = parsed[name]
                if isinstance(raw, str):
                    self.parsed[(name, raw)] = parsed[name]
        return clean

    def count_audit(self, mun: str | None) -> None:
        self.audit_entries[mun] += 1

    def audit(self, actor: Actor, mun: str | None, action: str, collection: str, doc_id: Any, before: dict,
              after: dict, note: str, moment: datetime, stored: dict | None = None) -> None:
        """The entry ``audit.record`` writes for a change from ``before`` to ``after``."""
        self.log(actor, mun, action, collection, doc_id, _changes(before, after), note, moment,
                 stored=stored, values={**before, **after})

    def log(self, actor: Actor, mun: str | None, action: str, collection: str, doc_id: Any, changes: dict,
            note: str, moment: datetime, stored: dict | None = None, values: dict | None = None) -> None:
        """Queue an audit entry (``changes`` in stored form); ``stored`` is the record as the store holds
        it after the write, for the record's own key (``audit.key_from``)."""
        self.count_audit(mun)
        self.out.add("audit", self.entry(actor, mun, action, collection, doc_id, changes, note, moment, stored, values))

    def entry(self, actor: Actor, mun: str | None, action: str, collection: str, doc_id: Any, changes: dict,
              note: str, moment: datetime, stored: dict | None = None, values: dict | None = None) -> dict:
        """An audit entry: the service's template entry with this entry's values, and the record's own
        key as ``audit.record`` keeps it (from the values written, else from ``stored``)."""
        if values is None:
            values = {name: change.get("after") for name, change in changes.items()}
        key = audit.key_from(values, stored) or (actor.username if collection == "users" else "")
        return {**self.audit_template, "at": moment, "username": actor.username, "user_name": actor.name,
                "role": actor.role, "municipality": mun, "action": action, "collection": collection,
                "doc_id": str(doc_id) if doc_id is not None else None, "key": key, "changes": changes,
                "note": note, "_id": self.sink.new_id()}

    def number(self, mun: str, kind: str, year: int) -> tuple[int, str]:
        key = f"{mun}/{kind}/{year}"
        self.counters[key] = self.counters.get(key, 0) + 1
        return self.counters[key], f"{self.counters[key]:04d}/{year}"

    def day_back(self, low: int, high: int) -> date:
        return TODAY - timedelta(days=self.rng.randint(low, high))

    # -- staff users and taxpayers --
    def staff_users(self, mun: str, staff: list[Actor]) -> None:
        template = decode(self.db["users"].find_one({"username": "secretaria.chapada"}))
        for actor in staff:
            if self.db["users"].find_one({"username": actor.username}) is None:
                doc = {**template, "_id": self.sink.new_id(), "username": actor.username, "name": actor.name,
                       "municipalities": [mun]}
                self.out.add("users", encode(doc))
                public = {k: v for k, v in doc.items() if k not in ("password_hash", "_id")}
                self.audit(SYSTEM, None, "create", "users", doc["_id"], {}, public, "", self.now)

    def taxpayers(self, mun: str, staff: list[Actor], count: int) -> None:
        rng = self.rng
        for _ in range(count):
            kind = rng.choices(("pf", "pj", "entidade"), (85, 12, 3))[0]
            values = {
                "name": people_seed.person(rng) if kind == "pf" else f"{rng.choice(people_seed.LAST)} "
                        f"{rng.choice(('Comércio', 'Serviços', 'Agropecuária', 'Transportes'))} Ltda",
                "document": people_seed.cpf(rng) if kind == "pf" else people_seed.cnpj(rng), "kind": kind,
                "address": f"{rng.choice(people_seed.STREETS)}, {rng.randint(10, 1999)}",
                "district": rng.choice(people_seed.DISTRICTS[mun]), "phone": people_seed.phone(rng, mun),
            }
            if ("taxpayer", mun, values["document"]) in self.taken:  # a CPF/CNPJ drawn twice (past ~40k)
                continue
            self.taken.add(("taxpayer", mun, values["document"]))
            self.create(rng.choice(staff), "taxpayers", mun, values, instant(self.day_back(0, DAYS), rng), keep="hold")
        self.out.progress(f"{mun}: contribuintes")

    # -- audit updates to reach the log's size, then the held records --
    def audit_updates(self, mun: str, staff: list[Actor], target: int) -> None:
        rng = self.rng
        written = self.audit_entries[mun]
        records = [(name, doc) for name in ("drivers", "vehicles", "taxpayers") for doc in self.held[name]
                   if doc["municipality"] == mun]
        changes = sorted(((rng.choice(records), self.day_back(0, DAYS)) for _ in range(max(0, target - written))),
                         key=lambda item: item[1])
        for (name, doc), day in changes:
            created = doc["created_at"]
            moment = max(instant(day, rng), created)
            field = "color" if name == "vehicles" else "phone"
            new = rng.choice(ride_seed.COLORS) if name == "vehicles" else people_seed.phone(rng, mun)
            if doc.get(field) == new:
                continue
            actor = rng.choice(staff)
            self.log(actor, mun, "update", name, doc["_id"], {field: {"before": doc.get(field), "after": new}}, "",
                     moment, stored=doc)
            doc.update({field: new, "updated_at": moment, "updated_by": actor.username})
        for name, doc in records:
            self.out.add(name, doc)
        for name in ("drivers", "vehicles", "taxpayers"):
            self.held[name] = [d for d in self.held[name] if d["municipality"] != mun]
        self.out.progress(f"{mun}: auditoria")
