"""Benchmark: the embedded engine against tinymongo and mongomock on the panel's typical operations.

60,000 documents of ~400 bytes shaped like the panel's (municipality, created_at, name, cpf,
amount Decimal128, status), then the median milliseconds of: a sorted page of 25 (municipality
filter + sort by created_at desc), a count, a case-insensitive regex limited to 25, an insert, a
find by _id and an update_one by _id. A figure, not a pass/fail.

    .venv/bin/python bench/store_engines.py [--size 60000] [--engines docstore,docstore-normal,tinymongo,mongomock]
"""
from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import docstore  # noqa: E402
from services import store  # noqa: E402

MUNICIPALITIES = ("chapada", "matupa", "nova_lacerda")
STATUSES = ("emitido", "pago", "cancelado", "vencido")
INDEX = [("municipality", 1), ("created_at", -1), ("_id", 1)]


def document(i: int, rng: random.Random) -> dict:
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    return store.encode({
        "municipality": MUNICIPALITIES[i % 3],
        "created_at": start + timedelta(minutes=17 * i + rng.randrange(10)),
        "name": f"Contribuinte {rng.choice(['Ana', 'João', 'Maria', 'José', 'Luíza'])} {i:06d} da Silva Pereira",
        "cpf": f"{rng.randrange(10**11):011d}",
        "amount": Decimal(rng.randrange(100, 10**7)) / 100,
        "status": rng.choice(STATUSES),
        "address": {"street": f"Rua {rng.randrange(500)} de Setembro", "number": str(rng.randrange(2000)),
                    "district": "Centro", "zip": "78195-000"},
        "notes": "Lançamento referente a taxa de licença de funcionamento e vistoria anual do veículo.",
    })


def make(engine: str, folder: str):
    if engine.startswith("docstore"):
        sync = "NORMAL" if engine.endswith("normal") else "FULL"
        return docstore.Client(folder, synchronous=sync)["painel_municipal"]
    if engine == "tinymongo":
        from tinymongo import TinyMongoClient

        return TinyMongoClient(folder, backend="sqlite")["painel_municipal"]
    import mongomock

    return mongomock.MongoClient(tz_aware=True)["painel_municipal"]


def median_ms(action, repeat: int) -> float:
    figures = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        figures.append((time.perf_counter() - start) * 1000)
    return statistics.median(figures)


def run(engine: str, size: int) -> dict[str, float]:
    rng = random.Random(7)
    db = make(engine, tempfile.mkdtemp(prefix=f"bench-{engine}-"))
    col = db["dams"]
    # tinymongo accepts ascending keys only (and its indexes serve uniqueness, not queries)
    col.create_index(INDEX if engine != "tinymongo" else [(k, 1) for k, _ in INDEX], name="i_mun_created")
    start = time.perf_counter()
    for offset in range(0, size, 5000):
        col.insert_many([document(i, rng) for i in range(offset, min(size, offset + 5000))])
    load_s = time.perf_counter() - start
    slow = engine in ("tinymongo", "mongomock")
    repeat = 3 if slow else 25
    ids = [d["_id"] for d in col.find({"municipality": "matupa"}, {"_id": 1}).limit(200)]
    pattern = re.escape("joão 0012")
    counter = iter(range(10**9))
    figures = {
        "load s": load_s,
        "page 25": median_ms(lambda: list(col.find({"municipality": "chapada"}).sort(
            [("created_at", -1), ("_id", 1)]).skip(25).limit(25)), repeat),
        "count": median_ms(lambda: col.count_documents({"municipality": "chapada", "status": "pago"}), repeat),
        "regex i 25": median_ms(lambda: list(col.find({"name": {"$regex": pattern, "$options": "i"}}).limit(25)),
                                repeat),
        "insert": median_ms(lambda: col.insert_one(document(size + next(counter), rng)), repeat * 4),
        "by _id": median_ms(lambda: col.find_one({"_id": rng.choice(ids)}), repeat * 4),
        "update by _id": median_ms(lambda: col.update_one({"_id": rng.choice(ids)}, {"$set": {"status": "pago"},
                                                                                    "$inc": {"version": 1}}),
                                   repeat * 4),
    }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=60_000)
    parser.add_argument("--engines", default="docstore,docstore-normal,tinymongo,mongomock")
    args = parser.parse_args()
    results = {}
    for engine in args.engines.split(","):
        print(f"... {engine}", file=sys.stderr, flush=True)
        results[engine] = run(engine, args.size)
    columns = list(next(iter(results.values())))
    print(f"{args.size:,} documents, median ms (load in s)")
    print("| engine | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for engine, figures in results.items():
        print(f"| {engine} | " + " | ".join(f"{figures[c]:,.2f}" for c in columns) + " |")


if __name__ == "__main__":
    main()
