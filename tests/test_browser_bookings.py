"""In headless Chromium, as the Nova Lacerda secretariat (issue 13): a BPC family asks for 5 loads of
earth → quote with 70% off → DAM → paid → scheduled in its zone → executed → receipt; a farmer asks
for 6 backhoe hours → 50% DAM → paid → works 7 hours → balance DAM due 15 days after completion;
the overdue balance blocks the farmer's next request with a clear message.

The store is the demo store (Nova Lacerda's zones, machines, operators and requests). The two
requesters are registered and the DAMs paid through the services (``services.dam.payments.record_payment``,
as a bank return would); everything else is typed and clicked in the browser. The farmer's service
is completed today; for his next request the panel is served again with its "today" 20 days later
(a ``sitecustomize`` the test writes sets ``services.shared.clock.today``), when the balance is overdue.
"""
from __future__ import annotations

import os
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

SHOTS = Path(os.environ.get("PAINEL_SHOTS", "/tmp/painel-shots"))
pytestmark = pytest.mark.browser
FAMILY, FARMER = "Rosa Cândida Família Teste", "Sebastião Sitiante Teste"

SETUP = (
    "import random\n"
    "from seed.people import cpf\n"
    "from services.shared import clock, entities\n"
    "from services.shared.auth import Actor\n"
    "from services.store import connect\n"
    "db = connect()\n"
    "actor = Actor('teste', 'Teste', 'secretaria', ('nova_lacerda',)); rng = random.Random(913)\n"
    "for name in (%r, %r):\n"
    "    entities.create(db, actor, 'machinery_requesters', 'nova_lacerda', {'name': name, 'document': cpf(rng),\n"
    "        'kind': 'pf', 'address': 'Estrada do Corixa, km 8', 'zone': 'Zona Norte',\n"
    "        'locality': 'Assentamento Corixa', 'standing': 'nada_deve', 'standing_checked_on': clock.today()})\n"
) % (FAMILY, FARMER)

PAY = (
    "import sys\n"
    "from services.dam import dams, payments\n"
    "from services.setup import bootstrap  # noqa: F401  (registers every DAM-paid handler, as the panel does)\n"
    "from services.machinery import booking_requests\n"
    "from services.shared.auth import Actor\n"
    "from services.store import connect\n"
    "db = connect(); actor = Actor('banco', 'Retorno bancário', 'secretaria', ('nova_lacerda',))\n"
    "row = next(r for r in booking_requests.list_requests(db, actor, 'nova_lacerda')\n"
    "           if r['requester']['name'] == sys.argv[1])\n"
    "doc = booking_requests.get_request(db, actor, 'nova_lacerda', row['id'])\n"
    "for inst in doc['payment']['instalments']:\n"
    "    if inst['dam_id'] and not inst['paid_on']:\n"
    "        dam = dams.get(db, actor, 'nova_lacerda', inst['dam_id'])\n"
    "        payments.record_payment(db, actor, 'nova_lacerda', dam['id'], dam['issued_on'], dam['amount'], 'Banco do Brasil')\n"
    "print(row['id'])\n"
)

RECEIPT = (
    "import sys\n"
    "from services.machinery import documents\n"
    "from services.shared.auth import Actor\n"
    "from services.store import connect\n"
    "db = connect(); actor = Actor('teste', 'Teste', 'secretaria', ('nova_lacerda',))\n"
    "open(sys.argv[2], 'wb').write(getattr(documents, sys.argv[3])(db, actor, 'nova_lacerda', sys.argv[1]))\n"
)


@pytest.fixture(scope="module")
def panel(tmp_path_factory, demo_store):
    require_chromium()
    data = copy_store(demo_store, tmp_path_factory.mktemp("bookings-browser"))  # python -m seed --demo
    env = panel_env(data)
    subprocess.run([sys.executable, "-c", SETUP], cwd=ROOT, env=env, check=True, capture_output=True)
    with served(env, free_port()) as url:
        yield url, env


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


# The end of 15 calendar days after a day in Nova Lacerda's legal calendar (weekends, national and
# municipal holidays), as dd/mm/aaaa: what the statement must print as the balance's due date.
DUE_AFTER_15_DAYS = (
    "import sys\n"
    "from datetime import date\n"
    "from services.shared import parameters\n"
    "from services.store import connect\n"
    "day = date.fromisoformat(sys.argv[1])\n"
    "print(f\"{parameters.calendar(connect(), 'nova_lacerda', day).add_days(day, 15):%d/%m/%Y}\")\n"
)


def run(env: dict, code: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True)
    return done.stdout.strip()


def render(env: dict, request_id: str, kind: str, name: str) -> str:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pdf = SHOTS / f"{name}.pdf"
    run(env, RECEIPT, request_id, str(pdf), kind)
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-singlefile", str(pdf), str(SHOTS / name)], check=True)
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True).stdout


def protocol(page, requester: str) -> None:
    go(page, "Solicitações")
    page.get_by_role("tab", name="Nova solicitação").click()
    choose(page, "Solicitante", requester)
    typed(page, "I – Identificação do interessado (documento apresentado)", "RG 1234567 SSP/MT")
    typed(page, "II – Comprovante de residência ou sede no Município", "Conta de energia de novembro")
    page.get_by_label("IV – Serviços desejados e justificativa técnica").fill("Serviço na propriedade")
    typed(page, "Licença ambiental / origem do material (art. 2, §2)", "Cascalheira municipal, LO 12/2026")
    for declaration in ("V – Declaro concordar", "VI – Declaro assumir"):
        page.get_by_text(declaration).first.click()
        page.wait_for_timeout(300)


def submit_and_open(page) -> None:
    page.get_by_role("button", name="Protocolar solicitação").click()
    wait_text(page, "Solicitação protocolada sob o nº")
    page.get_by_role("tab", name="Pedidos").click()


def schedule(page, requester: str, machine: str, operator: str, day: str = "") -> None:
    go(page, "Agenda")
    if day:  # a day the demo's own bookings leave the machine free
        typed(page, "Dia", day)
        page.wait_for_timeout(800)
    choose(page, "Pedido", requester)
    choose(page, "Máquina ou veículo", machine)
    choose(page, "Operador ou motorista", operator)
    page.get_by_role("button", name="Agendar neste dia").click()
    wait_text(page, "agendado para")


def test_bpc_family_and_farmer_stories(panel, browser, tmp_path):
    url, env = panel
    page = browser.new_context(viewport={"width": 1400, "height": 1100}).new_page()
    login(page, url, "secretaria.novalacerda")

    # BPC family: 5 loads of earth, 70% off, DAM, paid, scheduled, executed, receipt
    protocol(page, FAMILY)
    page.get_by_label("Cargas de terra/cascalho (item 12)").fill("5")
    choose(page, "Critério", "Recebimento do Benefício de Prestação Continuada (BPC)")
    choose(page, "Comprovação", "Comprovante de recebimento do BPC")
    typed(page, "Nº ou referência do documento", "NB 123.456.789-0")
    submit_and_open(page)
    page.get_by_role("button", name="Fazer orçamento").click()
    wait_text(page, "Orçamento feito.")
    wait_text(page, "total R$ 225,00")
    shot(page, "bk_01_family_quote")
    page.get_by_role("button", name="Emitir DAMs").click()
    wait_text(page, "DAMs emitidos: os números estão no quadro de pagamento")
    family_id = run(env, PAY, FAMILY)
    schedule(page, FAMILY, "QBF2A17", "Maria Martins Pereira")
    shot(page, "bk_02_board")
    go(page, "Execução")
    choose(page, "Pedido", FAMILY)
    page.locator('input[aria-label$="horímetro/odômetro inicial"]:visible').first.fill("118400")
    page.locator('input[aria-label$="horímetro/odômetro final"]:visible').first.fill("118452")
    page.get_by_label("Cargas entregues").fill("5")
    page.get_by_role("button", name="Concluir serviço").click()
    wait_text(page, "Serviço concluído.")
    receipt = render(env, family_id, "receipt_pdf", "bk_family_receipt")
    assert "COMPROVANTE DE PRESTAÇÃO DE SERVIÇO" in receipt and "R$ 225,00" in receipt
    render(env, family_id, "service_order_pdf", "bk_family_service_order")

    # Farmer: 6 backhoe hours, 50% DAM, 7 hours worked, balance due 15 days after completion
    protocol(page, FARMER)
    typed(page, "Retroescavadeira (horas estimadas)", "6")
    submit_and_open(page)
    page.get_by_role("button", name="Fazer orçamento").click()
    wait_text(page, "Orçamento feito.")
    page.get_by_role("button", name="Emitir DAMs").click()
    wait_text(page, "DAMs emitidos: os números estão no quadro de pagamento")
    farmer_id = run(env, PAY, FARMER)
    from services.shared import clock

    schedule(page, FARMER, "PAT-0101", "Aline Lima Soares", f"{clock.today() + timedelta(days=14):%d/%m/%Y}")
    go(page, "Execução")
    choose(page, "Pedido", FARMER)
    done = clock.today()
    typed(page, "Horas executadas (item 01)", "7")
    page.wait_for_timeout(1000)
    page.get_by_role("button", name="Concluir serviço").click()
    wait_text(page, "Serviço concluído.")
    wait_text(page, "1.200,00")  # the settlement message: balance of the hours worked
    shot(page, "bk_03_farmer_balance")
    statement = render(env, farmer_id, "statement_pdf", "bk_farmer_statement")
    assert "R$ 900,00" in statement and "R$ 1.200,00" in statement  # the 50% advance and the balance
    # art. 8 §2: 15 days after completion; a period ending on a non-business day moves to the next one
    balance_due = run(env, DUE_AFTER_15_DAYS, done.isoformat())
    assert balance_due in statement, balance_due

    later = tmp_path / "later"
    later.mkdir()
    (later / "sitecustomize.py").write_text(
        "import datetime, os\nfrom services.shared import clock\n"
        "clock.today = lambda: datetime.date.fromisoformat(os.environ['BKUI_TODAY'])\n")
    env_later = {**env, "PYTHONPATH": os.pathsep.join([str(later), str(ROOT)]),
                 "BKUI_TODAY": (done + timedelta(days=20)).isoformat()}
    with served(env_later, free_port()) as url_later:
        page = browser.new_context(viewport={"width": 1400, "height": 1100}).new_page()
        login(page, url_later, "secretaria.novalacerda")
        protocol(page, FARMER)
        typed(page, "Retroescavadeira (horas estimadas)", "2")
        page.get_by_role("button", name="Protocolar solicitação").click()
        wait_text(page, "tem DAM vencido e não pago deste serviço")
        wait_text(page, "Novas solicitações ficam suspensas até a regularização do pagamento")
        shot(page, "bk_04_farmer_blocked")
