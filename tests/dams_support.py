"""Helpers of the DAM tests: a ``today`` the test can move (the panel's date in America/Cuiaba)."""
from __future__ import annotations

from datetime import date

import pytest

from services import clock

MONDAY = date(2026, 3, 2)


@pytest.fixture
def today(monkeypatch):
    """The panel's 'today', settable by the test: ``today.set(date)``; starts on a Monday."""

    class Today:
        value = MONDAY

        def set(self, day: date) -> None:
            self.value = day

    holder = Today()
    monkeypatch.setattr(clock, "today", lambda: holder.value)
    return holder
