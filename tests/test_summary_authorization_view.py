"""The authorizations' figures kept as data (issue 21): on every day of two years of the demo store's
activity, the statuses, the expiring, the late for an inspection and the fees paid read from the kept
timelines equal those the summary folded from every authorization through the rules; a write through a
service moves them as a rebuild from scratch does; and the Resumo reads no authorization."""
from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

import pytest

from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from services.ridehailing import authorizations, registry
from services.shared import clock, views
from services.summary import authorization_view, revenue_view, summary
from tests import summary_authorization_oracle as oracle
from tests.conftest import GABINETE, SECRETARIA_CG
from tests.test_ridehailing_page_queries import CountingDatabase


def _days(first: date, last: date, step: int) -> list[date]:
    return [first + timedelta(n) for n in range(0, (last - first).days + 1, step)] + [last]


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_every_day_reads_what_folding_every_authorization_gave(demo_db, municipality):
    scope = registry.Scope(demo_db, municipality)
    found = oracle.docs(demo_db, municipality)
    assert len(found) > 20
    first = min(min(e["on"] for e in d["events"]) for d in found)
    levels = authorization_view.Levels(demo_db, municipality)
    today = clock.today()
    for day in _days(date.fromisoformat(first[:10]) - timedelta(1), today + timedelta(400), 3):
        assert +levels.on(day) == oracle.levels_on(scope, found, day), day
    for start in _days(date.fromisoformat(first[:10]), today, 29):
        assert +levels.within(start, start + timedelta(40)) == oracle.events_within(found, start, start + timedelta(40))


def _stored(db, municipality: str) -> tuple[list, list]:
    months = sorted(db[revenue_view.MONTHS].find({"municipality": municipality, "view": authorization_view.NAME}),
                    key=lambda d: d["_id"])
    parts = sorted(db[revenue_view.CONTRIBUTIONS].find({"municipality": municipality, "view": authorization_view.NAME}),
                   key=lambda d: d["_id"])

    def flat(doc: dict) -> dict:
        cells = {k: Counter({f: n for f, n in v.items() if n}) for k, v in doc.items() if isinstance(v, dict)}
        return {k: v for k, v in cells.items() if v}
    return [(m["_id"], flat(m)) for m in months if flat(m)], parts


def test_a_write_through_a_service_moves_the_figures_as_a_rebuild_does(demo_db):
    scope = registry.Scope(demo_db, "chapada")
    active = [d for d in oracle.docs(demo_db, "chapada") if scope.state(d, clock.today()).status is Status.ACTIVE]
    before = authorization_view.Levels(demo_db, "chapada").on(clock.today())
    authorizations.record_sanction(demo_db, SECRETARIA_CG, "chapada", str(active[0]["_id"]), EventKind.SUSPENDED,
                                   clock.today(), until=clock.today() + timedelta(10), note="Processo 12/2026")
    after = authorization_view.Levels(demo_db, "chapada").on(clock.today())
    assert after[f"s|{Status.SUSPENDED.value}"] == before[f"s|{Status.SUSPENDED.value}"] + 1
    assert after[f"s|{Status.ACTIVE.value}"] == before[f"s|{Status.ACTIVE.value}"] - 1
    stored = _stored(demo_db, "chapada")
    views.rebuild(demo_db, "chapada")
    assert _stored(demo_db, "chapada") == stored


def test_the_resumo_reads_no_authorization(demo_db):
    counting = CountingDatabase(demo_db)
    summary.summary(counting, GABINETE, "chapada", date(2026, 1, 1), clock.today())
    assert counting.calls[("authorizations", "find")] == 0
