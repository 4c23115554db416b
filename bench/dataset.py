"""Deterministic benchmark dataset: ``python bench/dataset.py --scale N [--out DIR]``.

Two years of the panel up to a fixed "today" (:data:`TODAY`) for the three municipalities, from a
fixed random seed: the same scale gives the same documents, field for field, on every run. Scale 1
is one small municipality's two years in Chapada dos Guimarães (the biggest): about 300 drivers,
300 vehicles, 300 authorizations with their events in every status, 2,000 inspections, 6,000 DAMs
(issued, paid, cancelled, overdue), 30,000 audit entries and its taxpayers and platforms; Matupá has
half of that and Nova Lacerda (machinery: no ride-hailing records yet) half the DAMs and taxpayers.
Scale N multiplies every count.

Shapes come from the services: the first registry record of each entity in a municipality is
written by the real ``entities.create`` against a stand-in database that keeps what it inserts, and
every other record is built here in stored form and must match it field for field (the generator
stops otherwise); audit entries clone one written by ``audit.record``. Authorizations and DAMs copy
the dicts of ``services.ridehailing.authorizations`` and ``services.dam.dams`` with the status, due dates, barcodes and
PIX computed by the rules (``tests/test_bench.py`` checks every shape against documents the
services write). Rules whose result depends only on a value (a due date, a text's cleaning) run
once per value. Everything is written with ``insert_many`` in batches through
``services.store.connect`` (embedded store in ``--out``/``PAINEL_DATA_DIR``, or MongoDB when
``MONGODB_URI`` is set). A store that already holds this generator's dataset at the same scale is
reused (marker ``meta/bench_dataset``). ``--dry`` builds and counts without writing: the
generator's own time, whatever the engine.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from datetime import time as clock_time
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bson import ObjectId  # noqa: E402
from pymongo.database import Database  # noqa: E402

from rules import fmt  # noqa: E402
from rules.dam.dates import due_date, due_date_finding  # noqa: E402
from rules.ridehailing.concepts import EventKind  # noqa: E402
from seed import demo as demo_seed  # noqa: E402
from seed import people as people_seed  # noqa: E402
from seed import ridehailing as ride_seed  # noqa: E402
from seed.municipalities import DEMO_ACT, seed_demo_parameters  # noqa: E402
from services.dam import dams, payments
from services.ridehailing import (  # noqa: E402
    authorization_records,
    authorizations,
    fees,
    inspections,
    registry,
)
from services.setup import bootstrap
from services.shared import audit, clock, entities, parameters, schema
from services.shared.accounts import create_user  # noqa: E402
from services.shared.auth import SYSTEM, Actor  # noqa: E402
from services.shared.errors import Conflict  # noqa: E402
from services.store import connect, decode, encode  # noqa: E402

TODAY = date(2026, 12, 1)  # the dataset's "today": every date counts back from it
FIRST_DAY = date(2025, 1, 2)  # the day after the shared and fee parameters take effect (seed, bootstrap)
DAYS = (TODAY - FIRST_DAY).days  # about two years of history
# Ride-hailing records start once the municipal act is in force (as in seed/ridehailing.py).
RIDE_FIRST_DAY = {"chapada": date(2026, 1, 8), "matupa": date(2025, 8, 29)}
SEED = 20261201
MARKER = "bench_dataset"
BATCH = 20000
RIDE_HAILING = ("chapada", "matupa")
# Share of the scale-1 counts per municipality (Chapada is the biggest and the one pages are timed in).
SHARE = {"chapada": 1.0, "matupa": 0.5, "nova_lacerda": 0.5}
PER_SCALE = {"drivers": 300, "inspections": 2000, "dams": 6000, "audit": 30000, "taxpayers": 600, "staff": 3}
# Where an authorization's history ends: (outcome, weight).
OUTCOMES = (("requested", 4), ("refused", 6), ("awaiting_inspection", 5), ("blocked", 4), ("awaiting_fee", 5),
            ("active", 46), ("renewing", 6), ("expired", 12), ("suspended", 5), ("revoked", 3), ("cassada", 4))
BANKS = ("Banco do Brasil", "Caixa", "Sicredi", "Bradesco", "PIX")
LOCAL = clock.LOCAL_TZ


def generator_version() -> str:
    """Digest of this file: a changed generator makes a new dataset."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def counts_for(scale: int, municipality: str, fraction: float = 1.0) -> dict[str, int]:
    share = SHARE[municipality] * fraction
    return {name: max(1, round(count * scale * share)) for name, count in PER_SCALE.items()}


# ---- a stand-in database that keeps what a service inserts ----

class _NoRows:
    def sort(self, *args: Any, **kwargs: Any) -> "_NoRows":
        return self

    def __iter__(self) -> Iterator[dict]:
        return iter(())


class _Inserted:
    def __init__(self, ids: list) -> None:
        self.inserted_ids = ids
        self.inserted_id = ids[0] if ids else None


class _SinkCollection:
    def __init__(self, sink: "_Sink", name: str) -> None:
        self.sink, self.name = sink, name

    def find(self, *args: Any, **kwargs: Any) -> _NoRows:
        return _NoRows()

    def find_one(self, *args: Any, **kwargs: Any) -> None:
        return None

    def distinct(self, key: str, query: dict, *args: Any, **kwargs: Any) -> list:
        """A reference check (``entities.check_references``) finds every value asked: the dataset
        writes each driver and platform before the records that name them."""
        wanted = query.get(key, {})
        return list(wanted.get("$in", [])) if isinstance(wanted, dict) else [wanted]

    def update_one(self, *args: Any, **kwargs: Any) -> None:
        """Side writes of a service (the audit's action list) are rebuilt by bootstrap at start."""
        return None

    def insert_many(self, docs: list[dict], *args: Any, **kwargs: Any) -> _Inserted:
        ids = []
        for doc in docs:
            doc.setdefault("_id", self.sink.new_id())
            self.sink.kept.append((self.name, doc))
            ids.append(doc["_id"])
        return _Inserted(ids)

    def insert_one(self, doc: dict, *args: Any, **kwargs: Any) -> _Inserted:
        return self.insert_many([doc])


class _Sink:
    """Reads see an empty store (no custom fields); inserts are kept in order, with seeded ids."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.kept: list[tuple[str, dict]] = []

    def __getitem__(self, name: str) -> _SinkCollection:
        return _SinkCollection(self, name)

    def new_id(self) -> ObjectId:
        return ObjectId(self.rng.randbytes(12))

    def take(self) -> list[tuple[str, dict]]:
        kept, self.kept = self.kept, []
        return kept


# ---- the generator ----

class Writer:
    """Buffers documents per collection and writes them with insert_many in batches (``dry``: only counts)."""

    def __init__(self, db: Database, dry: bool = False) -> None:
        self.db, self.dry = db, dry
        self.buffers: dict[str, list[dict]] = defaultdict(list)
        self.counts: Counter[str] = Counter()
        self.started = time.perf_counter()

    def add(self, collection: str, doc: dict) -> None:
        buffer = self.buffers[collection]
        buffer.append(doc)
        if len(buffer) >= BATCH:
            self.flush(collection)

    def flush(self, collection: str | None = None) -> None:
        for name in [collection] if collection else list(self.buffers):
            docs = self.buffers[name]
            if docs:
                if not self.dry:
                    self.db[name].insert_many(docs)
                self.counts[name] += len(docs)
                self.buffers[name] = []

    def progress(self, what: str) -> None:
        total = sum(self.counts.values())
        done = "montados" if self.dry else "gravados"
        print(f"  {time.perf_counter() - self.started:7.1f} s  {total:>9,} documentos {done}  ({what})", flush=True)


_OFFSETS: dict[date, timedelta] = {}
_MONEY: dict[str, Any] = {}
_BRL: dict[Decimal, str] = {}


def _money(amount: Decimal) -> Any:
    """``amount`` as stored (Decimal128), encoded once per amount."""
    key = str(amount)
    found = _MONEY.get(key)
    if found is None:
        found = _MONEY[key] = encode(amount)
    return found


def _brl(amount: Decimal) -> str:
    """``fmt.brl``, formatted once per amount."""
    found = _BRL.get(amount)
    if found is None:
        found = _BRL[amount] = fmt.brl(amount)
    return found


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


def _created(fields: dict) -> dict:
    """The changes of a creation (nothing before), from stored values: every field that is not None."""
    return {k: {"before": None, "after": fields[k]} for k in sorted(fields)
            if fields[k] is not None and k not in audit.HIDDEN_FIELDS}


def _same_as_service(built: list[tuple[str, dict]], written: list[tuple[str, dict]]) -> None:
    """Stop when a document built here differs from what the service wrote (a service changed)."""
    for (name, doc), (real_name, real) in zip(built, written, strict=True):
        if (name, list(doc.items())) != (real_name, list(real.items())):
            raise RuntimeError(f"O gerador não reproduz mais o documento de {real_name} escrito pelo serviço; "
                               "atualize bench/dataset.py.")


def _audit_template() -> dict:
    """One entry written by ``audit.record``: its fields in the order the service writes them."""
    sink = _Sink(random.Random(0))
    audit.record(sink, SYSTEM, None, "create", "audit", None, {}, {}, "")
    (_, entry), = sink.take()
    return entry


def _instant(day: date, rng: random.Random) -> datetime:
    """A moment of office hours (Cuiabá) on ``day``, in UTC (Cuiabá's offset looked up once per day)."""
    offset = _OFFSETS.get(day)
    if offset is None:
        offset = _OFFSETS[day] = datetime.combine(day, clock_time(12), LOCAL).utcoffset()
    local = datetime(day.year, day.month, day.day, rng.randint(7, 17), rng.randint(0, 59), rng.randint(0, 59),
                     tzinfo=timezone.utc)
    return local - offset


class Generator:
    def __init__(self, db: Database, scale: int, fraction: float = 1.0, dry: bool = False) -> None:
        self.db, self.scale, self.fraction = db, scale, fraction
        self.rng = random.Random(SEED * 1000 + scale)
        self.sink = _Sink(self.rng)
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
        entry = self.entry(actor, mun, "create", entity, record["_id"], _created({k: record[k] for k in clean}), "",
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

    # -- whole run --
    def run(self) -> Counter[str]:
        # Millions of small dicts and no reference cycles: the cyclic collector would only rescan them
        # (40 % of the time at scale 10). Reference counting still frees every written batch.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for mun in ("chapada", "matupa", "nova_lacerda"):
                self.municipality(mun)
        finally:
            if collecting:
                gc.enable()
        self.out.flush()
        for key, seq in sorted(self.counters.items()):
            self.db["counters"].update_one({"_id": key}, {"$set": {"seq": seq}}, upsert=True)
        self.out.progress("contadores")
        return self.out.counts

    def municipality(self, mun: str) -> None:
        counts = counts_for(self.scale, mun, self.fraction)
        staff = [Actor(f"servidor{i + 1}.{mun}", f"Servidor {i + 1} ({mun})", "secretaria", (mun,))
                 for i in range(counts["staff"])]
        self.staff_users(mun, staff)
        self.book = parameters.book(self.db, mun)
        self.calendar = parameters.calendar(self.db, mun, TODAY)
        self.settings = dams._settings(self.db, mun, TODAY)
        self.due_dates.clear()
        self.taxpayers(mun, staff, counts["taxpayers"])
        if mun in RIDE_HAILING:
            self.rules = registry.rules_of(mun)
            cnpjs = self.platforms(mun, staff)
            self.ride_hailing(mun, staff, counts, cnpjs)
        self.other_dams(mun, staff, counts["dams"])
        self.audit_updates(mun, staff, counts["audit"])
        self.out.flush()
        self.out.progress(f"{mun} pronto")

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
            self.create(rng.choice(staff), "taxpayers", mun, values, _instant(self.day_back(0, DAYS), rng), keep="hold")
        self.out.progress(f"{mun}: contribuintes")

    def platforms(self, mun: str, staff: list[Actor]) -> list[str]:
        rng, cnpjs = self.rng, []
        for index, (name, slug) in enumerate(demo_seed.PLATFORMS):
            credentialed = RIDE_FIRST_DAY[mun] + timedelta(days=30 * index)
            values = {
                "name": name, "cnpj": people_seed.cnpj(rng), "contact_name": people_seed.person(rng),
                "phone": people_seed.phone(rng, mun), "email": f"regulatorio@{slug.replace('á', 'a')}.com.br",
                "insurer": rng.choice(["Porto Seguro", "Tokio Marine", "Mapfre"]),
                "policy_number": f"{rng.randint(10**9, 10**10 - 1)}",
                "insurance_coverage": Decimal(["100000.00", "50000.00", "30000.00"][index]),
                "insurance_valid_from": credentialed, "insurance_valid_until": date(2027, rng.randint(1, 12), 28),
                "status": ["ativo", "ativo", "pendente"][index], "credentialed_on": credentialed,
            }
            doc = self.create(rng.choice(staff), "platforms", mun, values, _instant(credentialed, rng))
            cnpjs.append(doc["cnpj"])
            month = credentialed.replace(day=1)
            while month < TODAY.replace(day=1):
                for kind, on in (("issqn", month), ("lista", month + timedelta(days=rng.randint(3, 25)))):
                    if on < TODAY and rng.random() > 0.05:
                        self.create(rng.choice(staff), "platform_reports", mun,
                                    {"platform_cnpj": doc["cnpj"], "kind": kind, "on": on,
                                     "reference": "Guia de ISSQN" if kind == "issqn" else "Protocolo digital"},
                                    _instant(min(on + timedelta(days=2), TODAY), rng))
                month = (month + timedelta(days=32)).replace(day=1)
        return cnpjs[:2]

    # -- ride-hailing --
    def ride_hailing(self, mun: str, staff: list[Actor], counts: dict[str, int], cnpjs: list[str]) -> None:
        rng = self.rng
        history = (TODAY - RIDE_FIRST_DAY[mun]).days
        outcomes = [name for name, _ in OUTCOMES]  # every outcome once, then as weighted
        outcomes += rng.choices(outcomes, [w for _, w in OUTCOMES], k=max(0, counts["drivers"] - len(outcomes)))
        plans = sorted(((self.day_back(12, history - 10), outcome) for outcome in outcomes), key=lambda plan: plan[0])
        reaching = sum(1 for _, outcome in plans if outcome not in ("requested", "refused", "awaiting_inspection"))
        # each extra day brings 1.35 vistorias on average (a failure and its return, a call, an annual one)
        self.extra_inspections = max(0.0, (counts["inspections"] / max(1, reaching) - 1) / 1.35)
        for protocol, outcome in plans:
            actor = rng.choice(staff)
            created = _instant(max(protocol - timedelta(days=rng.randint(1, 10)), RIDE_FIRST_DAY[mun]), rng)
            driver = self.driver(mun, actor, protocol, outcome, cnpjs, created)
            car = ride_seed.vehicle_values(rng, driver["cpf"], protocol)
            while (mun, car["plate"]) in self.taken:  # plates are unique per municipality too
                car = ride_seed.vehicle_values(rng, driver["cpf"], protocol)
            self.taken.add((mun, car["plate"]))
            car["first_registration"] = min(car["first_registration"], clock.local_date(created))  # typed that day
            if outcome == "refused":
                car = {**car, "model_year": protocol.year - 11}
            vehicle = self.create(actor, "vehicles", mun, car, created, keep="hold")
            self.authorization(mun, actor, driver, vehicle, protocol, outcome)
        self.out.progress(f"{mun}: condutores, veículos, autorizações, vistorias")
        print(f"           situações em {fmt.day(TODAY)}: " + ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items())))
        self.statuses.clear()

    def driver(self, mun: str, actor: Actor, protocol: date, outcome: str, cnpjs: list[str], created: datetime) -> dict:
        rng = self.rng
        entered = clock.local_date(created)  # the driver's records are typed that day: none is dated after it
        values = ride_seed.driver_values(rng, mun, protocol, platform_cnpj=rng.choice(cnpjs))
        while (mun, values["cpf"]) in self.taken:  # CPFs are unique per municipality (collide past ~40k drivers)
            values = ride_seed.driver_values(rng, mun, protocol, platform_cnpj=rng.choice(cnpjs))
        self.taken.add((mun, values["cpf"]))
        values["cnh_valid_until"] = TODAY + timedelta(days=rng.randint(-30, 1500))
        driver = self.create(actor, "drivers", mun, values, created, keep="hold")
        issued = min(protocol - timedelta(days=rng.randint(5, 20)), entered)
        for code in ride_seed.DOCUMENTS[mun]:
            self.create(actor, "driver_documents", mun, {"driver_cpf": driver["cpf"], "code": code, "issued_on": issued},
                        created)
        if rng.random() < 0.15:
            self.create(actor, "traffic_infractions", mun, {
                "driver_cpf": driver["cpf"], "committed_on": protocol - timedelta(days=rng.randint(30, 900)),
                "severity": rng.choice(("leve", "media", "grave", "gravissima")),
                "description": "Estacionar em local proibido (CTB art. 181)"}, created)
        if rng.random() < 0.5:
            self.create(actor, "training_courses", mun, {
                "driver_cpf": driver["cpf"], "held_on": min(protocol - timedelta(days=rng.randint(1, 60)), entered),
                "title": "Curso de relações humanas e direção defensiva"}, created)
        return driver

    def authorization(self, mun: str, actor: Actor, driver: dict, vehicle: dict, protocol: date, outcome: str) -> None:
        rng = self.rng
        _, protocol_number = self.number(mun, authorizations.PROTOCOL_KIND, protocol.year)
        doc = self.create(actor, "authorizations", mun, {
            "protocol": protocol_number, "protocol_date": protocol, "driver_cpf": driver["cpf"],
            "plate": vehicle["plate"], "status": "requested"}, _instant(protocol, rng), keep="return")
        doc["events"] = []
        self.event(mun, actor, doc, EventKind.REQUESTED, protocol, note=f"Protocolo {protocol_number}")
        if outcome == "requested":
            return self.done(doc)
        if outcome == "refused":
            reasons = [f"Veículo com mais de 10 anos de fabricação (ano modelo {vehicle['model_year']})"]
            self.event(mun, actor, doc, EventKind.REFUSED, protocol + timedelta(days=3), note="; ".join(reasons),
                       extra={"refusal_reasons": reasons})
            return self.done(doc)
        self.event(mun, actor, doc, EventKind.APPROVED, protocol + timedelta(days=2))
        if outcome == "awaiting_inspection":
            return self.done(doc)
        self.inspection(mun, actor, doc, protocol + timedelta(days=4), passed=True)
        paid_on = protocol + timedelta(days=6)
        if outcome == "awaiting_fee" or paid_on >= TODAY:
            self.fee_dam(mun, actor, doc, min(paid_on, TODAY), "initial", paid=False)
            return self.done(doc)
        self.fee_dam(mun, actor, doc, paid_on, "initial", paid=True)
        last = {"blocked": TODAY - timedelta(days=8), "suspended": TODAY - timedelta(days=12),
                "revoked": TODAY - timedelta(days=rng.randint(15, 60)),
                "cassada": TODAY - timedelta(days=rng.randint(15, 60))}.get(outcome, TODAY - timedelta(days=1))
        self.life(mun, actor, doc, paid_on, last, outcome)
        last = max(last, doc["events"][-1]["on"])
        if outcome == "blocked":
            self.inspection(mun, actor, doc, max(last, TODAY - timedelta(days=rng.randint(1, 4))), passed=False)
        elif outcome == "suspended":
            self.event(mun, actor, doc, EventKind.SUSPENDED, last, last + timedelta(days=30),
                       note="Suspensão de 30 dias por infração ao regulamento")
        elif outcome in ("revoked", "cassada"):
            kind = EventKind.REVOKED if outcome == "revoked" else EventKind.CASSADA
            self.event(mun, actor, doc, kind, last, note="Decisão em processo administrativo")
        elif outcome == "renewing":
            self.event(mun, actor, doc, EventKind.RENEWAL_REQUESTED, max(last, TODAY - timedelta(days=rng.randint(1, 10))))
            self.fee_dam(mun, actor, doc, doc["events"][-1]["on"], "renewal", paid=False)
        return self.done(doc)

    def life(self, mun: str, actor: Actor, doc: dict, start: date, end: date, outcome: str) -> None:
        """Annual and extra vistorias, convocations and renewals from the fee payment up to ``end``."""
        rng = self.rng
        span = max(1, (end - start).days)
        extra = rng.randint(0, round(2 * self.extra_inspections))
        days = sorted(start + timedelta(days=rng.randint(1, span)) for _ in range(extra)) if span > 8 else []
        valid = self.rules.validity_end(start)
        for day in [*days, None]:
            while valid < (day or end) and outcome != "expired":
                requested = valid - timedelta(days=rng.randint(10, 25))
                self.event(mun, actor, doc, EventKind.RENEWAL_REQUESTED, max(requested, doc["events"][-1]["on"]))
                paid_on = doc["events"][-1]["on"] + timedelta(days=2)
                self.fee_dam(mun, actor, doc, paid_on, "renewal", paid=True)
                valid = self.state(doc, mun, paid_on).valid_until
            if day is None or day >= end or (outcome == "expired" and day > valid):
                break
            if day <= doc["events"][-1]["on"]:
                continue
            what = rng.random() if day + timedelta(days=4) < end else 1.0
            if what < 0.35:
                self.inspection(mun, actor, doc, day, passed=False)
                self.inspection(mun, actor, doc, day + timedelta(days=3), passed=True)
            elif what < 0.55:
                self.call(mun, actor, doc, day)
                self.inspection(mun, actor, doc, day + timedelta(days=4), passed=True)
            else:
                self.inspection(mun, actor, doc, day, passed=True)

    def event(self, mun: str, actor: Actor, doc: dict, kind: EventKind, on: date, until: date | None = None,
              note: str = "", extra: dict | None = None, who: Actor | None = None) -> None:
        """What ``ridehailing._add_event`` writes: the event, status and validity, and the audit entry
        (whose event lists are kept in stored form, one event encoded once)."""
        who = who or actor
        entry = {"kind": kind.value, "on": on, "until": until, "note": note, "by": who.username}
        after = {**doc, "events": [*doc.get("events", []), entry], **(extra or {})}
        state = self.state(after, mun, on)
        changes = {"events": after["events"], "status": state.status.value, "valid_until": state.valid_until,
                   **(extra or {})}
        before = {k: doc.get(k) for k in changes}
        moment = _instant(on, self.rng)
        stored_before = self.stored_events.get(doc["_id"], [])
        stored_after = self.stored_events[doc["_id"]] = [*stored_before, encode(entry)]
        logged = {}
        for key in sorted(changes):
            old, new = (stored_before, stored_after) if key == "events" else (encode(before[key]), encode(changes[key]))
            if old != new:
                logged[key] = {"before": old, "after": new}
        doc.update({**changes, "updated_at": moment})
        self.log(who, mun, kind.value, "authorizations", doc["_id"], logged, note, moment, stored=doc)

    def state(self, doc: dict, mun: str, on: date):
        return self.rules.authorization_status(registry.authorization_concept(doc), on, self.book, self.calendar)

    def done(self, doc: dict) -> None:
        status = self.state(doc, doc["municipality"], TODAY).status
        self.statuses[status.value] += 1
        if status not in authorization_records.ENDED:  # only open records carry the keys (an expired one until reused)
            doc.update(authorization_records.open_keys(doc["municipality"], doc["plate"], doc["driver_cpf"]))
        self.out.add("authorizations", encode(doc))

    def inspection(self, mun: str, actor: Actor, doc: dict, on: date, passed: bool) -> None:
        """What ``ridehailing.record_inspection`` writes: the inspection with its answers, then the event."""
        answers = {item.code: True for item in self.rules.inspection_items}
        if not passed:
            answers[self.rng.choice(list(answers))] = False
        decision = self.rules.evaluate_inspection(answers)
        deadline = None if decision.ok else self.rules.fix_deadline(on, self.calendar)
        pendings = "; ".join(f.message for f in decision.failures)
        record = self.create(actor, "inspections", mun, {
            "authorization_id": str(doc["_id"]), "plate": doc["plate"], "kind": inspections.inspection_kind(doc),
            "performed_on": on, "result": "approved" if decision.ok else "failed", "fix_deadline": deadline,
            "inspector": "Vistoriador municipal", "notes": pendings}, _instant(on, self.rng), keep="return")
        record["answers"] = dict(answers)
        self.out.add("inspections", record)
        kind = EventKind.INSPECTION_PASSED if decision.ok else EventKind.INSPECTION_FAILED
        self.event(mun, actor, doc, kind, on, note=pendings)

    def call(self, mun: str, actor: Actor, doc: dict, on: date) -> None:
        deadline = self.rules.convocation_deadline(on, self.book, self.calendar)
        _, number = self.number(mun, inspections.CONVOCATION_KIND, on.year)
        note = "Denúncia de passageiro sobre o estado do veículo"
        self.event(mun, actor, doc, EventKind.INSPECTION_CALLED, on, note=note,
                   extra={"convocation": {"number": number, "called_on": on, "deadline": deadline, "reason": note}})

    def fee_dam(self, mun: str, actor: Actor, doc: dict, on: date, purpose: str, paid: bool) -> None:
        """The fee DAM of ``issue_fee_dam`` and, when paid, what ``fee_paid`` records."""
        amount = Decimal(str(self.book.get(fees.FEE_PARAMETER, on)))
        renewal = purpose == "renewal"
        driver = next(d for d in reversed(self.held["drivers"]) if d["cpf"] == doc["driver_cpf"])
        address = ", ".join(x for x in (driver.get("address"), driver.get("district")) if x)
        description = (f"Taxa de {'renovação' if renewal else 'expedição'} da autorização de transporte por "
                       f"aplicativo — protocolo {doc['protocol']}, placa {entities.fields.show('plate', doc['plate'])}")
        dam = self.dam(mun, actor, on, {"name": driver["name"], "document": doc["driver_cpf"], "address": address},
                       "taxa_autorizacao", description,
                       self.rules.ref("fee"), amount, self.calendar.add_days(on, fees.FEE_DUE_DAYS),
                       {"collection": "authorizations", "id": str(doc["_id"]), "label": f"Autorização {doc['protocol']}"},
                       paid_on=on if paid else None)
        fee = {"dam_id": str(dam["_id"]), "number": dam["number"], "amount": amount, "due": dam["due_on"],
               "purpose": purpose, "paid": False, "fee_total": amount, "received": [], "short": None}
        doc["fee_dam"] = fee
        self.audit(actor, mun, "fee_dam", "authorizations", doc["_id"], {}, {"fee_dam": fee}, "", _instant(on, self.rng),
                   stored=doc)
        if not paid:
            return
        received = [{"dam_id": fee["dam_id"], "number": fee["number"], "amount": amount, "paid_on": on, "alerts": []}]
        extra = {"fee_dam": {**fee, "received": received, "paid": True, "paid_on": on, "short": None}}
        if not renewal:
            _, extra["number"] = self.number(mun, fees.NUMBER_KIND, on.year)
            extra["issued_on"] = on
        kind = EventKind.RENEWAL_FEE_PAID if renewal else EventKind.FEE_PAID
        self.event(mun, actor, doc, kind, on, note=f"DAM {fee['number']} pago", extra=extra, who=registry.DAM_ACTOR)

    # -- DAMs --
    def dam(self, mun: str, actor: Actor, issued_on: date, taxpayer: dict, kind: str, description: str, basis: str,
            amount: Decimal, due: date, pays: dict | None, paid_on: date | None = None, cancelled: bool = False) -> dict:
        """A DAM as ``dams.issue`` writes it (stored form), then paid (``record_payment``) or cancelled
        (``cancel``). Returns its id, number and printed due date."""
        rng = self.rng
        due_on, due_note, moved = self.due_date(due)
        sequence, number = self.number(mun, "dam", issued_on.year)
        barcode = self.settings.barcode(amount, due_on, issued_on.year, sequence)
        pix = self.settings.pix_payload(amount, issued_on.year, sequence)
        now = _instant(issued_on, rng)
        issued = {
            "municipality": mun, "number": number, "year": issued_on.year,
            "sequence": sequence, "taxpayer_name": taxpayer["name"], "taxpayer_document": taxpayer["document"],
            "taxpayer_address": taxpayer["address"], "revenue_kind": kind, "description": description,
            "legal_basis": basis, "amount": _money(amount), "principal": _money(amount), "discount": _money(Decimal("0")),
            "fine": _money(Decimal("0")), "interest": _money(Decimal("0")), "reference": str(issued_on.year),
            "revenue_code": dams.revenue_code(self.book, issued_on, kind),
            "after_due": dams._after_due_text(self.book, due_on), "issued_on": issued_on.isoformat(),
            "requested_due": due.isoformat(), "due_on": due_on.isoformat(), "due_note": due_note,
            "barcode": barcode.digits, "line": barcode.line, "pix_payload": pix,
            "instructions": dams._instructions("", moved, (pays or {}).get("label", ""), pix is not None),
            "pays": pays, "status": dams.ISSUED,
        }
        doc = {
            "_id": self.sink.new_id(), **issued,
            "history": [{"at": now, "status": dams.ISSUED, "by": actor.username,
                         "note": f"Emitido com vencimento em {fmt.day(due_on)}" + (f" ({moved})" if moved else "")}],
            "payment": None, "cancel_reason": None, "created_at": now, "created_by": actor.username,
        }
        self.log(actor, mun, "create", dams.COLLECTION, doc["_id"], _created({**issued, "created_by": actor.username}),
                 f"DAM {number} emitido", now)
        if paid_on is not None:
            self.pay(mun, actor, doc, amount, due_on, paid_on)
        elif cancelled:
            reason = "Emitido em duplicidade"
            moment = _instant(issued_on + timedelta(days=rng.randint(0, 5)), rng)
            doc["history"].append({"at": moment, "status": dams.CANCELLED, "by": actor.username, "note": reason})
            doc.update(status=dams.CANCELLED, cancel_reason=reason, updated_at=moment)
            self.log(actor, mun, "cancel", dams.COLLECTION, doc["_id"],
                     {"cancel_reason": {"before": None, "after": reason},
                      "status": {"before": dams.ISSUED, "after": dams.CANCELLED}},
                     f"DAM {number} cancelado: {reason}", moment, stored=doc)
        self.out.add(dams.COLLECTION, doc)
        return {"_id": doc["_id"], "number": number, "due_on": due_on}

    def due_date(self, due: date) -> tuple[date, str, str | None]:
        """The printed due date, its note and the reason it moved (None when it did not), once per date."""
        found = self.due_dates.get(due)
        if found is None:
            due_on = due_date(due, self.calendar)
            finding = due_date_finding(due, self.calendar)
            found = self.due_dates[due] = (due_on, finding.text(), finding.message if due_on != due else None)
        return found

    def pay(self, mun: str, actor: Actor, doc: dict, due_amount: Decimal, due_on: date, paid_on: date) -> None:
        rng = self.rng
        amount = due_amount if rng.random() > 0.03 else due_amount - Decimal("10.00")
        flags, notes = [], []
        if amount != due_amount:
            flags.append(payments.FLAG_AMOUNT)
            notes.append(f"Valor pago {_brl(amount)} difere do valor do DAM {_brl(due_amount)} "
                         f"({_brl(due_amount - amount)} a menor)")
        if paid_on > due_on:
            flags.append(payments.FLAG_LATE)
            notes.append(f"Pago em {fmt.day(paid_on)}, após o vencimento em {fmt.day(due_on)}")
        moment = _instant(paid_on, rng)
        payment = {"paid_on": paid_on.isoformat(), "amount": _money(amount), "bank": rng.choice(BANKS),
                   "origin": {"kind": "manual"}, "flags": flags, "notes": notes, "recorded_at": moment,
                   "recorded_by": actor.username}
        note = f"Pago em {fmt.day(paid_on)}, {_brl(amount)} (baixa manual)"
        if notes:
            note += ". Alertas: " + "; ".join(notes)
        doc["history"].append({"at": moment, "status": dams.PAID, "by": actor.username, "note": note})
        doc.update(status=dams.PAID, payment=payment, updated_at=moment)
        if doc.get("pays"):  # the outbox ran the linked record's handler
            doc["handlers_done_at"] = moment
        self.log(actor, mun, "pay", dams.COLLECTION, doc["_id"],
                 {"payment": {"before": None, "after": payment}, "status": {"before": dams.ISSUED, "after": dams.PAID}},
                 f"DAM {doc['number']}: {note}", moment, stored=doc)

    def other_dams(self, mun: str, staff: list[Actor], target: int) -> None:
        """Fill the DAM count with the municipality's revenues: paid, issued, overdue and cancelled."""
        rng = self.rng
        already = sum(seq for key, seq in self.counters.items() if key.startswith(f"{mun}/dam/"))
        people = self.held["taxpayers"]
        people = [p for p in people if p["municipality"] == mun]
        for issued_on in sorted(self.day_back(0, DAYS) for _ in range(max(0, target - already))):
            kind, description, basis, amount = rng.choice(demo_seed.DEMO_DAMS[mun])
            person = rng.choice(people)
            amount = Decimal(amount) + Decimal(rng.randint(0, 400))
            due = issued_on + timedelta(days=rng.choice((10, 15, 30)))
            fate = rng.random()
            paid_on = None
            if fate < 0.6:
                candidate = issued_on + timedelta(days=rng.randint(0, 40))
                paid_on = candidate if candidate < TODAY else None
            address = ", ".join(p for p in (person["address"], person.get("district")) if p)
            self.dam(mun, rng.choice(staff), issued_on, {**person, "address": address}, kind,
                     description.replace(" (demonstração)", ""), basis, amount, due, None, paid_on=paid_on,
                     cancelled=paid_on is None and fate > 0.93)
        self.out.progress(f"{mun}: DAMs")

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
            moment = max(_instant(day, rng), created)
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


# ---- preparation and reuse ----

def prepare(db: Database) -> None:
    """Indexes, municipalities and parameters (bootstrap), the demo parameters and users."""
    bootstrap.prepare(db)
    bootstrap.mark_store(db, "demo")
    seed_demo_parameters(db)
    ride_seed.seed_fee(db)
    from rules.dam import parameters as dam_parameters
    from rules.params import ParameterVersion

    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, demo_seed.DEMO_PIX_KEY),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, DEMO_ACT))
    for username, name, role, municipalities in demo_seed.DEMO_USERS:
        try:
            create_user(db, SYSTEM, username, name, role, municipalities, demo_seed.DEMO_PASSWORD)
        except Conflict:
            pass


def marker(db: Database) -> dict | None:
    return db["meta"].find_one({"_id": MARKER})


def generate(db: Database, scale: int, fraction: float = 1.0) -> dict:
    """Fill ``db`` with the dataset of ``scale``, or reuse it when already there. Returns the marker.
    ``fraction`` shrinks every count (tests use a tiny dataset)."""
    found = marker(db)
    version = generator_version()
    if found and (found.get("scale"), found.get("fraction", 1.0), found.get("version")) == (scale, fraction, version):
        print(f"Conjunto de dados da escala {scale} já gerado (versão {version}): reaproveitado.")
        return found
    if found or db["drivers"].find_one({}, {"_id": 1}) is not None:
        raise SystemExit("Este armazenamento já tem outros dados (outra escala ou versão do gerador); "
                         "use uma pasta vazia (--out) ou outro banco (MONGODB_DB).")
    started = time.perf_counter()
    print(f"Gerando o conjunto de dados da escala {scale} (hoje fixo {fmt.day(TODAY)})…", flush=True)
    prepare(db)
    counts = Generator(db, scale, fraction).run()
    doc = {"_id": MARKER, "scale": scale, "fraction": fraction, "version": version, "today": TODAY.isoformat(),
           "counts": dict(sorted(counts.items())), "seconds": round(time.perf_counter() - started, 1)}
    db["meta"].insert_many([doc])
    print("Documentos por coleção: " + ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items())))
    print(f"Pronto em {doc['seconds']} s.")
    return doc


def build_only(scale: int, fraction: float = 1.0) -> dict:
    """Build the dataset of ``scale`` without writing it (a throwaway store holds the parameters):
    the generator's own time, whatever the engine. Returns the counts and seconds."""
    with tempfile.TemporaryDirectory() as folder:
        db = connect(uri="", data_dir=folder)
        prepare(db)
        print(f"Montando (sem gravar) o conjunto de dados da escala {scale}…", flush=True)
        started, cpu = time.perf_counter(), time.process_time()
        counts = Generator(db, scale, fraction, dry=True).run()
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print("Documentos por coleção: " + ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items())))
    print(f"Montados {sum(counts.values()):,} documentos em {seconds:.1f} s ({cpu:.1f} s de CPU).")
    return {"counts": dict(counts), "seconds": seconds, "cpu": cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Gera o conjunto de dados determinístico do benchmark.")
    parser.add_argument("--scale", type=int, default=1, help="multiplica as quantidades (1 = dois anos de um município pequeno)")
    parser.add_argument("--out", help="pasta do armazenamento embutido (padrão: PAINEL_DATA_DIR)")
    parser.add_argument("--fraction", type=float, default=1.0, help="fração das quantidades (para testes)")
    parser.add_argument("--dry", action="store_true", help="só monta e conta os documentos, sem gravar (mede o gerador)")
    args = parser.parse_args(argv)
    if args.scale < 1:
        parser.error("--scale deve ser 1 ou mais")
    if args.dry:
        build_only(args.scale, args.fraction)
        return 0
    generate(connect(data_dir=args.out), args.scale, args.fraction)
    return 0


if __name__ == "__main__":
    sys.exit(main())
