"""Backup, restore and digest of a whole store, in MongoDB Extended JSON (any engine to any engine).

A backup folder holds one ``<collection>.jsonl`` per collection (one document a line, canonical
Extended JSON, so Decimal128, instants and ObjectIds keep their exact type), ``indexes.json`` (the
indexes of each collection), ``files/`` (the raw files kept by ``store.put_file``) and ``manifest.json``
(the digest and the SHA-256 of each file, written last). The digest
is a SHA-256 over every document of every collection, sorted by collection and ``_id``, in
canonical Extended JSON with ``_id`` first (as MongoDB keeps it), so two stores holding the same
documents have the same digest whatever their engine.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bson import json_util

from services import store
from services.shared import restoring
from services.shared.backup_format import (  # noqa: F401  (digest, digest_of: this module's API)
    JSON_OPTIONS,
    MANIFEST,
    collections,
    digest,
    digest_of,
    load_documents,
    sorted_lines,
)
from services.shared.errors import ServiceError


def backup(db: Any, folder: str | Path, progress: Callable[[str], None] = lambda _: None) -> str:
    """Write the whole store to ``folder`` as one snapshot (``store.snapshot``); returns its digest.

    ``manifest.json``, written last, holds the digest and the SHA-256 of every other file, so a
    restore can tell an altered or incomplete copy before it loads anything."""
    folder = Path(folder)
    (folder / "files").mkdir(parents=True, exist_ok=True)
    indexes: dict[str, list[dict]] = {}
    hashes: dict[str, str] = {}
    total = hashlib.sha256()
    with store.snapshot(db) as snap:
        for name in collections(snap):
            lines = sorted_lines(snap[name].find({}))
            hashes[f"{name}.jsonl"] = _write(folder / f"{name}.jsonl", (line + "\n" for _, line in lines))
            if lines:
                total.update(json.dumps(name).encode() + b"\n")
                for _, line in lines:
                    total.update(line.encode() + b"\n")
            indexes[name] = [
                {"name": index_name, "key": [list(k) for k in info["key"]],
                 **{k: info[k] for k in ("unique", "sparse", "partialFilterExpression") if k in info}}
                for index_name, info in snap[name].index_information().items() if index_name != "_id_"
            ]
            progress(f"{name}: {len(lines)} documentos")
    text = json_util.dumps(indexes, json_options=JSON_OPTIONS, indent=1)
    hashes["indexes.json"] = _write(folder / "indexes.json", [text])
    files = store.list_files(db)
    for file_digest in files:
        (folder / "files" / file_digest).write_bytes(store.get_file(db, file_digest))
    progress(f"arquivos: {len(files)}")
    manifest = {"format": 1, "digest": total.hexdigest(), "files": hashes}
    _write(folder / MANIFEST, [json.dumps(manifest, indent=1)])
    return total.hexdigest()


def _write(path: Path, parts: Iterable[str]) -> str:
    """Write ``parts`` as UTF-8 to ``path``; returns the file's SHA-256."""
    content = hashlib.sha256()
    with open(path, "wb") as out:
        for part in parts:
            data = part.encode("utf-8")
            content.update(data)
            out.write(data)
    return content.hexdigest()


def restore(db: Any, folder: str | Path, progress: Callable[[str], None] = lambda _: None) -> str:
    """Load a backup folder into an EMPTY store, all or nothing (``services/shared/restore.py``)."""
    return restoring.restore(db, Path(folder), progress)


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
