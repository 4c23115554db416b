"""Projections: inclusion and exclusion of fields in a decoded document, and the inclusions SQLite
can extract on its own so that only those fields are decoded."""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pymongo.errors import OperationFailure

from docstore import codec, compiler, support


def check(projection: Any) -> None:
    """Refuse a projection MongoDB refuses, before any document is read ("Projection Restrictions"):
    a path that collides with another, inclusion mixed with exclusion, and what the engine does not
    offer (the positional ``$`` and projection operators)."""
    if projection is None:
        return
    if not isinstance(projection, (Mapping, list, tuple)):
        raise TypeError("projection must be an instance of dict, a list or a tuple")
    spec = {k: 1 for k in projection} if isinstance(projection, (list, tuple)) else dict(projection)
    paths = sorted(spec)
    for path in paths:
        if not isinstance(path, str):
            raise TypeError("projection keys must be strings")
        if any(part.startswith("$") for part in path.split(".")):
            raise support.unsupported("projeção posicional ($)")
        if isinstance(spec[path], Mapping):
            raise support.unsupported("operadores de projeção")
    clash = codec.collision(paths)
    if clash:
        raise OperationFailure(f"Path collision at {clash[1]}", code=31250)
    flags = {bool(v) for k, v in spec.items() if k != "_id"}
    if len(flags) > 1:
        raise OperationFailure("Cannot do exclusion and inclusion in the same projection", code=31254)


def project(doc: dict, projection: Any) -> dict:
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
    flags = {bool(v) for v in spec.values()}
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
            doc[parts[0]] = codec.from_json(codec.to_json(doc[parts[0]]))
            _drop_path(doc[parts[0]], parts[1:])


def sql_fields(projection: Any, kinds: Callable[[], Any]) -> list[str] | None:
    """The paths of an inclusion projection that SQLite can extract on its own (so only they are decoded),
    or None to load whole documents: exclusions, and paths that cross a field that ever held an array
    (MongoDB projects through arrays element by element). ``kinds`` gives the collection's path kinds."""
    if projection is None:
        return None
    spec = {k: 1 for k in projection} if isinstance(projection, (list, tuple)) else dict(projection)
    with_id = spec.pop("_id", None)
    if not spec and with_id and not isinstance(with_id, Mapping):
        return []  # {"_id": 1}: the key alone
    if not spec or any(isinstance(v, Mapping) or not v for v in spec.values()):
        return None
    held = kinds()
    for path in spec:
        parts = path.split(".")
        if any("array" in held.get(".".join(parts[:i]), ()) for i in range(1, len(parts))):
            return None
        if any('"' in part or "'" in part or not part or part.isdigit() for part in parts):
            return None
    return list(spec)


def sql_columns(fields: list[str]) -> list[str]:
    """The SQL of each field's JSON value, then of the JSON type of each ancestor of a dotted field
    (a missing field inside an embedded document leaves that document, empty)."""
    values = [f"doc -> '{compiler.json_path(f.split('.'))}'" for f in fields]
    parents = [f"json_type(doc, '{compiler.json_path(p)}')" for p in _ancestors(fields)]
    return values + parents


def _ancestors(fields: list[str]) -> list[list[str]]:
    return [f.split(".")[:i] for f in fields for i in range(1, f.count(".") + 1)]


class Layout:
    """How a row of :func:`sql_columns` becomes a document, worked out once per query, not per row."""

    def __init__(self, fields: list[str], projection: Any) -> None:
        spec = {k: 1 for k in projection} if isinstance(projection, (list, tuple)) else dict(projection)
        self.with_id = bool(spec.get("_id", True))
        self.ancestors = [".".join(p) for p in _ancestors(fields)]
        self.types_at = 2 + len(fields)
        self.fields = []  # (parents, leaf, each parent's dotted path)
        for path in fields:
            *parents, leaf = path.split(".")
            self.fields.append((parents, leaf, [".".join(parents[:i + 1]) for i in range(len(parents))]))


def projected(row: tuple, layout: Layout) -> dict:
    """A document of only the layout's fields from a row of (id, rowid, then the columns of :func:`sql_columns`)."""
    doc: dict = {"_id": codec.from_json(row[0])} if layout.with_id else {}
    parent_types = dict(zip(layout.ancestors, row[layout.types_at:]))
    for (parents, leaf, dotted), raw in zip(layout.fields, row[2:]):
        if raw is None:  # missing field: MongoDB leaves it out, but keeps the documents around it
            target = doc
            for part, parent in zip(parents, dotted):
                if parent_types[parent] != "object":
                    break
                target = target.setdefault(part, {})
            continue
        target = doc
        for part in parents:
            target = target.setdefault(part, {})
        target[leaf] = codec.from_json(json.loads(raw))
    return doc
