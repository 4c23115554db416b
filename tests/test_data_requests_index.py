"""A platform's data requests on the portal stay flat with the store (issue 36 "Shape and limits":
bench/portal.py's upload went from 37 ms at scale 1 to 96 ms at scale 100): the platform person's list and
one request by its code read the platform's own requests by an index that starts with the platform, never
every request of the municipality."""
from __future__ import annotations

from services.ridehailing import trip_data
from services.setup import bootstrap


def plan(db, query: dict, sort=None, limit: int = 0) -> str:
    return " | ".join(db[trip_data.REQUESTS].explain_sql(query, sort, limit))


def test_one_request_of_the_platform_by_its_code_is_read_by_the_platform_index(db):
    bootstrap.prepare(db)
    found = plan(db, {"municipality": "chapada", "platform_id": "p1", "code": "abc"})
    assert "i_platform_requests_own" in found, found


def test_the_platforms_list_is_read_newest_first_from_the_index(db):
    bootstrap.prepare(db)
    found = plan(db, {"municipality": "chapada", "platform_id": "p1", "code": {"$exists": True}},
                 [("notified_at", -1), ("_id", -1)], 200)
    assert "i_platform_requests_own" in found and "TEMP B-TREE" not in found, found
