"""bench/startup.py times what a user waits for at a start: the login form drawn in Chromium, which
comes after the health check answers (issue 21: the documented 0,3-0,5 s timed the health check only)."""
from __future__ import annotations

import pytest

from bench import startup
from tests.conftest import copy_store

pytestmark = pytest.mark.browser


def test_the_start_is_timed_to_the_login_form_drawn_after_the_health_check(prepared_store, tmp_path):
    figures = startup.measure_startup(copy_store(prepared_store, tmp_path / "data"), startup.free_port())
    assert 0 < figures["health_s"] < figures["login_s"] < 60
