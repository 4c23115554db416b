"""Odd input to the login and to user creation: only pt-BR ServiceErrors come out, never a crash."""
from __future__ import annotations

import bcrypt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.shared import accounts, auth, sessions
from services.shared.errors import ServiceError
from tests.conftest import TI

ANY_CHARACTER = st.characters(exclude_categories=())
TEXT = st.one_of(
    st.text(ANY_CHARACTER, max_size=80),
    st.builds(lambda piece, times: piece * times, st.text(ANY_CHARACTER, min_size=1, max_size=3),
              st.integers(1, 4000)),
    st.sampled_from(["", " ", "\x00", "ç" * 50, "🔒" * 30, "$ne", "ti.test", "maria.silva", ".*"]),
)
SETTINGS = settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                            HealthCheck.too_slow])


@pytest.fixture
def cheap_bcrypt(monkeypatch):
    """The lowest bcrypt cost, so that many inputs fit in a test run (the rules are the same)."""
    monkeypatch.setattr(sessions, "BCRYPT_ROUNDS", 4)
    dummy = bcrypt.hashpw(b"x", bcrypt.gensalt(4)).decode()
    monkeypatch.setattr(sessions, "_dummy_hash", lambda: dummy)


@pytest.fixture
def user(db, cheap_bcrypt):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], "senha-forte-1")


def refused_in_portuguese(error: ServiceError) -> bool:
    return isinstance(error.message, str) and error.message.strip() != "" and "Traceback" not in error.message


@SETTINGS
@given(username=TEXT, password=TEXT)
def test_login_answers_any_input_with_an_actor_or_a_portuguese_refusal(db, user, username, password):
    try:
        sessions.authenticate(db, username, password)
    except ServiceError as refused:
        assert refused_in_portuguese(refused)
    db["users"].update_one({"username": "maria.silva"}, {"$set": {"failed_logins": 0, "locked_until": None}})


@SETTINGS
@given(username=TEXT, name=TEXT, role=st.one_of(st.sampled_from(list(auth.ROLES)), TEXT),
       municipalities=st.lists(st.one_of(st.sampled_from(["chapada", "matupa", "*"]), TEXT), max_size=3),
       password=TEXT)
def test_create_user_answers_any_input_with_a_user_or_a_portuguese_refusal(
    db, cheap_bcrypt, username, name, role, municipalities, password
):
    try:
        accounts.create_user(db, TI, username, name, role, municipalities, password)
    except ServiceError as refused:
        assert refused_in_portuguese(refused)
    else:
        assert sessions.authenticate(db, username, password).username == username.strip().lower()
