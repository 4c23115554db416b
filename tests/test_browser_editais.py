"""In headless Chromium, the two channels a clerk now drives for an offender with no electronic domicile
(issue 36 item 3): by post with AR — the notice sent, the AR returned undelivered with its reason, the
screen then proposing the edital —, and by edital — an auto against someone with no known address, the
edital assembled on the Editais tab, its text downloaded, its publication recorded, and the case showing
the notice and the defence term from the publication (CG Decreto 06/2026 art. 25 §1 II–III and §2)."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from datetime import timedelta

import pytest

from seed.people import cpf
from services.shared import clock
from tests.browser_support import ROOT, chromium, downloaded, free_port, login, panel_env, require_chromium, served
from tests.conftest import copy_store
from tests.test_browser_autos import DRIVERS
from tests.test_browser_ridehailing import choose, go, shot, typed, wait_text

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("editais-browser"))
    env = panel_env(data)
    subprocess.run([sys.executable, "-c", DRIVERS], cwd=ROOT, env=env, check=True, capture_output=True)
    with served(env, free_port()) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def lavrar(page, when: str, unregistered: str = "") -> str:
    """A new auto of Chapada lavrado on ``when``; returns its number."""
    go(page, "Autos de infração")
    page.get_by_role("tab", name="Novo auto").click()
    if unregistered:
        choose(page, "Infração (artigo, inciso, gravidade)", "Transporte ilegal")
        page.get_by_text("Sem cadastro (transporte ilegal)").click()
        wait_text(page, "Sem endereço conhecido, a notificação é feita por edital")
        typed(page, "Nome do autuado", "Marcos Sem Endereço")
        typed(page, "CPF do autuado", unregistered)
        typed(page, "Placa do veículo", "QWE4R56")
        typed(page, "Local onde foi encontrado", "Rodoviária, plataforma 2")
    else:
        choose(page, "Infração (artigo, inciso, gravidade)", "ponto de táxi ou de ônibus")
        choose(page, "Condutor do cadastro", "Rui Autuado Chapada")
        typed(page, "Local", "Praça central")
    typed(page, "Data da infração", when)
    typed(page, "Hora (HH:MM)", "09:40")
    typed(page, "Matrícula do agente", "AF-0042")
    typed(page, "Lavrado em", when)
    page.get_by_label("Fatos constatados").fill("Constatado em fiscalização")
    page.get_by_role("button", name="Lavrar auto").click()
    wait_text(page, "lavrado: infração")
    return re.search(r"Auto nº (\d{4}/\d{4})", page.get_by_text("lavrado: infração").first.inner_text()).group(1)


def test_by_post_the_ar_returned_undelivered_makes_the_screen_propose_the_edital(panel, browser):
    today = clock.today()
    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    login(page, panel, "secretaria.chapada")
    lavrar(page, f"{today - timedelta(days=10):%d/%m/%Y}")
    page.get_by_role("tab", name="Processo do auto").click()
    wait_text(page, "Canal proposto: Via postal com aviso de recebimento (AR)")
    choose(page, "Forma (prevista no ato)", "via postal ou carta com aviso de recepção")
    typed(page, "Enviada em", f"{today - timedelta(days=8):%d/%m/%Y}")
    page.get_by_role("button", name="Registrar notificação").click()
    wait_text(page, "Notificação registrada.")
    page.get_by_role("tab", name="Processo do auto").click()
    wait_text(page, "Enviada pelo correio em")
    page.get_by_text("AR devolvido sem entrega").click()
    choose(page, "Motivo da devolução", "Mudou-se")
    typed(page, "Devolvido em", f"{today - timedelta(days=2):%d/%m/%Y}")
    page.get_by_role("button", name="Registrar AR devolvido").click()
    wait_text(page, "AR devolvido registrado")
    page.get_by_role("tab", name="Processo do auto").click()
    wait_text(page, "Canal proposto: Edital")
    wait_text(page, "AR devolvido (Mudou-se)")
    wait_text(page, f"AR devolvido em {today - timedelta(days=2):%d/%m/%Y} (Mudou-se)")
    shot(page, "editais_1_ar_devolvido")
    context.close()


def test_by_edital_from_an_unknown_address_to_the_defence_term(panel, browser):
    today = clock.today()
    stranger = cpf(random.Random(36_003))
    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    login(page, panel, "secretaria.chapada")
    number = lavrar(page, f"{today - timedelta(days=5):%d/%m/%Y}", unregistered=stranger)
    page.get_by_role("tab", name="Processo do auto").click()
    wait_text(page, "Canal proposto: Edital")
    page.get_by_role("tab", name="Editais").click()
    wait_text(page, "Notificações a publicar por edital")
    typed(page, "Assinado por", "Ana Paula Souza")
    typed(page, "Cargo", "Secretária Municipal de Finanças")
    page.get_by_role("button", name=re.compile("Montar edital com")).click()
    wait_text(page, "montado com")
    edital = re.search(r"Edital nº (\d{4}/\d{4}) montado", page.get_by_text("montado com").first.inner_text()).group(1)
    text = open(downloaded(page, page.get_by_role("button", name="Texto para publicação (TXT)")).path(),
                encoding="utf-8").read()
    assert f"EDITAL DE NOTIFICAÇÃO Nº {edital}" in text and "Marcos Sem Endereço" in text
    assert f"***.{stranger[3:6]}.{stranger[6:9]}-**" in text and stranger not in text
    shot(page, "editais_2_montado")
    typed(page, "Edição do órgão oficial", "4.321")
    typed(page, "Publicado em", f"{today:%d/%m/%Y}")
    page.get_by_role("button", name="Registrar publicação").click()
    wait_text(page, "Publicação registrada")
    go(page, "Autos de infração")
    page.get_by_role("tab", name="Processo do auto").click()
    choose(page, "Auto", number)
    wait_text(page, f"edital nº {edital}; publicado em {today:%d/%m/%Y} (edição nº 4.321")
    wait_text(page, "Defesa até")
    assert "contada da juntada" in page.get_by_text("Defesa até").first.inner_text()
    shot(page, "editais_3_prazo")
    context.close()
