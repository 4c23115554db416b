"""Indexes: SQLite expression indexes on the same ``json_extract`` expressions the compiler writes, so
an equality filter followed by a sort walks an index; and ``explain_sql``, the plan SQLite picks.

A unique index keys a missing/null field as ``X'00'`` (SQLite lets NULLs through; MongoDB does not),
and, unless it is on ``_id`` alone, a second plain index serves queries and sorts.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from pymongo.errors import DuplicateKeyError, OperationFailure

from docstore import arguments, codec, compiler, connection, support


class IndexMethods:
    """The index operations of a Collection (a mixin: they use its ``name``, ``_engine`` and ``_where``)."""

    def _index_specs(self) -> dict[str, dict]:
        rows = self._engine.conn().execute("SELECT name, spec FROM __indexes WHERE coll = ?", (self.name,))
        out = {}
        for name, spec in rows:
            value = json.loads(spec)
            value["key"] = [tuple(k) for k in value["key"]]
            out[name] = value
        return out

    def create_index(self, keys: Any, **options: Any) -> str:
        key_list = arguments.key_list(keys)
        for field, direction in key_list:
            if direction not in (1, -1):
                raise support.unsupported(f"índice do tipo {direction!r}")
            compiler.field_expr(field)
        unique = bool(options.pop("unique", False))
        sparse = bool(options.pop("sparse", False))
        partial = options.pop("partialFilterExpression", None)
        name = options.pop("name", None) or "_".join(f"{k}_{d}" for k, d in key_list)
        options.pop("background", None)
        if options:
            raise support.unsupported(f"opções de índice {sorted(options)}")
        spec = {"key": [list(k) for k in key_list], "unique": unique, "sparse": sparse}
        if partial is not None:
            spec["partialFilterExpression"] = partial
        if self._index_exists(name, spec):  # the usual case at start: nothing to write
            return name
        where = ""
        if partial is not None:
            where = " WHERE " + _partial_sql(partial)
        elif sparse:
            where = " WHERE " + " OR ".join(f"json_type(doc, '{compiler.json_path(k.split('.'))}') IS NOT NULL"
                                             if k != "_id" else "1" for k, _ in key_list)
        table = connection.quote(self.name)
        columns = ", ".join(f"{compiler.field_expr(k)} {'DESC' if d == -1 else 'ASC'}" for k, d in key_list)
        with self._engine.write() as conn:
            if self._index_exists(name, spec):  # made meanwhile by another process
                return name
            self._engine.ensure_table(conn, self.name)
            if unique:
                keyed = ", ".join(f"IFNULL({compiler.field_expr(k)}, X'00')" for k, _ in key_list)
                try:
                    conn.execute(f"CREATE UNIQUE INDEX {connection.quote(self.name + '__' + name)} ON {table} ({keyed}){where}")
                except sqlite3.IntegrityError as exc:
                    raise DuplicateKeyError(f"E11000 duplicate key error collection: {self.full_name} index: "
                                            f"{name}: {exc}", 11000) from None
            if not (unique and [k for k, _ in key_list] == ["_id"]):
                tail = ", id" if "_id" not in [k for k, _ in key_list] else ""
                conn.execute(f"CREATE INDEX {connection.quote(self.name + '__' + name + '__q')} ON {table} ({columns}{tail})")
            conn.execute("INSERT INTO __indexes (coll, name, spec) VALUES (?, ?, ?)", (self.name, name, codec.dumps(spec)))
        return name

    def _index_exists(self, name: str, spec: dict) -> bool:
        existing = self._index_specs()
        if name in existing:
            old = {**existing[name], "key": [list(k) for k in existing[name]["key"]]}
            if old != spec:
                raise OperationFailure(f"An existing index has the same name as the requested index: {name}", code=86)
            return True
        for other, old in existing.items():
            if {**old, "key": [list(k) for k in old["key"]]} == spec:
                raise OperationFailure(f"Index already exists with a different name: {other}", code=85)
        return False

    def create_indexes(self, indexes: list, comment: Any = None, **kwargs: Any) -> list[str]:
        return [self.create_index(i.document["key"].items(), **{k: v for k, v in i.document.items() if k != "key"})
                for i in arguments.index_models(indexes)]

    def drop_index(self, index_or_name: str | list) -> None:
        name = "_".join(f"{k}_{d}" for k, d in index_or_name) if isinstance(index_or_name, list) else index_or_name
        if not isinstance(name, str):
            raise TypeError(f"index_or_name must be an instance of str or list, not {type(name)}")
        if name == "_id_":
            raise OperationFailure("cannot drop _id index", code=72)
        if name not in self._index_specs():
            raise OperationFailure(f"index not found with name [{name}]", code=27)
        with self._engine.write() as conn:
            conn.execute(f"DROP INDEX IF EXISTS {connection.quote(self.name + '__' + name)}")
            conn.execute(f"DROP INDEX IF EXISTS {connection.quote(self.name + '__' + name + '__q')}")
            conn.execute("DELETE FROM __indexes WHERE coll = ? AND name = ?", (self.name, name))

    def drop_indexes(self) -> None:
        for name in self._index_specs():
            self.drop_index(name)

    def index_information(self) -> dict[str, dict]:
        if not self._engine.has_table(self.name):  # a collection never written or dropped has no index
            return {}
        info: dict[str, dict] = {"_id_": {"v": 2, "key": [("_id", 1)]}}
        for name, spec in self._index_specs().items():
            entry: dict[str, Any] = {"v": 2, "key": spec["key"]}
            if spec.get("unique"):
                entry["unique"] = True
            if spec.get("sparse"):
                entry["sparse"] = True
            if "partialFilterExpression" in spec:
                entry["partialFilterExpression"] = spec["partialFilterExpression"]
            info[name] = entry
        return info

    def list_indexes(self) -> Iterator[dict]:
        for name, entry in self.index_information().items():
            yield {"name": name, **{k: (dict(v) if k == "key" else v) for k, v in entry.items()}}

    def explain_sql(self, filter: Mapping | None = None, sort: Any = None, limit: int = 0) -> list[str]:  # noqa: A002
        """SQLite's query plan (EXPLAIN QUERY PLAN details) of a find; for tests and benchmarks."""
        where, params = self._where(filter)
        sql = f"SELECT id, doc FROM {connection.quote(self.name)} WHERE {where}"
        if sort:
            sql += " ORDER BY " + ", ".join(f"{compiler.field_expr(k)} {'DESC' if d == -1 else 'ASC'}"
                                            for k, d in arguments.key_list(sort))
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [row[3] for row in self._engine.conn().execute("EXPLAIN QUERY PLAN " + sql, params)]


def _partial_sql(expression: Mapping) -> str:
    """A partialFilterExpression as a constant SQL condition (only ``{f: {"$exists": True}}`` terms)."""
    terms = []
    for key, cond in expression.items():
        if not (isinstance(cond, Mapping) and list(cond) == ["$exists"] and cond["$exists"] is True):
            raise support.unsupported("partialFilterExpression além de {campo: {'$exists': True}}")
        terms.append(f"json_type(doc, '{compiler.json_path(key.split('.'))}') IS NOT NULL" if key != "_id" else "1")
    return " AND ".join(terms) or "1"

