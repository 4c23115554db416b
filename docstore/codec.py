"""Documents as JSON text and back: each BSON value in a stored form that keeps its type and order.

JSON numbers, strings, lists, objects and null are stored as such; the other types are text with a
tag that sorts correctly within the type: ``\\x01t`` + fixed-width ISO UTC instant (milliseconds),
``\\x01o`` + ObjectId hex, ``\\x01q0``/``\\x01q1`` for booleans, ``\\x01k`` + length + subtype + hex
for binary (MongoDB's order), ``\\x01a`` + an order-preserving decimal key + the exact Decimal128 text, and ``\\x01s`` for a
real string that starts with ``\\x01`` or holds a NUL. Also MongoDB's order of two values
(:func:`bson_sort_key`) and the walk of a dotted path in a decoded document (:func:`get_path`).
"""
from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping
from datetime import datetime, timezone
from decimal import Decimal, localcontext
from typing import Any

from bson.binary import Binary
from bson.decimal128 import Decimal128, create_decimal128_context
from bson.errors import InvalidDocument
from bson.objectid import ObjectId
from pymongo.errors import OperationFailure

from docstore import support

TAG = "\x01"
TAG_DECIMAL, TAG_BINARY, TAG_OID, TAG_BOOL, TAG_STR, TAG_DATE = "a", "k", "o", "q", "s", "t"
D128 = create_decimal128_context()


_MAX_COEFFICIENT = 10**34 - 1
_SPECIAL = 3 << 61  # both combination bits set: infinity, NaN, or a coefficient in the rare "11" form
_BID = struct.Struct("<QQ")
_TEXTS: dict[bytes, str] = {}  # 128 bits -> stored text: a batch of documents repeats its amounts
_TEXTS_KEPT = 1 << 16


def decimal_key(value: Decimal128) -> str:
    """Text that sorts as the number sorts; equal numbers (1.5, 1.50) have equal keys."""
    return _number_key(_decimal_of(value))


def decimal_text(value: Decimal128) -> str:
    """The stored form of a Decimal128: tag, order-preserving key, a space and the exact text."""
    if type(value) is not Decimal128:  # a StoredDecimal128 holds its Decimal (its bits are packed if asked)
        return _decimal_stored(value.to_decimal())
    bid = value.bid
    text = _TEXTS.get(bid)
    if text is None:
        if len(_TEXTS) >= _TEXTS_KEPT:
            _TEXTS.clear()
        text = _TEXTS[bid] = _decimal_stored(_decimal_of(value))
    return text


def _decimal_stored(number: Decimal) -> str:
    return TAG + TAG_DECIMAL + _number_key(number) + " " + ("NaN" if number.is_nan() else str(number))


def _decimal_of(value: Decimal128) -> Decimal:
    """``value.to_decimal()``; for a plain Decimal128 of the usual form, read from its 128 bits by C code
    (pymongo unpacks them byte by byte in Python). Specials and the rare form are left to pymongo."""
    if type(value) is not Decimal128:
        return value.to_decimal()
    low, high = _BID.unpack(value.bid)
    if high & _SPECIAL != _SPECIAL:
        coefficient = (high & 0x1FFFFFFFFFFFF) << 64 | low
        if coefficient <= _MAX_COEFFICIENT:  # a larger one reads as zero: pymongo's branch
            return Decimal(f"{'-' if high >> 63 else ''}{coefficient}E{((high >> 49) & 0x3FFF) - 6176}")
    return value.to_decimal()


def _number_key(number: Decimal) -> str:
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


class StoredDecimal128(Decimal128):
    """A Decimal128 read from the store: a ``Decimal128`` to every caller (pymongo's type, its ``bid``,
    equality and pickling), built from the exact text the engine keeps. Its ``Decimal`` is made once
    by C code and packing the 128 bits waits until something asks for them, so reading money costs no
    pure-Python bit twiddling either way (text → bits → ``Decimal``)."""

    __slots__ = ("_decimal",)

    def __init__(self, text: str) -> None:  # noqa: D107 -- the exact text of a stored Decimal128
        self._decimal = Decimal(text)

    def to_decimal(self) -> Decimal:
        return self._decimal

    def __getattr__(self, name: str) -> Any:
        if name in ("_Decimal128__high", "_Decimal128__low"):  # the bits, packed on first use
            Decimal128.__init__(self, self._decimal)
            return object.__getattribute__(self, name)
        if name == "_decimal":  # a copy (copy, pickle) holds only the bits Decimal128 keeps in its state
            value = Decimal128.to_decimal(self)
            object.__setattr__(self, "_decimal", value)
            return value
        raise AttributeError(name)


def as_decimal128(value: Any) -> Decimal128:
    with localcontext(D128) as ctx:
        return Decimal128(ctx.create_decimal(value if not isinstance(value, float) else repr(value)))


def to_json(value: Any) -> Any:
    """A BSON value as a JSON-able value of the stored form."""
    return _stored(value, None, "")


def stored_document(doc: Mapping) -> tuple[dict, set[tuple[str, str]]]:
    """``doc`` in stored form without its ``_id``, and the ``(path, kind)`` of the arrays, numbers and
    decimals it holds (what the engine remembers in ``__paths``; not those of the ``_id``): one walk."""
    kinds: set[tuple[str, str]] = set()
    body = {}
    for key, item in doc.items():
        if type(key) is not str or "\x00" in key:
            _check_key(key)
        if key == "_id":
            _stored(item, None, "")  # refused here as a field would be; stored apart
        else:
            body[key] = _stored(item, kinds, key)
    return body, kinds


def _check_key(key: Any) -> None:
    """Refuse a key BSON refuses (callers skip the plain ones: ``type(key) is str`` without a NUL)."""
    if not isinstance(key, str):
        raise InvalidDocument(f"documents must have only string keys, key was {key!r}")
    if "\x00" in key:
        raise InvalidDocument(f"Key names must not contain the NULL byte: {key!r}")


def _stored(value: Any, kinds: set | None, path: str) -> Any:
    """The stored form of ``value`` at ``path``, noting in ``kinds`` (unless None) its arrays, numbers
    and decimals. The exact types a document is made of come first; anything else (a subclass, a
    bool, bytes) goes through :func:`_other`, which checks in MongoDB's terms."""
    kind = type(value)
    if kind is str:
        return value if not value.startswith(TAG) and "\x00" not in value else _escaped(value)
    if kind is dict:
        return _mapping(value, kinds, path)
    if kind is datetime:
        return _date_text(value)
    if kind is ObjectId:
        return TAG + TAG_OID + str(value)
    if kind is Decimal128 or kind is StoredDecimal128:
        if kinds is not None:
            kinds.add((path, "decimal"))
        return decimal_text(value)
    if kind is int:
        if not -(2**63) <= value < 2**63:
            raise OverflowError("MongoDB can only handle up to 8-byte ints")
        if kinds is not None:
            kinds.add((path, "number"))
        return value
    if kind is list:
        if kinds is not None:
            kinds.add((path, "array"))
        return [_stored(v, kinds, path) for v in value]
    if value is None:
        return None
    return _other(value, kinds, path)


def _mapping(value: Mapping, kinds: set | None, path: str) -> dict:
    out = {}
    for key, item in value.items():
        if type(key) is not str or "\x00" in key:
            _check_key(key)
        if type(item) is str and not item.startswith(TAG) and "\x00" not in item:  # most values
            out[key] = item
        else:
            out[key] = _stored(item, kinds, (f"{path}.{key}" if path else key) if kinds is not None else "")
    return out


def _other(value: Any, kinds: set | None, path: str) -> Any:
    if isinstance(value, str):
        return value if not value.startswith(TAG) and "\x00" not in value else _escaped(value)
    if isinstance(value, bool):
        return TAG + TAG_BOOL + ("1" if value else "0")
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise OverflowError("MongoDB can only handle up to 8-byte ints")
        if kinds is not None:
            kinds.add((path, "number"))
        return int(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise support.unsupported("float NaN/Infinity (use Decimal128)")
        if kinds is not None:
            kinds.add((path, "number"))
        return value
    if isinstance(value, Mapping):
        return _mapping(value, kinds, path)
    if isinstance(value, (list, tuple)):
        if kinds is not None:
            kinds.add((path, "array"))
        return [_stored(v, kinds, path) for v in value]
    if isinstance(value, datetime):
        return _date_text(value)
    if isinstance(value, ObjectId):
        return TAG + TAG_OID + str(value)
    if isinstance(value, Decimal128):
        if kinds is not None:
            kinds.add((path, "decimal"))
        return decimal_text(value)
    if isinstance(value, (bytes, bytearray)):  # Binary too: MongoDB orders by length, subtype, bytes
        data = bytes(value)
        return TAG + TAG_BINARY + "%08x%02x" % (len(data), getattr(value, "subtype", 0)) + data.hex()
    raise InvalidDocument(f"cannot encode object: {value!r}, of type: {type(value)}")


def _escaped(text: str) -> str:
    return TAG + TAG_STR + text.replace(TAG, TAG + "\x02").replace("\x00", TAG + TAG)


def _date_text(value: datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc)
    if type(value) is datetime and value.year >= 1000:  # the same text, without strftime's cost
        return TAG + TAG_DATE + value.isoformat(timespec="milliseconds")[:23]
    return TAG + TAG_DATE + value.strftime("%Y-%m-%dT%H:%M:%S.") + "%03d" % (value.microsecond // 1000)


def _from_tagged(text: str) -> Any:
    tag, body = text[1:2], text[2:]
    if tag == TAG_DATE:  # fixed width "YYYY-MM-DDTHH:MM:SS.mmm": fromisoformat reads it ~10× faster than strptime
        return datetime.fromisoformat(body).replace(tzinfo=timezone.utc)
    if tag == TAG_OID:
        return ObjectId(body)
    if tag == TAG_DECIMAL:
        return StoredDecimal128(body[body.index(" ") + 1:])
    if tag == TAG_BOOL:
        return body == "1"
    if tag == TAG_STR:
        return unescape(body)
    if tag == TAG_BINARY:
        subtype, data = int(body[8:10], 16), bytes.fromhex(body[10:])
        return data if subtype == 0 else Binary(data, subtype)
    return text


def unescape(body: str) -> str:
    return re.sub("\x01([\x01\x02])", lambda m: "\x00" if m.group(1) == TAG else TAG, body)


def from_json(value: Any) -> Any:
    if isinstance(value, str):
        return _from_tagged(value) if value.startswith(TAG) else value
    if isinstance(value, dict):
        return {k: from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)  # json.dumps's, made once


def dumps(value: Any) -> str:
    return _JSON.encode(value)


def id_to_sql(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        raise support.unsupported("_id que é documento ou lista")
    return to_json(value)


def kind_class(value: Any) -> str:
    """The BSON comparison class of a (JSON-stored) value, used for type bracketing."""
    if value is None:
        return "null"
    if isinstance(value, (int, float)) or isinstance(value, str) and value.startswith(TAG + TAG_DECIMAL):
        return "number"
    if isinstance(value, str):
        return value[1] if value.startswith(TAG) and value[1] != TAG_STR else "string"
    if isinstance(value, dict):
        return "object"
    return "array"


_CLASS_ORDER = {"null": 1, "number": 2, "string": 3, "object": 4, "array": 5, TAG_BINARY: 6, TAG_OID: 7,
                TAG_BOOL: 8, TAG_DATE: 9}


def bson_sort_key(value: Any) -> tuple:
    """MongoDB's order of two BSON values (for $min/$max and in-Python comparisons)."""
    stored = to_json(value)
    kind = kind_class(stored)
    if kind == "number":
        number = value.to_decimal() if isinstance(value, Decimal128) else Decimal(repr(value) if isinstance(value, float) else value)
        return (_CLASS_ORDER[kind], number)
    if kind == "array":
        return (_CLASS_ORDER[kind], tuple(bson_sort_key(v) for v in value))
    if kind == "object":
        return (_CLASS_ORDER[kind], tuple((bson_sort_key(v)[0], k, bson_sort_key(v)) for k, v in value.items()))
    return (_CLASS_ORDER[kind], stored if stored is not None else 0)


def values_equal(a: Any, b: Any) -> bool:
    try:
        return bson_sort_key(a) == bson_sort_key(b)
    except (InvalidDocument, OperationFailure):
        return a == b


MISSING = object()


def get_path(doc: Any, path: str) -> Any:
    current = doc
    for part in path.split("."):
        if isinstance(current, dict):
            current = current.get(part, MISSING)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return MISSING
        if current is MISSING:
            return MISSING
    return current


def collision(paths: list[str]) -> tuple[str, str] | None:
    """Two of ``paths`` that name the same field or of which one holds the other (``a`` and ``a.b``):
    the first such pair in the order of ``paths``. An update of a read model names thousands of paths,
    so a quick look by hashing comes first; only a clash it sees goes through the pairwise walk."""
    if _clash_free(paths):
        return None
    for i, one in enumerate(paths):
        for other in paths[i + 1:]:
            shorter, longer = sorted((one, other), key=len)
            if longer == shorter or longer.startswith(shorter + "."):
                return shorter, longer
    return None


def _clash_free(paths: list[str]) -> bool:
    """No path repeats and none is a dotted prefix of another (False: perhaps one; ask the walk)."""
    seen: set[str] = set()
    for path in paths:
        if type(path) is not str or path in seen:
            return False
        seen.add(path)
    for path in paths:
        at = path.find(".")
        while at != -1:
            if path[:at] in seen:
                return False
            at = path.find(".", at + 1)
    return True
