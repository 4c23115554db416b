"""The outbox of paid DAMs: after a payment, the handlers of the record the DAM pays run and clear the mark.

The payment (:mod:`services.dam.payments`) marks a DAM paid and sets ``handlers_pending`` in the
same conditional update; :func:`dam_paid` then runs the handlers registered for the collection the
DAM pays (``pays.collection``, registry in :mod:`services.shared.events`) with the id of the DAM's
charge, and clears the mark
(``handlers_done_at``). A crash or an exception in between leaves the mark, and
:func:`resume_pending` (at start, and when a user retries the payment) runs them again. Handlers
may therefore run more than once for one DAM: each must be idempotent.

A collection with no handler registered (its module was not imported: ``services.setup.bootstrap``
imports every domain module at start) leaves the mark in place too, so a follow-up is never lost.
"""
from __future__ import annotations

import logging
from typing import Any

from bson import ObjectId

from services import store
from services.dam import dams
from services.shared import clock, events
from services.store import encode

log = logging.getLogger(__name__)


def dam_paid(db: Any, dam_id: str) -> bool:
    """Run the handlers of the record a paid DAM's charge belongs to, then clear the DAM's outbox mark.

    The DAM is read from the store (never taken from the caller), and only a DAM that received a
    payment tells anyone (a cancelled DAM paid at the bank too: the payment counts on its charge).
    Each handler gets the charge's id and reads the stored charge (:func:`services.dam.charges.load`).
    Returns False when a handler failed or none is registered for the collection the DAM pays: the
    mark stays and the handlers run again later.
    """
    try:
        # One unit: the handlers' writes and the cleared mark commit together, and a second caller
        # (another clerk's retry, a resume at start) waits, then finds the mark gone and runs nothing.
        with store.transaction(db):
            doc = db[dams.COLLECTION].find_one({"_id": ObjectId(dam_id)})
            if doc is None or not doc.get("payment"):
                return False
            if not doc.get("handlers_pending") and doc.get("handlers_done_at"):
                return True
            collection = (doc.get("pays") or {}).get("collection", "")
            handlers = events.paid_handlers(collection)
            if collection and not handlers:
                log.warning("no handler registered for %r: paid DAM %s left pending", collection, dam_id)
                return False
            if collection and not doc.get("charge_id"):
                log.warning("paid DAM %s has no charge yet (start-up moves it over): left pending", dam_id)
                return False
            for handler in handlers:
                handler(db, str(doc["charge_id"]))
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
    dams.prepare(db)  # the outbox index
    pending = [str(doc["_id"]) for doc in db[dams.COLLECTION].find({"handlers_pending": True}, {"_id": 1})]
    return sum(1 for dam_id in pending if dam_paid(db, dam_id))
