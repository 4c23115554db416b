"""The one place that makes the database, and the codec between Python values and documents.

``MONGODB_URI`` set: pymongo to that server (database ``MONGODB_DB``). Unset: tinymongo on its
SQLite backend in ``PAINEL_DATA_DIR``, persistent across restarts. Only operations that both
support are used by the services; the contract suite in ``tests/test_store_contract.py`` covers
each of them.

Codec: ``Decimal`` is stored as Decimal128 and read back as ``Decimal``; ``date`` is stored as an
ISO string ``YYYY-MM-DD`` (a legal date, not an instant: it sorts and compares as text); instants
are stored as UTC datetimes and read back aware in UTC.
"""
from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timezone
from decimal import Decimal, localcontext
from typing import Any

from bson.decimal128 import Decimal128, create_decimal128_context
from pymongo.database import Database
from pymongo.errors import BulkWriteError, DuplicateKeyError

from services import config

_lock = threading.Lock()
_clients: dict[tuple[str, str], Any] = {}

# Indexes per collection: (keys, options). Created idempotently at start. Ascending keys only:
# the embedded store supports no other direction (MongoDB walks an index both ways).
INDEXES: dict[str, list[tuple[list[tuple[str, int]], dict]]] = {
    "users": [([("username", 1)], {"unique": True, "name": "u_username"})],
    "municipalities": [([("code", 1)], {"unique": True, "name": "u_code"})],
    "audit": [
        ([("municipality", 1), ("at", 1)], {"name": "i_mun_at"}),
        ([("collection", 1), ("doc_id", 1)], {"name": "i_doc"}),
    ],
    "parameters": [
        (
            [("municipality", 1), ("name", 1), ("effective", 1)],
            {"unique": True, "name": "u_param_version"},
        )
    ],
    "custom_fields": [
        ([("municipality", 1), ("entity", 1), ("name", 1)], {"unique": True, "name": "u_field"})
    ],
}


def connect(uri: str | None = None, data_dir: str | None = None, db_name: str | None = None) -> Database:
    """A database handle, one client per target and process (clients are thread-safe)."""
    uri = uri if uri is not None else config.mongodb_uri()
    db_name = db_name or config.mongodb_db()
    key = (uri or f"embedded:{data_dir or config.data_dir()}", db_name)
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _make_client(uri, str(data_dir or config.data_dir()))
            _clients[key] = client
    return client[db_name]


def _make_client(uri: str | None, folder: str) -> Any:
    if uri:
        from pymongo import MongoClient

        return MongoClient(uri, tz_aware=True, serverSelectionTimeoutMS=5000)
    from pathlib import Path

    from tinymongo import TinyMongoClient

    Path(folder).mkdir(parents=True, exist_ok=True)
    return TinyMongoClient(folder, backend="sqlite")


def close_all() -> None:
    with _lock:
        for client in _clients.values():
            client.close()
        _clients.clear()


def ensure_indexes(db: Database, extra: dict[str, list[tuple[list[tuple[str, int]], dict]]] | None = None) -> None:
    """Create every declared index; creating an existing one again changes nothing."""
    for collection, indexes in {**INDEXES, **(extra or {})}.items():
        for keys, options in indexes:
            db[collection].create_index(keys, **options)


def insert_one(collection: Any, doc: dict) -> Any:
    """Insert one document and return its ``_id``; a unique clash raises DuplicateKeyError.

    Workaround, kept here only: tinymongo 1.3.1's ``insert_one`` on SQLite reads the whole
    collection before each insert, so its cost grows with the collection (the audit log grows
    forever: ``python bench/store_inserts.py`` prints the figures). Its ``insert_many`` does not;
    a one-document ``insert_many`` is the same write on MongoDB.
    """
    try:
        return collection.insert_many([doc]).inserted_ids[0]
    except BulkWriteError as exc:
        errors = exc.details.get("writeErrors", [])
        if errors and errors[0].get("code") == 11000:
            raise DuplicateKeyError(errors[0].get("errmsg", str(exc)), 11000) from None
        raise


def exists(collection: Any, query: dict) -> bool:
    """Whether any document matches.

    Workaround, kept here only: tinymongo 1.3.1 ignores ``limit`` in ``count_documents`` and
    counts every match (contract test ``test_count_with_limit``), so existence is asked with
    ``find_one`` on ``_id`` on every store.
    """
    return collection.find_one(query, {"_id": 1}) is not None


_D128 = create_decimal128_context()


def encode(value: Any) -> Any:
    """A Python value as stored: Decimal→Decimal128, date→ISO text, datetime→UTC."""
    if isinstance(value, Decimal):
        with localcontext(_D128) as ctx:
            return Decimal128(ctx.create_decimal(value))
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("Instantes devem ter fuso horário (aware) antes de salvar")
        return value.astimezone(timezone.utc)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """A stored value as Python: Decimal128→Decimal, datetime→aware UTC."""
    if isinstance(value, Decimal128):
        return value.to_decimal()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def parse_date(value: Any) -> date | None:
    """A stored legal date (ISO text) back as ``date``; None stays None."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


@contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """One unit of work: every write inside commits together or not at all.

    Contract for the services (the engine behind it may change): wrap a write, its audit entry and
    any number it reserves in ``with store.transaction(db):``; nesting joins the outer unit; an
    exception inside rolls the unit back where the store has transactions. Placeholder until the
    embedded engine and MongoDB sessions implement it: today it runs the block as it is.
    """
    yield db


def put_file(db: Database, data: bytes, name: str = "") -> str:
    """Keep a raw file outside any document; returns its SHA-256 (hex), the key to read it back.

    Placeholder: a file named by its hash under ``PAINEL_DATA_DIR/files`` (GridFS on MongoDB once
    the engine work lands). Writing the same content twice keeps one copy.
    """
    digest = hashlib.sha256(data).hexdigest()
    folder = config.data_dir() / "files"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / digest
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    return digest


def get_file(db: Database, digest: str) -> bytes:
    """The raw file kept by :func:`put_file`."""
    return (config.data_dir() / "files" / digest).read_bytes()
