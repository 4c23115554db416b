"""The client and its databases: ``client[db_name]`` is a Database, one SQLite file in the client's folder."""
from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docstore import collection, connection, support


class Client:
    """``client[db_name]`` gives a Database; each database is one SQLite file in ``folder``."""

    def __init__(self, folder: str | os.PathLike, default_db: str = "painel_municipal",
                 synchronous: str = "NORMAL", pragmas: dict[str, int] | None = None,
                 engine_class: type[connection.Engine] = connection.Engine):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.default_db = default_db
        self.synchronous = synchronous
        self.pragmas = pragmas or {}  # set on each connection (cache, memory map)
        self.engine_class = engine_class  # what opens each database's file (a subclass may guard it)
        self._engines: dict[str, connection.Engine] = {}
        self._lock = threading.Lock()

    def file_of(self, name: str) -> Path:
        return self.folder / ("painel.sqlite3" if name == self.default_db else f"painel-{name}.sqlite3")

    def engine(self, name: str) -> connection.Engine:
        with self._lock:
            engine = self._engines.get(name)
            if engine is None:
                engine = self.engine_class(self.file_of(name), self.synchronous, self.pragmas)
                self._engines[name] = engine
            return engine

    def release(self, name: str) -> None:
        """Close the engine of ``name`` (its file is about to be replaced); the next use reopens it."""
        with self._lock:
            engine = self._engines.pop(name, None)
        if engine is not None:
            engine.close()

    def __getitem__(self, name: str) -> Database:
        return Database(self, name)

    def __getattr__(self, name: str) -> Database:
        if name.startswith("_"):
            raise AttributeError(name)
        return Database(self, name)

    def get_database(self, name: str | None = None) -> Database:
        return Database(self, name or self.default_db)

    def drop_database(self, name_or_database: str | Database) -> None:
        name = name_or_database.name if isinstance(name_or_database, Database) else name_or_database
        if not isinstance(name, str):
            raise TypeError(f"name_or_database must be an instance of str or a Database, not {type(name)}")
        db = self[name]
        for coll in db.list_collection_names():
            db.drop_collection(coll)

    def close(self) -> None:
        with self._lock:
            for engine in self._engines.values():
                engine.close()
            self._engines.clear()


class Database:
    def __init__(self, client: Client, name: str):
        self.client, self.name = client, name

    @property
    def engine(self) -> connection.Engine:
        return self.client.engine(self.name)

    def __getitem__(self, name: str) -> collection.Collection:
        return collection.Collection(self, name)

    def __getattr__(self, name: str) -> collection.Collection:
        if name.startswith("_"):
            raise AttributeError(name)
        return collection.Collection(self, name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Database) and other.client is self.client and other.name == self.name

    def __hash__(self) -> int:
        return hash((id(self.client), self.name))

    def get_collection(self, name: str) -> collection.Collection:
        return collection.Collection(self, name)

    def list_collection_names(self, filter: Mapping | None = None) -> list[str]:  # noqa: A002
        rows = self.engine.conn().execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                          "AND name NOT LIKE 'sqlite_%' AND name NOT IN ('__indexes', '__paths')")
        return [r[0] for r in rows]

    def drop_collection(self, name_or_collection: str | collection.Collection) -> None:
        name = name_or_collection.name if isinstance(name_or_collection, collection.Collection) else name_or_collection
        if not isinstance(name, str):
            raise TypeError(f"name_or_collection must be an instance of str, not {type(name)}")
        collection.Collection(self, name).drop()

    def command(self, name: Any, *args: Any, **kwargs: Any) -> dict:
        if name in ("ping", {"ping": 1}):
            return {"ok": 1.0}
        raise support.unsupported(f"comando {name!r}")


