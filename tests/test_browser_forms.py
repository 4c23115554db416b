"""In headless Chromium, as the Chapada secretariat (issue 11, items 5, 6 and 8): a vehicle cannot be
saved for an unregistered CPF; a future CNH date is refused under its field and the rest of the form is
kept; a removed document disappears from the checklist and appears in the audit log with its reason.

The store is the base demo without the ride-hailing demo records, plus one registered driver with the
documents of the law loaded through the services.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.browser_support import (
    ROOT,
    chromium,
    free_port,
    login,
    panel_env,
    require_chromium,
    served,
)
from tests.conftest import copy_store
from tests.test_browser_ridehailing import choose, go, shot, typed, wait_text

pytestmark = pytest.mark.browser
DRIVER = "Helena Documentada Teste"
REASON = "Atestado lançado no condutor errado"

LOAD = (
    "import random\n"
    "from datetime import timedelta\n"
    "from services.store import connect\n"
    "from services.shared import clock\n"
    "from services.shared.auth import Actor\n"
    "from seed import ridehailing as demo\n"
    "db = connect(); actor = Actor('teste', 'Teste', 'secretaria', ('chapada',)); day = clock.today()\n"
    f"demo.register(db, actor, 'chapada', random.Random(901), day, driver={{'name': {DRIVER!r}}})\n"
)


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("forms-browser"))  # conftest.BASE_DEMO
    env = panel_env(data)
    subprocess.run([sys.executable, "-c", LOAD], cwd=ROOT, env=env, check=True, capture_output=True)
    with served(env, free_port()) as url:
        yield url, data


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def store_query(data: Path, code: str) -> str:
    """Run ``code`` against the panel's store (after ``db = connect()``) and return what it prints."""
    env = {**os.environ, "PAINEL_DATA_DIR": str(data)}
    env.pop("MONGODB_URI", None)
    done = subprocess.run([sys.executable, "-c", "from services.store import connect\ndb = connect()\n" + code],
                          cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def clerk_on(browser, url: str, title: str):
    """A new browser tab, logged in as Chapada's secretariat, on the page ``title``."""
    page = browser.new_context(viewport={"width": 1400, "height": 1100}).new_page()
    login(page, url, "secretaria.chapada")
    go(page, title)
    return page


def new_driver(page, name: str, cpf: str, address: str, cnh: str, first_licence) -> None:
    """Fill the "Novo condutor" form (CNH B, valid for 3 years from today or from the first licence, the later) and save it."""
    page.get_by_role("tab", name="Novo condutor").click()
    typed(page, "Nome completo *", name)
    typed(page, "CPF *", cpf)
    typed(page, "Endereço *", address)
    typed(page, "Nº da CNH *", cnh)
    choose(page, "Categoria da CNH *", "B", exact=True)
    typed(page, "Primeira habilitação *", f"{first_licence:%d/%m/%Y}")
    from services.shared import clock

    until = max(first_licence, clock.today())
    typed(page, "Validade da CNH *", f"{until.replace(year=until.year + 3):%d/%m/%Y}")
    page.get_by_role("button", name="Salvar e novo").locator("visible=true").first.click()


def unregistered_cpf() -> str:
    from seed import people

    return people.cpf(random.Random(424242))


def visible_captions(page) -> str:
    return " | ".join(page.get_by_test_id("stCaptionContainer").locator("visible=true").all_inner_texts())


def test_a_vehicle_cannot_be_saved_for_an_unregistered_cpf(panel, browser):
    url, data = panel
    page = clerk_on(browser, url, "Veículos")
    page.get_by_role("tab", name="Novo veículo").click()
    from services.shared import fields

    page.get_by_label("CPF do condutor *", exact=True).first.click()  # one picker: typed in to filter it
    page.keyboard.type(fields.show("cpf", unregistered_cpf()))
    page.get_by_text("Nenhum resultado").first.wait_for(timeout=30000)  # an unknown CPF is not offered
    shot(page, "forms_00_search")
    offered = " ".join(page.get_by_role("option").all_inner_texts())
    assert fields.show("cpf", unregistered_cpf()) not in offered
    page.keyboard.press("Escape")
    typed(page, "Placa *", "QWE1A23")
    typed(page, "Marca *", "Fiat")
    page.get_by_role("button", name="Salvar e novo").locator("visible=true").first.click()
    wait_text(page, "CPF do condutor: campo obrigatório.")
    shot(page, "forms_01_vehicle_unregistered_cpf")
    assert page.locator('input[aria-label="Placa *"]:visible').first.input_value() == "QWE1A23"
    assert store_query(data, "print(db['vehicles'].count_documents({'plate': 'QWE1A23'}))") == "0"


def test_a_future_cnh_date_is_refused_under_its_field_and_the_rest_is_kept(panel, browser):
    from services.shared import clock

    url, data = panel
    page = clerk_on(browser, url, "Condutores")
    tomorrow = clock.today() + timedelta(days=1)
    new_driver(page, "Rafael Futuro Teste", unregistered_cpf(), "Rua das Acácias, 45", "04512345678", tomorrow)
    message = f"Primeira habilitação: não pode ser posterior a hoje ({clock.today():%d/%m/%Y})."
    wait_text(page, message)
    shot(page, "forms_02_future_cnh")
    assert message in visible_captions(page)
    assert page.locator('input[aria-label="Nome completo *"]:visible').first.input_value() == "Rafael Futuro Teste"
    assert page.locator('input[aria-label="Endereço *"]:visible').first.input_value() == "Rua das Acácias, 45"
    assert page.get_by_test_id("stAlertContentError").locator("visible=true").count() == 0  # no red block
    assert store_query(data, "print(db['drivers'].count_documents({'name': 'Rafael Futuro Teste'}))") == "0"


def select_first_row(page, table) -> None:
    """Tick the row marker of the first data row of a Streamlit table (a canvas grid)."""
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    box = table.bounding_box()
    page.mouse.click(box["x"] + 14, box["y"] + 35 + 17)
    page.wait_for_timeout(800)


def test_a_removed_document_leaves_the_checklist_and_is_in_the_audit_log(panel, browser):
    url, data = panel
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    page = context.new_page()
    login(page, url, "secretaria.chapada")
    go(page, "Condutores")
    choose(page, "Abrir condutor", DRIVER)
    wait_text(page, "Condutor: atende a todos os requisitos da lei.")
    select_first_row(page, page.locator(".st-key-drivers_docs_table_0").first)
    reason = page.locator('input[aria-label^="Motivo da remoção"]:visible').first
    reason.wait_for(timeout=30000)
    removed = reason.get_attribute("aria-label")
    reason.fill(REASON)
    reason.press("Tab")
    page.get_by_role("button", name="Remover o documento").click()
    wait_text(page, "O registro sai da lista e da verificação")
    shot(page, "forms_03_confirm_removal")
    page.get_by_role("button", name="Confirmar").click()
    wait_text(page, "O motivo ficou no registro de auditoria.")
    wait_text(page, "Condutor — Falta comprovar: 1 documento faltando ou vencido")
    shot(page, "forms_04_removed")
    assert removed.startswith("Motivo da remoção de ")
    note = store_query(data, "entry = db['audit'].find_one({'action': 'remove'})\nprint(entry['note'])")
    assert note == f"Removido por engano: {REASON}"
    context.close()
    # TI at another desk, on a wide screen: the grid puts only the columns in sight in the page
    context = browser.new_context(viewport={"width": 2400, "height": 1400})
    page = context.new_page()
    login(page, url, "ti")
    go(page, "Auditoria")
    # the log is a grid drawn on a canvas; its cells are also in the page for screen readers
    page.locator('td[role="gridcell"]').filter(has_text=REASON).first.wait_for(state="attached", timeout=30000)
    shot(page, "forms_05_audit")
    context.close()


def test_a_saved_driver_leaves_an_empty_form_for_the_next_one(panel, browser):
    """Issue 22 item 1: after "Salvar e novo" the message says the form is clear, and it is; the next person
    typed over it is never mixed with the one saved."""
    from services.shared import clock

    url, data = panel
    page = clerk_on(browser, url, "Condutores")
    first = clock.today().replace(year=clock.today().year - 5)
    new_driver(page, "Joana Limpa Teste", people_cpf(515151), "Rua das Mangueiras, 12", "04598765432", first)
    wait_text(page, "salvo. O formulário abaixo está limpo")
    page.wait_for_timeout(1000)
    shot(page, "forms_05_saved_driver")
    assert store_query(data, "print(db['drivers'].count_documents({'name': 'Joana Limpa Teste'}))") == "1"
    page.get_by_role("tab", name="Novo condutor").click()
    for label in ("Nome completo *", "CPF *", "Endereço *", "Nº da CNH *"):
        assert page.locator(f'input[aria-label="{label}"]:visible').first.input_value() == "", label


def people_cpf(seed: int) -> str:
    from seed import people

    return people.cpf(random.Random(seed))


def test_a_file_field_speaks_portuguese(panel, browser):
    """Issue 22 item 9: Streamlit's "Upload" and "200MB per file" are reworded on every file field."""
    url, _ = panel
    page = clerk_on(browser, url, "Condutores")
    page.get_by_role("tab", name="Importar CSV").click()
    zone = page.get_by_test_id("stFileUploaderDropzone").locator("visible=true").first
    zone.wait_for()
    shot(page, "forms_06_file_field")
    shown = zone.locator("button p").evaluate("e => [getComputedStyle(e).fontSize, getComputedStyle(e, '::after').content]")
    assert shown == ["0px", '"Escolher arquivo"']
    hint = page.get_by_test_id("stFileUploaderDropzoneInstructions").locator("visible=true").first.locator("span")
    assert hint.evaluate("e => getComputedStyle(e, '::after').content") == '"ou arraste o arquivo para cá"'


def reloaded(page) -> None:
    """F5 on the Condutores page, back on its "Novo condutor" tab (the login survives the reload)."""
    page.reload()
    page.get_by_role("heading", name="Condutores").first.wait_for(timeout=30000)
    page.get_by_role("tab", name="Novo condutor").click()


def test_a_half_typed_driver_survives_a_reload_and_is_the_one_saved(panel, browser):
    """Issue 22 item 8: F5 in the middle of a form no longer loses what was typed without a word: the
    draft comes back with a notice, what came back is what the save sends, and a saved form leaves no draft."""
    from services.shared import clock

    url, data = panel
    page = clerk_on(browser, url, "Condutores")
    page.get_by_role("tab", name="Novo condutor").click()
    typed(page, "Nome completo *", "Marta Rascunho Teste")
    typed(page, "Endereço *", "Rua do Rascunho, 7")
    reloaded(page)
    wait_text(page, "Rascunho recuperado")
    page.wait_for_function("() => [...document.querySelectorAll('input')].filter(e => e.value === "
                           "'Rua do Rascunho, 7' || e.value === 'Marta Rascunho Teste').length >= 2", timeout=10000)
    shot(page, "forms_07_draft_restored")
    assert page.locator('input[aria-label="Nome completo *"]:visible').first.input_value() == "Marta Rascunho Teste"
    assert page.locator('input[aria-label="Endereço *"]:visible').first.input_value() == "Rua do Rascunho, 7"
    first = clock.today().replace(year=clock.today().year - 4)
    typed(page, "CPF *", people_cpf(626262))
    typed(page, "Nº da CNH *", "04511223344")
    choose(page, "Categoria da CNH *", "B", exact=True)
    typed(page, "Primeira habilitação *", f"{first:%d/%m/%Y}")
    typed(page, "Validade da CNH *", f"{clock.today().replace(year=clock.today().year + 3):%d/%m/%Y}")
    page.get_by_role("button", name="Salvar e novo").locator("visible=true").first.click()
    wait_text(page, "salvo. O formulário abaixo está limpo")
    saved = store_query(data, "d = db['drivers'].find_one({'name': 'Marta Rascunho Teste'})\nprint(d and d['address'])")
    assert saved == "Rua do Rascunho, 7"
    reloaded(page)
    page.wait_for_timeout(1500)
    assert page.get_by_text("Rascunho recuperado").count() == 0
    assert page.locator('input[aria-label="Nome completo *"]:visible').first.input_value() == ""


def test_a_restored_draft_can_be_discarded(panel, browser):
    url, _ = panel
    page = clerk_on(browser, url, "Condutores")
    page.get_by_role("tab", name="Novo condutor").click()
    typed(page, "Nome completo *", "Bruno Descartado Teste")
    reloaded(page)
    wait_text(page, "Rascunho recuperado")
    name = page.locator('input[aria-label="Nome completo *"]:visible').first
    page.wait_for_function("() => document.querySelector('input[aria-label=\"Nome completo *\"]').value !== ''",
                           timeout=10000)  # a rerun may redraw the field once before the draft is put back
    assert name.input_value() == "Bruno Descartado Teste"
    page.get_by_role("button", name="Descartar rascunho").click()
    assert name.input_value() == ""
    reloaded(page)
    page.wait_for_timeout(1500)
    assert page.get_by_text("Rascunho recuperado").count() == 0
    assert page.locator('input[aria-label="Nome completo *"]:visible').first.input_value() == ""
