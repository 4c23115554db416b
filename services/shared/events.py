"""In-process events between modules: a DAM paid tells the record it pays, through an outbox.

A module registers a handler for the collection of the records it owns::

    @on_dam_paid("authorizations")
    def issue_authorization(db, dam: dict) -> None: ...

The handler receives the database and the paid DAM as stored (decoded, with ``id``), whose
``pays`` says which record it pays. Outbox: the DAM service marks a DAM paid and sets
``handlers_pending`` in the same conditional update; :func:`dam_paid` then runs the handlers and
clears the mark (``handlers_done_at``). A crash or an exception in between leaves the mark, and
:func:`resume_pending` (at start, and when a user retries the payment) runs them again. Handlers
may therefore run more than once for one DAM: each must be idempotent.
"""
from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

from bson import ObjectId

from services import store
from services.shared import clock
from services.store import encode

log = logging.getLogger(__name__)

_PAID_HANDLERS: dict[str, list[Callable[[Any, dict], None]]] = {}
# Modules whose handlers must be registered before an outbox entry is run (import registers them).
HANDLER_MODULES = ("services.ridehailing.fees", "services.ridehailing.enforcement.penalties",
                   "services.ridehailing.issqn", "services.machinery.payment")


def on_dam_paid(collection: str) -> Callable:
    def register(handler: Callable[[Any, dict], None]) -> Callable[[Any, dict], None]:
        _PAID_HANDLERS.setdefault(collection, []).append(handler)
        return handler

    return register


def _register_handlers() -> None:
    for name in HANDLER_MODULES:
        importlib.import_module(name)


def dam_paid(db: Any, dam_id: str) -> bool:
    """Run the handlers of the record a paid DAM pays, then clear the DAM's outbox mark.

    The DAM is read from the store (never taken from the caller), and only a paid DAM tells anyone.
    Returns False when a handler failed: the mark stays and the handlers run again later.
    """
    from services.dam import dams

    _register_handlers()
    try:
        # One unit: the handlers' writes and the cleared mark commit together, and a second caller
        # (another clerk's retry, a resume at start) waits, then finds the mark gone and runs nothing.
        with store.transaction(db):
            doc = db[dams.COLLECTION].find_one({"_id": ObjectId(dam_id)})
            if doc is None or doc.get("status") != dams.PAID:
                return False
            if not doc.get("handlers_pending") and doc.get("handlers_done_at"):
                return True
            dam = dams.plain(doc)
            pays = dam.get("pays") or {}
            for handler in _PAID_HANDLERS.get(pays.get("collection", ""), []):
                handler(db, dam)
            db[dams.COLLECTION].update_one(
                {"_id": doc["_id"]},
                {"$unset": {"handlers_pending": ""}, "$set": {"handlers_done_at": encode(clock.now_utc())}},
            )
    except Exception:  # noqa: BLE001 — the payment stands; the handler runs again from the outbox
        log.exception("handler of paid DAM %s failed; left pending", dam_id)
        return False
    return True


def resume_pending(db: Any) -> int:
    """Run again the handlers of every paid DAM whose handlers have not completed; returns how many
    completed now. Safe at every start (indexed on ``handlers_pending``)."""
    from services.dam import dams

    dams.prepare(db)  # the outbox index
    pending = [str(doc["_id"]) for doc in db[dams.COLLECTION].find({"handlers_pending": True}, {"_id": 1})]
    return sum(1 for dam_id in pending if dam_paid(db, dam_id))
