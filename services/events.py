"""In-process events between modules: a DAM paid tells the record it pays.

A module registers a handler for the collection of the records it owns::

    @on_dam_paid("authorizations")
    def issue_authorization(db, dam: dict) -> None: ...

The DAM service calls :func:`dam_paid` after it marks a DAM as paid; the handler receives the
database and the paid DAM document (decoded), whose ``pays`` says which record it pays.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_PAID_HANDLERS: dict[str, list[Callable[[Any, dict], None]]] = {}


def on_dam_paid(collection: str) -> Callable:
    def register(handler: Callable[[Any, dict], None]) -> Callable[[Any, dict], None]:
        _PAID_HANDLERS.setdefault(collection, []).append(handler)
        return handler

    return register


def dam_paid(db: Any, dam: dict) -> None:
    """Tell the handlers of the paid record's collection; a DAM paying nothing tells no one."""
    pays = dam.get("pays") or {}
    for handler in _PAID_HANDLERS.get(pays.get("collection", ""), []):
        handler(db, dam)
