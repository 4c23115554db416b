"""Every page × role: no exception; pages outside a role are not reachable."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.navigation import PAGES

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
from tests.conftest import GABINETE, SECRETARIA_CG, TI

ROLES = {"secretaria": SECRETARIA_CG, "gabinete": GABINETE, "ti": TI}
MODULES_CG = ("transporte",)


def app_as(actor, municipality="chapada") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    return at.run()


def test_login_page_is_shown_to_anonymous_users(db):
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Painel Municipal"
    assert [t.label for t in at.text_input] == ["Usuário", "Senha"]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.path)
def test_page_by_role(db, role, page):
    actor = ROLES[role]
    at = app_as(actor)
    assert not at.exception, at.exception
    allowed = actor.can(page.permission) and (page.module is None or page.module in MODULES_CG)
    if not allowed:
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page(page.path)
        direct = AppTest.from_file(str(ROOT / page.path), default_timeout=60)
        direct.session_state["actor"] = actor
        direct.session_state["municipality"] = "chapada"
        direct.run()
        assert not direct.exception
        expected = "Seu perfil não tem acesso a esta página."
        if actor.can(page.permission) and page.module == "maquinas":
            from ui.bookings import MODULE_OFF as expected
        assert [e.value for e in direct.error] == [expected]
        return
    at.switch_page(page.path).run()
    assert not at.exception, at.exception
    titles = [t.value for t in at.title]
    assert titles and not at.error, (titles, [e.value for e in at.error])


def test_login_with_right_password_sets_the_user(db):
    from services.shared import accounts

    accounts.create_user(db, TI, "ana.souza", "Ana Souza", "secretaria", ["chapada"], "senha-forte-1")
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input(key="login_username").input("ana.souza")
    at.text_input(key="login_password").input("senha-forte-1")
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert at.session_state["actor"].username == "ana.souza"


def test_wrong_password_shows_a_portuguese_message(db):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input(key="login_username").input("ninguem")
    at.text_input(key="login_password").input("x")
    at.button[0].click().run()
    assert "Usuário ou senha incorretos" in at.error[0].value
