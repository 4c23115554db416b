"""The one place that makes the database, and the codec between Python values and documents.

``MONGODB_URI`` set: pymongo to that server (database ``MONGODB_DB``). Unset: the embedded store
(the ``docstore`` package, a pymongo subset over SQLite) in ``PAINEL_DATA_DIR/painel.sqlite3``,
persistent across restarts. Only operations that every store supports are used by the services;
the contract suite in ``tests/test_store_contract.py`` covers each of them.

Units of work (:func:`transaction`): one SQLite transaction on the embedded store; a client session
with a transaction on a MongoDB replica set (Atlas always is), the session passed to every operation
inside the block by the proxies below, so services never pass ``session=``; on a standalone MongoDB
server or on mongomock the block runs without a transaction.

Codec: ``Decimal`` is stored as Decimal128 and read back as ``Decimal``; ``date`` is stored as an
ISO string ``YYYY-MM-DD`` (a legal date, not an instant: it sorts and compares as text); instants
are stored as UTC datetimes and read back aware in UTC.
"""
from __future__ import annotations

import contextvars
import hashlib
import logging
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timezone
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any

from bson.decimal128 import Decimal128, create_decimal128_context
from pymongo.database import Database
from pymongo.errors import DuplicateKeyError  # noqa: F401  (re-exported for the services)

import docstore
from services.shared import config

_lock = threading.Lock()
_clients: dict[tuple[str, str], Any] = {}

# Indexes per collection: (keys, options). Created idempotently at start. Keys may be ascending or
# descending; a list query is fastest when an index starts with its equality filters and then
# follows its sort (e.g. municipality 1, created_at -1, _id 1).
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
    if uri:
        return _SessionDatabase(client[db_name])
    return client[db_name]


def _make_client(uri: str | None, folder: str) -> Any:
    if uri:
        from pymongo import MongoClient

        return MongoClient(uri, tz_aware=True, serverSelectionTimeoutMS=5000)
    legacy = Path(folder) / f"{config.mongodb_db()}.sqlite"
    if legacy.exists() and not (Path(folder) / "painel.sqlite3").exists():
        logging.getLogger(__name__).warning(
            "A pasta %s tem dados no formato antigo (tinymongo, %s) que o painel não lê mais; copie-os com "
            "`python -m seed --from-tinymongo %s` (veja o README).", folder, legacy.name, folder)
    return docstore.Client(folder, default_db=config.mongodb_db(), synchronous=SYNCHRONOUS)


# SQLite's durability: FULL syncs the WAL on every commit (a power cut loses no committed write);
# figures in docs/performance.md.
SYNCHRONOUS = os.environ.get("PAINEL_SQLITE_SYNCHRONOUS", "FULL")


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
    """Insert one document and return its ``_id``; a unique clash raises DuplicateKeyError."""
    return collection.insert_one(doc).inserted_id


def exists(collection: Any, query: dict) -> bool:
    """Whether any document matches (one index probe: a count that stops at the first match)."""
    return collection.count_documents(query, limit=1) > 0


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

    Wrap a write, its audit entry and any number it reserves in ``with store.transaction(db):``;
    nesting joins the outer unit (an inner exception caught inside the outer block does not undo
    the inner writes). Embedded store: one SQLite ``BEGIN IMMEDIATE`` transaction of the calling
    thread over every collection; reads inside see the writes; an exception rolls everything back,
    counters included. MongoDB replica set: a session transaction. Standalone MongoDB server or
    mongomock: no transaction, the block runs as it is (see ``has_transactions``).
    """
    if isinstance(db, docstore.Database):
        with db.engine.transaction():
            yield db
        return
    if not isinstance(db, _SessionDatabase) or _SESSION.get() is not None or not has_transactions(db):
        yield db
        return
    with db.client.start_session() as session:
        with session.start_transaction():
            token = _SESSION.set(session)
            try:
                yield db
            finally:
                _SESSION.reset(token)


def is_standalone_server(db: Any) -> bool:
    """A real MongoDB server that has no transactions (not a replica set, not mongos)."""
    return isinstance(db, _SessionDatabase) and not has_transactions(db)


def has_transactions(db: Any) -> bool:
    """Whether :func:`transaction` is a real transaction on this store."""
    if isinstance(db, docstore.Database):
        return True
    if not isinstance(db, _SessionDatabase):
        return False
    client = db.client
    known = _REPLICA.get(client)
    if known is None:
        hello = client.admin.command("hello")
        known = bool(hello.get("setName")) or hello.get("msg") == "isdbgrid"
        _REPLICA[client] = known
    return known


_SESSION: contextvars.ContextVar[Any] = contextvars.ContextVar("painel_store_session", default=None)
_REPLICA: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # client → is a replica set / mongos
_SESSION_METHODS = frozenset({
    "find", "find_one", "insert_one", "insert_many", "update_one", "update_many", "replace_one",
    "delete_one", "delete_many", "find_one_and_update", "find_one_and_replace", "find_one_and_delete",
    "count_documents", "distinct", "bulk_write", "aggregate", "create_index", "drop", "index_information",
})


def _with_session(method: Any) -> Any:
    """``method`` called with the open unit of work's session (unless the caller passed one)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        session = _SESSION.get()
        if session is not None and "session" not in kwargs:
            kwargs["session"] = session
        return method(*args, **kwargs)

    return call


class _SessionCollection:
    """A pymongo Collection that adds the open unit of work's session to every operation."""

    def __init__(self, collection: Any):
        self._collection = collection

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._collection, name)
        return _with_session(attr) if name in _SESSION_METHODS else attr

    def __getitem__(self, name: str) -> _SessionCollection:
        return _SessionCollection(self._collection[name])

    def __eq__(self, other: object) -> bool:
        other = other._collection if isinstance(other, _SessionCollection) else other
        return self._collection == other

    def __hash__(self) -> int:
        return hash(self._collection)


class _SessionDatabase:
    """A pymongo Database whose collections take the open unit of work's session."""

    def __init__(self, database: Any):
        self._database = database

    def __getitem__(self, name: str) -> _SessionCollection:
        return _SessionCollection(self._database[name])

    def __getattr__(self, name: str) -> Any:
        if name in ("client", "name", "command", "list_collection_names", "drop_collection", "with_options"):
            attr = getattr(self._database, name)
            return _with_session(attr) if name in ("list_collection_names", "drop_collection", "command") else attr
        if name.startswith("_"):
            raise AttributeError(name)
        return _SessionCollection(self._database[name])

    def get_collection(self, name: str) -> _SessionCollection:
        return _SessionCollection(self._database[name])

    @property
    def raw(self) -> Any:
        return self._database

    def __eq__(self, other: object) -> bool:
        other = other._database if isinstance(other, _SessionDatabase) else other
        return self._database == other

    def __hash__(self) -> int:
        return hash(self._database)


def _files_folder(db: Any) -> Path:
    if isinstance(db, docstore.Database):
        return db.client.folder / "files"
    return config.data_dir() / "files"


def put_file(db: Database, data: bytes, name: str = "") -> str:
    """Keep a raw file outside any document; returns its SHA-256 (hex), the key to read it back.

    Embedded store and mongomock: a file named by its hash under ``files/`` of the data folder,
    written through a temporary file, fsync and rename. MongoDB: GridFS (bucket ``fs``) with the
    hash as the file's ``_id``. Writing the same content twice keeps one copy.
    """
    digest = hashlib.sha256(data).hexdigest()
    if isinstance(db, _SessionDatabase):
        bucket = _bucket(db)
        session = _SESSION.get()
        if db.raw["fs.files"].find_one({"_id": digest}, {"_id": 1}, session=session) is None:
            bucket.upload_from_stream_with_id(digest, name or digest, data, session=session)
        return digest
    folder = _files_folder(db)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / digest
    if not path.exists():
        tmp = folder / f".{digest}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(tmp, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(path)
        _fsync_dir(folder)
    return digest


def get_file(db: Database, digest: str) -> bytes:
    """The raw file kept by :func:`put_file`."""
    if isinstance(db, _SessionDatabase):
        return _bucket(db).open_download_stream(digest, session=_SESSION.get()).read()
    return (_files_folder(db) / digest).read_bytes()


def list_files(db: Database) -> list[str]:
    """The SHA-256 of every file kept by :func:`put_file` (for backups)."""
    if isinstance(db, _SessionDatabase):
        return sorted(str(d["_id"]) for d in db.raw["fs.files"].find({}, {"_id": 1}))
    folder = _files_folder(db)
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir() if len(p.name) == 64 and not p.name.startswith("."))


def _bucket(db: _SessionDatabase) -> Any:
    from gridfs import GridFSBucket

    return GridFSBucket(db.raw, bucket_name="fs")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
