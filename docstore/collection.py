"""The embedded store: a small pymongo-subset over the standard library's ``sqlite3``.

One SQLite file per database (``painel.sqlite3`` for the panel's database) in WAL mode, one table
per collection ``(id PRIMARY KEY, doc TEXT)``: ``id`` holds the encoded ``_id`` and ``doc`` the rest
of the document as JSON. Filters, sorts, skip/limit, counts and ``distinct`` are compiled to SQL over
``json_extract(doc, '$."path"')``; indexes are SQLite expression indexes on the same expressions, so
a list query (filter + sort) walks an index instead of reading the collection. Updates are applied in
Python to the row inside one ``BEGIN IMMEDIATE`` transaction, so they are atomic across threads and
processes. One connection per thread.

Values keep their BSON type. JSON numbers, strings, lists, objects and null are stored as such; the
other types are text with a tag that sorts correctly within the type: ``\\x01t`` + fixed-width ISO
UTC instant (milliseconds, as MongoDB keeps them), ``\\x01o`` + ObjectId hex, ``\\x01q0``/``\\x01q1``
for booleans (so ``True`` is never ``1``), ``\\x01k`` + subtype + hex for binary, ``\\x01a`` + an
order-preserving decimal key + the exact Decimal128 text (so money compares as decimal, never through
float). A real string that starts with ``\\x01`` or holds a NUL is kept as ``\\x01s`` + the string with
those two characters escaped (SQLite's JSON functions stop at a NUL); such strings take part in
equality, ``$in`` and ``$regex`` but not in ``$gt``/``$lt`` ranges.

Semantics follow MongoDB for: ``{f: None}`` and ``$ne``/``$nin`` matching missing fields, equality and
``$in`` against array elements (paths that have ever held an array are remembered in ``__paths``),
BSON type bracketing of ``$gt``/``$gte``/``$lt``/``$lte`` (numbers of any kind compare together),
missing/None first in an ascending sort, two documents *missing* a non-sparse unique key colliding.

NOT supported (raises ``pymongo.errors.OperationFailure``, never scans silently): aggregation,
``$where``, ``$expr``, ``$text``, ``$elemMatch``, ``$size``, ``$all``, ``$type``, ``$mod``, geo
operators, the positional ``$`` update operator, ``$rename``, ``$pop``, ``$currentDate``, ``$mul``,
``$bit``, ``$push`` modifiers other than ``$each``, projection operators, text/hashed/geo indexes,
compound ``_id`` documents, sessions, change streams. Known differences kept on purpose: a sort on a
field holding arrays orders by the array's JSON text (MongoDB uses its smallest/largest element);
values of different BSON types in one sorted field sort by tag, not by MongoDB's full type order
(numbers and Decimal128 stored in the same field do not interleave in a sort, though they compare
together in filters); datetimes keep milliseconds (as MongoDB does); an index on a field holding
arrays indexes the whole array (MongoDB indexes each element: a unique index over arrays differs),
and a filter on such a path checks the elements with ``json_each`` rather than through the index.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from decimal import Decimal, localcontext
from functools import lru_cache
from pathlib import Path
from typing import Any

from bson.binary import Binary
from bson.decimal128 import Decimal128, create_decimal128_context
from bson.errors import InvalidDocument
from bson.objectid import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure, WriteError
from pymongo.results import DeleteResult, InsertManyResult, InsertOneResult, UpdateResult

__all__ = ["Client", "Database", "Collection", "Cursor"]

TAG = "\x01"
_TAG_DECIMAL, _TAG_BINARY, _TAG_OID, _TAG_BOOL, _TAG_STR, _TAG_DATE = "a", "k", "o", "q", "s", "t"
_NO_KEY = b"\x00"  # stands for null/missing in a unique index (SQLite lets NULLs through; MongoDB does not)
_D128 = create_decimal128_context()
_META = ("__indexes", "__paths")


def unsupported(what: str) -> OperationFailure:
    return OperationFailure(f"Operação não suportada pelo armazenamento embutido: {what}", code=2)


# --------------------------------------------------------------------------------------------- codec
def _decimal_key(value: Decimal128) -> str:
    """Text that sorts as the number sorts; equal numbers (1.5, 1.50) have equal keys."""
    number = value.to_decimal()
    if number.is_nan():
        return "A"
    if number.is_infinite():
        return "B" if number < 0 else "F"
    sign, digits, exponent = number.as_tuple()
    text = "".join(map(str, digits)).lstrip("0")
    if not text:
        return "D"
    stripped = text.rstrip("0")
    exponent += len(text) - len(stripped)
    scientific = exponent + len(stripped) - 1
    if sign:
        return "C%05d%s~" % (10000 - scientific, "".join(str(9 - int(c)) for c in stripped))
    return "E%05d%s" % (scientific + 10000, stripped)


def _as_decimal128(value: Any) -> Decimal128:
    with localcontext(_D128) as ctx:
        return Decimal128(ctx.create_decimal(value if not isinstance(value, float) else repr(value)))


def to_json(value: Any) -> Any:
    """A BSON value as a JSON-able value of the stored form."""
    if value is None or isinstance(value, str) and not value.startswith(TAG) and "\x00" not in value:
        return value
    if isinstance(value, str):
        return TAG + _TAG_STR + value.replace(TAG, TAG + "\x02").replace("\x00", TAG + TAG)
    if isinstance(value, bool):
        return TAG + _TAG_BOOL + ("1" if value else "0")
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise OverflowError("MongoDB can only handle up to 8-byte ints")
        return int(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise unsupported("float NaN/Infinity (use Decimal128)")
        return value
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidDocument(f"documents must have only string keys, key was {key!r}")
            out[key] = to_json(item)
        return out
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc)
        return TAG + _TAG_DATE + value.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d" % (value.microsecond // 1000)
    if isinstance(value, ObjectId):
        return TAG + _TAG_OID + str(value)
    if isinstance(value, Decimal128):
        return TAG + _TAG_DECIMAL + _decimal_key(value) + " " + str(value)
    if isinstance(value, Binary):
        return TAG + _TAG_BINARY + "%02x" % value.subtype + bytes(value).hex()
    if isinstance(value, (bytes, bytearray)):
        return TAG + _TAG_BINARY + "00" + bytes(value).hex()
    raise InvalidDocument(f"cannot encode object: {value!r}, of type: {type(value)}")


def _from_tagged(text: str) -> Any:
    tag, body = text[1:2], text[2:]
    if tag == _TAG_DATE:  # fixed width "YYYY-MM-DDTHH:MM:SS.mmm": fromisoformat reads it ~10× faster than strptime
        return datetime.fromisoformat(body).replace(tzinfo=timezone.utc)
    if tag == _TAG_OID:
        return ObjectId(body)
    if tag == _TAG_DECIMAL:
        return Decimal128(body.split(" ", 1)[1])
    if tag == _TAG_BOOL:
        return body == "1"
    if tag == _TAG_STR:
        return _unescape(body)
    if tag == _TAG_BINARY:
        subtype, data = int(body[:2], 16), bytes.fromhex(body[2:])
        return data if subtype == 0 else Binary(data, subtype)
    return text


def _unescape(body: str) -> str:
    return re.sub("\x01([\x01\x02])", lambda m: "\x00" if m.group(1) == TAG else TAG, body)


def from_json(value: Any) -> Any:
    if isinstance(value, str):
        return _from_tagged(value) if value.startswith(TAG) else value
    if isinstance(value, dict):
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _id_to_sql(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        raise unsupported("_id que é documento ou lista")
    return to_json(value)


def _kind_class(value: Any) -> str:
    """The BSON comparison class of a (JSON-stored) value, used for type bracketing."""
    if value is None:
        return "null"
    if isinstance(value, (int, float)) or isinstance(value, str) and value.startswith(TAG + _TAG_DECIMAL):
        return "number"
    if isinstance(value, str):
        return value[1] if value.startswith(TAG) and value[1] != _TAG_STR else "string"
    if isinstance(value, dict):
        return "object"
    return "array"


# ----------------------------------------------------------------------------- python-side helpers
_CLASS_ORDER = {"null": 1, "number": 2, "string": 3, "object": 4, "array": 5, _TAG_BINARY: 6, _TAG_OID: 7,
                _TAG_BOOL: 8, _TAG_DATE: 9}


def bson_sort_key(value: Any) -> tuple:
    """MongoDB's order of two BSON values (for $min/$max and in-Python comparisons)."""
    stored = to_json(value)
    kind = _kind_class(stored)
    if kind == "number":
        number = value.to_decimal() if isinstance(value, Decimal128) else Decimal(repr(value) if isinstance(value, float) else value)
        return (_CLASS_ORDER[kind], number)
    if kind == "array":
        return (_CLASS_ORDER[kind], tuple(bson_sort_key(v) for v in value))
    if kind == "object":
        return (_CLASS_ORDER[kind], tuple((bson_sort_key(v)[0], k, bson_sort_key(v)) for k, v in value.items()))
    return (_CLASS_ORDER[kind], stored if stored is not None else 0)


def _values_equal(a: Any, b: Any) -> bool:
    try:
        return bson_sort_key(a) == bson_sort_key(b)
    except (InvalidDocument, OperationFailure):
        return a == b


def _py_match(value: Any, condition: Any) -> bool:
    """A $pull condition on one array element: a value, an operator document or field conditions."""
    if isinstance(condition, dict) and condition and all(k.startswith("$") for k in condition):
        for op, operand in condition.items():
            if op == "$eq" and not _values_equal(value, operand):
                return False
            if op == "$ne" and _values_equal(value, operand):
                return False
            if op == "$in" and not any(_values_equal(value, o) for o in operand):
                return False
            if op == "$nin" and any(_values_equal(value, o) for o in operand):
                return False
            if op in ("$gt", "$gte", "$lt", "$lte"):
                if value is None or _kind_class(to_json(value)) != _kind_class(to_json(operand)):
                    return False
                a, b = bson_sort_key(value), bson_sort_key(operand)
                if not {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]:
                    return False
            if op not in ("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte"):
                raise unsupported(f"{op} em $pull")
        return True
    if isinstance(condition, dict) and not isinstance(value, dict):
        return False
    if isinstance(condition, dict) and condition and not any(k.startswith("$") for k in condition) \
            and not _values_equal(value, condition):
        return all(_py_match(_get_path(value, k), c) for k, c in condition.items())
    return _values_equal(value, condition)


_MISSING = object()


def _get_path(doc: Any, path: str) -> Any:
    current = doc
    for part in path.split("."):
        if isinstance(current, dict):
            current = current.get(part, _MISSING)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return _MISSING
        if current is _MISSING:
            return _MISSING
    return current


# ------------------------------------------------------------------------------------ query compiler
def _json_path(segments: list[str]) -> str:
    out = "$"
    for seg in segments:
        if '"' in seg or "'" in seg or not seg:
            raise unsupported(f"nome de campo {seg!r}")
        out += f"[{seg}]" if seg.isdigit() else f'."{seg}"'
    return out


def field_expr(path: str) -> str:
    """The SQL expression of a field, as used by queries and expression indexes alike."""
    if path == "_id":
        return "id"
    if path.startswith("_id."):
        raise unsupported("subcampos de _id")
    return f"json_extract(doc, '{_json_path(path.split('.'))}')"


class _Value:
    """A value under test: its SQL expression, its JSON type expression and JSON-text expression."""

    def __init__(self, sql: str, jtype: str, jtext: str):
        self.sql, self.jtype, self.jtext = sql, jtype, jtext


_ID_VALUE = _Value("id", "(CASE typeof(id) WHEN 'integer' THEN 'integer' WHEN 'real' THEN 'real' ELSE 'text' END)",
                   "json_quote(id)")

_TOP_LEVEL = {"$and", "$or", "$nor"}
_FIELD_OPS = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$regex", "$options", "$not"}


class Compiler:
    """Compiles one filter to a SQL condition with bound parameters."""

    def __init__(self, kinds: dict[str, set[str]]):
        self.kinds = kinds
        self.params: list[Any] = []
        self._alias = 0

    def compile(self, flt: Mapping | None) -> str:
        if not flt:
            return "1"
        if not isinstance(flt, Mapping):
            raise TypeError("filter must be an instance of dict")
        terms = [self._clause(key, cond) for key, cond in flt.items()]
        return " AND ".join(f"({t})" for t in terms) if terms else "1"

    def _clause(self, key: str, cond: Any) -> str:
        if key.startswith("$"):
            if key not in _TOP_LEVEL:
                raise unsupported(f"operador {key}")
            if not isinstance(cond, (list, tuple)) or not cond:
                raise OperationFailure(f"{key} must be a nonempty array", code=2)
            parts = [self.compile(c) for c in cond]
            if key == "$and":
                return " AND ".join(f"({p})" for p in parts)
            joined = " OR ".join(f"({p})" for p in parts)
            return joined if key == "$or" else f"NOT IFNULL(({joined}), 0)"
        if isinstance(cond, re.Pattern):
            return self._field(key, self._regex_pred(cond.pattern, _flags_text(cond.flags)), True)
        if isinstance(cond, Mapping) and cond and next(iter(cond)).startswith("$"):
            return self._operators(key, cond)
        return self._field(key, self._eq_pred(key, cond), True)

    def _operators(self, key: str, ops: Mapping) -> str:
        terms = []
        for op, operand in ops.items():
            if op not in _FIELD_OPS:
                raise unsupported(f"operador {op}")
            if op == "$options":
                if "$regex" not in ops:
                    raise OperationFailure("$options needs a $regex", code=2)
                continue
            if op == "$eq":
                terms.append(self._field(key, self._eq_pred(key, operand), True))
            elif op == "$ne":
                terms.append(f"NOT IFNULL(({self._field(key, self._eq_pred(key, operand), True)}), 0)")
            elif op in ("$in", "$nin"):
                if not isinstance(operand, (list, tuple, set)):
                    raise OperationFailure(f"{op} needs an array", code=2)
                term = self._field(key, self._in_pred(key, list(operand)), True)
                terms.append(term if op == "$in" else f"NOT IFNULL(({term}), 0)")
            elif op in ("$gt", "$gte", "$lt", "$lte"):
                terms.append(self._field(key, self._cmp_pred(key, op, operand), True))
            elif op == "$exists":
                term = self._field(key, lambda v: f"{v.jtype} IS NOT NULL", False)
                terms.append(term if operand else f"NOT IFNULL(({term}), 0)")
            elif op == "$regex":
                pattern, flags = (operand.pattern, _flags_text(operand.flags)) if isinstance(operand, re.Pattern) \
                    else (operand, "")
                flags += ops.get("$options", "")
                terms.append(self._field(key, self._regex_pred(pattern, flags), True))
            elif op == "$not":
                if isinstance(operand, re.Pattern):
                    inner = self._field(key, self._regex_pred(operand.pattern, _flags_text(operand.flags)), True)
                elif isinstance(operand, Mapping) and operand and all(k.startswith("$") for k in operand):
                    inner = self._operators(key, operand)
                else:
                    raise OperationFailure("$not needs a regex or a document", code=2)
                terms.append(f"NOT IFNULL(({inner}), 0)")
        return " AND ".join(f"({t})" for t in terms) if terms else "1"

    # -- traversal of a dotted path, with array elements where the path has held an array
    def _field(self, path: str, pred, elements: bool) -> str:
        if path == "_id":
            return pred(_ID_VALUE)
        return self._walk("doc", path.split("."), "", pred, elements)

    def _walk(self, src: str, segs: list[str], done: str, pred, elements: bool) -> str:
        for k in range(1, len(segs)):
            prefix = ".".join(filter(None, [done, *segs[:k]]))
            if "array" in self.kinds.get(prefix, ()) and not segs[k].isdigit():
                direct = self._leaf(src, segs, pred)
                alias = self._next_alias()
                apath = _json_path(segs[:k])
                inner = self._walk(f"{alias}.value", segs[k:], prefix, pred, elements)
                return (f"({direct}) OR (json_type({src}, '{apath}') = 'array' AND EXISTS (SELECT 1 FROM "
                        f"json_each({src}, '{apath}') AS {alias} WHERE {alias}.type = 'object' AND ({inner})))")
        term = self._leaf(src, segs, pred)
        full = ".".join(filter(None, [done, *segs]))
        if elements and "array" in self.kinds.get(full, ()):
            alias = self._next_alias()
            jpath = _json_path(segs)
            element = _Value(f"{alias}.value", f"{alias}.type",
                             f"(CASE WHEN {alias}.type IN ('object', 'array') THEN json({alias}.value) "
                             f"ELSE json_quote({alias}.value) END)")
            term = (f"({term}) OR (json_type({src}, '{jpath}') = 'array' AND EXISTS (SELECT 1 FROM "
                    f"json_each({src}, '{jpath}') AS {alias} WHERE {pred(element)}))")
        return term

    def _leaf(self, src: str, segs: list[str], pred) -> str:
        jpath = _json_path(segs)
        return pred(_Value(f"json_extract({src}, '{jpath}')", f"json_type({src}, '{jpath}')", f"({src} -> '{jpath}')"))

    def _next_alias(self) -> str:
        self._alias += 1
        return f"j{self._alias}"

    def _p(self, value: Any) -> str:
        self.params.append(value)
        return "?"

    # -- predicates on one value
    def _eq_pred(self, path: str, operand: Any):
        if isinstance(operand, re.Pattern):
            return self._regex_pred(operand.pattern, _flags_text(operand.flags))
        stored = to_json(operand)
        kinds = self.kinds.get(path, set())
        if stored is None:
            return lambda v: f"{v.sql} IS NULL"
        if isinstance(stored, (dict, list)):
            text = _dumps(stored)
            return lambda v: f"{v.jtext} = json({self._p(text)})"
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            if "decimal" in kinds:
                key = TAG + _TAG_DECIMAL + _decimal_key(_as_decimal128(operand))
                return lambda v: f"({v.sql} = {self._p(stored)} OR ({v.sql} >= {self._p(key + ' ')} AND {v.sql} < {self._p(key + '!')}))"
            return lambda v: f"{v.sql} = {self._p(stored)}"
        if isinstance(operand, Decimal128):
            key = stored.split(" ", 1)[0]

            def decimal_eq(v):
                term = f"({v.sql} >= {self._p(key + ' ')} AND {v.sql} < {self._p(key + '!')})"
                if "number" in kinds and operand.to_decimal().is_finite():
                    term += f" OR (typeof({v.sql}) IN ('integer', 'real') AND {v.sql} = {self._p(_number_param(operand))})"
                return term
            return decimal_eq
        if isinstance(stored, str) and stored[:1] in "{[":
            return lambda v: f"({v.sql} = {self._p(stored)} AND {v.jtype} = 'text')"
        return lambda v: f"{v.sql} = {self._p(stored)}"

    def _in_pred(self, path: str, operands: list):
        simple, preds = [], []
        kinds = self.kinds.get(path, set())
        for operand in operands:
            stored = None if isinstance(operand, re.Pattern) else to_json(operand)
            plain_number = isinstance(operand, (int, float)) and not isinstance(operand, bool) and "decimal" not in kinds
            if isinstance(stored, str) and stored[:1] not in "{[" and not stored.startswith(TAG + _TAG_DECIMAL) or plain_number:
                simple.append(stored)
            else:
                preds.append(self._eq_pred(path, operand))
        if not simple and not preds:
            return lambda v: "0"

        def pred(v):
            terms = []
            if simple:
                terms.append(f"{v.sql} IN ({', '.join(self._p(s) for s in simple)})")
            terms += [f"({p(v)})" for p in preds]
            return " OR ".join(terms)
        return pred

    def _cmp_pred(self, path: str, op: str, operand: Any):
        sql_op = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]
        stored = to_json(operand)
        kinds = self.kinds.get(path, set())
        if stored is None:
            return (lambda v: f"{v.sql} IS NULL") if op in ("$gte", "$lte") else (lambda v: "0")
        if isinstance(stored, (dict, list)):
            raise unsupported(f"{op} com documento ou lista")
        if isinstance(operand, (int, float, Decimal128)) and not isinstance(operand, bool):
            dec = operand if isinstance(operand, Decimal128) else _as_decimal128(operand)
            number = _number_param(operand) if isinstance(operand, Decimal128) else operand
            key = TAG + _TAG_DECIMAL + _decimal_key(dec)
            lo, hi = TAG + _TAG_DECIMAL, TAG + chr(ord(_TAG_DECIMAL) + 1)
            bounds = {"$gt": (key + "!", None), "$gte": (key + " ", None), "$lt": (None, key + " "),
                      "$lte": (None, key + "!")}[op]
            finite = not isinstance(operand, Decimal128) or operand.to_decimal().is_finite()

            def numeric(v):
                terms = []
                if finite and ("number" in kinds or not isinstance(operand, Decimal128)):
                    terms.append(f"(typeof({v.sql}) IN ('integer', 'real') AND {v.sql} {sql_op} {self._p(number)})")
                if "decimal" in kinds or isinstance(operand, Decimal128):
                    low = self._p(bounds[0] if bounds[0] else lo)
                    high = self._p(bounds[1] if bounds[1] else hi)
                    terms.append(f"({v.sql} >= {low} AND {v.sql} < {high})")
                return " OR ".join(terms) or "0"
            return numeric
        if isinstance(stored, str) and not stored.startswith(TAG):
            return lambda v: (f"({v.sql} {sql_op} {self._p(stored)} AND typeof({v.sql}) = 'text' "
                              f"AND substr({v.sql}, 1, 1) <> char(1) AND {v.jtype} = 'text')")
        tag = stored[:2]
        upper = TAG + chr(ord(stored[1]) + 1)
        if op in ("$gt", "$gte"):
            return lambda v: f"({v.sql} {sql_op} {self._p(stored)} AND {v.sql} < {self._p(upper)})"
        return lambda v: f"({v.sql} {sql_op} {self._p(stored)} AND {v.sql} >= {self._p(tag)})"

    def _regex_pred(self, pattern: Any, flags: str):
        if not isinstance(pattern, str):
            raise OperationFailure("$regex has to be a string", code=2)
        for flag in flags:
            if flag not in "imsx":
                raise OperationFailure(f"invalid flag in regex options: {flag}", code=51108)
        try:
            _regex(pattern, flags)
        except re.error as exc:
            raise OperationFailure(f"Regular expression is invalid: {exc}", code=51091) from None
        return lambda v: f"({v.jtype} = 'text' AND painel_regex({v.sql}, {self._p(pattern)}, {self._p(flags)}))"


def _number_param(value: Decimal128) -> int | float:
    number = value.to_decimal()
    return int(number) if number == number.to_integral_value() and abs(number) < 2**63 else float(number)


def _flags_text(flags: int) -> str:
    return "".join(c for c, f in (("i", re.I), ("m", re.M), ("s", re.S), ("x", re.X)) if flags & f)


@lru_cache(maxsize=256)
def _regex(pattern: str, flags: str) -> re.Pattern:
    value = 0
    for flag in flags:
        value |= {"i": re.I, "m": re.M, "s": re.S, "x": re.X}[flag]
    return re.compile(pattern, value)


def _sql_regex(value: Any, pattern: str, flags: str) -> int:
    if not isinstance(value, str):
        return 0
    if value.startswith(TAG):
        if not value.startswith(TAG + _TAG_STR):
            return 0
        value = _unescape(value[2:])
    return 1 if _regex(pattern, flags).search(value) else 0


# ---------------------------------------------------------------------------------------- updates
_UPDATE_OPS = {"$set", "$unset", "$inc", "$push", "$pull", "$addToSet", "$setOnInsert", "$min", "$max"}


def _split(path: str) -> list[str]:
    parts = path.split(".")
    if any(p in ("$", "$[]") or p.startswith("$[") for p in parts):
        raise unsupported("operador posicional em atualização")
    return parts


def _parent(doc: dict, path: str, create: bool) -> tuple[Any, str | int | None]:
    parts = _split(path)
    current: Any = doc
    for part in parts[:-1]:
        if isinstance(current, list) and part.isdigit():
            index = int(part)
            while create and len(current) <= index:
                current.append(None)
            if index >= len(current):
                return None, None
            if current[index] is None and create:
                current[index] = {}
            current = current[index]
        elif isinstance(current, dict):
            if part not in current:
                if not create:
                    return None, None
                current[part] = {}
            current = current[part]
        else:
            if create:
                raise WriteError(f"Cannot create field '{part}' in element {{{path}: {current!r}}}", code=28)
            return None, None
    last = parts[-1]
    if isinstance(current, list):
        if not last.isdigit():
            if create:
                raise WriteError(f"Cannot create field '{last}' in an array", code=28)
            return None, None
        index = int(last)
        while create and len(current) <= index:
            current.append(None)
        return current, index
    if not isinstance(current, dict):
        if create:
            raise WriteError(f"Cannot create field '{last}' in element {current!r}", code=28)
        return None, None
    return current, last


def _put(doc: dict, path: str, value: Any) -> None:
    parent, key = _parent(doc, path, True)
    parent[key] = value


def _add(a: Any, b: Any, path: str) -> Any:
    numeric = (int, float, Decimal128)
    if not isinstance(b, numeric) or isinstance(b, bool):
        raise WriteError(f"Cannot increment with non-numeric argument: {{{path}: {b!r}}}", code=14)
    if a is _MISSING:
        return b
    if not isinstance(a, numeric) or isinstance(a, bool):
        raise WriteError(f"Cannot apply $inc to a value of non-numeric type. {{{path}: {a!r}}}", code=14)
    if isinstance(a, Decimal128) or isinstance(b, Decimal128):
        with localcontext(_D128) as ctx:
            left = a.to_decimal() if isinstance(a, Decimal128) else ctx.create_decimal(repr(a) if isinstance(a, float) else a)
            right = b.to_decimal() if isinstance(b, Decimal128) else ctx.create_decimal(repr(b) if isinstance(b, float) else b)
            return Decimal128(ctx.add(left, right))
    return a + b


def apply_update(doc: dict, update: Mapping, inserting: bool) -> dict:
    """The document after the update operators (a new dict; ``doc`` is not changed)."""
    doc = from_json(to_json(doc))
    for op, fields in update.items():
        if op not in _UPDATE_OPS:
            raise unsupported(f"operador de atualização {op}") if op.startswith("$") else \
                ValueError("update only works with $ operators")
        if not isinstance(fields, Mapping):
            raise WriteError(f"Modifiers operate on fields but we found another type instead: {op}", code=9)
        for path, arg in fields.items():
            if path == "_id" or path.startswith("_id."):
                if op in ("$set", "$setOnInsert") and (inserting or _values_equal(doc.get("_id"), arg)):
                    if op == "$setOnInsert" and not inserting:
                        continue
                    doc["_id"] = arg
                    continue
                raise WriteError("Performing an update on the path '_id' would modify the immutable field '_id'",
                                 code=66)
            if op == "$set" or (op == "$setOnInsert" and inserting):
                _put(doc, path, from_json(to_json(arg)))
            elif op == "$setOnInsert":
                continue
            elif op == "$unset":
                parent, key = _parent(doc, path, False)
                if isinstance(parent, dict) and key in parent:
                    del parent[key]
                elif isinstance(parent, list) and isinstance(key, int) and key < len(parent):
                    parent[key] = None
            elif op == "$inc":
                _put(doc, path, _add(_get_path(doc, path), arg, path))
            elif op in ("$min", "$max"):
                current = _get_path(doc, path)
                if current is _MISSING or (bson_sort_key(arg) < bson_sort_key(current)) == (op == "$min") \
                        and not _values_equal(arg, current):
                    _put(doc, path, arg)
            elif op in ("$push", "$addToSet"):
                current = _get_path(doc, path)
                if current is _MISSING:
                    current = []
                    _put(doc, path, current)
                if not isinstance(current, list):
                    raise WriteError(f"The field '{path}' must be an array but is of type {type(current).__name__}",
                                     code=2)
                if isinstance(arg, Mapping) and arg and next(iter(arg)).startswith("$"):
                    if set(arg) != {"$each"}:
                        raise unsupported(f"modificadores de {op} além de $each: {sorted(set(arg) - {'$each'})}")
                    items = list(arg["$each"])
                else:
                    items = [arg]
                for item in items:
                    item = from_json(to_json(item))
                    if op == "$push" or not any(_values_equal(item, existing) for existing in current):
                        current.append(item)
            elif op == "$pull":
                current = _get_path(doc, path)
                if isinstance(current, list):
                    current[:] = [item for item in current if not _py_match(item, arg)]
    return doc


def _upsert_seed(flt: Mapping | None) -> dict:
    """The fields an upsert takes from its filter's equality conditions."""
    seed: dict = {}

    def take(f: Mapping) -> None:
        for key, cond in f.items():
            if key == "$and":
                for part in cond:
                    take(part)
            elif key.startswith("$"):
                continue
            elif isinstance(cond, Mapping) and cond and next(iter(cond)).startswith("$"):
                if "$eq" in cond:
                    _put(seed, key, cond["$eq"])
            elif not isinstance(cond, re.Pattern):
                _put(seed, key, cond)

    take(flt or {})
    return seed


# -------------------------------------------------------------------------------------- projection
def _project(doc: dict, projection: Any) -> dict:
    if projection is None:
        return doc
    if isinstance(projection, (list, tuple)):
        projection = {k: 1 for k in projection}
    spec = dict(projection)
    if not spec:
        return doc
    if list(spec) == ["_id"] and spec["_id"]:
        return {"_id": doc["_id"]} if "_id" in doc else {}
    include_id = bool(spec.pop("_id", True))
    for value in spec.values():
        if isinstance(value, Mapping):
            raise unsupported("operadores de projeção")
    flags = {bool(v) for v in spec.values()}
    if len(flags) > 1:
        raise OperationFailure("Cannot do exclusion and inclusion in the same projection", code=31254)
    if not spec or flags == {False}:
        out = dict(doc)
        if not include_id:
            out.pop("_id", None)
        for path in spec:
            _drop_path(out, path.split("."))
        return out
    out: dict = {}
    if include_id and "_id" in doc:
        out["_id"] = doc["_id"]
    for path in spec:
        _copy_path(doc, out, path.split("."))
    return out


def _copy_path(src: Any, dst: dict, parts: list[str]) -> None:
    head, rest = parts[0], parts[1:]
    if not isinstance(src, dict) or head not in src:
        return
    value = src[head]
    if not rest:
        dst[head] = value
    elif isinstance(value, dict):
        _copy_path(value, dst.setdefault(head, {}), rest)
    elif isinstance(value, list):
        items = dst.setdefault(head, [{} for item in value if isinstance(item, dict)])
        for item, target in zip([v for v in value if isinstance(v, dict)], items):
            _copy_path(item, target, rest)


def _drop_path(doc: Any, parts: list[str]) -> None:
    if isinstance(doc, list):
        for item in doc:
            _drop_path(item, parts)
        return
    if not isinstance(doc, dict) or parts[0] not in doc:
        return
    if len(parts) == 1:
        doc[parts[0]] = None
        del doc[parts[0]]
    else:
        if isinstance(doc[parts[0]], (dict, list)):
            doc[parts[0]] = from_json(to_json(doc[parts[0]]))
            _drop_path(doc[parts[0]], parts[1:])


# --------------------------------------------------------------------------------------- the engine
def _key_list(keys: Any, direction: Any = None) -> list[tuple[str, int]]:
    if isinstance(keys, str):
        return [(keys, 1 if direction is None else direction)]
    if isinstance(keys, Mapping):
        return list(keys.items())
    out = []
    for item in keys:
        out.append((item, 1) if isinstance(item, str) else (item[0], item[1]))
    return out


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


def _paths_of(value: Any, prefix: str, out: set[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _paths_of(item, f"{prefix}.{key}" if prefix else key, out)
    elif isinstance(value, list):
        out.add((prefix, "array"))
        for item in value:
            _paths_of(item, prefix, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out.add((prefix, "number"))
    elif isinstance(value, str) and value.startswith(TAG + _TAG_DECIMAL):
        out.add((prefix, "decimal"))


class Engine:
    """One SQLite file, one connection per thread, a transaction depth per thread."""

    def __init__(self, path: Path, synchronous: str = "NORMAL"):
        self.path = path
        self.synchronous = synchronous
        self._local = threading.local()
        self._all: dict[int, tuple[weakref.ref, sqlite3.Connection]] = {}
        self._lock = threading.Lock()
        self.closed = False
        conn = self.conn()
        with self.write():
            conn.execute("CREATE TABLE IF NOT EXISTS __indexes (coll TEXT NOT NULL, name TEXT NOT NULL, "
                         "spec TEXT NOT NULL, PRIMARY KEY (coll, name))")
            conn.execute("CREATE TABLE IF NOT EXISTS __paths (coll TEXT NOT NULL, path TEXT NOT NULL, "
                         "kind TEXT NOT NULL, PRIMARY KEY (coll, path, kind)) WITHOUT ROWID")

    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.closed:
                raise OperationFailure("Cannot use a closed client")
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            conn.create_function("painel_regex", 3, _sql_regex, deterministic=True)
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
            except _Partial as exc:
                raise exc.error from None
            finally:
                self._local.depth -= 1
            return
        conn.execute("BEGIN IMMEDIATE")
        self._local.depth = 1
        try:
            yield conn
        except BaseException as exc:
            self._local.depth = 0
            if isinstance(exc, _Partial):
                conn.execute("COMMIT")
                raise exc.error from None
            conn.execute("ROLLBACK")
            raise
        else:
            self._local.depth = 0
            conn.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The caller's unit of work; an exception rolls all of it back. A nested unit joins the outer
        one under a savepoint: an exception leaving it undoes its own writes, and the outer unit, if it
        catches the exception, goes on with what it wrote before."""
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
        conn.execute("BEGIN IMMEDIATE")
        self._local.depth = 1
        try:
            yield
        except BaseException:
            self._local.depth = 0
            conn.execute("ROLLBACK")
            raise
        else:
            self._local.depth = 0
            conn.execute("COMMIT")

    def in_transaction(self) -> bool:
        return bool(getattr(self._local, "depth", 0))

    def has_table(self, name: str) -> bool:
        row = self.conn().execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
        return row is not None

    def ensure_table(self, conn: sqlite3.Connection, name: str) -> None:
        """Create the collection's table on its first write (a no-op statement afterwards)."""
        if name in _META or name.startswith("sqlite_"):
            raise OperationFailure(f"Invalid collection name: {name}")
        conn.execute(f"CREATE TABLE IF NOT EXISTS {_q(name)} (id PRIMARY KEY NOT NULL, doc TEXT NOT NULL)")

    def kinds(self, coll: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for path, kind in self.conn().execute("SELECT path, kind FROM __paths WHERE coll = ?", (coll,)):
            out.setdefault(path, set()).add(kind)
        return out

    def note_paths(self, conn: sqlite3.Connection, coll: str, docs: Iterable[dict]) -> None:
        """Remember which paths hold arrays, numbers and decimals (in the same transaction as the write)."""
        found: set[tuple[str, str]] = set()
        for doc in docs:
            _paths_of(doc, "", found)
        if found:
            conn.executemany("INSERT OR IGNORE INTO __paths (coll, path, kind) VALUES (?, ?, ?)",
                             [(coll, p, k) for p, k in found])


class _Partial(Exception):
    """Raised inside Engine.write to commit the part already written and raise ``error``."""

    def __init__(self, error: Exception):
        self.error = error


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Client:
    """``client[db_name]`` gives a Database; each database is one SQLite file in ``folder``."""

    def __init__(self, folder: str | os.PathLike, default_db: str = "painel_municipal",
                 synchronous: str = "NORMAL"):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.default_db = default_db
        self.synchronous = synchronous
        self._engines: dict[str, Engine] = {}
        self._lock = threading.Lock()

    def file_of(self, name: str) -> Path:
        return self.folder / ("painel.sqlite3" if name == self.default_db else f"painel-{name}.sqlite3")

    def engine(self, name: str) -> Engine:
        with self._lock:
            engine = self._engines.get(name)
            if engine is None:
                engine = Engine(self.file_of(name), self.synchronous)
                self._engines[name] = engine
            return engine

    def __getitem__(self, name: str) -> Database:
        return Database(self, name)

    def __getattr__(self, name: str) -> Database:
        if name.startswith("_"):
            raise AttributeError(name)
        return Database(self, name)

    def get_database(self, name: str | None = None) -> Database:
        return Database(self, name or self.default_db)

    def drop_database(self, name: str) -> None:
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
    def engine(self) -> Engine:
        return self.client.engine(self.name)

    def __getitem__(self, name: str) -> Collection:
        return Collection(self, name)

    def __getattr__(self, name: str) -> Collection:
        if name.startswith("_"):
            raise AttributeError(name)
        return Collection(self, name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Database) and other.client is self.client and other.name == self.name

    def __hash__(self) -> int:
        return hash((id(self.client), self.name))

    def get_collection(self, name: str) -> Collection:
        return Collection(self, name)

    def list_collection_names(self, filter: Mapping | None = None) -> list[str]:  # noqa: A002
        rows = self.engine.conn().execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                          "AND name NOT LIKE 'sqlite_%' AND name NOT IN ('__indexes', '__paths')")
        return [r[0] for r in rows]

    def drop_collection(self, name: str) -> None:
        Collection(self, name).drop()

    def command(self, name: Any, *args: Any, **kwargs: Any) -> dict:
        if name in ("ping", {"ping": 1}):
            return {"ok": 1.0}
        raise unsupported(f"comando {name!r}")


class Collection:
    def __init__(self, database: Database, name: str):
        if not isinstance(name, str) or not name or "\x00" in name:
            raise OperationFailure(f"Invalid collection name: {name!r}")
        self.database, self.name = database, name

    @property
    def full_name(self) -> str:
        return f"{self.database.name}.{self.name}"

    @property
    def _engine(self) -> Engine:
        return self.database.engine

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Collection) and other.database == self.database and other.name == self.name

    def __hash__(self) -> int:
        return hash((self.database, self.name))

    def __getitem__(self, name: str) -> Collection:
        return Collection(self.database, f"{self.name}.{name}")

    # -- reading
    def find(self, filter: Mapping | None = None, projection: Any = None, skip: int = 0, limit: int = 0,
             sort: Any = None, **kwargs: Any) -> Cursor:  # noqa: A002
        if kwargs:
            raise unsupported(f"argumentos de find {sorted(kwargs)}")
        cursor = Cursor(self, filter, projection)
        if sort:
            cursor.sort(sort)
        return cursor.skip(skip).limit(limit)

    def find_one(self, filter: Any = None, projection: Any = None, *args: Any, sort: Any = None,
                 **kwargs: Any) -> dict | None:  # noqa: A002
        if filter is not None and not isinstance(filter, Mapping):
            filter = {"_id": filter}
        for doc in self.find(filter, projection, *args, sort=sort, **kwargs).limit(1):
            return doc
        return None

    def _where(self, flt: Mapping | None) -> tuple[str, list]:
        compiler = Compiler(self._engine.kinds(self.name))
        return compiler.compile(flt), compiler.params

    def count_documents(self, filter: Mapping, skip: int = 0, limit: int = 0, **kwargs: Any) -> int:  # noqa: A002
        if kwargs:
            raise unsupported(f"argumentos de count_documents {sorted(kwargs)}")
        if not self._engine.has_table(self.name):
            return 0
        where, params = self._where(filter)
        if not skip and not limit:
            sql = f"SELECT COUNT(*) FROM {_q(self.name)} WHERE {where}"
        else:
            sql = (f"SELECT COUNT(*) FROM (SELECT 1 FROM {_q(self.name)} WHERE {where} LIMIT ? OFFSET ?)")
            params = [*params, limit or -1, skip]
        return self._engine.conn().execute(sql, params).fetchone()[0]

    def estimated_document_count(self, **kwargs: Any) -> int:
        if not self._engine.has_table(self.name):
            return 0
        return self._engine.conn().execute(f"SELECT COUNT(*) FROM {_q(self.name)}").fetchone()[0]

    def distinct(self, key: str, filter: Mapping | None = None, **kwargs: Any) -> list:  # noqa: A002
        if kwargs:
            raise unsupported(f"argumentos de distinct {sorted(kwargs)}")
        if not self._engine.has_table(self.name):
            return []
        where, params = self._where(filter)
        table = _q(self.name)
        parts = key.split(".")
        kinds = self._engine.kinds(self.name)
        if key == "_id":
            rows = self._engine.conn().execute(f"SELECT DISTINCT json_quote(id) FROM {table} WHERE {where}", params)
        elif any("array" in kinds.get(".".join(parts[:k]), ()) for k in range(1, len(parts) + 1)):
            # arrays on the path: each element counts (and documents inside arrays are walked)
            head = _json_path(parts[:1])
            found = self._engine.conn().execute(f"SELECT DISTINCT doc -> '{head}' FROM {table} "
                                                f"WHERE json_type(doc, '{head}') IS NOT NULL AND ({where})", params)
            rows = [(_dumps(v),) for (text,) in found for v in _distinct_values(json.loads(text), parts[1:])]
        else:
            jpath = _json_path(parts)
            rows = self._engine.conn().execute(f"SELECT DISTINCT doc -> '{jpath}' FROM {table} "
                                               f"WHERE json_type(doc, '{jpath}') IS NOT NULL AND ({where})", params)
        out, seen = [], set()
        for (text,) in rows:
            if text is None:
                continue
            value = json.loads(text)
            marker = _dumps(["dec", _decimal_key(_as_decimal128(value))]) if isinstance(value, (int, float)) \
                and not isinstance(value, bool) else (_dumps(["dec", value.split(" ", 1)[0][2:]])
                                                      if isinstance(value, str) and value.startswith(TAG + _TAG_DECIMAL)
                                                      else _dumps(value))
            if marker not in seen:
                seen.add(marker)
                out.append(from_json(value))
        return out

    def _select(self, flt: Mapping | None, sort: list[tuple[str, int]] | None, skip: int, limit: int,
                conn: sqlite3.Connection | None = None, fields: list[str] | None = None) -> list[tuple]:
        """Rows (id, doc, rowid) of the matching documents; with ``fields``, (id, rowid, JSON of each field)."""
        if not self._engine.has_table(self.name):
            return []
        where, params = self._where(flt)
        if fields is None:
            columns = "id, doc, rowid"
        else:
            columns = ", ".join(["id", "rowid", *(f"doc -> '{_json_path(f.split('.'))}'" for f in fields)])
        sql = f"SELECT {columns} FROM {_q(self.name)} WHERE {where}"
        if sort:
            sql += " ORDER BY " + ", ".join(f"{field_expr(k)} {'DESC' if d == -1 else 'ASC'}" for k, d in sort)
        if limit or skip:
            sql += " LIMIT ? OFFSET ?"
            params = [*params, limit or -1, skip]
        return (conn or self._engine.conn()).execute(sql, params).fetchall()

    # -- writing
    def _row(self, doc: Mapping) -> tuple[Any, Any, str]:
        if not isinstance(doc, Mapping):
            raise TypeError("document must be an instance of dict")
        body = to_json(doc)
        _id = doc["_id"]
        body.pop("_id", None)
        return _id, _id_to_sql(_id), body

    def _dup(self, exc: sqlite3.IntegrityError, doc: Mapping) -> DuplicateKeyError:
        text = str(exc)
        match = re.search(r"index '([^']+)'", text)
        name = "_id_"
        keys: list[tuple[str, int]] = [("_id", 1)]
        if match:
            name = match.group(1).split("__", 1)[-1]
            spec = self._index_specs().get(name)
            keys = spec["key"] if spec else []
        key_value = {k: (None if (v := _get_path(doc, k)) is _MISSING else v) for k, _ in keys}
        message = (f"E11000 duplicate key error collection: {self.full_name} index: {name} dup key: "
                   f"{key_value!r}")
        return DuplicateKeyError(message, 11000, {"index": name, "code": 11000, "errmsg": message,
                                                  "keyPattern": dict(keys), "keyValue": key_value})

    def insert_one(self, document: dict, **kwargs: Any) -> InsertOneResult:
        if "_id" not in document:
            document["_id"] = ObjectId()
        _id, sql_id, body = self._row(document)
        with self._engine.write() as conn:
            self._engine.ensure_table(conn, self.name)
            try:
                conn.execute(f"INSERT INTO {_q(self.name)} (id, doc) VALUES (?, ?)", (sql_id, _dumps(body)))
            except sqlite3.IntegrityError as exc:
                raise self._dup(exc, document) from None
            self._engine.note_paths(conn, self.name, [body])
        return InsertOneResult(_id, True)

    def insert_many(self, documents: Iterable[dict], ordered: bool = True, **kwargs: Any) -> InsertManyResult:
        docs = list(documents)
        if not docs:
            raise TypeError("documents must be a non-empty list")
        ids, errors, bodies = [], [], []
        with self._engine.write() as conn:
            self._engine.ensure_table(conn, self.name)
            sql = f"INSERT INTO {_q(self.name)} (id, doc) VALUES (?, ?)"
            for index, document in enumerate(docs):
                if "_id" not in document:
                    document["_id"] = ObjectId()
                _id, sql_id, body = self._row(document)
                try:
                    conn.execute(sql, (sql_id, _dumps(body)))
                except sqlite3.IntegrityError as exc:
                    dup = self._dup(exc, document)
                    errors.append({"index": index, "code": 11000, "errmsg": str(dup), "op": document,
                                   "keyPattern": dup.details["keyPattern"], "keyValue": dup.details["keyValue"]})
                    if ordered:
                        break
                    continue
                ids.append(_id)
                bodies.append(body)
            self._engine.note_paths(conn, self.name, bodies)
            if errors:
                raise _Partial(BulkWriteError({"writeErrors": errors, "writeConcernErrors": [], "nInserted": len(ids),
                                               "nUpserted": 0, "nMatched": 0, "nModified": 0, "nRemoved": 0,
                                               "upserted": []}))
        return InsertManyResult(ids, True)

    def _write_doc(self, conn: sqlite3.Connection, rowid: int | None, new: dict) -> None:
        _id, sql_id, body = self._row(new)
        try:
            if rowid is None:
                conn.execute(f"INSERT INTO {_q(self.name)} (id, doc) VALUES (?, ?)", (sql_id, _dumps(body)))
            else:
                conn.execute(f"UPDATE {_q(self.name)} SET doc = ? WHERE rowid = ?", (_dumps(body), rowid))
        except sqlite3.IntegrityError as exc:
            raise self._dup(exc, new) from None
        self._engine.note_paths(conn, self.name, [body])

    def _load(self, row: tuple) -> dict:
        doc = {"_id": from_json(row[0])}
        doc.update(from_json(json.loads(row[1])))
        return doc

    def _update(self, flt: Mapping, update: Mapping, upsert: bool, many: bool, replace: bool,
                sort: Any = None) -> tuple[dict, dict | None, dict | None]:
        """(raw result, document before, document after) of one update/replace."""
        if replace:
            if any(k.startswith("$") for k in update):
                raise ValueError("replacement can not include $ operators")
        elif not update or not all(k.startswith("$") for k in update):
            raise ValueError("update only works with $ operators")
        matched = modified = 0
        before = after = None
        upserted = None
        with self._engine.write() as conn:
            self._engine.ensure_table(conn, self.name)
            rows = self._select(flt, _key_list(sort) if sort else None, 0, 0 if many else 1, conn)
            for row in rows:
                doc = self._load(row)
                if replace:
                    new = {"_id": doc["_id"], **{k: v for k, v in update.items() if k != "_id"}}
                    if "_id" in update and not _values_equal(update["_id"], doc["_id"]):
                        raise WriteError("After applying the update, the (immutable) field '_id' was found to "
                                         "have been altered", code=66)
                else:
                    new = apply_update(doc, update, False)
                matched += 1
                if before is None:
                    before = doc
                    after = new
                if _dumps(to_json(new)) != _dumps(to_json(doc)):
                    self._write_doc(conn, row[2], new)
                    modified += 1
            if not rows and upsert:
                seed = _upsert_seed(flt)
                if replace:
                    new = {**({"_id": seed["_id"]} if "_id" in seed else {}), **update}
                else:
                    new = apply_update(seed, update, True)
                if "_id" not in new:
                    new = {"_id": ObjectId(), **new}
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
        _, before, after = self._update(filter, update, upsert, False, False, sort)
        doc = after if return_document == ReturnDocument.AFTER else before
        return None if doc is None else _project(doc, projection)

    def find_one_and_replace(self, filter: Mapping, replacement: Mapping, projection: Any = None, sort: Any = None,
                             upsert: bool = False, return_document: bool = ReturnDocument.BEFORE,
                             **kwargs: Any) -> dict | None:  # noqa: A002
        self._no_kwargs(kwargs)
        _, before, after = self._update(filter, replacement, upsert, False, True, sort)
        doc = after if return_document == ReturnDocument.AFTER else before
        return None if doc is None else _project(doc, projection)

    def find_one_and_delete(self, filter: Mapping, projection: Any = None, sort: Any = None,
                            **kwargs: Any) -> dict | None:  # noqa: A002
        self._no_kwargs(kwargs)
        with self._engine.write() as conn:
            if not self._engine.has_table(self.name):
                return None
            rows = self._select(filter, _key_list(sort) if sort else None, 0, 1, conn)
            if not rows:
                return None
            conn.execute(f"DELETE FROM {_q(self.name)} WHERE rowid = ?", (rows[0][2],))
        return _project(self._load(rows[0]), projection)

    def _delete(self, flt: Mapping, many: bool) -> DeleteResult:
        with self._engine.write() as conn:
            if not self._engine.has_table(self.name):
                return DeleteResult({"n": 0, "ok": 1.0}, True)
            where, params = self._where(flt)
            sql = f"DELETE FROM {_q(self.name)} WHERE rowid IN (SELECT rowid FROM {_q(self.name)} WHERE {where}"
            sql += ")" if many else " LIMIT 1)"
            count = conn.execute(sql, params).rowcount
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
            raise unsupported(f"argumentos {sorted(kwargs)}")

    def drop(self) -> None:
        with self._engine.write() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {_q(self.name)}")
            conn.execute("DELETE FROM __indexes WHERE coll = ?", (self.name,))
            conn.execute("DELETE FROM __paths WHERE coll = ?", (self.name,))

    # -- indexes
    def _index_specs(self) -> dict[str, dict]:
        rows = self._engine.conn().execute("SELECT name, spec FROM __indexes WHERE coll = ?", (self.name,))
        out = {}
        for name, spec in rows:
            value = json.loads(spec)
            value["key"] = [tuple(k) for k in value["key"]]
            out[name] = value
        return out

    def create_index(self, keys: Any, **options: Any) -> str:
        key_list = _key_list(keys)
        for field, direction in key_list:
            if direction not in (1, -1):
                raise unsupported(f"índice do tipo {direction!r}")
            field_expr(field)
        unique = bool(options.pop("unique", False))
        sparse = bool(options.pop("sparse", False))
        partial = options.pop("partialFilterExpression", None)
        name = options.pop("name", None) or "_".join(f"{k}_{d}" for k, d in key_list)
        options.pop("background", None)
        if options:
            raise unsupported(f"opções de índice {sorted(options)}")
        spec = {"key": [list(k) for k in key_list], "unique": unique, "sparse": sparse}
        if partial is not None:
            spec["partialFilterExpression"] = partial
        if self._index_exists(name, spec):  # the usual case at start: nothing to write
            return name
        where = ""
        if partial is not None:
            where = " WHERE " + _partial_sql(partial)
        elif sparse:
            where = " WHERE " + " OR ".join(f"json_type(doc, '{_json_path(k.split('.'))}') IS NOT NULL"
                                             if k != "_id" else "1" for k, _ in key_list)
        table = _q(self.name)
        columns = ", ".join(f"{field_expr(k)} {'DESC' if d == -1 else 'ASC'}" for k, d in key_list)
        with self._engine.write() as conn:
            if self._index_exists(name, spec):  # made meanwhile by another process
                return name
            self._engine.ensure_table(conn, self.name)
            if unique:
                keyed = ", ".join(f"IFNULL({field_expr(k)}, X'00')" for k, _ in key_list)
                try:
                    conn.execute(f"CREATE UNIQUE INDEX {_q(self.name + '__' + name)} ON {table} ({keyed}){where}")
                except sqlite3.IntegrityError as exc:
                    raise DuplicateKeyError(f"E11000 duplicate key error collection: {self.full_name} index: "
                                            f"{name}: {exc}", 11000) from None
            if not (unique and [k for k, _ in key_list] == ["_id"]):
                tail = ", id" if "_id" not in [k for k, _ in key_list] else ""
                conn.execute(f"CREATE INDEX {_q(self.name + '__' + name + '__q')} ON {table} ({columns}{tail})")
            conn.execute("INSERT INTO __indexes (coll, name, spec) VALUES (?, ?, ?)", (self.name, name, _dumps(spec)))
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

    def create_indexes(self, indexes: list) -> list[str]:
        return [self.create_index(i.document["key"].items(), **{k: v for k, v in i.document.items() if k != "key"})
                for i in indexes]

    def drop_index(self, name: str) -> None:
        with self._engine.write() as conn:
            conn.execute(f"DROP INDEX IF EXISTS {_q(self.name + '__' + name)}")
            conn.execute(f"DROP INDEX IF EXISTS {_q(self.name + '__' + name + '__q')}")
            conn.execute("DELETE FROM __indexes WHERE coll = ? AND name = ?", (self.name, name))

    def drop_indexes(self) -> None:
        for name in self._index_specs():
            self.drop_index(name)

    def index_information(self) -> dict[str, dict]:
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
        sql = f"SELECT id, doc FROM {_q(self.name)} WHERE {where}"
        if sort:
            sql += " ORDER BY " + ", ".join(f"{field_expr(k)} {'DESC' if d == -1 else 'ASC'}"
                                            for k, d in _key_list(sort))
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [row[3] for row in self._engine.conn().execute("EXPLAIN QUERY PLAN " + sql, params)]


def _partial_sql(expression: Mapping) -> str:
    """A partialFilterExpression as a constant SQL condition (only ``{f: {"$exists": True}}`` terms)."""
    terms = []
    for key, cond in expression.items():
        if not (isinstance(cond, Mapping) and list(cond) == ["$exists"] and cond["$exists"] is True):
            raise unsupported("partialFilterExpression além de {campo: {'$exists': True}}")
        terms.append(f"json_type(doc, '{_json_path(key.split('.'))}') IS NOT NULL" if key != "_id" else "1")
    return " AND ".join(terms) or "1"


def _sql_fields(collection: Collection, projection: Any) -> list[str] | None:
    """The paths of an inclusion projection that SQLite can extract on its own (so only they are decoded),
    or None to load whole documents: exclusions, and paths that cross a field that ever held an array
    (MongoDB projects through arrays element by element)."""
    if projection is None:
        return None
    spec = {k: 1 for k in projection} if isinstance(projection, (list, tuple)) else dict(projection)
    with_id = spec.pop("_id", None)
    if not spec and with_id and not isinstance(with_id, Mapping):
        return []  # {"_id": 1}: the key alone
    if not spec or any(isinstance(v, Mapping) or not v for v in spec.values()):
        return None
    arrays = {path for path, kinds in collection._engine.kinds(collection.name).items() if "array" in kinds}
    for path in spec:
        parts = path.split(".")
        if any(".".join(parts[:i]) in arrays for i in range(1, len(parts))):
            return None
        if any('"' in part or "'" in part or not part or part.isdigit() for part in parts):
            return None
    return list(spec)


def _projected(row: tuple, fields: list[str], projection: Any) -> dict:
    """A document of only ``fields`` from a row of (id, rowid, value JSON of each field)."""
    spec = {k: 1 for k in projection} if isinstance(projection, (list, tuple)) else dict(projection)
    doc: dict = {"_id": from_json(row[0])} if spec.get("_id", True) else {}
    for path, raw in zip(fields, row[2:]):
        if raw is None:  # missing field: MongoDB leaves it out
            continue
        *parents, leaf = path.split(".")
        target = doc
        for part in parents:
            target = target.setdefault(part, {})
        target[leaf] = from_json(json.loads(raw))
    return doc


class Cursor:
    """A lazy query: ``sort``/``skip``/``limit`` before iterating, like pymongo's cursor."""

    def __init__(self, collection: Collection, flt: Mapping | None, projection: Any):
        if flt is not None and not isinstance(flt, Mapping):
            raise TypeError("filter must be an instance of dict")
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
        keys = _key_list(key_or_list, direction)
        for _, d in keys:
            if d not in (1, -1):
                raise unsupported(f"direção de ordenação {d!r}")
        self._sort = keys
        return self

    def skip(self, skip: int) -> Cursor:
        self._check()
        if skip < 0:
            raise ValueError("skip must be >= 0")
        self._skip = int(skip)
        return self

    def limit(self, limit: int) -> Cursor:
        self._check()
        self._limit = abs(int(limit))
        return self

    def __iter__(self) -> Cursor:
        return self

    def __next__(self) -> dict:
        if self._rows is None:
            self._fields = _sql_fields(self.collection, self._projection)
            self._rows = self.collection._select(self._filter, self._sort, self._skip, self._limit,
                                                 fields=self._fields)
        if self._pos >= len(self._rows):
            raise StopIteration
        row = self._rows[self._pos]
        self._pos += 1
        if self._fields is not None:
            return _projected(row, self._fields, self._projection)
        return _project(self.collection._load(row), self._projection)

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
