"""The codec between Python values and stored documents (re-exported by ``services.store``).

``Decimal`` is stored as Decimal128 and read back as ``Decimal``; ``date`` as an ISO string
``YYYY-MM-DD``; instants as UTC datetimes, read back aware in UTC.
"""
from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal, localcontext
from typing import Any

from bson.decimal128 import Decimal128, create_decimal128_context

_D128 = create_decimal128_context()


def encode(value: Any) -> Any:
    """A Python value as stored: Decimal→Decimal128, date→ISO text, datetime→UTC."""
    if isinstance(value, Decimal):
        with localcontext(_D128) as ctx:
            return Decimal128(ctx.create_decimal(value))
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("Instantes devem ter fuso horário (aware) antes de salvar")
        return value.astimezone(timezone.utc)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


_PLAIN = (str, int, float, bool, type(None))


def decode(value: Any) -> Any:
    """A stored value as Python: Decimal128→Decimal, datetime→aware UTC. Plain values (most of a
    document) are passed on first; the embedded engine's Decimal128 already holds its ``Decimal``."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:
        return {k: v if type(v) in _PLAIN else decode(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _PLAIN else decode(v) for v in value]
    if isinstance(value, Decimal128):
        return value.to_decimal()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def parse_date(value: Any) -> date | None:
    """A stored legal date (ISO text) back as ``date``; None stays None."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
