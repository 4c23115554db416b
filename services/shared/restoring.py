"""Restore, all or nothing: the copy is checked, loaded into a staging store and only then made live.

Order: the manifest (``manifest.json``: every file's SHA-256 and the store's digest) is checked
before anything is read; ``indexes.json`` is read and checked; the documents and indexes are loaded
into ``store.staging`` (embedded: a new file; MongoDB: ``restauracao__`` collections); the digest of
what was loaded must equal the manifest's and every kept file must match its hash; only then does
``store.promote`` put the staging store in place (embedded: one atomic rename over the file). Any
error before that leaves the target exactly as it was, with a pt-BR message, so a retry with a good
copy works. A copy made before manifests existed is loaded the same way, without the first check.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from bson import json_util
from pymongo.errors import BulkWriteError, DuplicateKeyError, PyMongoError

from services import store
from services.shared.backup_format import JSON_OPTIONS, MANIFEST, collections, digest, load_documents
from services.shared.errors import ServiceError

NOTHING = "; nada foi restaurado e o armazenamento de destino ficou como estava."
_INDEX_OPTIONS = ("unique", "sparse", "partialFilterExpression")


def restore(db: Any, folder: Path, progress: Callable[[str], None]) -> str:
    """Load the backup in ``folder`` into the empty store ``db``; returns the restored digest."""
    if not (folder / "indexes.json").exists():
        raise ServiceError(f"A pasta {folder} não é uma cópia de segurança do painel (falta indexes.json).")
    if not store.is_empty(db):
        busy = [name for name in collections(db) if db[name].count_documents({}, limit=1)]
        raise ServiceError("O armazenamento de destino não está vazio"
                           + (f" (coleções: {', '.join(busy)})" if busy else "")
                           + "; a restauração só é feita num armazenamento vazio.")
    try:
        expected = _checked_manifest(folder, progress)
        indexes = _indexes(folder / "indexes.json")
        with store.staging(db) as staged:
            for path in sorted(folder.glob("*.jsonl")):
                progress(f"{path.stem}: {_load(staged, path)} documentos")
            _create_indexes(staged, indexes)
            files = _checked_files(folder)
            loaded = digest(staged)
            if expected is not None and loaded != expected:
                raise ServiceError(f"O resumo do que foi carregado ({loaded[:12]}…) não confere com o da cópia "
                                   f"({expected[:12]}…): a cópia está alterada ou incompleta")
            store.promote(db, staged)
    except ServiceError as exc:
        raise ServiceError(exc.message.rstrip(".") + NOTHING) from exc
    for path in files:
        store.put_file(db, path.read_bytes(), path.name)
    store.ensure_indexes(db)
    progress(f"arquivos: {len(files)}")
    return digest(db)


def _altered(name: str) -> ServiceError:
    return ServiceError(f"A cópia foi alterada ou está incompleta: o arquivo {name} não confere com o "
                        f"manifesto ({MANIFEST})")


def _checked_manifest(folder: Path, progress: Callable[[str], None]) -> str | None:
    """The digest the manifest promises, after checking every file it lists (None: an older copy)."""
    path = folder / MANIFEST
    if not path.exists():
        progress(f"cópia sem {MANIFEST} (feita antes dele existir): os arquivos não são conferidos antes")
        return None
    try:
        manifest = json.loads(path.read_text("utf-8"))
        hashes, expected = dict(manifest["files"]), str(manifest["digest"])
    except (ValueError, KeyError, TypeError) as exc:
        raise _altered(MANIFEST) from exc
    present = {p.name for p in folder.glob("*.jsonl")} | {"indexes.json"}
    for name in sorted(present | set(hashes)):
        if name not in hashes or not (folder / name).is_file() or _sha256(folder / name) != hashes[name]:
            raise _altered(name)
    progress("manifesto conferido: todos os arquivos da cópia estão íntegros")
    return expected


def _sha256(path: Path) -> str:
    content = hashlib.sha256()
    with open(path, "rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            content.update(block)
    return content.hexdigest()


def _indexes(path: Path) -> list[tuple[str, list[tuple[str, int]], dict]]:
    """``indexes.json`` as (collection, keys, options), refused whole if any part is malformed."""
    try:
        found = json_util.loads(path.read_text("utf-8"), json_options=JSON_OPTIONS)
        out = []
        for name, specs in found.items():
            for spec in specs:
                keys = [(str(field), int(order)) for field, order in spec["key"]]
                if not isinstance(name, str) or not keys or any(o not in (1, -1) for _, o in keys):
                    raise ValueError(name)
                out.append((name, keys, {"name": str(spec["name"]),
                                         **{k: spec[k] for k in _INDEX_OPTIONS if k in spec}}))
        return out
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ServiceError("O arquivo indexes.json da cópia é inválido (não descreve os índices)") from exc


def _create_indexes(staged: Any, indexes: list[tuple[str, list[tuple[str, int]], dict]]) -> None:
    for name, keys, options in indexes:
        try:
            staged[name].create_index(keys, **options)
        except (DuplicateKeyError, BulkWriteError) as exc:
            raise ServiceError(f"A coleção {name} da cópia tem um valor repetido onde o índice "
                               f"{options['name']} exige um único") from exc
        except (PyMongoError, TypeError, ValueError) as exc:
            raise ServiceError(f"O arquivo indexes.json da cópia é inválido (índice {options['name']} "
                               f"de {name})") from exc
    store.ensure_indexes(staged)


def _load(staged: Any, path: Path) -> int:
    try:
        return load_documents(staged, path.stem, _read_lines(path))
    except (DuplicateKeyError, BulkWriteError) as exc:
        raise ServiceError(f"O arquivo {path.name} da cópia tem um documento repetido (o mesmo _id duas "
                           "vezes)") from exc
    except PyMongoError as exc:
        raise ServiceError(f"O arquivo {path.name} da cópia tem um documento que não pôde ser gravado") from exc


def _read_lines(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, start=1):
            if not line.strip():
                continue
            try:
                doc = json_util.loads(line, json_options=JSON_OPTIONS)
            except Exception as exc:  # noqa: BLE001  (any malformed line: json, Extended JSON or bson)
                raise _bad_line(path, number) from exc
            if not isinstance(doc, dict) or "_id" not in doc:
                raise _bad_line(path, number)
            yield doc


def _bad_line(path: Path, number: int) -> ServiceError:
    return ServiceError(f"A linha {number} do arquivo {path.name} da cópia não pôde ser lida (não é um "
                        "documento em Extended JSON)")


def _checked_files(folder: Path) -> list[Path]:
    files = sorted((folder / "files").iterdir()) if (folder / "files").exists() else []
    for path in files:
        if _sha256(path) != path.name:
            raise ServiceError(f"O arquivo {path.name} da cópia está corrompido (o hash não confere)")
    return files


__all__: Iterable[str] = ["restore"]
