"""The backup format: canonical Extended JSON lines, the store's digest, the manifest's name.

The digest is a SHA-256 over every document of every collection, sorted by collection and
``_id``, in canonical Extended JSON with ``_id`` first (as MongoDB keeps it), so two stores holding
the same documents have the same digest whatever their engine.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import timezone
from typing import Any

from bson import json_util
from bson.json_util import JSONMode, JSONOptions

MANIFEST = "manifest.json"  # the digest and each file's SHA-256, written last by a backup
JSON_OPTIONS = JSONOptions(json_mode=JSONMode.CANONICAL, tz_aware=True, tzinfo=timezone.utc)
_SKIP = {"fs.files", "fs.chunks"}  # GridFS: the files travel in files/
_BATCH = 1000


def _line(doc: dict) -> str:
    ordered = {"_id": doc["_id"], **{k: v for k, v in doc.items() if k != "_id"}}
    return json_util.dumps(ordered, json_options=JSON_OPTIONS, ensure_ascii=False)


def collections(db: Any) -> list[str]:
    return sorted(name for name in db.list_collection_names() if name not in _SKIP)


def sorted_lines(docs: Iterable[dict]) -> list[tuple[str, str]]:
    lines = [(json_util.dumps(doc["_id"], json_options=JSON_OPTIONS), _line(doc)) for doc in docs]
    lines.sort()
    return lines


def digest_of(named_docs: Iterable[tuple[str, Iterable[dict]]]) -> str:
    """The digest of (collection, documents) pairs; collections with no document count as absent."""
    total = hashlib.sha256()
    for name, docs in sorted(named_docs, key=lambda pair: pair[0]):
        lines = sorted_lines(docs)
        if not lines:
            continue
        total.update(json.dumps(name).encode() + b"\n")
        for _, line in lines:
            total.update(line.encode() + b"\n")
    return total.hexdigest()


def digest(db: Any) -> str:
    """SHA-256 of every document of every collection (sorted by collection and ``_id``)."""
    return digest_of((name, db[name].find({})) for name in collections(db))


def load_documents(db: Any, name: str, docs: Iterable[dict]) -> int:
    """Insert documents into collection ``name`` in batches; returns how many."""
    batch: list[dict] = []
    count = 0
    for doc in docs:
        batch.append(doc)
        if len(batch) >= _BATCH:
            db[name].insert_many(batch)
            count += len(batch)
            batch = []
    if batch:
        db[name].insert_many(batch)
        count += len(batch)
    return count
