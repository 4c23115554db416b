"""The cursor of a find: lazy ``sort``/``skip``/``limit``, then one SQL query on the first ``next``."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo.errors import OperationFailure

from docstore import projections, support


def key_list(keys: Any, direction: Any = None) -> list[tuple[str, int]]:
    """A sort or index key in any of pymongo's spellings as ``[(field, direction), ...]``."""
    if isinstance(keys, str):
        return [(keys, 1 if direction is None else direction)]
    if isinstance(keys, Mapping):
        return list(keys.items())
    out = []
    for item in keys:
        if isinstance(item, str):
            item = (item, 1)
        key, direction = item  # a pair, as pymongo unpacks it (ValueError otherwise)
        if not isinstance(key, str):
            raise TypeError(f"first item in each key pair must be an instance of str, not {type(key)}")
        out.append((key, direction))
    return out


class Cursor:
    """A lazy query: ``sort``/``skip``/``limit`` before iterating, like pymongo's cursor. ``collection`` is
    the Collection it reads (its ``_select`` runs the query, its ``_load`` decodes a row)."""

    def __init__(self, collection: Any, flt: Mapping | None, projection: Any):
        if flt is not None and not isinstance(flt, Mapping):
            raise TypeError("filter must be an instance of dict")
        projections.check(projection)
        self.collection, self._filter, self._projection = collection, flt, projection
        self._sort: list[tuple[str, int]] | None = None
        self._skip = self._limit = 0
        self._rows: list | None = None
        self._pos = 0

    def _check(self) -> None:
        if self._rows is not None:
            raise OperationFailure("cannot set options after executing query")

    def sort(self, key_or_list: Any, direction: Any = None) -> Cursor:
        self._check()
        keys = key_list(key_or_list, direction)
        for _, d in keys:
            if d not in (1, -1):
                raise support.unsupported(f"direção de ordenação {d!r}")
        self._sort = keys
        return self

    def skip(self, skip: int) -> Cursor:
        self._check()
        if isinstance(skip, bool) or not isinstance(skip, int):
            raise TypeError("skip must be an integer")
        if skip < 0:
            raise ValueError("skip must be >= 0")
        self._skip = int(skip)
        return self

    def limit(self, limit: int) -> Cursor:
        self._check()
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise TypeError("limit must be an integer")
        self._limit = abs(limit)
        return self

    def __iter__(self) -> Cursor:
        return self

    def __next__(self) -> dict:
        if self._rows is None:
            self._fields = projections.sql_fields(self._projection, lambda: self.collection._engine.kinds(self.collection.name))
            self._rows = self.collection._select(self._filter, self._sort, self._skip, self._limit,
                                                 fields=self._fields)
        if self._pos >= len(self._rows):
            raise StopIteration
        row = self._rows[self._pos]
        self._pos += 1
        if self._fields is not None:
            return projections.projected(row, self._fields, self._projection)
        return projections.project(self.collection._load(row), self._projection)

    next = __next__

    def to_list(self, length: int | None = None) -> list[dict]:
        out = []
        for doc in self:
            out.append(doc)
            if length is not None and len(out) >= length:
                break
        return out

    def clone(self) -> Cursor:
        other = Cursor(self.collection, self._filter, self._projection)
        other._sort, other._skip, other._limit = self._sort, self._skip, self._limit
        return other

    def rewind(self) -> Cursor:
        self._rows, self._pos = None, 0
        return self

    def close(self) -> None:
        self._rows, self._pos = [], 0

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
