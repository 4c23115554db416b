"""Backup, restore and digest of a whole store, in MongoDB Extended JSON (any engine to any engine).

A backup folder holds one ``<collection>.jsonl`` per collection (one document a line, canonical
Extended JSON, so Decimal128, instants and ObjectIds keep their exact type), ``indexes.json`` (the
indexes of each collection) and ``files/`` (the raw files kept by ``store.put_file``). The digest
is a SHA-256 over every document of every collection, sorted by collection and ``_id``, in
canonical Extended JSON with ``_id`` first (as MongoDB keeps it), so two stores holding the same
documents have the same digest whatever their engine.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from datetime import timezone
from pathlib import Path
from typing import Any

from bson import json_util
from bson.json_util import JSONMode, JSONOptions

from services import store
from services.shared.errors import ServiceError

JSON_OPTIONS = JSONOptions(json_mode=JSONMode.CANONICAL, tz_aware=True, tzinfo=timezone.utc)
_SKIP = {"fs.files", "fs.chunks"}  # GridFS: the files travel in files/
_BATCH = 1000


def _line(doc: dict) -> str:
    ordered = {"_id": doc["_id"], **{k: v for k, v in doc.items() if k != "_id"}}
    return json_util.dumps(ordered, json_options=JSON_OPTIONS, ensure_ascii=False)


def collections(db: Any) -> list[str]:
    return sorted(name for name in db.list_collection_names() if name not in _SKIP)


def _sorted_lines(docs: Iterable[dict]) -> list[tuple[str, str]]:
    lines = [(json_util.dumps(doc["_id"], json_options=JSON_OPTIONS), _line(doc)) for doc in docs]
    lines.sort()
    return lines


def digest_of(named_docs: Iterable[tuple[str, Iterable[dict]]]) -> str:
    """The digest of (collection, documents) pairs; collections with no document count as absent."""
    total = hashlib.sha256()
    for name, docs in sorted(named_docs, key=lambda pair: pair[0]):
        lines = _sorted_lines(docs)
        if not lines:
            continue
        total.update(json.dumps(name).encode() + b"\n")
        for _, line in lines:
            total.update(line.encode() + b"\n")
    return total.hexdigest()


def digest(db: Any) -> str:
    """SHA-256 of every document of every collection (sorted by collection and ``_id``)."""
    return digest_of((name, db[name].find({})) for name in collections(db))


def backup(db: Any, folder: str | Path, progress: Callable[[str], None] = lambda _: None) -> str:
    """Write the whole store to ``folder``; returns the store's digest."""
    folder = Path(folder)
    (folder / "files").mkdir(parents=True, exist_ok=True)
    indexes: dict[str, list[dict]] = {}
    total = hashlib.sha256()
    for name in collections(db):
        lines = _sorted_lines(db[name].find({}))
        with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as out:
            for _, line in lines:
                out.write(line + "\n")
        if lines:
            total.update(json.dumps(name).encode() + b"\n")
            for _, line in lines:
                total.update(line.encode() + b"\n")
        indexes[name] = [
            {"name": index_name, "key": [list(k) for k in info["key"]],
             **{k: info[k] for k in ("unique", "sparse", "partialFilterExpression") if k in info}}
            for index_name, info in db[name].index_information().items() if index_name != "_id_"
        ]
        progress(f"{name}: {len(lines)} documentos")
    (folder / "indexes.json").write_text(json_util.dumps(indexes, json_options=JSON_OPTIONS, indent=1), "utf-8")
    files = store.list_files(db)
    for file_digest in files:
        (folder / "files" / file_digest).write_bytes(store.get_file(db, file_digest))
    progress(f"arquivos: {len(files)}")
    return total.hexdigest()


def restore(db: Any, folder: str | Path, progress: Callable[[str], None] = lambda _: None) -> str:
    """Load a backup folder into an EMPTY store, with its indexes; returns the restored digest."""
    folder = Path(folder)
    if not (folder / "indexes.json").exists():
        raise ServiceError(f"A pasta {folder} não é uma cópia de segurança do painel (falta indexes.json).")
    busy = [name for name in collections(db) if db[name].count_documents({}, limit=1)]
    if busy or store.list_files(db):
        raise ServiceError("O armazenamento de destino não está vazio"
                           + (f" (coleções: {', '.join(busy)})" if busy else "")
                           + "; a restauração só é feita num armazenamento vazio.")
    for path in sorted(folder.glob("*.jsonl")):
        name = path.stem
        loaded = load_documents(db, name, _read_lines(path))
        progress(f"{name}: {loaded} documentos")
    indexes = json_util.loads((folder / "indexes.json").read_text("utf-8"), json_options=JSON_OPTIONS)
    for name, specs in indexes.items():
        for spec in specs:
            options = {k: spec[k] for k in ("unique", "sparse", "partialFilterExpression") if k in spec}
            db[name].create_index([tuple(k) for k in spec["key"]], name=spec["name"], **options)
    store.ensure_indexes(db)
    files = sorted((folder / "files").iterdir()) if (folder / "files").exists() else []
    for path in files:
        if store.put_file(db, path.read_bytes(), path.name) != path.name:
            raise ServiceError(f"O arquivo {path.name} da cópia está corrompido (o hash não confere).")
    progress(f"arquivos: {len(files)}")
    return digest(db)


def _read_lines(path: Path) -> Iterable[dict]:
    with open(path, encoding="utf-8") as source:
        for line in source:
            if line.strip():
                yield json_util.loads(line, json_options=JSON_OPTIONS)


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


def from_tinymongo(db: Any, old_folder: str | Path, db_name: str,
                   progress: Callable[[str], None] = lambda _: None) -> str:
    """Copy a tinymongo data folder (sqlite backend) into ``db`` (which must be empty).

    Checks that the digest of what was read equals the digest of what was written; returns it.
    """
    from tinymongo import TinyMongoClient

    old_folder = Path(old_folder)
    if not any(old_folder.glob("*.sqlite")):
        raise ServiceError(f"A pasta {old_folder} não tem dados do tinymongo (arquivos *.sqlite).")
    busy = [name for name in collections(db) if db[name].count_documents({}, limit=1)]
    if busy:
        raise ServiceError(f"O armazenamento de destino não está vazio (coleções: {', '.join(busy)}); "
                           "a migração só é feita num armazenamento vazio.")
    client = TinyMongoClient(str(old_folder), backend="sqlite")
    try:
        old = client[db_name]
        read: list[tuple[str, list[dict]]] = []
        for name in sorted(old.list_collection_names()):
            docs = list(old[name].find({}))
            read.append((name, docs))
            load_documents(db, name, [dict(d) for d in docs])
            progress(f"{name}: {len(docs)} documentos copiados")
    finally:
        client.close()
    source_digest = digest_of(read)
    store.ensure_indexes(db)
    files = sorted((old_folder / "files").iterdir()) if (old_folder / "files").exists() else []
    for path in files:
        if len(path.name) == 64:
            store.put_file(db, path.read_bytes(), path.name)
    progress(f"arquivos: {len(files)}")
    copied = digest(db)
    if copied != source_digest:
        raise ServiceError(f"A cópia não confere com a origem (resumo {copied} ≠ {source_digest}).")
    return copied
