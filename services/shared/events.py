"""In-process events between modules: the registry of what a paid DAM tells the record it pays.

A module registers a handler for the collection of the records it owns::

    @on_dam_paid("authorizations")
    def issue_authorization(db, charge_id: str) -> None: ...

The handler receives the database and the id of the charge (débito, :mod:`services.dam.charges`)
a DAM of which received a payment; it reads the stored charge (never a caller's dict), whose
``owner`` says which record it belongs to and whose ``status`` whether it is paid in full.
Importing the module registers its handlers
(``services.setup.bootstrap`` imports every domain module at start). The handlers are run by the
DAM's outbox (:mod:`services.dam.outbox`), possibly more than once for one DAM: each must be
idempotent.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_PAID_HANDLERS: dict[str, list[Callable[[Any, str], None]]] = {}


def on_dam_paid(collection: str) -> Callable:
    """Register the decorated function as a handler of the DAMs that pay a record of ``collection``."""
    def register(handler: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        _PAID_HANDLERS.setdefault(collection, []).append(handler)
        return handler

    return register


def paid_handlers(collection: str) -> tuple[Callable[[Any, str], None], ...]:
    """The handlers registered for the DAMs that pay a record of ``collection`` (empty when none is)."""
    return tuple(_PAID_HANDLERS.get(collection, ()))


# ---- a message of the electronic domicile opened (services.shared.domicile) ----

_OPENED_HANDLERS: dict[str, list[Callable[[Any, Any, dict], None]]] = {}


def on_message_opened(category: str) -> Callable:
    """Register the decorated function as a handler of the first opening of a domicile message of
    ``category``: called as ``handler(db, actor, message)`` inside the opening's unit of work (the
    actor is the addressee who opened it), so the record the message notifies follows it."""
    def register(handler: Callable[[Any, Any, dict], None]) -> Callable[[Any, Any, dict], None]:
        _OPENED_HANDLERS.setdefault(category, []).append(handler)
        return handler

    return register


def opened_handlers(category: str) -> tuple[Callable[[Any, Any, dict], None], ...]:
    """The handlers registered for the opening of a message of ``category`` (empty when none is)."""
    return tuple(_OPENED_HANDLERS.get(category, ()))


def opened_categories() -> tuple[str, ...]:
    """The categories of domicile messages whose opening does something (a receipt that starts a term)."""
    return tuple(category for category, handlers in _OPENED_HANDLERS.items() if handlers)
