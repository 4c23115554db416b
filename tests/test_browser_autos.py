"""In headless Chromium, one auto per municipality from lavratura to paid fine: the clerk picks the
infraction and the driver, lavra the auto (dated 100 days ago), records the notification with its
juntada, decides (63 days ago: the appeal term over, the decision is final, LEITURAS §7), issues the fine DAM, pays it on the DAM page, sees "Multa paga" and downloads the
case file, read back with pypdf. The store is the base demo plus one registered driver per town."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from pypdf import PdfReader

from services.shared import clock
from tests.browser_support import (
    ROOT,
    chromium,
    downloaded,
    free_port,
    login,
    panel_env,
    require_chromium,
    served,
)
from tests.conftest import copy_store
from tests.test_browser_ridehailing import (
    SHOTS,
    choose,
    go,
    pay_dam,
    shot,
    typed,
    wait_text,
)

pytestmark = pytest.mark.browser

DRIVERS = (
    "import random\n"
    "from datetime import timedelta\n"
    "from services.store import connect\n"
    "from services.shared import clock\n"
    "from services.shared.auth import Actor\n"
    "from seed import ridehailing as demo\n"
    "db = connect(); day = clock.today()\n"
    "for code, name, seed in (('chapada', 'Rui Autuado Chapada', 901), ('matupa', 'Rita Autuada Matupá', 902)):\n"
    "    actor = Actor('teste', 'Teste', 'secretaria', (code,))\n"
    "    demo.register(db, actor, code, random.Random(seed), day - timedelta(days=120), driver={'name': name})\n"
)
CASES = {
    "chapada": ("Rui Autuado Chapada", "ponto de táxi ou de ônibus", "R$ 3.000,00"),
    "matupa": ("Rita Autuada Matupá", "ponto de táxi, ainda que", "R$ 1.000,00"),
}


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("autos-browser"))  # conftest.BASE_DEMO
    env = panel_env(data)
    subprocess.run([sys.executable, "-c", DRIVERS], cwd=ROOT, env=env, check=True, capture_output=True)
    with served(env, free_port()) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.mark.parametrize("municipality", list(CASES))
def test_auto_from_lavratura_to_paid_fine_and_case_file(panel, browser, municipality):
    name, infraction, amount = CASES[municipality]
    today = clock.today()
    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    login(page, panel, f"secretaria.{municipality}")
    go(page, "Autos de infração")
    page.get_by_role("tab", name="Novo auto").click()
    choose(page, "Infração (artigo, inciso, gravidade)", infraction)
    choose(page, "Condutor do cadastro", name)
    typed(page, "Data da infração", f"{today - timedelta(days=100):%d/%m/%Y}")
    typed(page, "Hora (HH:MM)", "09:40")
    typed(page, "Matrícula do agente", "AF-0042")
    typed(page, "Local", "Praça central")
    typed(page, "Lavrado em", f"{today - timedelta(days=100):%d/%m/%Y}")
    page.get_by_label("Fatos constatados").fill("Embarque de passageiro no ponto de táxi")
    page.get_by_role("button", name="Lavrar auto").click()
    wait_text(page, f"lavrado: infração grave, multa {amount}")
    number = re.search(r"Auto nº (\d{4}/\d{4})", page.get_by_text("lavrado: infração").first.inner_text()).group(1)
    shot(page, f"autos_{municipality}_1_lavrado")

    page.get_by_role("tab", name="Processo do auto").click()
    typed(page, "Enviada em", f"{today - timedelta(days=98):%d/%m/%Y}")
    typed(page, "Recebida em", f"{today - timedelta(days=95):%d/%m/%Y}")
    typed(page, "Juntada em", f"{today - timedelta(days=94):%d/%m/%Y}")
    page.get_by_role("button", name="Registrar notificação").click()
    wait_text(page, "Notificação registrada. Prazo de defesa até")
    shot(page, f"autos_{municipality}_2_notificado")

    page.get_by_role("tab", name="Processo do auto").click()
    page.get_by_label("Fundamentação").first.fill("Fatos comprovados pelas fotos do agente")
    page.get_by_label("Autoridade").first.fill("Secretária Municipal de Finanças")
    # the juntada (today - 94) plus the 30 days of defence, moved past a weekend or holiday, is at most today - 60
    typed(page, "Decidido em", f"{today - timedelta(days=58):%d/%m/%Y}")
    page.get_by_role("button", name="Registrar decisão").click()
    wait_text(page, "Decisão registrada: Mantido.")
    page.get_by_role("tab", name="Processo do auto").click()
    page.get_by_role("button", name="Emitir DAM da multa").click()
    wait_text(page, "da multa emitido, vencimento")
    dam_number = re.search(r"DAM (\d{4}/\d{4}) da multa", page.get_by_text("da multa emitido").first.inner_text()).group(1)
    shot(page, f"autos_{municipality}_3_dam")
    # the DAM just issued is handed over from the auto itself (issue 22 item 5)
    slip = downloaded(page, page.get_by_role("button", name=f"Baixar o DAM {dam_number} da multa (PDF)"))
    slip_text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(open(slip.path(), "rb").read())).pages)
    assert dam_number in slip_text and amount.replace("R$ ", "") in slip_text

    pay_dam(page, dam_number)

    go(page, "Autos de infração")
    page.get_by_role("tab", name="Processo do auto").click()
    choose(page, "Auto", number)
    wait_text(page, "Multa paga")
    assert page.get_by_role("button", name=f"Baixar o DAM {dam_number} da multa (PDF)").count() == 0  # paid: no slip
    shot(page, f"autos_{municipality}_4_paga")
    download = downloaded(page, page.get_by_role("button", name="Processo completo (PDF)"))
    target = SHOTS / f"processo_{municipality}.pdf"
    download.save_as(target)
    content = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(target.read_bytes())).pages).split())
    assert "ÍNDICE DAS PEÇAS" in content and f"AUTO DE INFRAÇÃO Nº {number}" in content
    assert f"nº {dam_number}" in content and "pago em" in content and "Prazo de defesa" in content
    # the penalties took effect when the decision became final (CG art. 25 caput; MP art. 25 §4)
    assert f"Decisão de {today - timedelta(days=58):%d/%m/%Y} definitiva em" in content
    subprocess.run(["pdftoppm", "-png", "-r", "70", str(target), str(SHOTS / f"processo_{municipality}")], check=True)
    context.close()


def test_an_auto_against_someone_outside_the_register_with_no_address_is_charged(panel, browser):
    """Issue 35 item 2: transporte ilegal by someone without a register, found with no address. The form
    says the notification goes by edital (CG art. 25 §1 II); notified by publication, decided, and the
    fine's DAM is issued once the decision is final, its address saying why there is none."""
    import random

    from seed.people import cpf

    today = clock.today()
    stranger = cpf(random.Random(35_002))
    context = browser.new_context(viewport={"width": 1400, "height": 1100}, accept_downloads=True)
    page = context.new_page()
    login(page, panel, "secretaria.chapada")
    go(page, "Autos de infração")
    page.get_by_role("tab", name="Novo auto").click()
    choose(page, "Infração (artigo, inciso, gravidade)", "Transporte ilegal")
    page.get_by_text("Sem cadastro (transporte ilegal)").click()
    wait_text(page, "Sem endereço conhecido, a notificação é feita por edital")
    typed(page, "Nome do autuado", "Marcos Sem Cadastro")
    typed(page, "CPF do autuado", stranger)
    typed(page, "Placa do veículo", "QWE4R56")
    typed(page, "Telefone (se conhecido)", "(65) 99988-7766")
    typed(page, "Data da infração", f"{today - timedelta(days=110):%d/%m/%Y}")
    typed(page, "Hora (HH:MM)", "22:10")
    typed(page, "Matrícula do agente", "AF-0042")
    typed(page, "Local onde foi encontrado", "Rodoviária, plataforma 2")
    typed(page, "Lavrado em", f"{today - timedelta(days=110):%d/%m/%Y}")
    page.get_by_label("Fatos constatados").fill("Corrida cobrada sem autorização, passageiro embarcado na rodoviária")
    page.get_by_role("button", name="Lavrar auto").click()
    wait_text(page, "lavrado: infração gravíssima")
    shot(page, "autos_sem_cadastro_1_lavrado")

    page.get_by_role("tab", name="Processo do auto").click()
    wait_text(page, "Endereço desconhecido — notificação por edital (")
    choose(page, "Forma (prevista no ato)", "publicação no Diário Oficial")
    typed(page, "Enviada em", f"{today - timedelta(days=108):%d/%m/%Y}")
    typed(page, "Recebida em", f"{today - timedelta(days=107):%d/%m/%Y}")
    typed(page, "Juntada em", f"{today - timedelta(days=106):%d/%m/%Y}")
    page.get_by_role("button", name="Registrar notificação").click()
    wait_text(page, "Notificação registrada. Prazo de defesa até")
    page.get_by_role("tab", name="Processo do auto").click()
    page.get_by_label("Fundamentação").first.fill("Flagrante do agente, sem defesa no prazo")
    page.get_by_label("Autoridade").first.fill("Secretária Municipal de Finanças")
    typed(page, "Decidido em", f"{today - timedelta(days=63):%d/%m/%Y}")  # final before the fine's DAM (leitura 25)
    page.get_by_role("button", name="Registrar decisão").click()
    wait_text(page, "Decisão registrada: Mantido.")
    page.get_by_role("tab", name="Processo do auto").click()
    page.get_by_role("button", name="Emitir DAM da multa").click()
    wait_text(page, "da multa emitido, vencimento")
    dam_number = re.search(r"DAM (\d{4}/\d{4}) da multa", page.get_by_text("da multa emitido").first.inner_text()).group(1)
    shot(page, "autos_sem_cadastro_2_dam")
    slip = downloaded(page, page.get_by_role("button", name=f"Baixar o DAM {dam_number} da multa (PDF)"))
    slip_text = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(open(slip.path(), "rb").read())).pages)
                         .split())
    assert "Marcos Sem Cadastro" in slip_text and "Endereço desconhecido — notificação por edital" in slip_text
    context.close()
