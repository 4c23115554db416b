"""pymongo's checks of the arguments of each call, made before anything is read or written.

pymongo checks most arguments on the client (``pymongo.common.validate_*`` and its key/projection
helpers) and raises ``TypeError``/``ValueError``; the engine calls the same functions, so a wrong
argument raises what pymongo raises. What pymongo leaves to the server (``count_documents``' filter and
``$skip``/``$limit`` stages, ``distinct``'s query) raises ``OperationFailure``, as the server answers.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo import common, helpers_shared
from pymongo.errors import ConfigurationError, InvalidName, OperationFailure
from pymongo.operations import IndexModel

from docstore import projections, support

validate_boolean = common.validate_boolean
validate_is_mapping = common.validate_is_mapping
validate_is_document_type = common.validate_is_document_type


def collection_name(name: Any) -> str:
    """pymongo's checks of a collection's name (``Collection.__init__``): TypeError or InvalidName."""
    if not isinstance(name, str):
        raise TypeError(f"name must be an instance of str, not {type(name)}")
    if not name or ".." in name:
        raise InvalidName("collection names cannot be empty")
    if "$" in name and not name.startswith(("oplog.$main", "$cmd")):
        raise InvalidName(f"collection names must not contain '$': {name!r}")
    if name[0] == "." or name[-1] == ".":
        raise InvalidName(f"collection names must not start or end with '.': {name!r}")
    if "\x00" in name:
        raise InvalidName("collection names must not contain the null character")
    return name


def index_models(indexes: Any) -> list[IndexModel]:
    """create_indexes' argument as pymongo checks it: a list (``common.validate_list``) of IndexModel,
    every item checked before any index is made."""
    common.validate_list("indexes", indexes)
    for index in indexes:
        if not isinstance(index, IndexModel):
            raise TypeError(f"{index!r} is not an instance of pymongo.operations.IndexModel")
    return indexes


def key_list(keys: Any, direction: Any = None) -> list[tuple[str, Any]]:
    """A sort or index key in any of pymongo's spellings as ``[(field, direction), ...]``, checked by
    pymongo's own helpers (``TypeError``/``ValueError`` for a wrong shape, as pymongo raises)."""
    return list(helpers_shared._index_document(helpers_shared._index_list(keys, direction)).items())


def sort_keys(keys: Any) -> list[tuple[str, int]]:
    """A ``sort`` argument (find, find_one_and_*): a document or a list of pairs, directions 1/-1."""
    out = list(helpers_shared._index_document(keys).items())
    for _, direction in out:
        if direction not in (1, -1):
            raise support.unsupported(f"direção de ordenação {direction!r}")
    return out


def projection_spec(projection: Any) -> Any:
    """A projection as pymongo sends it: a document, or a list of names made into one (TypeError otherwise)."""
    if projection is None:
        return None
    spec = helpers_shared._fields_list_to_dict(projection, "projection")
    projections.check(spec)
    return spec


def check_int(name: str, value: Any) -> int:
    """pymongo's check of skip/limit/batch_size (an ``int``), and BSON's 8-byte bound (OverflowError)."""
    if not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, not {type(value)}")
    if not -(2**63) <= value < 2**63:
        raise OverflowError("MongoDB can only handle up to 8-byte ints")
    return value


def count_stages(flt: Any, skip: Any, limit: Any) -> tuple[int, int]:
    """count_documents' filter, skip and limit: pymongo sends them as ``$match``, ``$skip`` and ``$limit``
    stages (a ``$skip`` given only when passed), and the server refuses a filter that is not a document,
    a negative skip and a limit that is not positive. ``(skip, limit)`` with 0 for "none"."""
    if not isinstance(flt, Mapping):
        raise OperationFailure("the match filter must be an expression in an object", code=15959)
    for stage, value in (("skip", skip), ("limit", limit)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise OperationFailure(f"invalid argument to ${stage} stage: Expected a number in: "
                                   f"${stage}: {value!r}", code=2)
        check_int(stage, value)
        if value < 0 or (stage == "limit" and value == 0):
            raise OperationFailure(f"invalid argument to ${stage} stage: the "
                                   f"{'number' if stage == 'skip' else 'limit'} must be positive",
                                   code=15956 if stage == "skip" else 15958)
    return skip or 0, limit or 0


COUNT_OPTIONS = ("maxTimeMS", "hint", "skip", "limit", "comment", "readConcern", "collation")


def estimated_count_options(kwargs: dict) -> tuple[int, int]:
    """estimated_document_count's options as pymongo sends them (a session is refused on the client;
    the rest go in the ``count`` command, which refuses an unknown field and a negative skip and takes
    a negative limit as its size). ``(skip, limit)`` with 0 for "none"."""
    if "session" in kwargs:
        raise ConfigurationError("estimated_document_count does not support sessions")
    for name in kwargs:
        if name not in COUNT_OPTIONS:
            raise OperationFailure(f"BSON field 'count.{name}' is an unknown field.", code=40415)
    found = []
    for name in ("skip", "limit"):
        value = kwargs.get(name) or 0
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise OperationFailure(f"BSON field 'count.{name}' is the wrong type '{type(value).__name__}', "
                                   "expected types '[long, int, decimal, double]'", code=14)
        if name == "skip" and value < 0:
            raise OperationFailure(f"BSON field 'skip' value must be >= 0, actual value '{value}'", code=51024)
        found.append(abs(int(value)))
    return found[0], found[1]


def update_args(flt: Any, update: Any, upsert: Any, replace: bool) -> None:
    """pymongo's checks of update_*/replace_one/find_one_and_*: upsert a bool, filter a document, the
    update a non-empty document of operators (a pipeline list: refused, aggregation is not offered)
    or the replacement a document without operators."""
    validate_boolean("upsert", upsert)
    validate_is_mapping("filter", flt)
    if replace:
        common.validate_ok_for_replace(update)
        if any(k.startswith("$") for k in update):
            raise ValueError("replacement can not include $ operators")
        return
    common.validate_ok_for_update(update)
    if isinstance(update, list):
        raise support.unsupported("atualização por pipeline de agregação")
    if not all(k.startswith("$") for k in update):
        raise ValueError("update only works with $ operators")


def find_and_modify(flt: Any, projection: Any, sort: Any, return_document: Any) -> tuple[Any, list | None]:
    """pymongo's checks of a findAndModify: filter a document, return_document a bool, the projection a
    document or list of names, sort a document or list of pairs. ``(projection, sort)`` as sent."""
    validate_is_mapping("filter", flt)
    if not isinstance(return_document, bool):
        raise TypeError("return_document must be ReturnDocument.BEFORE or ReturnDocument.AFTER, "
                        f"not {type(return_document)}")
    return projection_spec(projection), (sort_keys(sort) if sort is not None else None)
