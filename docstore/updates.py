"""Update operators (``$set``, ``$inc``, ``$push``, ``$pull``...) applied in Python to a decoded document,
and the document an upsert starts from."""
from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import localcontext
from typing import Any

from bson.decimal128 import Decimal128
from pymongo.errors import WriteError

from docstore import codec, support


def _py_match(value: Any, condition: Any) -> bool:
    """A $pull condition on one array element: a value, an operator document or field conditions."""
    if isinstance(condition, dict) and condition and all(k.startswith("$") for k in condition):
        for op, operand in condition.items():
            if op == "$eq" and not codec.values_equal(value, operand):
                return False
            if op == "$ne" and codec.values_equal(value, operand):
                return False
            if op == "$in" and not any(codec.values_equal(value, o) for o in operand):
                return False
            if op == "$nin" and any(codec.values_equal(value, o) for o in operand):
                return False
            if op in ("$gt", "$gte", "$lt", "$lte"):
                if value is None or codec.kind_class(codec.to_json(value)) != codec.kind_class(codec.to_json(operand)):
                    return False
                a, b = codec.bson_sort_key(value), codec.bson_sort_key(operand)
                if not {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]:
                    return False
            if op not in ("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte"):
                raise support.unsupported(f"{op} em $pull")
        return True
    if isinstance(condition, dict) and not isinstance(value, dict):
        return False
    if isinstance(condition, dict) and condition and not any(k.startswith("$") for k in condition) \
            and not codec.values_equal(value, condition):
        return all(_py_match(codec.get_path(value, k), c) for k, c in condition.items())
    return codec.values_equal(value, condition)


_UPDATE_OPS = {"$set", "$unset", "$inc", "$push", "$pull", "$addToSet", "$setOnInsert", "$min", "$max"}


def _split(path: str) -> list[str]:
    parts = path.split(".")
    if any(p in ("$", "$[]") or p.startswith("$[") for p in parts):
        raise support.unsupported("operador posicional em atualização")
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
    if a is codec.MISSING:
        return b
    if not isinstance(a, numeric) or isinstance(a, bool):
        raise WriteError(f"Cannot apply $inc to a value of non-numeric type. {{{path}: {a!r}}}", code=14)
    if isinstance(a, Decimal128) or isinstance(b, Decimal128):
        with localcontext(codec.D128) as ctx:
            left = a.to_decimal() if isinstance(a, Decimal128) else ctx.create_decimal(repr(a) if isinstance(a, float) else a)
            right = b.to_decimal() if isinstance(b, Decimal128) else ctx.create_decimal(repr(b) if isinstance(b, float) else b)
            return Decimal128(ctx.add(left, right))
    return a + b


def check(update: Mapping) -> None:
    """Refuse an update MongoDB refuses before it looks for a document ("Update Operators"): an
    unknown or unsupported operator, a field that is not a document of paths, a ``$``-prefixed or
    empty field name, a non-numeric ``$inc``, two paths of which one is the other or contains it."""
    paths: list[str] = []
    for op, fields in update.items():
        if op not in _UPDATE_OPS:
            raise support.unsupported(f"operador de atualização {op}")
        if not isinstance(fields, Mapping):
            raise WriteError(f"Modifiers operate on fields but we found another type instead: {op}", code=9)
        for path, arg in fields.items():
            parts = _split(path)
            if any(not part for part in parts):
                raise WriteError(f"The update path '{path}' contains an empty field name, which is not allowed.",
                                 code=56)
            if any(part.startswith("$") for part in parts):
                raise WriteError(f"The dollar ($) prefixed field '{parts[0]}' in '{path}' is not allowed in an "
                                 f"update operator's path", code=52)
            if op == "$inc" and (not isinstance(arg, (int, float, Decimal128)) or isinstance(arg, bool)):
                raise WriteError(f"Cannot increment with non-numeric argument: {{{path}: {arg!r}}}", code=14)
            paths.append(path)
    clash = codec.collision(paths)
    if clash:
        raise WriteError(f"Updating the path '{clash[1]}' would create a conflict at '{clash[0]}'", code=40)


def apply_update(doc: dict, update: Mapping, inserting: bool) -> dict:
    """The document after the update operators (a new dict; ``doc`` is not changed)."""
    doc = codec.from_json(codec.to_json(doc))
    for op, fields in update.items():
        if op not in _UPDATE_OPS:
            raise support.unsupported(f"operador de atualização {op}") if op.startswith("$") else \
                ValueError("update only works with $ operators")
        if not isinstance(fields, Mapping):
            raise WriteError(f"Modifiers operate on fields but we found another type instead: {op}", code=9)
        for path, arg in fields.items():
            if path == "_id" or path.startswith("_id."):
                if op in ("$set", "$setOnInsert") and (inserting or codec.values_equal(doc.get("_id"), arg)):
                    if op == "$setOnInsert" and not inserting:
                        continue
                    doc["_id"] = arg
                    continue
                raise WriteError("Performing an update on the path '_id' would modify the immutable field '_id'",
                                 code=66)
            if op == "$set" or (op == "$setOnInsert" and inserting):
                _put(doc, path, codec.from_json(codec.to_json(arg)))
            elif op == "$setOnInsert":
                continue
            elif op == "$unset":
                parent, key = _parent(doc, path, False)
                if isinstance(parent, dict) and key in parent:
                    del parent[key]
                elif isinstance(parent, list) and isinstance(key, int) and key < len(parent):
                    parent[key] = None
            elif op == "$inc":
                _put(doc, path, _add(codec.get_path(doc, path), arg, path))
            elif op in ("$min", "$max"):
                current = codec.get_path(doc, path)
                if current is codec.MISSING or (codec.bson_sort_key(arg) < codec.bson_sort_key(current)) == (op == "$min") \
                        and not codec.values_equal(arg, current):
                    _put(doc, path, arg)
            elif op in ("$push", "$addToSet"):
                current = codec.get_path(doc, path)
                if current is codec.MISSING:
                    current = []
                    _put(doc, path, current)
                if not isinstance(current, list):
                    raise WriteError(f"The field '{path}' must be an array but is of type {type(current).__name__}",
                                     code=2)
                if isinstance(arg, Mapping) and arg and next(iter(arg)).startswith("$"):
                    if set(arg) != {"$each"}:
                        raise support.unsupported(f"modificadores de {op} além de $each: {sorted(set(arg) - {'$each'})}")
                    items = list(arg["$each"])
                else:
                    items = [arg]
                for item in items:
                    item = codec.from_json(codec.to_json(item))
                    if op == "$push" or not any(codec.values_equal(item, existing) for existing in current):
                        current.append(item)
            elif op == "$pull":
                current = codec.get_path(doc, path)
                if isinstance(current, list):
                    current[:] = [item for item in current if not _py_match(item, arg)]
    return doc


def upsert_seed(flt: Mapping | None) -> dict:
    """The fields an upsert takes from its filter's equality conditions."""
    seed: dict = {}
    paths: list[str] = []

    def take(f: Mapping) -> None:
        for key, cond in f.items():
            if key == "$and":
                for part in cond:
                    take(part)
            elif key.startswith("$"):
                continue
            elif isinstance(cond, Mapping) and cond and next(iter(cond)).startswith("$"):
                if "$eq" in cond:
                    paths.append(key)
                    _put(seed, key, cond["$eq"])
            elif not isinstance(cond, re.Pattern):
                paths.append(key)
                _put(seed, key, cond)

    take(flt or {})
    clash = codec.collision(paths)
    if clash:  # {"a.b": 1, "a": 3} has no document that matches it
        raise WriteError(f"cannot infer query fields to set, path '{clash[0]}' is matched twice", code=54)
    return seed


