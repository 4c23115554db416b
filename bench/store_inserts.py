"""Benchmark: cost of one insert as a collection grows, on the embedded store.

Shows why services insert through ``services.store.insert_one`` (a one-document insert_many):
tinymongo 1.3.1's own ``insert_one`` reads the whole collection on every insert.

    .venv/bin/python bench/store_inserts.py [SIZE ...]
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from services import store  # noqa: E402

SAMPLE = 100


def per_insert_ms(insert, collection, sizes: list[int]) -> list[float]:
    figures = []
    filled = 0
    for size in sizes:
        collection.insert_many([{"n": i, "municipality": "bench"} for i in range(filled, size)])
        filled = size
        start = time.perf_counter()
        for i in range(SAMPLE):
            insert(collection, {"n": -i, "municipality": "bench"})
        filled += SAMPLE
        figures.append((time.perf_counter() - start) / SAMPLE * 1000)
    return figures


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1_000, 5_000, 10_000]
    db = store.connect(uri="", data_dir=tempfile.mkdtemp(prefix="bench-"))
    raw = per_insert_ms(lambda col, doc: col.insert_one(doc), db["raw"], sizes)
    wrapped = per_insert_ms(store.insert_one, db["wrapped"], sizes)
    print(f"{'documents':>10} {'tinymongo insert_one':>22} {'store.insert_one':>18}")
    for size, a, b in zip(sizes, raw, wrapped):
        print(f"{size:>10,} {a:>19.1f} ms {b:>15.1f} ms")


if __name__ == "__main__":
    main()
