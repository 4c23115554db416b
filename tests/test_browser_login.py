"""In headless Chromium: a wrong password is refused in pt-BR, an open session ends when its user is
deactivated, and the login and the logout are audited. That each demo role sees only its pages and
logs out is checked by test_browser_roles' walk of each role."""
from __future__ import annotations

import pytest

from tests.browser_support import (
    chromium,
    free_port,
    login,
    panel_env,
    require_chromium,
    served,
)
from tests.conftest import copy_store

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def panel_data(tmp_path_factory, demo_store):
    """A copy of the demo store (``python -m seed --demo``, made once per run)."""
    return copy_store(demo_store, tmp_path_factory.mktemp("browser-data"))


@pytest.fixture(scope="module")
def panel(panel_data):
    require_chromium()
    env = panel_env(panel_data)
    with served(env, free_port()) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def test_wrong_password_shows_the_message_in_portuguese(panel, browser):
    page = browser.new_page()
    page.goto(panel)
    page.get_by_label("Usuário").fill("gabinete")
    page.get_by_label("Senha").fill("errada")
    page.get_by_role("button", name="Entrar").click()
    page.get_by_text("Usuário ou senha incorretos").wait_for(timeout=30000)
    page.close()


def test_an_open_session_ends_when_the_user_is_deactivated(panel, panel_data, browser):
    from services import store
    from services.shared import accounts, auth

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    login(page, panel, "secretaria.matupa")
    page.get_by_test_id("stSidebarNav").get_by_text("Resumo").click()
    page.get_by_role("heading", name="Resumo").first.wait_for(timeout=30000)
    db = store.connect(uri="", data_dir=str(panel_data))
    accounts.update_user(db, auth.SYSTEM, "secretaria.matupa", active=False)
    page.get_by_test_id("stSidebarNav").get_by_text("Início").click()
    page.get_by_text("Sua conta foi desativada").wait_for(timeout=30000)
    page.get_by_role("button", name="Entrar").wait_for(timeout=30000)
    page.get_by_role("button", name="Sair").wait_for(state="detached", timeout=30000)
    assert page.get_by_test_id("stException").count() == 0
    page.close()


def test_login_and_logout_are_audited(panel, panel_data, browser):
    from services import store

    page = browser.new_page(viewport={"width": 1400, "height": 900})
    login(page, panel, "secretaria.novalacerda")
    page.get_by_role("button", name="Sair").click()
    page.get_by_role("button", name="Entrar").wait_for(timeout=30000)
    page.close()
    db = store.connect(uri="", data_dir=str(panel_data))
    actions = [e["action"] for e in db["audit"].find({"username": "secretaria.novalacerda"})]
    assert actions.count("login") == 1 and actions.count("logout") == 1
