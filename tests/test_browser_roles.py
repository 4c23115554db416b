"""In headless Chromium, as each demo user (the secretariat of each municipality, the mayor's office,
municipal IT): every page of the navigation and every tab on it speaks pt-BR — no snake_case
identifier and none of Streamlit's English words, in what is seen and in what a screen reader reads
(aria-label, title, placeholder) — and no page ends in an exception (issue 22, item 9 and "a browser
test per role").

Material icons are drawn from their ligature names (``receipt_long``) and hidden from screen readers;
``code`` holds names that are a file format (the CSV header a platform sends): both are left out.
"""
from __future__ import annotations

import pytest

from tests.browser_support import (
    chromium,
    free_port,
    login,
    panel_env,
    require_chromium,
    served,
    settle,
    untranslated,
)
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

USERS = ("secretaria.chapada", "secretaria.matupa", "secretaria.novalacerda", "gabinete", "ti")
@pytest.fixture(scope="module")
def panel(tmp_path_factory, demo_store):
    require_chromium()
    env = panel_env(copy_store(demo_store, tmp_path_factory.mktemp("roles")))
    with served(env, free_port()) as url, chromium() as browser:
        yield url, browser


@pytest.mark.parametrize("username", USERS)
def test_every_page_and_tab_of_each_role_speaks_portuguese(panel, username):
    url, browser = panel
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    login(page, url, username)
    settle(page)
    links = page.locator('[data-testid="stSidebarNav"] a')
    titles = [text.split("\n")[-1].strip() for text in links.all_inner_texts()]
    assert titles, "the navigation shows the role's pages"
    found: dict[str, set[str]] = {}
    for title in titles:
        links.filter(has_text=title).first.click()
        page.wait_for_timeout(250)
        settle(page)
        hits = untranslated(page)
        tabs = page.locator('[data-testid="stMain"] [role="tab"]')
        for index in range(tabs.count()):
            tab = tabs.nth(index)
            if not tab.is_visible():
                continue
            tab.click()
            page.wait_for_timeout(250)  # the rerun a tab starts, then its end
            settle(page)
            hits |= untranslated(page)
        assert page.locator('[data-testid="stException"]').count() == 0, f"{title}: exceção na página"
        if hits:
            found[title] = hits
    context.close()
    assert found == {}, f"{username}: inglês ou identificadores na tela: {found}"
