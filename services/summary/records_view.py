"""The ride-hailing registry's figures kept as data (issue 21): drivers and vehicles registered and
vistorias done (and failed) per day, so the Resumo reads them from a few month documents instead of
counting every record for each period (8 counts took about 1 s at 30.000 drivers and 160.000
vistorias: most of the Resumo right after a save). ``revenue_view``'s mechanism, view ``records``:

- a driver or a vehicle counts ``drivers`` / ``vehicles`` on the local day (America/Cuiaba) of its
  ``created_at``, as "registered up to the end of a day" counted it;
- a vistoria counts ``insp`` on its ``performed_on``, and ``insp_failed`` too when it failed.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

from pymongo.database import Database

from services.shared import clock, views
from services.store import decode, parse_date
from services.summary import revenue_view

NAME = "records"
FIELDS = {"drivers": {"municipality": 1, "created_at": 1}, "vehicles": {"municipality": 1, "created_at": 1},
          "inspections": {"municipality": 1, "performed_on": 1, "result": 1}}


def contribution(collection: str, doc: dict) -> dict[str, dict[str, int]]:
    """What one record (decoded) of ``collection`` adds to the month documents of the view."""
    parts = revenue_view.Parts(doc["municipality"], NAME)
    if collection == "inspections":
        done = parse_date(doc.get("performed_on"))
        if done is not None:
            parts.add(done, "insp", 1)
            if doc.get("result") == "failed":
                parts.add(done, "insp_failed", 1)
    elif doc.get("created_at") is not None:
        parts.add(clock.to_local(doc["created_at"]).date(), collection, 1)
    return parts.done()


def _contribute(collection: str) -> Callable[[dict], dict]:
    return partial(contribution, collection)


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow the driver, vehicle or vistoria ``doc_id``."""
    revenue_view.follow_record(db, NAME, collection, FIELDS[collection], _contribute(collection), municipality,
                               doc_id)


def rebuild(db: Database, municipality: str) -> None:
    """Every driver's, vehicle's and vistoria's part of ``municipality``, from scratch (one write of them all)."""
    rows = [{"_id": f"{collection}:{raw['_id']}", "parts": contribution(collection, decode(raw))}
            for collection, fields in FIELDS.items()
            for raw in db[collection].find({"municipality": municipality}, fields)]
    revenue_view.write_parts(db, NAME, municipality, rows)


views.register(views.View(NAME, tuple(FIELDS), project, rebuild, version=2))  # 2: month totals
