"""Ride-hailing pages load what they show with a bounded number of store calls (issue 9, item 4):
the same page rendered with N and with 3N authorizations (and their drivers, vehicles, platforms)
makes the same number of calls. A count, not a timing."""
from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from seed.people import cnpj
from seed.ridehailing import passing
from services.dam import payments
from services.ridehailing import authorizations, fees, inspections
from services.shared import clock, entities
from tests.ridehailing_data import ACTORS, requested, set_fee

ROOT = Path(__file__).resolve().parent.parent
ACTOR = ACTORS["chapada"]
COUNTED = {"find", "find_one", "count_documents", "distinct", "update_one", "update_many", "insert_one",
           "insert_many", "find_one_and_update", "delete_one", "delete_many", "replace_one", "aggregate"}


class CountingCollection:
    """A collection that counts the calls made on it and forwards them."""

    def __init__(self, collection, calls: Counter, name: str) -> None:
        self._collection, self._calls, self._name = collection, calls, name

    def __getattr__(self, attr):
        value = getattr(self._collection, attr)
        if attr not in COUNTED:
            return value

        def counted(*args, **kwargs):
            self._calls[(self._name, attr)] += 1
            return value(*args, **kwargs)

        return counted


class CountingDatabase:
    """The test's store behind a proxy that counts every call on its collections."""

    def __init__(self, db) -> None:
        self._db, self.calls = db, Counter()

    def __getitem__(self, name: str) -> CountingCollection:
        return CountingCollection(self._db[name], self.calls, name)

    def get_collection(self, name: str, *args, **kwargs) -> CountingCollection:
        return self[name]

    def __getattr__(self, attr):
        return getattr(self._db, attr)


def population(db, seed: int, count: int) -> None:
    """``count`` authorizations of each kind a page shows: requested, awaiting the vistoria, blocked
    after a failed vistoria, awaiting the fee with its DAM, active (one of them convoked), and a
    platform per kind."""
    today = clock.today()
    for index in range(count):
        base = seed * 100 + index * 10
        requested(db, "chapada", seed=base + 1)
        approved = requested(db, "chapada", seed=base + 2)
        authorizations.approve(db, ACTOR, "chapada", approved, today - timedelta(days=1))
        failed = requested(db, "chapada", seed=base + 3)
        authorizations.approve(db, ACTOR, "chapada", failed, today - timedelta(days=3))
        inspections.record_inspection(db, ACTOR, "chapada", failed, today - timedelta(days=1),
                                      {**passing("chapada"), "I": False}, "Vistoriador")
        awaiting = inspected_with_seed(db, base + 4)
        fees.issue_fee_dam(db, ACTOR, "chapada", awaiting, today)
        active = inspected_with_seed(db, base + 5)
        dam = fees.issue_fee_dam(db, ACTOR, "chapada", active, today)
        payments.record_payment(db, ACTOR, "chapada", dam["id"], today, dam["amount"], "Banco do Brasil")
        inspections.call_inspection(db, ACTOR, "chapada", active, today, "Denúncia de passageiro")
        entities.create(db, ACTOR, "platforms", "chapada", {"name": f"Plataforma {base}",
                                                            "cnpj": cnpj(random.Random(base)), "status": "ativo"})


def inspected_with_seed(db, seed: int) -> str:
    today = clock.today()
    auth = requested(db, "chapada", seed=seed)
    authorizations.approve(db, ACTOR, "chapada", auth, today - timedelta(days=4))
    inspections.record_inspection(db, ACTOR, "chapada", auth, today - timedelta(days=2), passing("chapada"),
                                  "Vistoriador")
    return auth


def store_calls(db, monkeypatch, page: str, role_actor=ACTOR) -> Counter:
    import streamlit as st

    from ui import common

    st.cache_data.clear()  # a cold render each time: what the page asks of the store, not what a cache kept
    counting = CountingDatabase(db)

    monkeypatch.setattr(common, "db", lambda: counting)
    at = AppTest.from_file(str(ROOT / "app_pages" / page), default_timeout=120)
    at.session_state["actor"] = role_actor
    at.session_state["municipality"] = "chapada"
    at.run()
    assert not at.exception, at.exception
    return counting.calls


PAGES = ["authorizations.py", "inspections.py", "pendencias.py", "summary.py", "platforms.py", "drivers.py",
         "vehicles.py"]


@pytest.fixture
def grown(db):
    """The store with N of each kind, and a function that grows it to 3N."""
    set_fee(db, "chapada")
    population(db, seed=1, count=1)
    return lambda: population(db, seed=2, count=2)


def test_every_ride_hailing_page_makes_the_same_store_calls_with_three_times_the_data(db, monkeypatch, grown):
    from tests.conftest import GABINETE

    actors = {"summary.py": GABINETE}
    before = {page: store_calls(db, monkeypatch, page, actors.get(page, ACTOR)) for page in PAGES}
    grown()
    assert db["authorizations"].count_documents({"municipality": "chapada"}) == 15
    after = {page: store_calls(db, monkeypatch, page, actors.get(page, ACTOR)) for page in PAGES}
    totals = {page: sum(calls.values()) for page, calls in before.items()}
    assert {page: sum(calls.values()) for page, calls in after.items()} == totals, {
        page: after[page] - before[page] for page in PAGES}


def test_a_cached_list_shows_a_write_made_elsewhere_on_the_next_render(db):
    auth = requested(db, "chapada")
    at = AppTest.from_file(str(ROOT / "app_pages" / "pendencias.py"), default_timeout=120)
    at.session_state["actor"] = ACTOR
    at.session_state["municipality"] = "chapada"
    at.run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    table = at.dataframe[0].value.to_string()
    assert "Avaliar requerimento" in table and "Vistoria" not in table
    authorizations.approve(db, ACTOR, "chapada", auth, clock.today())  # another clerk, another session
    at.run()
    table = at.dataframe[0].value.to_string()
    assert "Vistoria" in table and "Avaliar requerimento" not in table
