"""In headless Chromium, as each demo user (the secretariat of each municipality, the mayor's office,
municipal IT): the role sees only its pages in the navigation; every page of the navigation and every
tab on it speaks pt-BR — no snake_case identifier and none of Streamlit's English words, in what is seen
and in what a screen reader reads (aria-label, title, placeholder), no English Streamlit string in the
text or an input's placeholder, no English table toolbar — and no page ends in an exception; "Sair" then
leads back to the login (issue 22, item 9 and "a browser test per role").

One walk per role does what three walks did (this one, test_browser_session's "no English Streamlit
string on any page" and test_browser_login's "each role sees only its pages"): every assertion of each.

Material icons are drawn from their ligature names (``receipt_long``) and hidden from screen readers;
``code`` holds names that are a file format (the CSV header a platform sends): both are left out.
"""
from __future__ import annotations

import re

import pytest

from tests.browser_support import (
    chromium,
    free_port,
    login,
    panel_env,
    require_chromium,
    rerun_settled,
    served,
    settle,
    untranslated,
)
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

USERS = ("secretaria.chapada", "secretaria.matupa", "secretaria.novalacerda", "gabinete", "ti")
# what the navigation of a role shows and never shows
NAVIGATION = {
    "secretaria.chapada": (["Início", "Resumo", "Contribuintes", "Plataformas"], ["Usuários", "Auditoria"]),
    "gabinete": (["Início", "Resumo"], ["Contribuintes", "Usuários", "Parâmetros"]),
    "ti": (["Usuários", "Parâmetros", "Auditoria", "Explorador de dados"], ["Contribuintes"]),
}
# Streamlit's own English strings that a user could read on a page (widgets, empty grids, dialogs).
ENGLISH = ("Choose options", "Choose an option", "Page not found", "No results", "No options to select",
           "YYYY/MM/DD", "yyyy/mm/dd", "dd/mm/yyyy", "Press Enter to apply", "Press Enter to submit", "Deploy",
           "Clear all", "Download as CSV", "Running...", "Select all")
EMPTY_GRID = re.compile(r"^\s*empty\s*$", re.M)


@pytest.fixture(scope="module")
def panel(tmp_path_factory, demo_store):
    require_chromium()
    env = panel_env(copy_store(demo_store, tmp_path_factory.mktemp("roles")))
    with served(env, free_port()) as url, chromium() as browser:
        yield url, browser


def streamlit_english(page) -> list[str]:
    """Streamlit's English strings in the text shown or in an input's placeholder, and its English
    "empty" of a grid without rows."""
    placeholders = page.eval_on_selector_all("input, textarea", "els => els.map(e => e.placeholder || '')")
    text = page.inner_text("body") + "\n" + "\n".join(placeholders)
    return [w for w in ENGLISH if w in text] + (["empty"] if EMPTY_GRID.search(text) else [])


def english_table_toolbar(page) -> bool:
    """The table toolbar's tooltips are English ("Download as CSV", "Search"): it must not show on hover."""
    tables = page.locator('[data-testid="stDataFrame"]:visible')
    if not tables.count():
        return False
    tables.first.hover()
    page.wait_for_timeout(300)
    return page.locator('[data-testid="stElementToolbar"]:visible').count() > 0


@pytest.mark.parametrize("username", USERS)
def test_every_page_and_tab_of_each_role_speaks_portuguese(panel, username, tmp_path):
    url, browser = panel
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    login(page, url, username)
    settle(page)
    nav = page.get_by_test_id("stSidebarNav")
    if username in NAVIGATION:
        visible, hidden = NAVIGATION[username]
        text = nav.inner_text()
        assert all(title in text for title in visible), text
        assert not any(title in text for title in hidden), text
        assert page.get_by_test_id("stException").count() == 0
    links = page.locator('[data-testid="stSidebarNav"] a')
    titles = [text.split("\n")[-1].strip() for text in links.all_inner_texts()]
    assert titles, "the navigation shows the role's pages"
    found: dict[str, set[str]] = {}
    english: dict[str, list[str]] = {}
    for title in titles:
        links.filter(has_text=title).first.click()
        rerun_settled(page)
        page.get_by_role("heading").first.wait_for(timeout=30000)
        hits = untranslated(page)
        words = streamlit_english(page)
        if english_table_toolbar(page):
            words.append("table toolbar")
        tabs = page.locator('[data-testid="stMain"] [role="tab"]')
        for index in range(tabs.count()):
            tab = tabs.nth(index)
            if not tab.is_visible():
                continue
            tab.click()
            rerun_settled(page, start=250)  # the rerun a tab starts (a tab of ui.common.tabs), then its end
            hits |= untranslated(page)
            words += [word for word in streamlit_english(page) if word not in words]
        assert page.locator('[data-testid="stException"]').count() == 0, f"{title}: exceção na página"
        if hits:
            found[title] = hits
        if words:
            english[title] = words
            page.screenshot(path=str(tmp_path / f"{username}-{title}.png"), full_page=True)
    assert found == {}, f"{username}: inglês ou identificadores na tela: {found}"
    assert english == {}, "\n".join(f"{username}, {title}: {words}" for title, words in english.items())
    page.get_by_role("button", name="Sair").click()
    page.get_by_role("button", name="Entrar").wait_for(timeout=30000)
    context.close()
