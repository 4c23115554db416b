"""Issue 38 "Limits" (WCAG 2.1 AA, which Brazil's eMAG follows): every page of the public portal passes axe-core
in Chromium with no violation of impact "serious" or "critical".

axe-core is the copy bundled in ``axe-playwright-python`` (requirements-dev.txt), injected into each page by
Playwright: nothing is fetched from the network. The portal runs on a copy of the demo store (its demo driver
with DAMs and a notice in the domicile, and the demo platform's authorized person with a data request) on a
phone's viewport; each page is checked as it is first shown and, for the forms, once more with their errors.
"""
from __future__ import annotations

import re
from urllib.parse import urlparse

from seed.portal_accounts import AGENT_CPF, PLATFORM_NAME, PORTAL_PASSWORD
from services.ridehailing import public_check, trip_data
from services.shared import domicile
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.conftest import SECRETARIA_CG
from tests.test_browser_portal import PHONE

SERIOUS = ("serious", "critical")
ONE_RECORD = (r"/domicilio/[\w-]+", r"/dams/\d+/\d+", r"/pedidos/[\w-]+",  # a message, a DAM, a data request,
              r"/servicos/\d+/\d+",  # a resident's request for a machinery service
              r"/formularios/[\w-]+", r"/solicitacoes/\d+/\d+",  # a public form, a request made on it
              r"/autos/\d+/\d+")  # an auto of the driver, with the form of its defence
PUBLIC = ["/entrar", "/cadastro", "/ativar", "/ativar/codigo", "/senha", "/senha/codigo", "/privacidade", "/consulta",
          "/verificar", "/pagina-que-nao-existe"]


def violations(page) -> list[str]:
    """The serious and critical violations axe-core finds on the page: "rule (impact): nodes"."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): " + "; ".join(n["target"][0] for n in v["nodes"][:3])
            for v in found if v["impact"] in SERIOUS]


def check(page, problems: dict[str, list[str]]) -> None:
    """axe-core on the page as shown; the page's path is recorded as checked (``problems[""]``)."""
    problems.setdefault("", []).append(urlparse(page.url).path)
    found = violations(page)
    if found:
        problems[page.url] = found


RESIDENT = "98765432100"


def resident_request(db) -> None:
    """A resident's account in Nova Lacerda and one request of hers, through the services she reaches."""
    from services.machinery import localities, protocol, requesters
    from services.machinery.protocol import RequestInput, ServiceAsked
    from services.shared import clock

    person = support.ready_account(db, "nova_lacerda", "requerente", RESIDENT, "Joana Nova", "joana@exemplo.com.br",
                                   PORTAL_PASSWORD)
    place = localities.localities(db, "nova_lacerda", clock.today())[0]
    entry = requesters.save_requester(db, person.actor, "nova_lacerda", RESIDENT, {
        "name": "Joana Nova", "address": "Lote 7", "zone": place["zone"], "locality": place["locality"]})
    protocol.create_request(db, person.actor, "nova_lacerda", RequestInput(
        entry, clock.today(), (ServiceAsked("earth_loads", loads=3),), "Cascalhar a entrada", "RG 1234567",
        "Conta de energia", True, True))


def test_every_portal_page_passes_axe_core_without_serious_violations(demo_db):
    require_chromium()
    db = demo_db
    driver = db["drivers"].find_one({"municipality": "chapada", "removed": {"$exists": False}}, sort=[("_id", 1)])
    platform = db["platforms"].find_one({"municipality": "chapada", "name": PLATFORM_NAME})
    domicile.deliver(db, SECRETARIA_CG, "chapada", "condutor", driver["cpf"], title="Notificação de teste",
                     category="teste", pdf=b"%PDF-1.4\n% teste\n", ref={"collection": "teste", "id": "1"})
    trip_data.request_data(db, SECRETARIA_CG, "chapada", str(platform["_id"]), "Apurar denúncia (teste)")
    authorization = db["authorizations"].find_one({"municipality": "chapada"})
    _auto_in_its_defence_term(db, driver["cpf"])
    problems: dict[str, list[str]] = {}
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE | {"java_script_enabled": True}, bypass_csp=True)
        page = context.new_page()
        for path in PUBLIC:
            page.goto(url + path)
            check(page, problems)
            button = page.locator("main form button[type=submit]").first
            if button.count():  # the form once more, with the errors of an empty submit
                button.click()
                page.wait_for_load_state()
                check(page, problems)
        page.goto(url + "/autorizacao?t=" + public_check.token_for("chapada", str(authorization["_id"])))
        check(page, problems)

        support.portal_login(page, url, driver["cpf"], PORTAL_PASSWORD)
        check(page, problems)
        page.locator("a[href^='/domicilio/']").first.click()
        check(page, problems)
        page.get_by_role("button", name="Abrir a mensagem").click()
        check(page, problems)
        page.goto(url + "/dams")
        check(page, problems)
        page.locator("main a[href^='/dams/']").first.click()
        check(page, problems)
        for path in ("/credenciamento", "/credenciamento/dados", "/credenciamento/veiculo",
                     "/credenciamento/documentos"):  # the application (issue 38 item 1)
            page.goto(url + path)
            check(page, problems)
        page.goto(url + "/credenciamento")
        if page.locator("main a[href^='/credenciamento/20']").count():  # one of the driver's requests
            page.locator("main a[href^='/credenciamento/20']").first.click()
            check(page, problems)
        page.goto(url + "/formularios")
        check(page, problems)
        page.locator("main a[href^='/formularios/']").first.click()
        check(page, problems)
        page.get_by_role("button", name="Enviar o pedido").click()  # empty: the errors under the fields
        check(page, problems)
        page.get_by_label("Nome do titular da banca").fill("Teste de acessibilidade")  # the demo's open register
        page.get_by_label("O que vai vender").select_option(label="Artesanato")
        page.get_by_role("button", name="Enviar o pedido").click()
        check(page, problems)
        page.goto(url + "/solicitacoes")
        check(page, problems)
        for path in ("/renovacao", "/autos", "/alteracoes"):  # the driver's desk (issue 38 item 1)
            page.goto(url + path)
            check(page, problems)
        page.get_by_role("button", name="Comunicar a alteração").click()  # nothing chosen: errors under the fields
        check(page, problems)
        page.goto(url + "/autos")
        page.locator("main a[href^='/autos/']").first.click()
        check(page, problems)
        page.get_by_role("button", name="Enviar a defesa").click()  # no summary: the error under the field
        check(page, problems)
        page.goto(url + "/inicio")
        page.get_by_role("button", name="Sair").click()
        check(page, problems)

        support.portal_login(page, url, platform["cnpj"], PORTAL_PASSWORD, AGENT_CPF)
        page.goto(url + "/pedidos")
        check(page, problems)
        page.locator("main a[href^='/pedidos/']").first.click()
        check(page, problems)
        page.get_by_role("button", name="Enviar a resposta").click()  # no file chosen: the error under the field
        check(page, problems)
        page.goto(url + "/viagens")
        check(page, problems)

        resident_request(db)  # a resident of Nova Lacerda: the requests for machinery services
        page.goto(url + "/inicio")
        page.get_by_role("button", name="Sair").click()
        support.portal_login(page, url, RESIDENT, PORTAL_PASSWORD, as_kind="Cidadão ou entidade",
                             municipality="Nova Lacerda")
        for path in ("/inicio", "/servicos", "/servicos/novo"):
            page.goto(url + path)
            check(page, problems)
        page.get_by_role("button", name="Protocolar o pedido").click()  # nothing filled: the errors
        check(page, problems)
        page.goto(url + "/servicos")
        page.locator("main a[href^='/servicos/2']").first.click()
        check(page, problems)
        context.close()
    checked = set(problems.pop(""))
    assert set(PUBLIC) | {"/autorizacao", "/inicio", "/dams", "/pedidos", "/viagens", "/credenciamento",
                          "/credenciamento/dados", "/credenciamento/documentos", "/servicos",
                          "/servicos/novo", "/formularios", "/solicitacoes", "/renovacao", "/alteracoes",
                          "/autos"} <= checked, checked
    assert all(any(re.fullmatch(one, path) for path in checked) for one in ONE_RECORD), checked
    assert problems == {}, "\n".join(f"{where}: {found}" for where, found in problems.items())


def _auto_in_its_defence_term(db, cpf: str) -> None:
    """An auto of the demo driver lavrado 3 days ago and joined yesterday: its page shows the defence form."""
    from datetime import timedelta

    from services.ridehailing.enforcement import lavratura, process
    from services.ridehailing.enforcement.auto_input import AutoInput
    from services.shared import clock

    on = clock.today() - timedelta(days=3)
    auto_id = lavratura.lavrar(db, SECRETARIA_CG, "chapada", AutoInput(
        target_kind="driver", driver_cpf=cpf, infraction_code="CG-29-I", facts="Constatado (teste)", committed_on=on,
        auto_on=on, time="10:30", place="Praça Dom Wunibaldo", agent_registration="AF-0042", agent_name="Agente"))
    process.notify(db, SECRETARIA_CG, "chapada", auto_id, method="post", sent_on=on, received_on=on + timedelta(days=2),
                   juntada_on=on + timedelta(days=2))
