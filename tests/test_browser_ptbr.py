"""In headless Chromium (issue 35 items 9, 10 and 12): what a screen reader reads, what a copy takes and
what an empty table says is pt-BR — a date field's parts ("Período, data inicial"), its empty segments
("Vazio"), its months ("01 – janeiro"), its help ("Ajuda para Vencimento *") and its year placeholder
("aaaa", never the hidden "yyyy"); a new driver's empty tables say so in words, never Streamlit's
"empty"; counts take real plurals; the TI data explorer opens on an empty choice.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.browser_support import (
    ROOT,
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
MONTH = re.compile(r"^\d\d – (janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|"
                   r"dezembro)$")
NEW_DRIVER = (
    "import random\n"
    "from seed import ridehailing as demo\n"
    "from services.store import connect\n"
    "from services.shared import clock, entities\n"
    "from services.shared.auth import Actor\n"
    "db = connect(); actor = Actor('teste', 'Teste', 'secretaria', ('chapada',))\n"
    "values = demo.driver_values(random.Random(3512), 'chapada', clock.today(), name='Rosa Recém Cadastrada')\n"
    "print(entities.create(db, actor, 'drivers', 'chapada', values))\n"
)


@pytest.fixture(scope="module")
def panel(tmp_path_factory, demo_store):
    require_chromium()
    data = copy_store(demo_store, tmp_path_factory.mktemp("ptbr"))
    env = panel_env(data)
    made = subprocess.run([sys.executable, "-c", NEW_DRIVER], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True)
    with served(env, free_port()) as url, chromium() as browser:
        yield url, browser, made.stdout.strip().splitlines()[-1]


def opened(browser, url: str, username: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    login(page, url, username)
    return context, page


def visit(page, url: str, path: str) -> None:
    page.goto(f"{url}/{path}")
    page.get_by_role("button", name="Sair").wait_for(timeout=30000)
    settle(page)
    page.wait_for_timeout(500)  # the pt-BR script's observer, after the last draw


def tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    page.wait_for_timeout(300)
    settle(page)


def test_date_fields_speak_portuguese_to_a_screen_reader(panel):
    url, browser, _driver = panel
    context, page = opened(browser, url, "secretaria.chapada")
    visit(page, url, "dams")
    start = page.locator('[aria-label="dia, Período, data inicial"]')
    assert start.get_attribute("aria-valuetext") == "Vazio"
    assert page.locator('[aria-label="ano, Período, data final"]').count() == 1
    placeholders = page.locator('[data-testid="stDateInputField"] [data-type="year"][data-placeholder="true"]')
    assert placeholders.count() >= 2 and set(placeholders.all_text_contents()) == {"aaaa"}
    tab(page, "Emitir DAM")
    assert page.locator('[aria-label="Ajuda para Vencimento *"]').count() == 1
    assert MONTH.match(page.locator('[aria-label="mês, Vencimento *"]').get_attribute("aria-valuetext"))
    assert not (words := untranslated(page)), f"DAM: inglês na tela ou no leitor de tela: {words}"
    context.close()


def test_a_new_drivers_empty_tables_say_so_in_portuguese(panel):
    url, browser, driver = panel
    context, page = opened(browser, url, "secretaria.chapada")
    visit(page, url, f"drivers?id={driver}")
    page.get_by_text("Rosa Recém Cadastrada").first.wait_for(timeout=30000)
    page.get_by_text("Nenhum documento entregue.").wait_for(timeout=30000)
    assert not (words := untranslated(page)), f"Documentos: {words}"
    tab(page, "Infrações e cursos")
    page.get_by_text("Nenhuma infração registrada.").wait_for(timeout=30000)
    page.get_by_text("Nenhum curso registrado.").wait_for(timeout=30000)
    assert not (words := untranslated(page)), f"Infrações e cursos: {words}"
    tab(page, "Histórico de alterações")
    page.get_by_text("Nenhuma alteração de dados registrada.").wait_for(timeout=30000)
    assert not (words := untranslated(page)), f"Histórico de alterações: {words}"
    context.close()


def test_counts_take_real_plurals_and_the_explorer_opens_empty(panel):
    url, browser, _driver = panel
    context, page = opened(browser, url, "secretaria.chapada")
    shown = page.locator('[data-testid="stMain"]').inner_text()
    assert re.search(r"\d+ atrasadas?\b", shown) and "(s)" not in shown
    context.close()
    context, page = opened(browser, url, "ti")
    visit(page, url, "explorer")
    page.get_by_text("Escolha um registro para ver os documentos guardados.").wait_for(timeout=30000)
    assert page.locator('[data-testid="stDataFrame"]').count() == 0
    assert not (words := untranslated(page)), f"Explorador de dados: {words}"
    context.close()
