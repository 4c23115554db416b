"""Benchmark: the embedded engine's bulk write path (``insert_many``) on the benchmark dataset's documents.

The documents are the ones ``bench/dataset.py`` builds at ``--scale`` (DAMs and charges with Decimal128
amounts, audit entries, registry records: datetimes, ObjectIds, nested dicts, arrays), kept in memory;
then they are written with ``insert_many`` in batches of ``dataset_store.BATCH`` into a fresh store that
has every index of the panel (``dataset.prepare``). Prints documents per second per collection and in
all, with the machine's load (shared: compare runs at a similar load).

    .venv/bin/python bench/store_bulk.py [--scale 1] [--fraction 1.0] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import dataset  # noqa: E402
from bench.dataset_store import BATCH, Writer  # noqa: E402
from services.store import connect  # noqa: E402


class _Keeping(Writer):
    """A writer that keeps every document per collection instead of writing it."""

    def __init__(self) -> None:
        super().__init__(None, dry=True)
        self.kept: dict[str, list[dict]] = defaultdict(list)

    def add(self, collection: str, doc: dict) -> None:
        self.kept[collection].append(doc)
        self.counts[collection] += 1

    def progress(self, what: str) -> None:
        return None


def documents(scale: int, fraction: float) -> dict[str, list[dict]]:
    """The dataset's bulk-written documents of ``scale``, per collection (built, not written)."""
    with tempfile.TemporaryDirectory() as folder:
        db = connect(uri="", data_dir=folder)
        dataset.prepare(db)
        generator = dataset.Generator(db, scale, fraction, dry=True)
        generator.out = _Keeping()
        generator.run()
        return dict(generator.out.kept)


def write(docs: dict[str, list[dict]], folder: str) -> dict[str, tuple[float, float]]:
    """(wall, CPU) seconds of ``insert_many`` per collection into a fresh, indexed store in ``folder``."""
    db = connect(uri="", data_dir=folder)
    dataset.prepare(db)
    seconds = {}
    for name, batch in sorted(docs.items(), key=lambda item: -len(item[1])):
        started, cpu = time.perf_counter(), time.process_time()
        for at in range(0, len(batch), BATCH):
            db[name].insert_many(batch[at:at + BATCH])
        seconds[name] = (time.perf_counter() - started, time.process_time() - cpu)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Documentos por segundo do insert_many do motor embutido.")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--fraction", type=float, default=1.0)
    parser.add_argument("--profile", action="store_true", help="cProfile da gravação (as 25 funções mais caras)")
    args = parser.parse_args(argv)
    docs = documents(args.scale, args.fraction)
    total = sum(len(batch) for batch in docs.values())
    load = os.getloadavg()
    print(f"{total:,} documentos da escala {args.scale} (fração {args.fraction}); carga antes "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="store-bulk-") as folder:
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        seconds = write(docs, folder)
        if profiler:
            profiler.disable()
    for name, (spent, cpu) in seconds.items():
        if len(docs[name]) >= 1000:
            print(f"{name:>20} {len(docs[name]):>9,} docs {spent:7.2f} s ({cpu:6.2f} s CPU) "
                  f"{len(docs[name]) / spent:>9,.0f} docs/s")
    spent, cpu = (sum(s[i] for s in seconds.values()) for i in (0, 1))
    load = os.getloadavg()
    print(f"{'total':>20} {total:>9,} docs {spent:7.2f} s ({cpu:6.2f} s CPU) {total / spent:>9,.0f} docs/s; "
          f"carga depois {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
