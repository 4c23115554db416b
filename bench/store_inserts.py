"""Benchmark: cost of one insert as a collection with a unique index grows, per engine.

tinymongo 1.3.1 (the previous embedded store) decoded the whole collection on every insert into a
collection with a unique index; the embedded engine (docstore/) stays flat.

    .venv/bin/python bench/store_inserts.py [SIZE ...]
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import docstore  # noqa: E402

SAMPLE = 50


def per_insert_ms(collection, sizes: list[int]) -> list[float]:
    collection.create_index([("municipality", 1), ("n", 1)], unique=True, name="u_n")
    figures = []
    filled = 0
    for size in sizes:
        if size > filled:
            collection.insert_many([{"n": i, "municipality": "bench"} for i in range(filled, size)])
        filled = size
        start = time.perf_counter()
        for i in range(SAMPLE):
            collection.insert_one({"n": -i - 1 - filled, "municipality": "bench"})
        filled += SAMPLE
        figures.append((time.perf_counter() - start) / SAMPLE * 1000)
    return figures


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1_000, 5_000, 10_000]
    from tinymongo import TinyMongoClient

    engine = per_insert_ms(docstore.Client(tempfile.mkdtemp(prefix="bench-"))["bench"]["rows"], sizes)
    legacy = per_insert_ms(TinyMongoClient(tempfile.mkdtemp(prefix="bench-"), backend="sqlite")["bench"]["rows"], sizes)
    print(f"{'documents':>10} {'docstore insert_one':>20} {'tinymongo insert_one':>22}")
    for size, a, b in zip(sizes, engine, legacy):
        print(f"{size:>10,} {a:>17.2f} ms {b:>19.1f} ms")


if __name__ == "__main__":
    main()
