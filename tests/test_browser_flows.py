"""In headless Chromium (issue 24 item 4): TI gives a defined register that already holds records a status
flow — states, a deadline in business days, actions and who makes each — and says where the stored
records start; the clerk sees the deadline on Início, opens the record from it and moves it; the record,
its history, the audit and the work queue are checked after each step."""
from __future__ import annotations

import pytest

from services.shared import definitions, entities
from services.shared.auth import Actor
from services.store import connect
from tests.browser_support import chromium, free_port, login, panel_env, require_chromium, rerun_settled, served, settle
from tests.conftest import copy_store
from tests.test_browser_forms import select_first_row
from tests.test_browser_ridehailing import choose, go, shot, typed, wait_text

pytestmark = pytest.mark.browser
NAME = "alvaras_eventos"
TI = Actor("ti", "TI", "ti", ("chapada", "matupa", "nova_lacerda"))
CLERK = Actor("secretaria.chapada", "Secretaria", "secretaria", ("chapada",))


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("flows-browser"))
    db = connect(uri="", data_dir=str(data))
    definitions.define_register(db, TI, "chapada", {
        "name": NAME, "label": "Alvará de evento", "label_plural": "Alvarás de eventos", "feminine": False,
        "read_roles": ["secretaria", "ti"], "write_roles": ["secretaria"], "municipalities": ["chapada"],
        "fields": [{"name": "evento", "label": "Evento", "kind": "text", "required": True, "unique": True,
                    "searchable": True}]})
    for event in ("Festival de Inverno", "Feira do Livro"):
        entities.create(db, CLERK, NAME, "chapada", {"evento": event})
    with served(panel_env(data), free_port()) as url:
        yield url, db


def test_ti_gives_a_register_a_flow_and_the_clerk_moves_a_record_from_the_inbox(panel):
    url, db = panel
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        login(page, url, "ti")
        go(page, "Cadastros definidos")
        settle(page)
        choose(page, "Cadastro", "Alvarás de eventos")
        rerun_settled(page)
        for index, (label, days) in enumerate((("Protocolado", "3"), ("Deferido", "0")), start=1):
            page.get_by_role("button", name="Adicionar situação").click()
            rerun_settled(page)
            typed(page, f"Situação {index}" + (" (inicial)" if index == 1 else ""), label)
            rerun_settled(page)
            typed(page, f"Prazo da situação {index} (dias úteis)", days)
            rerun_settled(page)
        page.get_by_role("button", name="Adicionar ação").click()
        rerun_settled(page)
        choose(page, "Ação 1: de", "Protocolado")
        rerun_settled(page)
        choose(page, "Ação 1: para", "Deferido")
        rerun_settled(page)
        typed(page, "Nome da ação 1 (texto do botão)", "Deferir")
        rerun_settled(page)
        shot(page, "flows-definition")
        page.get_by_role("button", name="Salvar as mudanças").click()
        wait_text(page, "Esta mudança afeta registros já cadastrados")
        wait_text(page, "2 registros sem valor")
        shot(page, "flows-breaking")
        choose(page, "Valor padrão para “Situação”", "Protocolado")
        rerun_settled(page)
        page.get_by_role("button", name="Aplicar a mudança e ajustar os registros").click()
        wait_text(page, "os registros foram ajustados")
        stored = db["register_definitions"].find_one({"name": NAME})
        assert [s["value"] for s in stored["flow"]["states"]] == ["protocolado", "deferido"]
        assert stored["flow"]["transitions"] == [{"source": "protocolado", "target": "deferido", "label": "Deferir",
                                                  "roles": ["secretaria"]}]
        assert db[NAME].count_documents({"state": "protocolado"}) == 2
        assert db["flow_queue"].count_documents({"register": NAME}) == 2

        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        login(page, url, "secretaria.chapada")
        wait_text(page, "Cadastros definidos: prazos das situações")
        shot(page, "flows-inbox")
        settle(page)
        grid = page.locator(".st-key-home_flows").first
        grid.locator("canvas").first.wait_for(timeout=30000)
        select_first_row(page, grid)
        page.get_by_role("heading", name="Alvarás de eventos").first.wait_for(timeout=30000)
        wait_text(page, "Situação atual")
        settle(page)
        shot(page, "flows-record")
        page.locator('textarea[aria-label="Observação (opcional, entra no histórico e na auditoria)"]').fill(
            "Documentação completa")
        page.get_by_role("button", name="Registrar a ação").click()
        wait_text(page, "situação “Deferido”")
        settle(page)
        shot(page, "flows-moved")
        moved = db[NAME].find_one({"state": "deferido"})
        assert moved is not None and moved["version"] == 3  # created, started by the change, moved
        assert [(h["to"], h["note"]) for h in moved["state_history"]] == [("deferido", "Documentação completa")]
        assert db["audit"].count_documents({"collection": NAME, "note": "Deferir: Documentação completa"}) == 1
        assert db["flow_queue"].count_documents({"register": NAME}) == 1
