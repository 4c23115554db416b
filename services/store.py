"""The one place that makes the database, and the codec between Python values and documents.

``MONGODB_URI`` set: pymongo to that server (database ``MONGODB_DB``). Unset: the embedded store
(the ``docstore`` package, a pymongo subset over SQLite) in ``PAINEL_DATA_DIR/painel.sqlite3``,
persistent across restarts. Only operations that every store supports are used by the services;
the contract suite in ``tests/test_store_contract.py`` covers each of them.

Units of work (:func:`transaction`): one SQLite transaction on the embedded store; on a MongoDB
replica set (Atlas always is) a session transaction, passed to every operation by the proxies below
(services never pass ``session=``); on a standalone server or mongomock no transaction.

Codec (``services/shared/store_codec.py``, re-exported here): ``Decimal`` ↔ Decimal128, ``date`` ↔
ISO text, instants ↔ UTC datetimes. Store faults and the file's marker: ``store_file.py``.
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import sqlite3
import threading
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pymongo.database import Database
from pymongo.errors import DuplicateKeyError  # noqa: F401  (re-exported for the services)

import docstore
import docstore.connection
from services.shared import config, store_file, unit_of_work
from services.shared.store_codec import decode, encode, parse_date  # noqa: F401  (the store's interface)
from services.shared.store_sessions import SESSION as _SESSION
from services.shared.store_sessions import STAGING_PREFIX, Prefixed
from services.shared.store_sessions import SessionDatabase as _SessionDatabase

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
    "summary_months": [([("municipality", 1), ("view", 1), ("month", 1)], {"name": "i_summary_month"})],  # summary.days
    "summary_month_totals": [([("municipality", 1), ("view", 1), ("month", 1)], {"name": "i_summary_total"})],
}


def connect(uri: str | None = None, data_dir: str | None = None, db_name: str | None = None, *,
            restoring: bool = False) -> Database:
    """A database handle, one client per target and process (clients are thread-safe).

    Embedded store: the file is opened here, so a lost or damaged one refuses to start with a pt-BR
    :class:`~services.shared.store_file.StoreFault` (``services/shared/store_file.py``); ``restoring``
    (``python -m seed --restore``) leaves a lost file unopened for :func:`promote` to replace."""
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
    db = client[db_name]
    if not restoring:
        db.engine  # noqa: B018  (opens and checks the file)
    return db


def _make_client(uri: str | None, folder: str) -> Any:
    if uri:
        from pymongo import MongoClient

        return MongoClient(uri, tz_aware=True, serverSelectionTimeoutMS=5000)
    legacy = Path(folder) / f"{config.mongodb_db()}.sqlite"
    if legacy.exists() and not (Path(folder) / "painel.sqlite3").exists():
        logging.getLogger(__name__).warning(
            "A pasta %s tem dados no formato antigo (tinymongo, %s) que o painel não lê mais; copie-os com "
            "`python -m seed --from-tinymongo %s` (veja o README).", folder, legacy.name, folder)
    store_file.prepare_folder(Path(folder))  # PAINEL_DATA_DIR a file: refused in pt-BR
    return _embedded(folder, config.mongodb_db())


class _GuardedEngine(docstore.connection.Engine):
    """One file, opened only where a store may be (``store_file.check_present``) and not known damaged;
    busy, full and damaged are pt-BR faults, and damage met by any read or write is marked (a file beside
    the store: other processes refuse it at their next write or start) and refused from then on."""

    def __init__(self, path: Path, synchronous: str = "NORMAL", pragmas: dict[str, int] | None = None):
        store_file.check_present(path)
        if (seen := store_file.damage_seen(path)) is not None:  # found by an earlier run or another process
            store_file.mark_damaged(path, seen)  # the log says it at every start
            raise store_file.damaged(path)
        try:
            super().__init__(path, synchronous, pragmas)
            self.conn().execute("PRAGMA schema_version").fetchone()  # the header and first page only
        except (sqlite3.DatabaseError, store_file.StoreFault) as exc:
            self.close()
            raise store_file.fault(exc, path) or exc
        store_file.ensure_marker(path)

    def found_damage(self, exc: sqlite3.DatabaseError) -> Exception:
        if self.damage is None:
            store_file.mark_damaged(self.path, str(exc))
        return super().found_damage(exc)

    def damaged_error(self) -> Exception:
        return store_file.damaged(self.path)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        with self._translated(), super().write() as conn:
            yield conn

    @contextmanager
    def transaction(self, after_waiting: bool = False) -> Iterator[None]:
        with self._translated(), super().transaction(after_waiting):
            yield

    @contextmanager
    def _translated(self) -> Iterator[None]:
        if not self.in_transaction() and (seen := store_file.damage_seen(self.path)) is not None:
            raise self.found_damage(sqlite3.DatabaseError(seen))  # found by another process
        try:
            yield
        except (sqlite3.DatabaseError, OSError) as exc:
            raise store_file.fault(exc, self.path) or exc


def _embedded(folder: str | Path, db_name: str) -> docstore.Client:
    return docstore.Client(folder, default_db=db_name, synchronous=config.sqlite_synchronous(),
                           pragmas=config.sqlite_pragmas(), engine_class=_GuardedEngine)


def check_store(db: Database) -> None:
    """At start-up: refuse an embedded store whose file was lost while it was open, or that is damaged
    (SQLite's quick_check for at most ``PAINEL_STORE_CHECK_SECONDS``; then reads meet what is left)."""
    if isinstance(db, docstore.Database):
        path = db.client.file_of(db.name)
        if store_file.is_missing(path):
            raise store_file.lost(path)
        db.engine.quick_check(config.store_check_seconds())


def refuse_damaged(db: Database) -> Database:
    """``db``, or the pt-BR fault of an embedded store found damaged, here or by another process."""
    if isinstance(db, docstore.Database):
        db.engine.conn()
        if (seen := store_file.damage_seen(db.engine.path)) is not None:
            raise db.engine.found_damage(sqlite3.DatabaseError(seen))
    return db


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


@contextmanager
def transaction(db: Database, after_waiting: bool = False) -> Iterator[Database]:
    """One unit of work: every write inside commits together or not at all.

    Wrap a write, its audit entry and any number it reserves in ``with store.transaction(db):``;
    nesting joins the outer unit (an inner exception caught inside the outer block does not undo
    the inner writes); the read models' projections (``unit_of_work.before_commit``) run at its end,
    inside it. Embedded store: one SQLite ``BEGIN IMMEDIATE`` transaction of the calling thread over
    every collection, counters included. MongoDB replica set: a session transaction. Standalone
    MongoDB server or mongomock: no transaction, the block runs as it is (``has_transactions``).
    ``after_waiting`` (a long job's chunk): the embedded store's waiting writers of this process go first.
    """
    if isinstance(db, docstore.Database):
        with db.engine.transaction(after_waiting), unit_of_work.collecting():
            yield db
        return
    if not isinstance(db, _SessionDatabase) or _SESSION.get() is not None or not has_transactions(db):
        with unit_of_work.collecting():
            yield db
        return
    with db.client.start_session() as session, session.start_transaction():
        token = _SESSION.set(session)
        try:
            with unit_of_work.collecting():
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


_REPLICA: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # client → is a replica set / mongos

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
        try:
            with open(tmp, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            tmp.replace(path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            translated = store_file.fault(exc)
            if translated is None:
                raise
            raise translated from exc
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


@contextmanager
def snapshot(db: Database) -> Iterator[Any]:
    """The store as of one instant, to read whole (a backup) while the panel goes on writing.

    Embedded: SQLite's online backup API copies the file in one step into a temporary store that
    is read and then deleted. MongoDB: the database itself (take a consistent copy as the README
    says: ``mongodump --oplog`` on a replica set, or a disk snapshot)."""
    if not isinstance(db, docstore.Database):
        yield db
        return
    folder = db.client.folder / f".copia-{uuid.uuid4().hex}"
    copy = docstore.Client(folder, default_db=db.name)
    try:
        target = sqlite3.connect(copy.file_of(db.name))
        try:
            db.engine.conn().backup(target)
        finally:
            target.close()
        yield copy[db.name]
    except docstore.connection.Damaged as exc:  # the copy holds the live file's pages as they are
        raise db.engine.found_damage(sqlite3.DatabaseError(str(exc))) from exc
    finally:
        copy.close()
        shutil.rmtree(folder, ignore_errors=True)


def is_empty(db: Database) -> bool:
    """Whether the store holds no document (a lost embedded file counts as empty; it is not opened)."""
    if isinstance(db, docstore.Database) and store_file.is_missing(db.client.file_of(db.name)):
        return True
    return not any(db[name].count_documents({}, limit=1) for name in db.list_collection_names()
                   if name not in ("fs.files", "fs.chunks") and not name.startswith(STAGING_PREFIX))


@contextmanager
def staging(db: Database) -> Iterator[Any]:
    """An empty store beside ``db`` to load a restore into; :func:`promote` inside the block makes it
    the live one, any exception discards it and leaves ``db`` as it was. Embedded: a new file in a
    folder of its own in the data folder. MongoDB: collections ``restauracao__<name>`` of ``db``."""
    if not isinstance(db, docstore.Database):
        staged = Prefixed(db)
        for name in staged.list_collection_names():
            db.drop_collection(STAGING_PREFIX + name)
        try:
            yield staged
        finally:
            for name in staged.list_collection_names():
                db.drop_collection(STAGING_PREFIX + name)
        return
    folder = db.client.folder / f".restauracao-{uuid.uuid4().hex}"
    client = _embedded(folder, db.name)
    try:
        yield client[db.name]
    finally:
        client.close()
        shutil.rmtree(folder, ignore_errors=True)


def promote(db: Database, staged: Any) -> None:
    """Make the loaded and verified staging store the live ``db`` (see :func:`staging`)."""
    if isinstance(staged, Prefixed):
        for name in staged.list_collection_names():
            staged[name].rename(name, dropTarget=True)
        return
    staged.engine.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    staged.client.close()  # the last connection folds the WAL into the file
    source, target = staged.client.file_of(staged.name), db.client.file_of(db.name)
    db.client.release(db.name)
    for suffix in ("-wal", "-shm"):
        target.with_name(target.name + suffix).unlink(missing_ok=True)
    os.replace(source, target)
    _fsync_dir(target.parent)
    store_file.clear_damage(target)
    store_file.ensure_marker(target)
