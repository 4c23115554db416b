"""MongoDB units of work: proxies that pass the open unit's client session to every operation, so
services never pass ``session=`` (used by ``services.store.transaction``)."""
from __future__ import annotations

import contextvars
from typing import Any

SESSION: contextvars.ContextVar[Any] = contextvars.ContextVar("painel_store_session", default=None)
_SESSION_METHODS = frozenset({
    "find", "find_one", "insert_one", "insert_many", "update_one", "update_many", "replace_one",
    "delete_one", "delete_many", "find_one_and_update", "find_one_and_replace", "find_one_and_delete",
    "count_documents", "distinct", "bulk_write", "aggregate", "create_index", "drop", "index_information",
})


def _with_session(method: Any) -> Any:
    """``method`` called with the open unit of work's session (unless the caller passed one)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        session = SESSION.get()
        if session is not None and "session" not in kwargs:
            kwargs["session"] = session
        return method(*args, **kwargs)

    return call


class SessionCollection:
    """A pymongo Collection that adds the open unit of work's session to every operation."""

    def __init__(self, collection: Any):
        self._collection = collection

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._collection, name)
        return _with_session(attr) if name in _SESSION_METHODS else attr

    def __getitem__(self, name: str) -> SessionCollection:
        return SessionCollection(self._collection[name])

    def __eq__(self, other: object) -> bool:
        other = other._collection if isinstance(other, SessionCollection) else other
        return self._collection == other

    def __hash__(self) -> int:
        return hash(self._collection)


class SessionDatabase:
    """A pymongo Database whose collections take the open unit of work's session."""

    def __init__(self, database: Any):
        self._database = database

    def __getitem__(self, name: str) -> SessionCollection:
        return SessionCollection(self._database[name])

    def __getattr__(self, name: str) -> Any:
        if name in ("client", "name", "command", "list_collection_names", "drop_collection", "with_options"):
            attr = getattr(self._database, name)
            return _with_session(attr) if name in ("list_collection_names", "drop_collection", "command") else attr
        if name.startswith("_"):
            raise AttributeError(name)
        return SessionCollection(self._database[name])

    def get_collection(self, name: str) -> SessionCollection:
        return SessionCollection(self._database[name])

    @property
    def raw(self) -> Any:
        return self._database

    def __eq__(self, other: object) -> bool:
        other = other._database if isinstance(other, SessionDatabase) else other
        return self._database == other

    def __hash__(self) -> int:
        return hash(self._database)


STAGING_PREFIX = "restauracao__"


class Prefixed:
    """Collections ``restauracao__<name>`` of a MongoDB database, seen as a database of their own."""

    def __init__(self, db: Any):
        self.db = db

    def __getitem__(self, name: str) -> Any:
        return self.db[STAGING_PREFIX + name]

    def list_collection_names(self) -> list[str]:
        return [n[len(STAGING_PREFIX):] for n in self.db.list_collection_names() if n.startswith(STAGING_PREFIX)]
