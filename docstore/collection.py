"""A collection: one SQLite table ``(id PRIMARY KEY, doc TEXT)``; reads compiled to SQL, writes and
updates applied to the row inside one transaction (atomic across threads and processes)."""
from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from bson.objectid import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure, WriteError
from pymongo.results import DeleteResult, InsertManyResult, InsertOneResult, UpdateResult

from docstore import arguments, codec, compiler, connection, cursor, indexes, projections, support, updates


def _distinct_values(value: Any, parts: list[str]) -> Iterator[Any]:
    """The values ``distinct`` counts under ``parts`` of a (JSON-stored) value, as MongoDB walks arrays."""
    if not parts:
        if isinstance(value, list):
            yield from value
        else:
            yield value
        return
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        if head in value:
            yield from _distinct_values(value[head], rest)
    elif isinstance(value, list):
        if head.isdigit() and int(head) < len(value):
            yield from _distinct_values(value[int(head)], rest)
        for item in value:
            if isinstance(item, dict):
                yield from _distinct_values(item, parts)


class Collection(indexes.IndexMethods):
    """``database[name]``: the documents of one table; ``database`` is the Database it belongs to."""

    def __init__(self, database: Any, name: str):
        self.database, self.name = database, arguments.collection_name(name)

    @property
    def full_name(self) -> str:
        return f"{self.database.name}.{self.name}"

    @property
    def _engine(self) -> connection.Engine:
        return self.database.engine

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Collection) and other.database == self.database and other.name == self.name

    def __hash__(self) -> int:
        return hash((self.database, self.name))

    def __getitem__(self, name: str) -> Collection:
        return Collection(self.database, f"{self.name}.{name}")

    # -- reading
    def find(self, filter: Mapping | None = None, projection: Any = None, skip: int = 0, limit: int = 0,
             sort: Any = None, batch_size: int = 0, **kwargs: Any) -> cursor.Cursor:  # noqa: A002
        if kwargs:
            raise support.unsupported(f"argumentos de find {sorted(kwargs)}")
        found = cursor.Cursor(self, filter, projection)
        found.batch_size(batch_size)
        if sort:
            found.sort(arguments.sort_keys(sort))
        return found.skip(skip).limit(limit)

    def find_one(self, filter: Any = None, projection: Any = None, *args: Any, sort: Any = None,
                 **kwargs: Any) -> dict | None:  # noqa: A002
        if filter is not None and not isinstance(filter, Mapping):
            filter = {"_id": filter}
        for doc in self.find(filter, projection, *args, sort=sort, **kwargs).limit(1):
            return doc
        return None

    def _where(self, flt: Mapping | None) -> tuple[str, list]:
        query = compiler.Compiler(self._engine.kinds(self.name))
        return query.compile(flt), query.params

    def count_documents(self, filter: Mapping, **kwargs: Any) -> int:  # noqa: A002
        skip, limit = kwargs.pop("skip", None), kwargs.pop("limit", None)
        if kwargs:
            raise support.unsupported(f"argumentos de count_documents {sorted(kwargs)}")
        skip, limit = arguments.count_stages(filter, skip, limit)
        where, params = self._where(filter)
        if not self._engine.has_table(self.name):
            return 0
        if not skip and not limit:
            sql = f"SELECT COUNT(*) FROM {connection.quote(self.name)} WHERE {where}"
        else:
            sql = (f"SELECT COUNT(*) FROM (SELECT 1 FROM {connection.quote(self.name)} WHERE {where} LIMIT ? OFFSET ?)")
            params = [*params, limit or -1, skip]
        return connection.execute(self._engine.conn(), sql, params).fetchone()[0]

    def estimated_document_count(self, comment: Any = None, **kwargs: Any) -> int:
        """pymongo sends ``kwargs`` in a ``count`` command without a query: the server takes maxTimeMS,
        hint, skip and limit there (the count after ``skip``, at most ``limit``) and refuses the rest."""
        skip, limit = arguments.estimated_count_options(kwargs)
        if not self._engine.has_table(self.name):
            return 0
        count = self._engine.conn().execute(f"SELECT COUNT(*) FROM {connection.quote(self.name)}").fetchone()[0]
        count = max(0, count - skip)
        return min(count, limit) if limit else count

    def distinct(self, key: str, filter: Mapping | None = None, **kwargs: Any) -> list:  # noqa: A002
        if kwargs:
            raise support.unsupported(f"argumentos de distinct {sorted(kwargs)}")
        if not isinstance(key, str):
            raise TypeError(f"key must be an instance of str, not {type(key)}")
        if filter is not None and not isinstance(filter, Mapping):  # the server's answer to a query not a document
            raise OperationFailure("BSON field 'distinct.query' is the wrong type, expected type 'object'", code=14)
        where, params = self._where(filter)
        if not self._engine.has_table(self.name):
            return []
        table = connection.quote(self.name)
        parts = key.split(".")
        kinds = self._engine.kinds(self.name)
        if key == "_id":
            rows = connection.execute(self._engine.conn(), f"SELECT DISTINCT json_quote(id) FROM {table} WHERE {where}", params)
        elif any("array" in kinds.get(".".join(parts[:k]), ()) for k in range(1, len(parts) + 1)):
            # arrays on the path: each element counts (and documents inside arrays are walked)
            head = compiler.json_path(parts[:1])
            found = connection.execute(self._engine.conn(), f"SELECT DISTINCT doc -> '{head}' FROM {table} "
                                                f"WHERE json_type(doc, '{head}') IS NOT NULL AND ({where})", params)
            rows = [(codec.dumps(v),) for (text,) in found for v in _distinct_values(json.loads(text), parts[1:])]
        else:
            jpath = compiler.json_path(parts)
            rows = connection.execute(self._engine.conn(), f"SELECT DISTINCT doc -> '{jpath}' FROM {table} "
                                               f"WHERE json_type(doc, '{jpath}') IS NOT NULL AND ({where})", params)
        out, seen = [], set()
        for (text,) in rows:
            if text is None:
                continue
            value = json.loads(text)
            marker = codec.dumps(["dec", codec.decimal_key(codec.as_decimal128(value))]) if isinstance(value, (int, float)) \
                and not isinstance(value, bool) else (codec.dumps(["dec", value.split(" ", 1)[0][2:]])
                                                      if isinstance(value, str) and value.startswith(codec.TAG + codec.TAG_DECIMAL)
                                                      else codec.dumps(value))
            if marker not in seen:
                seen.add(marker)
                out.append(codec.from_json(value))
        return out

    def _select(self, flt: Mapping | None, sort: list[tuple[str, int]] | None, skip: int, limit: int,
                conn: sqlite3.Connection | None = None, fields: list[str] | None = None) -> list[tuple]:
        """Rows (id, doc, rowid) of the matching documents; with ``fields``, (id, rowid, JSON of each field)."""
        where, params = self._where(flt)
        if not self._engine.has_table(self.name):
            return []
        if fields is None:
            columns = "id, doc, rowid"
        else:
            columns = ", ".join(["id", "rowid", *projections.sql_columns(fields)])
        sql = f"SELECT {columns} FROM {connection.quote(self.name)} WHERE {where}"
        if sort:
            sql += " ORDER BY " + ", ".join(f"{compiler.field_expr(k)} {'DESC' if d == -1 else 'ASC'}" for k, d in sort)
        if limit or skip:
            sql += " LIMIT ? OFFSET ?"
            params = [*params, limit or -1, skip]
        return connection.execute(conn or self._engine.conn(), sql, params).fetchall()

    # -- writing
    def _row(self, doc: Mapping) -> tuple[Any, Any, dict, set[tuple[str, str]]]:
        """(_id, its SQL key, the stored body without it, the (path, kind) pairs the body holds)."""
        body, kinds = codec.stored_document(doc)
        _id = doc["_id"]
        return _id, codec.id_to_sql(_id), body, kinds

    def _dup(self, exc: sqlite3.IntegrityError, doc: Mapping) -> DuplicateKeyError:
        text = str(exc)
        match = re.search(r"index '([^']+)'", text)
        name = "_id_"
        keys: list[tuple[str, int]] = [("_id", 1)]
        if match:
            name = match.group(1).split("__", 1)[-1]
            spec = self._index_specs().get(name)
            keys = spec["key"] if spec else []
        key_value = {k: (None if (v := codec.get_path(doc, k)) is codec.MISSING else v) for k, _ in keys}
        message = (f"E11000 duplicate key error collection: {self.full_name} index: {name} dup key: "
                   f"{key_value!r}")
        return DuplicateKeyError(message, 11000, {"index": name, "code": 11000, "errmsg": message,
                                                  "keyPattern": dict(keys), "keyValue": key_value})

    def insert_one(self, document: dict, **kwargs: Any) -> InsertOneResult:
        arguments.validate_is_document_type("document", document)
        if "_id" not in document:
            document["_id"] = ObjectId()
        _id, sql_id, body, kinds = self._row(document)
        with self._engine.write() as conn:
            self._engine.ensure_table(conn, self.name)
            try:
                conn.execute(f"INSERT INTO {connection.quote(self.name)} (id, doc) VALUES (?, ?)", (sql_id, codec.dumps(body)))
            except sqlite3.IntegrityError as exc:
                raise self._dup(exc, document) from None
            self._engine.note_paths(conn, self.name, kinds)
        return InsertOneResult(_id, True)

    def insert_many(self, documents: Iterable[dict], ordered: bool = True, **kwargs: Any) -> InsertManyResult:
        if not isinstance(documents, Iterable) or isinstance(documents, Mapping) or not documents:
            raise TypeError("documents must be a non-empty list")  # pymongo's check, then each document's
        docs = list(documents)
        for document in docs:
            arguments.validate_is_document_type("document", document)
        ids, errors, found = [], [], set()
        with self._engine.write() as conn:
            self._engine.ensure_table(conn, self.name)
            sql = f"INSERT INTO {connection.quote(self.name)} (id, doc) VALUES (?, ?)"
            for index, document in enumerate(docs):
                if "_id" not in document:
                    document["_id"] = ObjectId()
                _id, sql_id, body, kinds = self._row(document)
                try:
                    conn.execute(sql, (sql_id, codec.dumps(body)))
                except sqlite3.IntegrityError as exc:
                    dup = self._dup(exc, document)
                    errors.append({"index": index, "code": 11000, "errmsg": str(dup), "op": document,
                                   "keyPattern": dup.details["keyPattern"], "keyValue": dup.details["keyValue"]})
                    if ordered:
                        break
                    continue
                ids.append(_id)
                found |= kinds
            self._engine.note_paths(conn, self.name, found)
            if errors:
                raise connection.Partial(BulkWriteError({"writeErrors": errors, "writeConcernErrors": [], "nInserted": len(ids),
                                               "nUpserted": 0, "nMatched": 0, "nModified": 0, "nRemoved": 0,
                                               "upserted": []}))
        return InsertManyResult(ids, True)

    def _write_doc(self, conn: sqlite3.Connection, rowid: int | None, new: dict) -> None:
        _id, sql_id, body, kinds = self._row(new)
        try:
            if rowid is None:
                conn.execute(f"INSERT INTO {connection.quote(self.name)} (id, doc) VALUES (?, ?)", (sql_id, codec.dumps(body)))
            else:
                conn.execute(f"UPDATE {connection.quote(self.name)} SET doc = ? WHERE rowid = ?", (codec.dumps(body), rowid))
        except sqlite3.IntegrityError as exc:
            raise self._dup(exc, new) from None
        self._engine.note_paths(conn, self.name, kinds)

    def _load(self, row: tuple) -> dict:
        doc = {"_id": codec.from_json(row[0])}
        doc.update(codec.from_json(json.loads(row[1])))
        return doc

    def _update(self, flt: Mapping, update: Mapping, upsert: bool, many: bool, replace: bool,
                sort: Any = None) -> tuple[dict, dict | None, dict | None]:
        """(raw result, document before, document after) of one update/replace."""
        arguments.update_args(flt, update, upsert, replace)
        if not replace:
            updates.check(update)
        matched = modified = 0
        before = after = None
        upserted = None
        with self._engine.write() as conn:  # the table is made only when a document is written (upsert)
            rows = self._select(flt, sort, 0, 0 if many else 1, conn)
            for row in rows:
                doc = self._load(row)
                if replace:
                    new = {"_id": doc["_id"], **{k: v for k, v in update.items() if k != "_id"}}
                    if "_id" in update and not codec.values_equal(update["_id"], doc["_id"]):
                        raise WriteError("After applying the update, the (immutable) field '_id' was found to "
                                         "have been altered", code=66)
                else:
                    new = updates.apply_update(doc, update, False)
                matched += 1
                if before is None:
                    before = doc
                    after = new
                if codec.dumps(codec.to_json(new)) != codec.dumps(codec.to_json(doc)):
                    self._write_doc(conn, row[2], new)
                    modified += 1
            if not rows and upsert:
                seed = updates.upsert_seed(flt)
                if replace:
                    new = {**({"_id": seed["_id"]} if "_id" in seed else {}), **update}
                else:
                    new = updates.apply_update(seed, update, True)
                if "_id" not in new:
                    new = {"_id": ObjectId(), **new}
                self._engine.ensure_table(conn, self.name)
                self._write_doc(conn, None, new)
                upserted = new["_id"]
                after = new
        raw = {"n": matched or (1 if upserted is not None else 0), "nModified": modified, "ok": 1.0,
               "updatedExisting": bool(matched)}
        if upserted is not None:
            raw["upserted"] = upserted
        return raw, before, after

    def update_one(self, filter: Mapping, update: Mapping, upsert: bool = False, sort: Any = None,
                   **kwargs: Any) -> UpdateResult:  # noqa: A002
        self._no_kwargs(kwargs)
        if sort is not None:  # pymongo: update_one's sort is a document
            arguments.validate_is_mapping("sort", sort)
            sort = arguments.sort_keys(sort)
        return UpdateResult(self._update(filter, update, upsert, False, False, sort)[0], True)

    def update_many(self, filter: Mapping, update: Mapping, upsert: bool = False, **kwargs: Any) -> UpdateResult:  # noqa: A002
        self._no_kwargs(kwargs)
        return UpdateResult(self._update(filter, update, upsert, True, False)[0], True)

    def replace_one(self, filter: Mapping, replacement: Mapping, upsert: bool = False, **kwargs: Any) -> UpdateResult:  # noqa: A002
        self._no_kwargs(kwargs)
        return UpdateResult(self._update(filter, replacement, upsert, False, True)[0], True)

    def find_one_and_update(self, filter: Mapping, update: Mapping, projection: Any = None, sort: Any = None,
                            upsert: bool = False, return_document: bool = ReturnDocument.BEFORE,
                            **kwargs: Any) -> dict | None:  # noqa: A002
        self._no_kwargs(kwargs)
        projection, sort = arguments.find_and_modify(filter, projection, sort, return_document)
        _, before, after = self._update(filter, update, upsert, False, False, sort)
        doc = after if return_document == ReturnDocument.AFTER else before
        return None if doc is None else projections.project(doc, projection)

    def find_one_and_replace(self, filter: Mapping, replacement: Mapping, projection: Any = None, sort: Any = None,
                             upsert: bool = False, return_document: bool = ReturnDocument.BEFORE,
                             **kwargs: Any) -> dict | None:  # noqa: A002
        self._no_kwargs(kwargs)
        projection, sort = arguments.find_and_modify(filter, projection, sort, return_document)
        _, before, after = self._update(filter, replacement, upsert, False, True, sort)
        doc = after if return_document == ReturnDocument.AFTER else before
        return None if doc is None else projections.project(doc, projection)

    def find_one_and_delete(self, filter: Mapping, projection: Any = None, sort: Any = None,
                            **kwargs: Any) -> dict | None:  # noqa: A002
        self._no_kwargs(kwargs)
        projection, sort = arguments.find_and_modify(filter, projection, sort, False)
        with self._engine.write() as conn:
            if not self._engine.has_table(self.name):
                return None
            rows = self._select(filter, sort, 0, 1, conn)
            if not rows:
                return None
            conn.execute(f"DELETE FROM {connection.quote(self.name)} WHERE rowid = ?", (rows[0][2],))
        return projections.project(self._load(rows[0]), projection)

    def _delete(self, flt: Mapping, many: bool) -> DeleteResult:
        arguments.validate_is_mapping("filter", flt)
        with self._engine.write() as conn:
            where, params = self._where(flt)
            if not self._engine.has_table(self.name):
                return DeleteResult({"n": 0, "ok": 1.0}, True)
            sql = f"DELETE FROM {connection.quote(self.name)} WHERE rowid IN (SELECT rowid FROM {connection.quote(self.name)} WHERE {where}"
            sql += ")" if many else " LIMIT 1)"
            count = connection.execute(conn, sql, params).rowcount
        return DeleteResult({"n": count, "ok": 1.0}, True)

    def delete_one(self, filter: Mapping, **kwargs: Any) -> DeleteResult:  # noqa: A002
        self._no_kwargs(kwargs)
        return self._delete(filter, False)

    def delete_many(self, filter: Mapping, **kwargs: Any) -> DeleteResult:  # noqa: A002
        self._no_kwargs(kwargs)
        return self._delete(filter, True)

    @staticmethod
    def _no_kwargs(kwargs: dict) -> None:
        if kwargs:
            raise support.unsupported(f"argumentos {sorted(kwargs)}")

    def drop(self) -> None:
        with self._engine.write() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {connection.quote(self.name)}")
            conn.execute("DELETE FROM __indexes WHERE coll = ?", (self.name,))
            conn.execute("DELETE FROM __paths WHERE coll = ?", (self.name,))

