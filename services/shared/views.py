"""Read models: what a page derives from many records, kept as data (issue 21).

A view keeps, in its own collection, figures that would otherwise be recomputed from every record
on each render (the work queue, the summaries). A module declares it with :func:`register`: the
collections whose writes move it, ``project(db, municipality, collection, doc_id)`` that brings it
up to date after one record of them changed, and ``rebuild(db, municipality)`` that makes it from
scratch (``python -m seed --rebuild-views``; a test compares the two). Plain documents and
``$set``/``$inc`` only, so a view works the same on MongoDB and on the embedded store.

Every write of the panel leaves an audit entry, and ``audit.record`` calls :func:`touched`: the
projection runs at the end of the unit of work, after every write of it and inside it
(``unit_of_work.before_commit``), so the figures commit or roll back with the change. A service
that writes a source never calls a view; the one exception is a record written inside another's
audited unit without an entry of its own (a charge, written only by ``services.dam.charges``, the
money loop), whose one writer calls :func:`touched` itself. The views' modules are named in ``MODULES`` and imported
on the first write or rebuild, whatever pages the process has loaded (a view registered nowhere
would go stale silently; ``tests/test_views.py`` checks every module is listed).

The same call counts the municipality's changes (:func:`version`): what a page still caches is
keyed on that counter, never on the newest audit entry's instant (a future-dated entry froze it).
"""
from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from services import store
from services.shared import unit_of_work

# Each module that registers a view (imported by :func:`_load`, never by the writers).
MODULES: tuple[str, ...] = ("services.ridehailing.queue_view", "services.dam.aging_view",
                            "services.summary.revenue_view", "services.summary.authorization_view",
                            "services.machinery.queue_view", "services.machinery.schedule_view",
                            "services.summary.bookings_view",
                            "services.summary.autos_view", "services.shared.flow_queue_view",
                            "services.summary.records_view")
META = "meta"


@dataclass(frozen=True)
class View:
    """One read model: its name, the collections that move it, and how it follows and is rebuilt."""

    name: str
    sources: tuple[str, ...]
    project: Callable[[Database, str | None, str, str | None], None]
    rebuild: Callable[[Database, str], None]
    version: int = 1  # raised when what the view keeps changes: the next start rebuilds it (:func:`prepare`)
    # collections known only at run time (the registers municipal IT defines): True for one the view follows
    follows: Callable[[str], bool] | None = None

    def moved_by(self, collection: str) -> bool:
        return collection in self.sources or (self.follows is not None and self.follows(collection))


_VIEWS: dict[str, View] = {}
_loaded = False
_load_lock = threading.Lock()


def register(view: View) -> View:
    """Declare ``view`` (at import of its module, which must be in ``MODULES``)."""
    _VIEWS[view.name] = view
    return view


def _load() -> None:
    global _loaded
    if _loaded:
        return
    with _load_lock:
        for module in MODULES:
            importlib.import_module(module)
        _loaded = True


def all_views() -> list[View]:
    _load()
    return list(_VIEWS.values())


def touched(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """A record of ``collection`` was written in the open unit of work: follow it in every view it
    moves, and count one change of the municipality, at the unit's end. A stand-in database (the
    benchmark's shape recorder, ``stand_in = True``) keeps what a service writes and holds no view."""
    if getattr(type(db), "stand_in", False):  # on the class: a database answers any attribute with a collection
        return
    for view in all_views():
        if view.moved_by(collection):
            unit_of_work.before_commit((view.name, id(db), municipality, collection, doc_id),
                                       partial(view.project, db, municipality, collection, doc_id))
    if municipality:
        unit_of_work.before_commit(("version", id(db), municipality), partial(_count, db, municipality))


def _count(db: Database, municipality: str) -> None:
    db[META].update_one({"_id": f"changes:{municipality}"}, {"$inc": {"n": 1}}, upsert=True)


def source_key(doc_id: str) -> ObjectId | str:
    """The ``_id`` of a source record as :func:`touched` names it: an ObjectId's text, or a key of its own."""
    try:
        return ObjectId(str(doc_id))
    except InvalidId:
        return doc_id


def version(db: Database, municipality: str) -> int:
    """How many units of work have changed the municipality's records (one read by ``_id``)."""
    doc = db[META].find_one({"_id": f"changes:{municipality}"}, {"n": 1})
    return int(doc["n"]) if doc else 0


def stamp(db: Database, municipality: str) -> str:
    """A cache key for what a page derives from the municipality's records: the change counter of
    :func:`version` and which store it counts in (two stores open in one process — two deployments,
    the tests — can hold the same count with other records)."""
    return f"{id(db.client)}:{db.name}:{version(db, municipality)}"


def rebuild(db: Database, municipality: str, progress: Callable[[str], None] | None = None) -> list[str]:
    """Make every view of ``municipality`` from scratch, each in one unit of work; the names rebuilt."""
    done = []
    for view in all_views():
        with store.transaction(db):
            view.rebuild(db, municipality)
        done.append(view.name)
        if progress:
            progress(f"{municipality}: {view.name}")
    return done


def prepare(db: Database, municipalities: list[str]) -> None:
    """At start: rebuild each view the store does not hold at its version (a store made before the view,
    or by a bulk load that bypassed the audit), then remember the version."""
    for view in all_views():
        marker = f"view:{view.name}"
        held = db[META].find_one({"_id": marker}, {"version": 1})
        if held and held.get("version") == view.version:
            continue
        for code in municipalities:
            with store.transaction(db):
                view.rebuild(db, code)
        db[META].update_one({"_id": marker}, {"$set": {"version": view.version}}, upsert=True)
