"""A malformed login cookie is no session (issue 20, defect 6): the login form shows, nothing raises."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from services.shared import accounts, sessions
from tests.conftest import TI
from tests.test_pages_smoke import APP

BAD_COOKIES = {
    "non-ascii signature": "abc.1.\u00e9",
    "superscript expiry": "abc.\u00b2.assinatura",
    "5000-digit expiry": "abc." + "9" * 5000 + ".assinatura",
    "arabic-indic expiry": "abc.\u0661\u0662.assinatura",
    "non-ascii token": "\u00e9\u00e9.9999999999.assinatura",
    "lone surrogate": "abc.9999999999.\ud800",
    "NUL": "abc\x00.1.x",
    "four parts": "a.1.b.c",
    "negative expiry": "abc.-1.x",
}


@pytest.mark.parametrize("cookie", BAD_COOKIES.values(), ids=BAD_COOKIES.keys())
def test_a_malformed_cookie_is_no_session(db, cookie):
    assert sessions.resume_cookie(db, cookie, datetime.now(timezone.utc)) is None


@pytest.mark.parametrize("cookie", [None, 123, b"abc.1.x", ["abc", "1", "x"]], ids=["None", "int", "bytes", "list"])
def test_a_cookie_that_is_not_text_is_no_session(db, cookie):
    assert sessions.resume_cookie(db, cookie, datetime.now(timezone.utc)) is None


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cookie=st.one_of(st.text(st.characters(exclude_categories=())),
                        st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.text(), st.text(), st.text())))
def test_any_text_that_is_not_an_issued_cookie_is_no_session(db, cookie):
    assert sessions.resume_cookie(db, cookie, datetime.now(timezone.utc)) is None


def test_a_good_cookie_still_resumes(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], "senha-forte-1")
    token = sessions.login(db, "maria.silva", "senha-forte-1")[1].token
    assert sessions.resume_cookie(db, token, datetime.now(timezone.utc))[0].username == "maria.silva"


@pytest.mark.parametrize("cookie", [BAD_COOKIES["non-ascii signature"], BAD_COOKIES["5000-digit expiry"]],
                         ids=["non-ascii signature", "5000-digit expiry"])
def test_the_panel_opened_with_a_malformed_cookie_shows_the_login_form(db, monkeypatch, cookie):
    from ui import common

    monkeypatch.setattr(common, "_browser_cookie", lambda: cookie)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception and not at.error
    assert [t.label for t in at.text_input] == ["Usuário", "Senha"]
    assert at.session_state["actor"] is None
