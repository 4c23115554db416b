"""In headless Chromium (issue 35 items 13–15): the clerk saves a record of a register defined by TI with
its document (a file field), finds it with the panel's Busca, opens it from there and downloads the
document; TI reads the register's labels and the record's key on the Auditoria."""
from __future__ import annotations

from pathlib import Path

import pytest

from services.shared import definitions
from services.shared.auth import Actor
from services.store import connect
from tests.browser_support import (
    chromium,
    downloaded,
    free_port,
    login,
    panel_env,
    require_chromium,
    rerun_settled,
    served,
    settle,
)
from tests.conftest import copy_store
from tests.test_browser_forms import select_first_row
from tests.test_browser_ridehailing import go, shot, typed, wait_text

pytestmark = pytest.mark.browser
NAME = "concessoes_cemiterio"
TI = Actor("ti", "TI", "ti", ("chapada", "matupa", "nova_lacerda"))
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("definition-files-browser"))
    db = connect(uri="", data_dir=str(data))
    definitions.define_register(db, TI, "chapada", {
        "name": NAME, "label": "Concessão de cemitério", "label_plural": "Concessões de cemitério",
        "feminine": True, "read_roles": ["secretaria"], "write_roles": ["secretaria"],
        "municipalities": ["chapada"], "title_field": "titular",
        "fields": [{"name": "titular", "label": "Titular", "kind": "text", "required": True, "searchable": True},
                   {"name": "termo", "label": "Termo de concessão", "kind": "file"}]})
    with served(panel_env(data), free_port()) as url:
        yield url, db


def test_a_record_with_its_document_is_found_by_the_busca_downloaded_and_audited(panel, tmp_path):
    url, db = panel
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
        login(page, url, "secretaria.chapada")
        go(page, "Concessões de cemitério")
        settle(page)
        page.get_by_role("tab", name="Nova concessão de cemitério").click()
        rerun_settled(page)
        typed(page, "Titular *", "Maria Aparecida Teste")
        page.locator(f'.st-key-{NAME}_form_new_termo_0 input[type="file"]').set_input_files(
            files=[{"name": "termo-12.pdf", "mimeType": "application/pdf", "buffer": PDF}])
        wait_text(page, "termo-12.pdf")
        settle(page)
        shot(page, "definition-files-form")
        page.get_by_role("button", name="Salvar e novo").click()
        rerun_settled(page)
        wait_text(page, "Concessão de cemitério Maria Aparecida Teste salva")
        saved = db[NAME].find_one({"titular": "Maria Aparecida Teste"})
        assert saved["termo"]["name"] == "termo-12.pdf" and saved["termo"]["size"] == len(PDF)

        page.locator('input[aria-label="Buscar no painel"]').first.fill("Aparecida")
        page.keyboard.press("Enter")
        page.get_by_role("heading", name="Busca").first.wait_for(timeout=30000)
        wait_text(page, "Concessões de cemitério (1)")
        settle(page)
        shot(page, "definition-files-busca")
        select_first_row(page, page.locator(f'[class*="st-key-search_{NAME}_"]').first)
        page.get_by_role("heading", name="Concessões de cemitério").first.wait_for(timeout=30000)
        button = page.get_by_role("button", name=f"Baixar termo de concessão: termo-12.pdf ({len(PDF)} bytes)")
        settle(page)
        shot(page, "definition-files-record")
        target = tmp_path / "termo.pdf"
        downloaded(page, button).save_as(target)
        assert Path(target).read_bytes() == PDF

        page = browser.new_page(viewport={"width": 2400, "height": 1400})
        login(page, url, "ti")
        go(page, "Auditoria")
        cells = page.locator('td[role="gridcell"]')
        cells.filter(has_text="Cadastro de concessão de cemitério").first.wait_for(state="attached", timeout=30000)
        cells.filter(has_text="Maria Aparecida Teste").first.wait_for(state="attached", timeout=30000)
        cells.filter(has_text=f"Termo de concessão: — → termo-12.pdf ({len(PDF)} bytes)").first.wait_for(
            state="attached", timeout=30000)
        shot(page, "definition-files-audit")
