"""The SQLite side: one file per database in WAL mode, one connection per thread, units of work
(``BEGIN IMMEDIATE`` transactions, nested units under savepoints), and a damaged file noticed by any
statement or fetch (``_Connection``) and refused from then on (``Engine.found_damage``)."""
from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from pymongo.errors import OperationFailure

from docstore import codec, compiler

META = ("__indexes", "__paths")  # the engine's own tables in each file
AFTER_WAITING_S = 2.0  # how long a unit of work that lets the waiting writers first waits for them, at most
_CORRUPT, _NOTADB = 11, 26  # SQLite's primary result codes of a damaged file (low byte of an extended code)


class Damaged(OperationFailure):
    """The file is damaged (SQLite met a malformed page, or no database at all): what SQLite answered
    is in the message, and every later use of the engine refuses the same way."""


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite raised ``exc`` because the file is damaged (not for a query, a lock or a full disk)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    text = str(exc).lower()
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    return code in (_CORRUPT, _NOTADB) or "disk image is malformed" in text or "file is not a database" in text


class _Cursor(sqlite3.Cursor):
    """A cursor whose fetches hand SQLite's report of a damaged file to the engine."""

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            self.connection.damaged(exc)
            raise

    def fetchmany(self, size: int | None = None) -> list:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.DatabaseError as exc:
            self.connection.damaged(exc)
            raise

    def fetchall(self) -> list:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            self.connection.damaged(exc)
            raise

    def __iter__(self) -> Iterator:
        return iter(self.fetchall())

    def __next__(self) -> Any:
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row


class _Connection(sqlite3.Connection):
    """An engine's connection: the one place its SQL runs. A statement or a fetch that meets a damaged
    file goes to :meth:`Engine.found_damage` (which marks the engine and says what to raise)."""

    engine: Any = None  # a weak reference to the Engine, set when it opens the connection

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return self.cursor(_Cursor).execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            self.damaged(exc)
            raise

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return self.cursor(_Cursor).executemany(sql, parameters)
        except sqlite3.DatabaseError as exc:
            self.damaged(exc)
            raise

    def damaged(self, exc: sqlite3.DatabaseError) -> None:
        """Raise the engine's answer when ``exc`` says the file is damaged; return otherwise."""
        engine = self.engine() if self.engine is not None else None
        if engine is not None and is_damage(exc):
            raise engine.found_damage(exc) from exc


class Engine:
    """One SQLite file, one connection per thread, a transaction depth per thread."""

    def __init__(self, path: Path, synchronous: str = "NORMAL", pragmas: dict[str, int] | None = None):
        self.path = path
        self.synchronous = synchronous
        self.pragmas = pragmas or {}  # set on each connection after the engine's own
        self._local = threading.local()
        self._all: dict[int, tuple[weakref.ref, sqlite3.Connection]] = {}
        self._lock = threading.Lock()
        self._asked = self._began = 0  # units of work of this process that asked for the write lock; that had it
        self._turns = threading.Lock()
        self.closed = False
        self.damage: str | None = None  # what SQLite answered when it met the file damaged
        conn = self.conn()
        with self.write():
            conn.execute("CREATE TABLE IF NOT EXISTS __indexes (coll TEXT NOT NULL, name TEXT NOT NULL, "
                         "spec TEXT NOT NULL, PRIMARY KEY (coll, name))")
            conn.execute("CREATE TABLE IF NOT EXISTS __paths (coll TEXT NOT NULL, path TEXT NOT NULL, "
                         "kind TEXT NOT NULL, PRIMARY KEY (coll, path, kind)) WITHOUT ROWID")

    def conn(self) -> sqlite3.Connection:
        if self.damage is not None:  # nothing more is read from or written to a damaged file
            raise self.damaged_error()
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.closed:
                raise OperationFailure("Cannot use a closed client")
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False,
                                   factory=_Connection)
            conn.engine = weakref.ref(self)
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            for pragma, value in self.pragmas.items():
                conn.execute(f"PRAGMA {pragma} = {value}")
            conn.create_function("painel_regex", 3, compiler.sql_regex, deterministic=True)
            self._local.conn = conn
            self._local.depth = 0
            with self._lock:
                for ident, (thread, other) in list(self._all.items()):
                    if thread() is None or not thread().is_alive():  # a finished thread's connection
                        other.close()
                        del self._all[ident]
                self._all[id(conn)] = (weakref.ref(threading.current_thread()), conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for _, conn in self._all.values():
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()
            self.closed = True
        self._local = threading.local()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write unit: joins the thread's open transaction or opens one with BEGIN IMMEDIATE."""
        conn = self.conn()
        if self._local.depth:
            self._local.depth += 1
            try:
                yield conn
            except Partial as exc:
                raise exc.error from None
            finally:
                self._local.depth -= 1
            return
        self._begin(conn, after_waiting=False)
        self._local.depth = 1
        try:
            yield conn
        except BaseException as exc:
            self._local.depth = 0
            if isinstance(exc, Partial):
                conn.execute("COMMIT")
                raise exc.error from None
            conn.execute("ROLLBACK")
            raise
        else:
            self._local.depth = 0
            _commit(conn)

    @contextmanager
    def transaction(self, after_waiting: bool = False) -> Iterator[None]:
        """The caller's unit of work; an exception rolls all of it back. A nested unit joins the outer
        one under a savepoint: an exception leaving it undoes its own writes, and the outer unit, if it
        catches the exception, goes on with what it wrote before. ``after_waiting``: see :meth:`_begin`."""
        conn = self.conn()
        if self._local.depth:
            self._local.depth += 1
            savepoint = f"unit_{self._local.depth}"
            conn.execute(f"SAVEPOINT {savepoint}")
            try:
                yield
            except BaseException:
                conn.execute(f"ROLLBACK TO {savepoint}")
                conn.execute(f"RELEASE {savepoint}")
                raise
            else:
                conn.execute(f"RELEASE {savepoint}")
            finally:
                self._local.depth -= 1
            return
        self._begin(conn, after_waiting)
        self._local.depth = 1
        try:
            yield
        except BaseException:
            self._local.depth = 0
            conn.execute("ROLLBACK")
            raise
        else:
            self._local.depth = 0
            _commit(conn)

    def _begin(self, conn: sqlite3.Connection, after_waiting: bool) -> None:
        """``BEGIN IMMEDIATE``, counted. ``after_waiting``: the units of this process already waiting for
        the write lock have it first (``AFTER_WAITING_S`` at most). A long job working in chunks (a bank
        file's import) so never makes a clerk's save wait through more than one chunk, however late
        SQLite's busy handler (sleeping up to 100 ms between tries) or a busy machine wakes that save."""
        if after_waiting:
            ahead, deadline = self._asked, time.monotonic() + AFTER_WAITING_S
            while self._began < ahead and time.monotonic() < deadline:
                time.sleep(0.002)
        with self._turns:
            self._asked += 1
        try:
            conn.execute("BEGIN IMMEDIATE")
        finally:
            with self._turns:
                self._began += 1

    def found_damage(self, exc: sqlite3.DatabaseError) -> Exception:
        """SQLite met the file damaged: from now on every use of this engine refuses. Returns the error
        to raise (a subclass may also tell other processes, e.g. with a file beside the store)."""
        self.damage = self.damage or str(exc)
        return self.damaged_error()

    def damaged_error(self) -> Exception:
        return Damaged(f"O arquivo {self.path} está danificado ({self.damage}).")

    def quick_check(self, seconds: float) -> bool:
        """SQLite's ``quick_check`` (every page of every table and index read once; not the match of
        indexes to rows) for at most ``seconds``: True when the whole file was read and is sound, False
        when the time ran out first; a damaged file is marked (:meth:`found_damage`) and its error raised."""
        if self.damage is not None:
            raise self.damaged_error()
        if seconds <= 0:
            return False
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False, factory=_Connection)
        conn.engine = weakref.ref(self)

        def stop() -> None:  # the page check is one VM step (no progress handler runs inside it)
            with suppress(sqlite3.Error):
                conn.interrupt()
        timer = threading.Timer(seconds, stop)
        timer.start()
        try:
            rows = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                return False
            raise
        finally:
            timer.cancel()
            conn.close()
        if rows != ["ok"]:
            raise self.found_damage(sqlite3.DatabaseError("; ".join(rows[:3])))
        return True

    def in_transaction(self) -> bool:
        return bool(getattr(self._local, "depth", 0))

    def has_table(self, name: str) -> bool:
        row = self.conn().execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
        return row is not None

    def ensure_table(self, conn: sqlite3.Connection, name: str) -> None:
        """Create the collection's table on its first write (a no-op statement afterwards)."""
        if name in META or name.startswith("sqlite_"):
            raise OperationFailure(f"Invalid collection name: {name}")
        conn.execute(f"CREATE TABLE IF NOT EXISTS {quote(name)} (id PRIMARY KEY NOT NULL, doc TEXT NOT NULL)")

    def kinds(self, coll: str) -> PathKinds:
        """The kinds each path of ``coll`` has held, looked up path by path as a query asks for them (a
        collection of views keyed by day can have tens of thousands of paths; a query touches a few)."""
        return PathKinds(self, coll)

    def note_paths(self, conn: sqlite3.Connection, coll: str, found: set[tuple[str, str]]) -> None:
        """Remember which paths hold arrays, numbers and decimals (in the same transaction as the write):
        ``found`` is the ``(path, kind)`` that :func:`codec.stored_document` saw in the written documents."""
        if found:
            conn.executemany("INSERT OR IGNORE INTO __paths (coll, path, kind) VALUES (?, ?, ?)",
                             [(coll, p, k) for p, k in found])


class PathKinds:
    """``{path: {kind, ...}}`` of one collection, read lazily: each path asked is one lookup on the
    primary key of ``__paths`` (remembered for the rest of the query), never the whole table."""

    def __init__(self, engine: Engine, coll: str) -> None:
        self._engine, self._coll = engine, coll
        self._known: dict[str, set[str]] = {}

    def get(self, path: str, default: Any = None) -> Any:
        if path not in self._known:
            rows = self._engine.conn().execute("SELECT kind FROM __paths WHERE coll = ? AND path = ?",
                                               (self._coll, path))
            self._known[path] = {kind for (kind,) in rows}
        return self._known[path] or default


class Partial(Exception):
    """Raised inside Engine.write to commit the part already written and raise ``error``."""

    def __init__(self, error: Exception):
        self.error = error


def _commit(conn: sqlite3.Connection) -> None:
    """COMMIT; when it fails (busy, a full disk, a damaged file) the transaction is rolled back, never
    left open holding the write lock."""
    try:
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        raise


def execute(conn: sqlite3.Connection, sql: str, params: Any = ()) -> sqlite3.Cursor:
    """``conn.execute`` of a compiled query; an error SQLite raises for it (a limit of SQLite's, a value
    it cannot bind) is the server's ``OperationFailure``, never a raw ``sqlite3`` exception.
    IntegrityError (a unique index) goes through: the writer makes it a DuplicateKeyError."""
    try:
        return conn.execute(sql, params)
    except sqlite3.IntegrityError:
        raise
    except sqlite3.Error as exc:
        raise OperationFailure(f"A consulta não pôde ser executada pelo armazenamento embutido: {exc}",
                               code=2) from None


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


