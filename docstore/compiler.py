"""The query compiler: a MongoDB filter as one SQL condition over ``json_extract`` with bound parameters.

Paths that have ever held an array (remembered per collection in ``__paths``) are also matched
element by element with ``json_each``; ``$gt``/``$lt`` keep BSON type bracketing; ``$regex`` runs
Python's ``re`` through the ``painel_regex`` SQL function (:func:`sql_regex`).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from bson.decimal128 import Decimal128
from bson.errors import InvalidDocument
from pymongo.errors import OperationFailure

from docstore import codec, support


def json_path(segments: list[str]) -> str:
    out = "$"
    for seg in segments:
        if "\x00" in seg:  # as BSON refuses it in a key (pymongo raises before sending)
            raise InvalidDocument(f"Key names must not contain the NULL byte: {seg!r}")
        if '"' in seg or "'" in seg or not seg:
            raise support.unsupported(f"nome de campo {seg!r}")
        out += f"[{seg}]" if seg.isdigit() else f'."{seg}"'
    return out


def field_expr(path: str) -> str:
    """The SQL expression of a field, as used by queries and expression indexes alike."""
    if path == "_id":
        return "id"
    if path.startswith("_id."):
        raise support.unsupported("subcampos de _id")
    return f"json_extract(doc, '{json_path(path.split('.'))}')"


class _Value:
    """A value under test: its SQL expression, its JSON type expression and JSON-text expression."""

    def __init__(self, sql: str, jtype: str, jtext: str):
        self.sql, self.jtype, self.jtext = sql, jtype, jtext


_ID_VALUE = _Value("id", "(CASE typeof(id) WHEN 'integer' THEN 'integer' WHEN 'real' THEN 'real' ELSE 'text' END)",
                   "json_quote(id)")

_TOP_LEVEL = {"$and", "$or", "$nor"}
MAX_DEPTH = 100  # the server's "exceeded maximum query tree depth of 100"


def _join(terms: list[str], op: str) -> str:
    """``terms`` joined by AND/OR as a balanced tree: SQLite's expression depth (1000) grows with the
    log of the count, so an ``$or`` of thousands of clauses compiles."""
    if len(terms) == 1:  # no parentheses of its own: SQLite's parser nests at most ~100 deep
        return terms[0]
    if len(terms) <= 16:
        return f" {op} ".join(f"({t})" for t in terms)
    half = len(terms) // 2
    return f"({_join(terms[:half], op)}) {op} ({_join(terms[half:], op)})"
_FIELD_OPS = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$regex", "$options", "$not"}


class Compiler:
    """Compiles one filter to a SQL condition with bound parameters."""

    def __init__(self, kinds: Any):  # {path: kinds} or the engine's lazy PathKinds: only .get is used
        self.kinds = kinds
        self.params: list[Any] = []
        self._alias = 0
        self._depth = 0

    def compile(self, flt: Mapping | None) -> str:
        if not flt:
            return "1"
        if not isinstance(flt, Mapping):
            raise TypeError("filter must be an instance of dict")
        self._deeper()
        terms = [self._clause(key, cond) for key, cond in flt.items()]
        self._depth -= 1
        return _join(terms, "AND") if terms else "1"

    def _deeper(self) -> None:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise OperationFailure(f"exceeded maximum query tree depth of {MAX_DEPTH}", code=2)

    def _clause(self, key: str, cond: Any) -> str:
        if not isinstance(key, str):  # as BSON refuses it (pymongo raises before sending)
            raise InvalidDocument(f"documents must have only string keys, key was {key!r}")
        if key.startswith("$"):
            if key not in _TOP_LEVEL:
                raise support.unsupported(f"operador {key}")
            if not isinstance(cond, (list, tuple)) or not cond:
                raise OperationFailure(f"{key} must be a nonempty array", code=2)
            parts = [self.compile(c) for c in cond]
            if key == "$and":
                return _join(parts, "AND")
            joined = _join(parts, "OR")
            return joined if key == "$or" else f"NOT IFNULL(({joined}), 0)"
        if isinstance(cond, re.Pattern):
            return self._field(key, self._regex_pred(cond.pattern, _flags_text(cond.flags)), True)
        if isinstance(cond, Mapping) and cond and str(next(iter(cond))).startswith("$"):
            return self._operators(key, cond)
        return self._field(key, self._eq_pred(key, cond), True)

    def _operators(self, key: str, ops: Mapping) -> str:
        terms = []
        self._deeper()
        if not isinstance(ops.get("$options", ""), str):
            raise OperationFailure("$options has to be a string", code=2)
        for op, operand in ops.items():
            if not isinstance(op, str):
                raise InvalidDocument(f"documents must have only string keys, key was {op!r}")
            if op not in _FIELD_OPS:
                raise support.unsupported(f"operador {op}")
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
        self._depth -= 1
        return _join(terms, "AND") if terms else "1"

    # -- traversal of a dotted path, with array elements where the path has held an array
    def _field(self, path: str, pred, elements: bool) -> str:
        if path == "_id":
            return pred(_ID_VALUE)
        return self._walk("doc", path.split("."), "", pred, elements)

    def _walk(self, src: str, segs: list[str], done: str, pred, elements: bool, start: int = 1) -> str:
        """The condition on ``segs`` under ``src``. At the first segment (from ``start``) whose prefix has
        held an array: either that prefix is not an array here and the walk goes on below it, or it is
        one and some document element meets the rest of the path (MongoDB's multikey semantics: a
        missing field inside an array element is missing, not the array itself)."""
        for k in range(start, len(segs)):
            prefix = ".".join(filter(None, [done, *segs[:k]]))
            if "array" in self.kinds.get(prefix, ()) and not segs[k].isdigit():
                apath = json_path(segs[:k])
                direct = self._walk(src, segs, done, pred, elements, k + 1)
                alias = self._next_alias()
                inner = self._walk(f"{alias}.value", segs[k:], prefix, pred, elements)
                return (f"(json_type({src}, '{apath}') IS NOT 'array' AND ({direct})) OR "
                        f"(json_type({src}, '{apath}') = 'array' AND EXISTS (SELECT 1 FROM "
                        f"json_each({src}, '{apath}') AS {alias} WHERE {alias}.type = 'object' AND ({inner})))")
        term = self._leaf(src, segs, pred)
        full = ".".join(filter(None, [done, *segs]))
        if elements and "array" in self.kinds.get(full, ()):
            alias = self._next_alias()
            jpath = json_path(segs)
            element = _Value(f"{alias}.value", f"{alias}.type",
                             f"(CASE WHEN {alias}.type IN ('object', 'array') THEN json({alias}.value) "
                             f"ELSE json_quote({alias}.value) END)")
            term = (f"({term}) OR (json_type({src}, '{jpath}') = 'array' AND EXISTS (SELECT 1 FROM "
                    f"json_each({src}, '{jpath}') AS {alias} WHERE {pred(element)}))")
        return term

    def _leaf(self, src: str, segs: list[str], pred) -> str:
        jpath = json_path(segs)
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
        stored = codec.to_json(operand)
        kinds = self.kinds.get(path, set())
        if stored is None:
            return lambda v: f"{v.sql} IS NULL"
        if isinstance(stored, (dict, list)):
            text = codec.dumps(stored)
            return lambda v: f"{v.jtext} = json({self._p(text)})"
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            if "decimal" in kinds:
                key = codec.TAG + codec.TAG_DECIMAL + codec.decimal_key(codec.as_decimal128(operand))
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
            stored = None if isinstance(operand, re.Pattern) else codec.to_json(operand)
            plain_number = isinstance(operand, (int, float)) and not isinstance(operand, bool) and "decimal" not in kinds
            if isinstance(stored, str) and stored[:1] not in "{[" and not stored.startswith(codec.TAG + codec.TAG_DECIMAL) or plain_number:
                simple.append(stored)
            else:
                preds.append(self._eq_pred(path, operand))
        if not simple and not preds:
            return lambda v: "0"

        def pred(v):
            terms = []
            if simple:
                terms.append(f"{v.sql} IN ({', '.join(self._p(s) for s in simple)})")
            terms += [p(v) for p in preds]
            return _join(terms, "OR")
        return pred

    def _cmp_pred(self, path: str, op: str, operand: Any):
        sql_op = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]
        stored = codec.to_json(operand)
        kinds = self.kinds.get(path, set())
        if stored is None:
            return (lambda v: f"{v.sql} IS NULL") if op in ("$gte", "$lte") else (lambda v: "0")
        if isinstance(stored, (dict, list)):
            raise support.unsupported(f"{op} com documento ou lista")
        if isinstance(operand, (int, float, Decimal128)) and not isinstance(operand, bool):
            dec = operand if isinstance(operand, Decimal128) else codec.as_decimal128(operand)
            number = _number_param(operand) if isinstance(operand, Decimal128) else operand
            key = codec.TAG + codec.TAG_DECIMAL + codec.decimal_key(dec)
            lo, hi = codec.TAG + codec.TAG_DECIMAL, codec.TAG + chr(ord(codec.TAG_DECIMAL) + 1)
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
        if isinstance(stored, str) and not stored.startswith(codec.TAG):
            return lambda v: (f"({v.sql} {sql_op} {self._p(stored)} AND typeof({v.sql}) = 'text' "
                              f"AND substr({v.sql}, 1, 1) <> char(1) AND {v.jtype} = 'text')")
        tag = stored[:2]
        upper = codec.TAG + chr(ord(stored[1]) + 1)
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


def sql_regex(value: Any, pattern: str, flags: str) -> int:
    if not isinstance(value, str):
        return 0
    if value.startswith(codec.TAG):
        if not value.startswith(codec.TAG + codec.TAG_STR):
            return 0
        value = codec.unescape(value[2:])
    return 1 if _regex(pattern, flags).search(value) else 0


