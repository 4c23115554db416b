"""In headless Chromium, the first visit after the panel starts (each case on a panel just started):
a bookmark or an unknown address shows the pt-BR login, never Streamlit's English "Page not found"
window or its list of scripts by file name, and after the login the user lands where the address
says (or on Início with a notice).

Streamlit takes a ``pages/`` folder next to ``app.py`` for its legacy multipage mode until the first
``st.navigation`` call of the process: the first visit listed every script ("machinery execution",
"public check"...), ran a bookmarked script without ``app.py`` and showed "Page not found".
"""
from __future__ import annotations

import pytest

from tests.browser_support import (
    chromium,
    free_port,
    panel_env,
    require_chromium,
    served,
)
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

# what the legacy mode drew in the sidebar: the scripts' file names
FILE_NAMES = ("machinery execution", "public check", "custom fields", "platform obligations")


@pytest.fixture(scope="module")
def env(tmp_path_factory, base_demo_store):
    require_chromium()
    return panel_env(copy_store(base_demo_store, tmp_path_factory.mktemp("first-visit")))  # conftest.BASE_DEMO


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.mark.parametrize(("address", "landing"), [
    ("users", "Usuários"),
    ("naoexiste", "A página pedida não existe"),
])
def test_the_first_visit_after_a_start_shows_the_login_and_lands_where_the_address_says(env, browser, address,
                                                                                         landing):
    with served(env, free_port()) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(f"{url}/{address}")
        page.get_by_label("Usuário").wait_for(timeout=60000)
        page.wait_for_timeout(1500)  # the window came with the first run's messages
        body = page.inner_text("body")
        assert "Page not found" not in body
        assert [name for name in FILE_NAMES if name in body] == []
        page.get_by_label("Usuário").fill("ti")
        page.get_by_label("Senha").fill("painel2026")
        page.get_by_role("button", name="Entrar").click()
        page.get_by_role("button", name="Sair").wait_for(timeout=30000)
        page.get_by_text(landing).first.wait_for(timeout=30000)
        context.close()
