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
``MONGODB_URI`` is set). The CLI and ``bench/run.py`` use both cores: two processes write the
municipalities side by side, each from its own seed (the same documents as one process writes), then
clone the replayed chains and rebuild the views side by side (``generate`` with ``reopen``). A store
that already holds this generator's dataset at the same scale is reused (marker
``meta/bench_dataset``). ``--dry`` builds and counts without writing: the generator's own time,
whatever the engine.

The parts, each building on the one before: ``bench/dataset_plan.py`` (today, span, counts per
scale), ``bench/dataset_store.py`` (the stand-in database and the batched writer),
``bench/dataset_records.py`` (registry records, audit entries, staff and taxpayers),
``bench/dataset_dams.py`` (DAMs and payments) and ``bench/dataset_ridehailing.py`` (platforms,
drivers, vehicles, authorizations, vistorias and fee DAMs); this module runs them per municipality,
prepares the store and reuses a dataset already written.
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pymongo.database import Database  # noqa: E402

from bench import dataset_chains, dataset_services  # noqa: E402
from bench.dataset_plan import RIDE_HAILING, SEED, TODAY, counts_for  # noqa: E402
from bench.dataset_ridehailing import RideHailingRecords  # noqa: E402
from bench.dataset_store import forked  # noqa: E402
from rules import fmt  # noqa: E402
from rules.dam import parameters as dam_parameters  # noqa: E402
from rules.params import ParameterVersion  # noqa: E402
from seed import demo as demo_seed  # noqa: E402
from seed import ridehailing as ride_seed  # noqa: E402
from seed.municipalities import DEMO_ACT, seed_demo_parameters  # noqa: E402
from seed.timeline import on  # noqa: E402
from services import store  # noqa: E402
from services.dam import dams  # noqa: E402
from services.ridehailing import registry  # noqa: E402
from services.setup import bootstrap  # noqa: E402
from services.shared import parameters, views  # noqa: E402
from services.shared.accounts import create_user  # noqa: E402
from services.shared.auth import SYSTEM, Actor  # noqa: E402
from services.shared.errors import Conflict  # noqa: E402
from services.store import connect  # noqa: E402

MARKER = "bench_dataset"
MUNICIPALITIES = ("chapada", "matupa", "nova_lacerda")
# What the generator writes (the audit too, but prepare() writes its users' and parameters' entries)
GENERATED = ("taxpayers", "platforms", "drivers", "vehicles", "authorizations", "inspections", "dams", "charges")
# The municipalities written side by side, one process each group: Chapada is as big as the other two
# (dataset_plan.SHARE), and SQLite takes one writer at a time while the other builds its documents.
SIDE_BY_SIDE = (("chapada",), ("matupa", "nova_lacerda"))
# Then the clones and the views, one process each municipality: Nova Lacerda's requests are most of the
# clones, Chapada's views take as long, and Matupá's fill the gaps of the two on the two cores (at scale
# 100, Chapada and Matupá in one process took 297 s for their views alone).
FINISHED_SIDE_BY_SIDE = (("nova_lacerda",), ("chapada",), ("matupa",))
# The generator's connections keep every index they fill in memory (with the panel's 64 MB, an insert
# into a random-keyed index of a store past that size reads its page back: scale 10 took 183 s with
# SQLite's 2 MB, 146 s with 1 GB) and sync the WAL at checkpoints only (a dataset cut short by a power
# failure has no marker and is made again). The figures' connections keep the panel's settings.
GENERATION_SETTINGS = {"PAINEL_SQLITE_CACHE_MB": "4096", "PAINEL_SQLITE_SYNCHRONOUS": "NORMAL",
                       "PAINEL_SQLITE_MMAP_MB": "32768"}
# Written in bulk without their secondary indexes, which are built afterwards, each in one sorted pass:
# an insert into a large random-keyed index dirties a page of its own, and at scale 100 a batch of
# 20.000 documents wrote gigabytes of WAL (the scale-100 store reached 15 GB and its WAL 12 GB with a
# third of the documents written).
BULK = ("audit", "dams", "charges", "taxpayers", "drivers", "vehicles", "authorizations", "inspections",
        "driver_documents", "training_courses", "traffic_infractions")
SOURCES = sorted(Path(__file__).resolve().parent.glob("dataset*.py"))  # this module and its parts


def generator_version() -> str:
    """Digest of the generator's files and of the views' versions: a changed generator makes a new
    dataset, and so does a view that keeps something new (else the panel would rebuild it at its first
    start on the benchmark's copy, inside the figures)."""
    digest = hashlib.sha256()
    for source in SOURCES:
        digest.update(source.read_bytes())
    digest.update(repr(sorted((view.name, view.version) for view in views.all_views())).encode())
    return digest.hexdigest()[:16]


@contextmanager
def without_cycle_collector() -> Iterator[None]:
    """Millions of small dicts and no reference cycles: the cyclic collector would only rescan them
    (40 % of the generator's time at scale 10; the views' rebuild too holds a municipality's rows).
    Reference counting still frees every written batch."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def drop_indexes(db: Database, names: tuple[str, ...]) -> dict[str, list[tuple[list, dict]]]:
    """Drop the secondary indexes of ``names``; what :func:`recreate_indexes` needs to make them again."""
    kept = {}
    for name in names:
        specs = [(spec["key"], {"name": index, **{k: v for k, v in spec.items()
                                                  if k in ("unique", "sparse", "partialFilterExpression")}})
                 for index, spec in db[name].index_information().items() if index != "_id_"]
        if specs:
            db[name].drop_indexes()
            kept[name] = specs
    return kept


def recreate_indexes(db: Database, kept: dict[str, list[tuple[list, dict]]]) -> None:
    """The indexes :func:`drop_indexes` dropped, each built over the documents now written (a unique one
    that the documents break stops the generator, as the insert would have)."""
    for name, specs in kept.items():
        for keys, options in specs:
            db[name].create_index(keys, **options)


def write_counters(db: Database, counters: dict[str, int]) -> None:
    """The municipalities' number sequences (protocols, DAMs) where the services go on from."""
    for key, seq in sorted(counters.items()):
        db["counters"].update_one({"_id": key}, {"$set": {"seq": seq}}, upsert=True)


class Generator(RideHailingRecords):
    """The whole dataset, municipality by municipality."""

    def run(self, municipalities: tuple[str, ...] = MUNICIPALITIES) -> Counter[str]:
        """Write the records of ``municipalities``; the documents written per collection (the numbers
        drawn are in ``counters``, for :func:`write_counters`)."""
        with without_cycle_collector():
            for mun in municipalities:
                self.municipality(mun)
        self.out.flush()
        return self.out.counts

    def municipality(self, mun: str) -> None:
        # Each municipality draws from its own seed: the same documents whether the municipalities are
        # written one after the other or side by side (:func:`generate` with ``reopen``).
        self.rng.seed(f"{SEED}:{self.scale}:{mun}")
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


# ---- preparation and reuse ----

def prepare(db: Database) -> None:
    """Indexes, municipalities and parameters (bootstrap), the demo parameters and users."""
    bootstrap.prepare(db)
    bootstrap.mark_store(db, "demo")
    seed_demo_parameters(db)
    ride_seed.seed_fee(db)
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, demo_seed.DEMO_PIX_KEY),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, DEMO_ACT))
    for username, name, role, municipalities in demo_seed.DEMO_USERS:
        try:
            create_user(db, SYSTEM, username, name, role, municipalities, demo_seed.DEMO_PASSWORD)
        except Conflict:
            pass


def generation_settings() -> Any:
    """Stores opened inside (the generated one) get :data:`GENERATION_SETTINGS`."""
    return mock.patch.dict(os.environ, GENERATION_SETTINGS)


def reopen_generated(folder: str | None = None, db_name: str | None = None) -> Database:
    """The store the dataset is generated in (embedded in ``folder``, or MONGODB_URI's ``db_name``),
    with :data:`GENERATION_SETTINGS`."""
    with generation_settings():
        return connect(data_dir=folder, db_name=db_name)


def holds_records(db: Database) -> bool:
    """Whether the store has records of the kinds the dataset writes (a generation cut short leaves
    some, and no marker: the DAMs of one municipality may be written before any driver)."""
    return any(db[name].find_one({}, {"_id": 1}) is not None for name in GENERATED)


def marker(db: Database) -> dict | None:
    return db["meta"].find_one({"_id": MARKER})


def generate(db: Database, scale: int, fraction: float = 1.0,
             reopen: Callable[[], Database] | None = None) -> dict:
    """Fill ``db`` with the dataset of ``scale``, or reuse it when already there. Returns the marker.
    ``fraction`` shrinks every count (tests use a tiny dataset). With ``reopen`` (which opens the same
    store again), the municipalities are written by two processes side by side (:data:`SIDE_BY_SIDE`),
    the same documents as one after the other; ``db``'s client is then closed: use ``reopen()``."""
    found = marker(db)
    version = generator_version()
    if found and (found.get("scale"), found.get("fraction", 1.0), found.get("version")) == (scale, fraction, version):
        print(f"Conjunto de dados da escala {scale} já gerado (versão {version}): reaproveitado.")
        return found
    if found or holds_records(db):
        raise SystemExit("Este armazenamento já tem outros dados (outra escala ou versão do gerador); "
                         "use uma pasta vazia (--out) ou outro banco (MONGODB_DB).")
    started = time.perf_counter()
    print(f"Gerando o conjunto de dados da escala {scale} (hoje fixo {fmt.day(TODAY)})…", flush=True)
    with on(TODAY):  # the users' and parameters' audit entries too are of the dataset's today
        prepare(db)
    indexes = drop_indexes(db, BULK)
    if reopen is None:
        generator = Generator(db, scale, fraction)
        counts, counters = generator.run(), generator.counters
    else:
        store.close_all()  # no connection crosses the fork
        parts = forked([partial(_write_part, reopen, scale, fraction, group) for group in SIDE_BY_SIDE])
        db = reopen()
        counts = sum((part_counts for part_counts, _ in parts), Counter())
        counters = {key: seq for _, part_counters in parts for key, seq in part_counters.items()}
    built_at = time.perf_counter()
    recreate_indexes(db, indexes)
    print(f"  Índices refeitos em {time.perf_counter() - built_at:.1f} s", flush=True)
    write_counters(db, counters)
    print(f"  Máquinas e autos pelos serviços: {dataset_services.write(db):.1f} s", flush=True)
    if reopen is None:
        cloned = _finish(db, scale, fraction, MUNICIPALITIES, whole_units=True)
    else:
        store.close_all()
        parts = forked([partial(_finish_part, reopen, scale, fraction, group) for group in FINISHED_SIDE_BY_SIDE])
        db = reopen()
        cloned = sum(parts, Counter())
    doc = {"_id": MARKER, "scale": scale, "fraction": fraction, "version": version, "today": TODAY.isoformat(),
           "counts": dict(sorted(counts.items())), "cloned": dict(sorted(cloned.items())), "seconds": round(time.perf_counter() - started, 1)}
    db["meta"].insert_many([doc])
    print("Documentos por coleção: " + ", ".join(f"{k} {v:,}" for k, v in sorted(counts.items())))
    print(f"Pronto em {doc['seconds']} s.")
    return doc


def _write_part(reopen: Callable[[], Database], scale: int, fraction: float,
                municipalities: tuple[str, ...]) -> tuple[Counter[str], dict[str, int]]:
    """In a child process: the records of ``municipalities`` (counts, counters), its store closed."""
    generator = Generator(reopen(), scale, fraction)
    counts = generator.run(municipalities)
    store.close_all()
    return counts, generator.counters


def _finish(db: Database, scale: int, fraction: float, municipalities: tuple[str, ...],
            whole_units: bool) -> Counter[str]:
    """Clone the replayed chains of ``municipalities``, then make their views from the records written
    in bulk (``whole_units``: each view in a unit of work; else view by view, each write its own unit,
    so that two processes rebuilding side by side never wait for a whole view of the other)."""
    with without_cycle_collector():
        started = time.perf_counter()
        cloned = dataset_chains.clone(db, scale, fraction, municipalities)
        rebuilt_at = time.perf_counter()
        for code in municipalities:
            if whole_units:
                views.rebuild(db, code)
            else:
                for view in views.all_views():
                    view.rebuild(db, code)
    names = ", ".join(municipalities)
    print(f"  {names}: cópias dos pedidos e autos, {sum(cloned.values()):,} documentos em "
          f"{rebuilt_at - started:.1f} s; visões refeitas em {time.perf_counter() - rebuilt_at:.1f} s", flush=True)
    return cloned


def _finish_part(reopen: Callable[[], Database], scale: int, fraction: float,
                 municipalities: tuple[str, ...]) -> Counter[str]:
    """In a child process: :func:`_finish` of ``municipalities``, its store closed."""
    cloned = _finish(reopen(), scale, fraction, municipalities, whole_units=False)
    store.close_all()
    return cloned


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
    generate(reopen_generated(args.out), args.scale, args.fraction, partial(reopen_generated, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
