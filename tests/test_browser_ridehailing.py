"""In headless Chromium, as the Chapada secretariat: the driver and his vehicle typed into the registry
forms (the vehicle's driver picked from the register, each saved record opened by "Abrir o registro")
→ request → approve → vistoria → fee DAM → payment → active → sticker → its QR opens the public portal's
check (no JavaScript) "válida";
and an 11-year-old car refused with its article.

The store is the base demo (users, municipalities, parameters, DAMs, platforms) without the
ride-hailing demo records, which take a minute to load and are not needed here. The driver's
documents (once the driver is registered: a document names a registered driver) and the second driver
with the old car are loaded through the services: the documents
form is one submit per certificate (8 in Chapada) and would add ~20 s; AppTest covers it.
"""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest

from tests.browser_support import (
    ROOT,
    chromium,
    downloaded,
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

SHOTS = Path(os.environ.get("PAINEL_SHOTS", "/tmp/painel-shots"))
pytestmark = pytest.mark.browser


def _new_driver() -> dict:
    """What the clerk types: a Chapada resident with a valid CPF and CNH, and his 3-year-old car."""
    from seed import people, ridehailing
    from services.shared import clock

    rng, today = random.Random(777), clock.today()
    return {
        "name": "Beatriz Navegadora Teste", "cpf": people.cpf(rng), "address": "Rua das Orquídeas, 120",
        "district": "Centro", "cnh_number": "04512345678", "first_license": date(today.year - 9, 3, 15),
        "cnh_valid_until": date(today.year + 3, 3, 15), "inss_number": "12345678901",
        "plate": ridehailing.plate(rng), "renavam": ridehailing.renavam(rng), "model_year": today.year - 3,
    }


LOAD_PREAMBLE = (
    "import random, sys\n"
    "from datetime import timedelta\n"
    "from services.store import connect\n"
    "from services.shared import clock\n"
    "from services.shared.auth import Actor\n"
    "from seed import ridehailing as demo\n"
    "db = connect(); actor = Actor('teste', 'Teste', 'secretaria', ('chapada',)); day = clock.today()\n"
)


def _run(data: Path, code: str, *args: str) -> None:
    env = {**os.environ, "PAINEL_DATA_DIR": str(data)}
    env.pop("MONGODB_URI", None)
    subprocess.run([sys.executable, "-c", LOAD_PREAMBLE + code, *args], cwd=ROOT, env=env, check=True,
                   capture_output=True, text=True)


def _load(data: Path) -> None:
    """Through the services: a driver with an 11-year-old car."""
    _run(data, "demo.register(db, actor, 'chapada', random.Random(778), day, driver={'name': 'Otávio Carro Antigo'},"
               " vehicle={'model_year': day.year - 11})\n")


def load_documents(data: Path, driver_cpf: str) -> None:
    """Through the services, once the clerk registered the driver: his documents (a document names a
    registered driver)."""
    _run(data, "demo.add_documents(db, actor, 'chapada', sys.argv[1], day - timedelta(days=10))\n", driver_cpf)




@contextmanager
def portal_served(env: dict[str, str]) -> Iterator[str]:
    """The public portal (``python -m portal``) on the panel's store, on a free port; stopped on exit."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "portal", "--port", str(port), "--host", "127.0.0.1"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/privacidade", timeout=2)
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail("o portal não respondeu em 60 s")
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture(scope="module")
def panel(tmp_path_factory, base_demo_store):
    require_chromium()
    data = copy_store(base_demo_store, tmp_path_factory.mktemp("ridehailing-browser"))  # conftest.BASE_DEMO
    port = free_port()
    env = panel_env(data)
    people = _new_driver()
    _load(data)
    with portal_served(env) as portal:
        env["PAINEL_PORTAL_URL"] = portal  # the sticker's QR leads to the public portal, never to the panel
        with served(env, port) as url:
            yield url, people, data, portal


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


def shot(page, name: str) -> None:
    """A screenshot of a step of a real day's walk, which must speak pt-BR (issue 22: "a browser test per
    role that walks the real day end to end and fails on any English or snake_case text")."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    assert not (words := untranslated(page)), f"{name}: inglês ou identificadores na tela: {words}"


def go(page, title: str) -> None:
    page.get_by_role("link", name=title).first.click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=30000)


def choose(page, label: str, option: str, exact: bool = False) -> None:
    """Pick ``option`` in the Streamlit selectbox labelled ``label``, typing it to filter long lists."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_label(label, exact=True).first  # not the record picker's "<label>: buscar" field
    options = page.get_by_role("option")
    target = options.filter(has_text=re.compile(rf"^{re.escape(option)}$")) if exact else options.filter(has_text=option)
    for attempt in range(3):  # on a loaded machine a rerun can redraw the box while we type: type again
        box.click()
        page.keyboard.type(option)
        try:
            target.first.click(timeout=15000 if attempt < 2 else 30000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
            page.wait_for_timeout(1000)
    page.wait_for_timeout(600)


def typed(page, label: str, value: str) -> None:
    """Fill the visible text input labelled ``label``; a date (dd/mm/aaaa) is typed into its segments (dia, mês
    e ano, as the panel names them for screen readers: ui.ptbr_chrome)."""
    if re.fullmatch(r"\d\d/\d\d/\d{4}", value):
        page.locator(f'[role="spinbutton"][aria-label="dia, {label}"]:visible').first.click()
        page.keyboard.type(value.replace("/", ""))
        page.keyboard.press("Tab")
        return
    field = page.locator(f'input[aria-label="{label}"]:visible').first
    field.fill(value)
    field.press("Tab")


def tick(page, *labels: str) -> None:
    for label in labels:
        page.get_by_role("checkbox", name=label, exact=True).locator("visible=true").first.check(force=True)


def wait_text(page, text: str, timeout: int = 30000) -> None:
    page.get_by_text(text).first.wait_for(timeout=timeout)


def open_dam(page, number: str) -> None:
    """Open DAM ``number`` on the DAM page and wait until its run is over: a click while the DAM's run
    still draws is lost (Streamlit). On a loaded machine the run can start more than
    :func:`rerun_settled`'s wait after the choice, so its end is awaited once the DAM is drawn."""
    go(page, "DAM")
    choose(page, "Abrir DAM", number)
    rerun_settled(page)
    page.get_by_text(f"Baixar PDF do DAM {number}").first.wait_for(timeout=30000)
    settle(page)


def pay_dam(page, number: str, bank: str = "Banco do Brasil") -> None:
    """Record DAM ``number``'s payment by hand on the DAM page and wait for its confirmation. CI lost
    this submit twice on a loaded machine (no message, the DAM still open): while the DAM still shows
    its payment form the submit is made again, as a person would; a DAM paid without the confirmation
    shown fails."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    form = page.get_by_text("Registrar pagamento (baixa manual)")
    open_dam(page, number)
    for attempt in range(1, 4):
        form.first.click()
        page.get_by_label("Banco ou agente (PIX, caixa…)").fill(bank)
        settle(page)
        page.get_by_role("button", name="Registrar pagamento").click()
        rerun_settled(page, timeout=120000)  # a slow payment is waited for, not made again
        try:
            wait_text(page, f"Pagamento do DAM {number} registrado.", timeout=10000)
            return
        except PlaywrightTimeout:
            if attempt == 3:
                raise
        open_dam(page, number)
        assert form.count() == 1, f"DAM {number} pago sem a confirmação na tela"


def request(page, driver_name: str) -> None:
    go(page, "Autorizações")
    page.get_by_role("tab", name="Novo requerimento").click()
    choose(page, "Condutor", driver_name)
    page.get_by_label("Veículo do condutor").first.click()
    page.get_by_role("option").first.click()
    page.get_by_role("button", name="Protocolar requerimento").click()
    wait_text(page, "Requerimento protocolado sob o nº")
    settle(page)
    page.get_by_role("tab", name="Autorizações").click()
    settle(page)


def register_driver(page, person: dict, data: Path) -> None:
    go(page, "Condutores")
    page.get_by_role("tab", name="Novo condutor").click()
    typed(page, "Nome completo *", person["name"])
    typed(page, "CPF *", person["cpf"])
    typed(page, "Endereço *", person["address"])
    typed(page, "Bairro", person["district"])
    typed(page, "Nº da CNH *", person["cnh_number"])
    choose(page, "Categoria da CNH *", "B", exact=True)
    typed(page, "Primeira habilitação *", f"{person['first_license']:%d/%m/%Y}")
    typed(page, "Validade da CNH *", f"{person['cnh_valid_until']:%d/%m/%Y}")
    typed(page, "Inscrição no INSS (NIT/PIS)", person["inss_number"])
    tick(page, "Reside no Município *", "CNH com observação EAR", "Contribuinte individual do INSS",
         "Declarou serviço exclusivo por plataforma", "Apto para a função (atestado)")
    page.get_by_role("button", name="Salvar e novo").locator("visible=true").first.click()
    page.get_by_role("button", name="Abrir o registro").wait_for(timeout=30000)
    load_documents(data, person["cpf"])
    page.get_by_role("button", name="Abrir o registro").click()  # the saved record, one click away
    wait_text(page, "Condutor: atende a todos os requisitos da lei.")


def register_vehicle(page, person: dict) -> None:
    go(page, "Veículos")
    page.get_by_role("tab", name="Novo veículo").click()
    typed(page, "Placa *", person["plate"])
    typed(page, "RENAVAM *", person["renavam"])
    typed(page, "Marca *", "Chevrolet")
    typed(page, "Modelo *", "Onix Plus")
    typed(page, "Ano modelo *", str(person["model_year"]))
    typed(page, "Cor", "Prata")
    typed(page, "Portas *", "4")
    typed(page, "Lugares (com o condutor) *", "5")
    choose(page, "CPF do condutor *", person["name"])  # picked from the register, never typed
    choose(page, "Vínculo do condutor com o veículo *", "Proprietário", exact=True)
    typed(page, "Em nome de (CRLV)", person["name"])
    tick(page, "Ar-condicionado", "Emplacado no Município", "DPVAT quitado", "Licenciamento em dia", "IPVA em dia",
         "Local de guarda comprovado")
    page.get_by_role("button", name="Salvar e novo").locator("visible=true").first.click()
    page.get_by_role("button", name="Abrir o registro").click()  # the saved record, one click away
    wait_text(page, "Veículo: atende a todos os requisitos da lei.")


def test_request_to_public_check(panel, browser):
    url, person, data, portal = panel
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    login(page, url, "secretaria.chapada")
    register_driver(page, person, data)
    shot(page, "00_driver_typed")
    register_vehicle(page, person)
    request(page, "Beatriz Navegadora Teste")
    wait_text(page, "Condutor: atende a todos os requisitos da lei.")
    shot(page, "01_evaluation")
    page.get_by_role("button", name="Aprovar").click()
    wait_text(page, "Aprovado. Apresentar o veículo para vistoria até")
    shot(page, "02_approved")

    go(page, "Vistorias")
    choose(page, "Veículo / autorização", "Beatriz Navegadora Teste")
    for box in page.get_by_role("checkbox").all():
        box.check(force=True)
    page.get_by_label("Vistoriador").fill("Carlos Vistoriador")
    page.get_by_role("button", name="Registrar vistoria").click()
    wait_text(page, "Vistoria aprovada. Situação: Aguardando pagamento da taxa.")
    shot(page, "03_inspection")

    go(page, "Autorizações")
    choose(page, "Abrir autorização", "Beatriz Navegadora Teste")
    page.get_by_role("button", name="Emitir DAM da taxa").click()
    wait_text(page, "emitido, vencimento")
    dam_number = re.search(r"DAM nº (\d{4}/\d{4})", page.get_by_text("emitido, vencimento").first.inner_text()).group(1)
    shot(page, "04_dam")

    pay_dam(page, dam_number)
    shot(page, "05_paid")

    go(page, "Autorizações")
    choose(page, "Abrir autorização", "Beatriz Navegadora Teste")
    page.get_by_role("button", name="Baixar selo do veículo (PDF)").wait_for(timeout=30000)
    assert "Ativa até" in " ".join(page.get_by_test_id("stMarkdown").all_inner_texts())
    shot(page, "06_active")
    sticker = SHOTS / "sticker.pdf"
    downloaded(page, page.get_by_role("button", name="Baixar selo do veículo (PDF)")).save_as(sticker)
    subprocess.run(["pdftoppm", "-png", "-r", "150", str(sticker), str(SHOTS / "sticker")], check=True)
    found = subprocess.run(["zbarimg", "-q", "--raw", str(SHOTS / "sticker-1.png")], capture_output=True, text=True,
                           check=True).stdout.split()
    (link,) = [found_link for found_link in found if "/verificar?codigo=" not in found_link]  # not the stamp's
    assert link.startswith(portal + "/?t=")

    public = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False).new_page()
    public.goto(link)
    assert public.url.startswith(portal + "/autorizacao?t=")
    wait_text(public, "válida")
    wait_text(public, "Beatriz")
    shown = public.locator("body").inner_text()
    shot(public, "07_public_check")
    assert "Beatriz" in shown and "Navegadora" not in shown
    context.close()


def test_an_11_year_old_car_is_refused_with_its_article(panel, browser):
    url, _, _, _ = panel
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    login(page, url, "secretaria.chapada")
    request(page, "Otávio Carro Antigo")
    wait_text(page, "Veículo — Não atende: 1 requisito não atendido")
    assert page.get_by_role("button", name="Aprovar").is_disabled()
    page.get_by_role("button", name="Indeferir").click()
    settle(page)
    page.get_by_role("button", name="Confirmar").click()
    wait_text(page, "Indeferido: Veículo com 11 anos; o máximo é 10 (Decreto 06/2026 (Chapada dos Guimarães), "
                    "art. 14, III")
    shot(page, "08_refused")
