"""In headless Chromium (issue 24 items 1, 2 and 6): TI defines a register with every field kind and a
reference, the Chapada secretariat fills it, imports a CSV into it and exports XLSX, and TI then removes
a choice in use with a mapping — the records, the audit and the indexes checked after each step."""
from __future__ import annotations

import pytest

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
from tests.test_browser_ridehailing import choose, go, shot, typed, wait_text

pytestmark = pytest.mark.browser
NAME = "bancas_feira"
FIELDS = (("Número da banca", "Texto"), ("Observações", "Texto longo"), ("Área (m²)", "Número inteiro"),
          ("Taxa mensal", "Valor (R$)"), ("Desde", "Data"), ("Coberta", "Sim/Não"), ("Setor", "Lista de opções"),
          ("CPF do titular", "CPF"), ("CNPJ da associação", "CNPJ"), ("Documento", "CPF ou CNPJ"),
          ("Telefone", "Telefone"), ("E-mail", "E-mail"), ("Placa do veículo", "Placa"),
          ("Contribuinte", "Referência a outro cadastro"))


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("definitions-browser"))
    with served(panel_env(data), free_port()) as url:
        yield url, data


def store(data):
    return connect(uri="", data_dir=str(data))


def test_ti_defines_a_register_a_clerk_fills_it_and_ti_changes_it(panel):
    url, data = panel
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        login(page, url, "ti")
        go(page, "Cadastros definidos")
        settle(page)  # the page's first run ends before anything is typed into it
        # every step waits for the run it asked for: a click made while a run still draws can be sent with
        # the widgets' previous state (the gender chosen here was once lost so, and the clerk's tab below,
        # "Novo banca da feira", never showed the "Nova banca da feira" this test waited 90 s for)
        typed(page, "Nome no singular", "Banca da feira")
        rerun_settled(page)
        typed(page, "Nome no plural", "Bancas da feira")
        rerun_settled(page)
        page.get_by_text("Feminino (nova, salva)").click()
        rerun_settled(page)
        typed(page, "Identificador do cadastro", NAME)
        rerun_settled(page)
        for index, (label, kind) in enumerate(FIELDS, start=1):
            if index > 1:
                page.get_by_role("button", name="Adicionar campo").click()
                rerun_settled(page)
            typed(page, f"Rótulo do campo {index}", label)
            rerun_settled(page)
            if kind != "Texto":
                choose(page, f"Tipo do campo {index}", kind, exact=True)
                rerun_settled(page)
        for label in ("Obrigatório", "Único no município"):
            page.get_by_role("checkbox", name=label, exact=True).first.check(force=True)
            rerun_settled(page)
        setor = [label for label, _ in FIELDS].index("Setor")
        page.get_by_role("checkbox", name="Filtro da lista", exact=True).nth(setor).check(force=True)
        rerun_settled(page)
        area = page.locator(f'textarea[aria-label="Opções do campo {setor + 1} (uma por linha)"]')
        area.fill("Hortifruti\nArtesanato\nAlimentação")
        area.press("Tab")
        rerun_settled(page)
        choose(page, f"Cadastro referido pelo campo {len(FIELDS)}", "Contribuintes")
        rerun_settled(page)
        shot(page, "definitions-new")
        page.get_by_role("button", name="Criar o cadastro").click()
        wait_text(page, "Cadastro de bancas da feira criado")
        db = store(data)
        definition = db["register_definitions"].find_one({"name": NAME})
        assert definition["version"] == 1 and len(definition["fields"]) == len(FIELDS)
        assert (definition["label"], definition["label_plural"], definition["feminine"]) == (
            "Banca da feira", "Bancas da feira", True)  # what the clerk's tab is named after
        assert {f["kind"] for f in definition["fields"]} >= {"text", "textarea", "int", "money", "date", "bool",
                                                             "choice", "cpf", "cnpj", "cpf_cnpj", "phone", "email",
                                                             "plate"}
        assert definition["fields"][-1]["refers_to"][0] == "taxpayers"
        assert db["audit"].count_documents({"collection": "register_definitions", "action": "create",
                                           "doc_id": str(definition["_id"])}) == 1
        indexes = db[NAME].index_information()
        assert indexes["u_bancas_feira_numero_da_banca"]["unique"] and "i_bancas_feira_setor" in indexes
        shot(page, "definitions-created")

        # the clerk at her own desk (a browser of her own), then TI back at his
        page = browser.new_page(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
        login(page, url, "secretaria.chapada")
        go(page, "Bancas da feira")
        settle(page)
        page.get_by_role("tab", name="Nova banca da feira").click()
        rerun_settled(page)
        typed(page, "Número da banca *", "B-01")
        page.get_by_label("Setor", exact=True).locator("visible=true").first.click()
        page.get_by_role("option", name="Artesanato").click()
        settle(page)
        typed(page, "Taxa mensal", "45,50")
        shot(page, "definitions-form")
        page.get_by_role("button", name="Salvar e novo").click()
        rerun_settled(page)
        shot(page, "definitions-saved")
        wait_text(page, "Banca da feira B-01 salva")  # not the list tab's "Visão salva"
        assert db[NAME].count_documents({"municipality": "chapada"}) == 1
        assert db["audit"].count_documents({"collection": NAME, "action": "create"}) == 1
        shot(page, "definitions-record")

        page.get_by_role("tab", name="Importar CSV").click()
        rerun_settled(page)  # the tab's rerun draws the file field again: upload into the one drawn last
        csv = "Número da banca;Setor;Área (m²)\nB-02;Artesanato;12\nB-03;Hortifruti;9\n".encode("utf-8")
        page.locator(f'.st-key-{NAME}_import_file input[type="file"]').set_input_files(  # the import's, not a form's
            files=[{"name": "bancas.csv", "mimeType": "text/csv", "buffer": csv}])
        wait_text(page, "Verificação concluída: 2 linhas válidas.")
        page.get_by_role("button", name="Importar 2 registros").click()
        wait_text(page, "2 registros importados.")
        assert db[NAME].count_documents({"municipality": "chapada"}) == 3
        assert db["audit"].count_documents({"collection": NAME, "action": "create"}) == 3
        page.get_by_role("tab", name="Lista").click()
        rerun_settled(page)
        export = page.get_by_role("button", name="Exportar XLSX (filtro atual)")
        assert downloaded(page, export).suggested_filename.endswith(".xlsx")
        shot(page, "definitions-list")

        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        login(page, url, "ti")
        go(page, "Cadastros definidos")
        settle(page)
        choose(page, "Cadastro", "Bancas da feira")
        rerun_settled(page)
        shot(page, "definitions-edit")
        area = page.locator(f'textarea[aria-label="Opções do campo {setor + 1} (uma por linha)"]')
        area.fill("Hortifruti\nArtes e ofícios\nAlimentação")
        area.press("Tab")
        rerun_settled(page)
        page.get_by_role("button", name="Salvar as mudanças").click()
        wait_text(page, "Esta mudança afeta registros já cadastrados")
        wait_text(page, "2 registros")
        shot(page, "definitions-breaking")
        choose(page, "“Artesanato” passa a ser", "Artes e ofícios")
        rerun_settled(page)
        page.get_by_role("button", name="Aplicar a mudança e ajustar os registros").click()
        wait_text(page, "os registros foram ajustados")
        assert db[NAME].count_documents({"setor": "Artes e ofícios"}) == 2
        assert db[NAME].count_documents({"setor": "Artesanato"}) == 0
        assert db["register_definitions"].find_one({"name": NAME})["version"] == 2
        assert db["audit"].count_documents({"collection": NAME, "note": "Ajuste pela mudança do cadastro"}) == 2
        assert db["audit"].count_documents({"collection": "register_definitions", "action": "update",
                                           "doc_id": str(definition["_id"])}) == 1
        assert "i_bancas_feira_setor" in db[NAME].index_information()
        shot(page, "definitions-changed")
