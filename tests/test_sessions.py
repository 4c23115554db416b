"""Sessions: every request re-reads the user; changes end open sessions; idle sessions expire."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from streamlit.testing.v1 import AppTest

from services.shared import accounts, clock, sessions
from services.shared.sessions import SessionEnded
from tests.conftest import TI
from tests.test_pages_smoke import APP

PASSWORD = "senha-forte-1"
IDLE = "Sua sessão expirou por inatividade; entre novamente."


@pytest.fixture
def signed_in(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], PASSWORD)
    return sessions.login(db, "maria.silva", PASSWORD)[1]


def resume(db, session, after=timedelta(minutes=1)):
    return sessions.resume_session(db, session.username, session.generation, session.last_seen, session.last_seen + after)


def test_an_unchanged_user_resumes_with_role_and_municipalities_from_the_store(db, signed_in):
    actor = resume(db, signed_in)
    assert (actor.username, actor.role, actor.municipalities) == ("maria.silva", "secretaria", ("chapada",))


@pytest.mark.parametrize("changes,message", [
    ({"active": False}, "desativada"),
    ({"password": "outra-senha-1"}, "alterado"),
    ({"role": "gabinete"}, "alterado"),
    ({"municipalities": ["chapada", "matupa"]}, "alterado"),
], ids=["deactivated", "password", "role", "municipalities"])
def test_a_change_to_the_user_ends_their_open_sessions(db, signed_in, changes, message):
    accounts.update_user(db, TI, "maria.silva", **changes)
    with pytest.raises(SessionEnded, match=message):
        resume(db, signed_in)


@pytest.mark.parametrize("changes", [{"name": "Maria S. Silva"}, {"unlock": True}], ids=["name", "unlock"])
def test_a_change_that_grants_nothing_keeps_the_session(db, signed_in, changes):
    accounts.update_user(db, TI, "maria.silva", **changes)
    assert resume(db, signed_in).username == "maria.silva"


@pytest.mark.parametrize("minutes,ended", [(29, False), (30, False), (31, True)], ids=["29 min", "30 min", "31 min"])
def test_idle_sessions_end_after_the_default_30_minutes(db, signed_in, minutes, ended):
    if ended:
        with pytest.raises(SessionEnded, match=IDLE):
            resume(db, signed_in, timedelta(minutes=minutes))
    else:
        assert resume(db, signed_in, timedelta(minutes=minutes)).username == "maria.silva"


def test_the_idle_time_is_configurable(db, signed_in, monkeypatch):
    monkeypatch.setenv("PAINEL_SESSION_IDLE_MINUTES", "5")
    assert resume(db, signed_in, timedelta(minutes=5)).username == "maria.silva"
    with pytest.raises(SessionEnded, match=IDLE):
        resume(db, signed_in, timedelta(minutes=5, seconds=1))


def test_an_ended_session_is_audited_once(db, signed_in):
    count = db["audit"].count_documents({"action": "session_expired"})
    with pytest.raises(SessionEnded):
        resume(db, signed_in, timedelta(hours=1))
    entries = list(db["audit"].find({"action": "session_expired"}))
    assert len(entries) == count + 1 and entries[-1]["username"] == "maria.silva"
    assert entries[-1]["municipality"] is None


class CountingDatabase:
    """The real store, counting the reads of the users collection."""

    def __init__(self, db):
        self.db, self.reads = db, 0

    def __getitem__(self, name):
        collection = self.db[name]
        if name != "users":
            return collection
        outer = self

        class Users:
            def __getattr__(self, attr):
                if attr in ("find", "find_one", "count_documents", "distinct"):
                    outer.reads += 1
                return getattr(collection, attr)

        return Users()


def test_a_request_reads_the_user_once(db, signed_in):
    counting = CountingDatabase(db)
    resume(counting, signed_in)
    assert counting.reads == 1


def request(session, municipality=None) -> AppTest:
    """One request of a browser session that holds ``session`` (a new run of app.py)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["session"] = session
    at.session_state["municipality"] = municipality
    return at.run()


def on_login_page(at: AppTest) -> bool:
    return not at.exception and [t.label for t in at.text_input] == ["Usuário", "Senha"]


def test_an_open_session_resumes_on_the_next_request(db, signed_in):
    at = request(signed_in)
    assert not at.exception and at.session_state["actor"].username == "maria.silva"
    assert at.session_state["session"].last_seen > signed_in.last_seen


def test_an_open_session_of_a_deactivated_user_lands_on_the_login_page(db, signed_in):
    accounts.update_user(db, TI, "maria.silva", active=False)
    at = request(signed_in, "chapada")
    assert on_login_page(at)
    assert "desativada" in at.warning[0].value
    assert at.session_state["actor"] is None and "session" not in at.session_state


def test_an_idle_session_lands_on_the_login_page_with_the_message(db, signed_in, monkeypatch):
    later = clock.now_utc() + timedelta(minutes=31)
    monkeypatch.setattr(clock, "now_utc", lambda: later)
    at = request(signed_in)
    assert on_login_page(at)
    assert [w.value for w in at.warning] == [IDLE]


def test_the_actor_is_rebuilt_from_the_store_on_each_request(db, signed_in):
    db["users"].update_one({"username": "maria.silva"}, {"$set": {"name": "Maria Renomeada"}})
    at = request(signed_in)
    assert at.session_state["actor"].name == "Maria Renomeada"


def test_logout_is_audited_once(db, signed_in):
    actor = resume(db, signed_in)
    sessions.logout(db, actor)
    assert db["audit"].count_documents({"action": "logout", "username": "maria.silva"}) == 1


def test_the_menu_shows_only_once_the_browser_holds_the_login_cookie(db, signed_in):
    # the cookie manager answers with reruns naming the page it was drawn on: drawn beside the menu,
    # a late answer undid the user's first click (back to Início)
    at = request(signed_in)
    assert not at.exception
    assert [i.value for i in at.info] == ["Entrando… guardando o acesso neste navegador."]
    assert "app_logout" not in [b.key for b in at.sidebar.button]
    at.session_state["cookie_written"] = at.session_state["session"].token  # the manager read it back
    at.run()
    assert not at.exception and "app_logout" in [b.key for b in at.sidebar.button]
    assert not at.info


def test_a_browser_that_refuses_the_cookie_can_go_on_without_it(db, signed_in):
    at = request(signed_in)
    at.button(key="signing_in_go_on").click().run()
    assert not at.exception and "app_logout" in [b.key for b in at.sidebar.button]


def cookie_calls(at: AppTest) -> list[str]:
    return [json.loads(c.proto.json_args)["method"] for c in at.get("component_instance")]


def test_sair_removes_the_cookie_in_the_run_right_after_it(db, signed_in):
    # the removal waited for the manager's first reading of the browser's cookies: when that answer
    # was lost (a busy browser, CI), the cookie stayed in the browser after "Sair"
    at = request(signed_in)
    at.session_state["cookie_written"] = at.session_state["session"].token
    at.run()
    at.button(key="app_logout").click().run()
    assert on_login_page(at)
    assert "delete" in cookie_calls(at)
    assert db[sessions.SESSIONS].count_documents({"username": "maria.silva", "ended_at": None}) == 0
