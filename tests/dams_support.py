"""Fixtures of the DAM tests: the conftest's real embedded store, copied from one prepared once.

``bootstrap.prepare`` takes over a second per store; the DAM tests are many small tables, so each
test gets a copy of a store prepared once per session (the same SQLite file the conftest's ``db``
would build), and a ``today`` the test can move.
"""
from __future__ import annotations

import shutil
from datetime import date

import pytest

from services import bootstrap, clock
from services.store import connect

MONDAY = date(2026, 3, 2)


@pytest.fixture(scope="session")
def prepared_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dam_template") / "data"
    bootstrap.prepare(connect(uri="", data_dir=str(folder)))
    return folder


@pytest.fixture
def db(prepared_store, tmp_path, monkeypatch):
    folder = tmp_path / "data"
    shutil.copytree(prepared_store, folder)
    monkeypatch.setenv("PAINEL_DATA_DIR", str(folder))
    monkeypatch.delenv("MONGODB_URI", raising=False)
    return connect(uri="", data_dir=str(folder))


@pytest.fixture
def today(monkeypatch):
    """The panel's 'today' (America/Cuiaba), settable by the test: ``today.set(date)``."""

    class Today:
        value = MONDAY

        def set(self, day: date) -> None:
            self.value = day

    holder = Today()
    monkeypatch.setattr(clock, "today", lambda: holder.value)
    return holder
