"""Where the dataset's documents go: a stand-in database and the batched writer.

:class:`Sink` is the stand-in a real service writes into: reads see an empty store and inserts are
kept, with seeded ids, so the generator can compare the first record of each entity with what it
builds itself. :class:`Writer` buffers the generated documents per collection and writes them with
``insert_many`` in batches of :data:`BATCH` through the store ``services.store.connect`` opened
(``dry``: only counts them).
"""
from __future__ import annotations

import multiprocessing
import random
import sys
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any, Iterator, TypeVar

from bson import ObjectId
from pymongo.database import Database

BATCH = 20000
T = TypeVar("T")


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
    def __init__(self, sink: "Sink", name: str) -> None:
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


class Sink:
    """Reads see an empty store (no custom fields); inserts are kept in order, with seeded ids. It holds
    no read model: the views skip it (``services.shared.views.touched``), and the dataset rebuilds them."""

    stand_in = True

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


def forked(jobs: list[Callable[[], T]]) -> list[T]:
    """Run each job in a child process of its own, all at once, and return their results in order.

    The children are forked: a job needs no pickling (only its result travels back), and each opens the
    store itself (a connection never crosses a fork: the caller closes its own first). A job that fails
    stops the whole run with the child's traceback."""
    sys.stdout.flush()  # a buffer copied into each child would print twice
    context = multiprocessing.get_context("fork")
    started = []
    for job in jobs:
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(job, send), daemon=True)
        child.start()
        send.close()
        started.append((child, receive))
    results, failures = [], []
    for child, receive in started:
        try:
            status, value = receive.recv()
        except EOFError:
            status, value = "error", f"o processo terminou sem resposta (código {child.exitcode})"
        child.join()
        (results if status == "ok" else failures).append(value)
    if failures:
        raise RuntimeError("Uma parte do conjunto de dados falhou:\n" + "\n".join(failures))
    return results


def _child(job: Callable[[], Any], send: Any) -> None:
    try:
        send.send(("ok", job()))
    except BaseException:  # the parent reports it: a child's exception would only reach its own stderr
        send.send(("error", traceback.format_exc()))
    finally:
        sys.stdout.flush()
        send.close()
