"""The part of the dataset written through the real services: Nova Lacerda's machinery (requesters,
assets, operators, requests in every status with their quotes, charges and DAMs, bookings and
executions) and the autos de infração of both ride-hailing municipalities in every stage.

These records are chains of documents (a request, its quote, charge, DAM, booking and execution; an
auto, its notification, decision and fine DAM) whose shapes follow their services, so the services
write them, replaying the demo's scenarios (``seed.bookings``, ``seed.bookings_history``,
``seed.enforcement``) with the panel's clock at the dataset's fixed today: nothing is dated after it.
"""
from __future__ import annotations

import time

from pymongo.database import Database

from bench.dataset_plan import TODAY
from seed import bookings, bookings_history, enforcement
from seed.timeline import on
from services.shared import clock


def write(db: Database) -> float:
    """Machinery and autos through the services at the dataset's today; the seconds it took."""
    started = time.perf_counter()
    real_today = clock.today
    clock.today = lambda: clock.local_date(clock.now_utc())  # "today" follows the replayed day
    try:
        with on(TODAY):
            bookings.seed_bookings(db)
            enforcement.seed_enforcement(db)
            bookings_history.seed_bookings_history(db, TODAY)
    finally:
        clock.today = real_today
    return time.perf_counter() - started
