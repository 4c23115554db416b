"""The cursor of a find: lazy ``sort``/``skip``/``limit``, then one SQL query on the first ``next``."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo import helpers_shared
from pymongo.errors import OperationFailure

from docstore import arguments, projections


class Cursor:
    """A lazy query: ``sort``/``skip``/``limit`` before iterating, like pymongo's cursor. ``collection`` is
    the Collection it reads (its ``_select`` runs the query, its ``_load`` decodes a row)."""

    def __init__(self, collection: Any, flt: Mapping | None, projection: Any):
        flt = flt or {}  # pymongo: ``filter or {}``, then a mapping
        arguments.validate_is_mapping("filter", flt)
        self.collection, self._filter, self._projection = collection, flt, arguments.projection_spec(projection)
        self._sort: list[tuple[str, int]] | None = None
        self._skip = self._limit = 0
        self._rows: list | None = None
        self._pos = 0

    def _check(self) -> None:
        if self._rows is not None:
            raise OperationFailure("cannot set options after executing query")

    def sort(self, key_or_list: Any, direction: Any = None) -> Cursor:
        self._check()
        self._sort = arguments.sort_keys(helpers_shared._index_list(key_or_list, direction))
        return self

    def skip(self, skip: int) -> Cursor:
        self._check()
        arguments.check_int("skip", skip)
        if skip < 0:
            raise ValueError("skip must be >= 0")
        self._skip = int(skip)
        return self

    def limit(self, limit: int) -> Cursor:
        self._check()
        arguments.check_int("limit", limit)
        self._limit = min(abs(limit), 2**63 - 1)
        return self

    def batch_size(self, batch_size: int) -> Cursor:
        """Accepted and checked as pymongo checks it; the rows come in one query anyway."""
        self._check()
        arguments.check_int("batch_size", batch_size)
        if batch_size < 0:
            raise ValueError("batch_size must be >= 0")
        return self

    def __iter__(self) -> Cursor:
        return self

    def __next__(self) -> dict:
        if self._rows is None:
            self._fields = projections.sql_fields(self._projection, lambda: self.collection._engine.kinds(self.collection.name))
            self._layout = None if self._fields is None else projections.Layout(self._fields, self._projection)
            self._rows = self.collection._select(self._filter, self._sort, self._skip, self._limit,
                                                 fields=self._fields)
        if self._pos >= len(self._rows):
            raise StopIteration
        row = self._rows[self._pos]
        self._pos += 1
        if self._fields is not None:
            return projections.projected(row, self._layout)
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
