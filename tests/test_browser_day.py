"""In headless Chromium, the day of the mayor's office and of municipal IT, done as they do it (issue 22:
"a browser test per role that walks the real day end to end"); the secretariats' days are walked by
test_browser_ridehailing, test_browser_autos and test_browser_bookings. Every step's screenshot also
fails on English or snake_case text (``shot``).

- Gabinete: Início shows each municipality's headline figures; a click opens that municipality's Resumo;
  the Relatório gerencial (PDF) and the summary tables (XLSX and CSV) download and hold the municipality's figures.
- TI: a new version of the UPFM of Chapada is reviewed (before/after, impact), confirmed, and is in force
  from its date; Auditoria shows who recorded it, in pt-BR.
- Secretariats: the first row of the Início inbox opens its record where the work is (issue 35 item 11).
"""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from tests.browser_support import (
    ROOT,
    chromium,
    downloaded,
    free_port,
    login,
    panel_env,
    require_chromium,
    served,
    settle,
)
from tests.conftest import copy_store
from tests.test_browser_forms import select_first_row
from tests.test_browser_ridehailing import choose, go, shot, typed, wait_text

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def panel(tmp_path_factory, demo_store):
    require_chromium()
    data = copy_store(demo_store, tmp_path_factory.mktemp("day"))
    with served(panel_env(data), free_port()) as url, chromium() as browser:
        yield url, browser, data


def store_print(data, code: str) -> str:
    env = {**os.environ, "PAINEL_DATA_DIR": str(data)}
    env.pop("MONGODB_URI", None)
    done = subprocess.run([sys.executable, "-c", "from services.store import connect\ndb = connect()\n" + code],
                          cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_the_mayors_office_opens_a_municipalitys_summary_and_takes_its_reports(panel):
    url, browser, _ = panel
    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    login(page, url, "gabinete")
    settle(page)
    wait_text(page, "Abrir o Resumo de Matupá")
    shot(page, "day_gabinete_1_inicio")
    page.get_by_role("button", name="Abrir o Resumo de Matupá").click()
    page.get_by_role("heading", name="Resumo").first.wait_for(timeout=30000)
    settle(page)
    wait_text(page, "Arrecadado (DAM pagos)")
    shot(page, "day_gabinete_2_resumo")
    pdf = downloaded(page, page.get_by_role("button", name="Relatório gerencial (PDF)"))
    report = "".join(p.extract_text() for p in PdfReader(io.BytesIO(open(pdf.path(), "rb").read())).pages)
    assert "Matupá" in report and "Chapada dos Guimarães" in report and "Nova Lacerda" in report
    assert "Arrecadado" in report
    xlsx = downloaded(page, page.get_by_role("button", name="Tabelas do resumo (XLSX, uma aba por tabela)"))
    book = load_workbook(io.BytesIO(open(xlsx.path(), "rb").read()))
    assert "Municípios lado a lado" in book.sheetnames
    assert xlsx.suggested_filename.endswith(".xlsx") and "matupa" in xlsx.suggested_filename
    # issue 35 item 8: the same tables in one CSV beside the workbook, a line per cell
    csv = downloaded(page, page.get_by_role("button", name="Tabelas do resumo (CSV, uma linha por célula)"))
    lines = open(csv.path(), encoding="utf-8-sig").read().splitlines()
    assert lines[0] == "Tabela;Linha;Coluna;Valor" and csv.suggested_filename.endswith(".csv")
    assert any(line.startswith("Municípios lado a lado;Arrecadado (DAM pagos);Matupá;R$ ") for line in lines)
    shot(page, "day_gabinete_3_relatorios")
    context.close()


def test_it_records_a_new_upfm_after_reviewing_its_impact_and_finds_it_in_the_audit(panel):
    url, browser, data = panel
    context = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = context.new_page()
    login(page, url, "ti")
    go(page, "Parâmetros")
    choose(page, "Parâmetro de Chapada dos Guimarães", "Valor da UPFM (R$)")
    typed(page, "Valor", "131,45")
    typed(page, "Ato que fixou o valor", "Decreto Municipal 99/2026")
    page.get_by_role("button", name="Revisar antes de gravar").click()
    wait_text(page, "Confirmar: Valor da UPFM (R$) de Chapada dos Guimarães")
    wait_text(page, "131,45")
    shot(page, "day_ti_1_revisar")
    wait_text(page, "Gravar a nova versão de 'Valor da UPFM (R$)' de Chapada dos Guimarães?")  # the review asks
    page.get_by_role("button", name="Confirmar").click()
    wait_text(page, "Nova versão de 'Valor da UPFM (R$)' de Chapada dos Guimarães registrada.")
    shot(page, "day_ti_2_gravado")
    code = ("from services.shared import clock, parameters\n"
            "print(parameters.value(db, 'chapada', 'upfm_value', clock.today()))")
    assert store_print(data, code) == "131.45"
    go(page, "Auditoria")
    settle(page)
    page.locator('td[role="gridcell"]').filter(has_text="Decreto Municipal 99/2026").first.wait_for(
        state="attached", timeout=30000)
    shot(page, "day_ti_3_auditoria")
    context.close()


# The page a row of the Início inbox opens, by the kind of its record and of its work (issue 35 item 11).
INBOX_PAGES = {"inspections": "Vistorias", "authorizations": "Autorizações", "autos": "Autos de infração",
               "drivers": "Condutores", "vehicles": "Veículos", "platforms": "Obrigações das plataformas",
               "platform_data_requests": "Obrigações das plataformas"}


def test_a_clerk_opens_the_first_row_of_each_inbox_where_its_work_is(panel):
    """Issue 35 item 11: "Pedido 0007/2026" could not be clicked, a fine's row opened the autos list with
    nothing chosen. The first row of Chapada's ride-hailing inbox and of Nova Lacerda's machinery inbox,
    clicked, open their page with that record chosen."""
    url, browser, data = panel
    first = store_print(data, (
        "from services.ridehailing import work_queue\nfrom services.shared import clock\n"
        "from services.shared.auth import Actor\nfrom services.machinery import pending\n"
        "ride = work_queue.overview(db, Actor('t', 't', 'secretaria', ('chapada',)), 'chapada', clock.today()).urgent[0]\n"
        "nl = pending.overview(db, Actor('t', 't', 'secretaria', ('nova_lacerda',)), 'nova_lacerda', clock.today())\n"
        "request = db['booking_requests'].find_one({'_id': __import__('bson').ObjectId(nl.urgent[0].record_id)})\n"
        "place = 'inspections' if ride.kind in work_queue.INSPECTION_KINDS else ride.record[0]\n"
        "print(place, ride.kind, ride.protocol.removeprefix('Auto '), request['protocol'], sep='|')"))
    place, _kind, protocol, request = first.split("|")
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    login(page, url, "secretaria.chapada")
    settle(page)
    grid = page.locator(".st-key-home_ride").first
    grid.locator("canvas").first.wait_for(timeout=30000)
    select_first_row(page, grid)
    page.get_by_role("heading", name=INBOX_PAGES[place]).first.wait_for(timeout=30000)
    settle(page)
    if protocol:  # a platform's rows have none: the platform is chosen in the list's form
        wait_text(page, protocol)
    shot(page, "day_secretaria_inbox_ride")
    context.close()
    context = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = context.new_page()
    login(page, url, "secretaria.novalacerda")
    settle(page)
    grid = page.locator(".st-key-home_machinery").first
    grid.locator("canvas").first.wait_for(timeout=30000)
    select_first_row(page, grid)
    wait_text(page, f"Pedido {request} · ")  # the request's record, open where each of its steps is done
    shot(page, "day_secretaria_inbox_machinery")
    context.close()
