"""Issue 38 items 2 and 5 over real HTTP (uvicorn, urllib): "Meus DAMs" of a logged-in driver (another's DAM
is the same 404 as a missing one, the 2ª via only by the person's own form, no internal id on a page) and
"Consultar um DAM" without an account (CSRF, the same answer for a wrong CPF and an unknown number, the
rate limit's pt-BR 429 page, nothing personal shown)."""
from __future__ import annotations

import re

import pytest

from services.dam import dams
from services.setup import bootstrap
from services.shared import regulated_accounts
from tests import portal_support as support
from tests.test_own_dams import BRUNO, LATER, issue, rates  # noqa: F401  (rates: a fixture)
from tests.test_portal_http import Client

PASSWORD = "senha-de-demonstracao"


def logged_in(db, url: str) -> tuple[Client, str]:
    """A driver of Chapada with an active account (as the demo store makes it), logged in."""
    cpf = support.driver(db)
    bootstrap.mark_store(db, "demo")
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)
    client = Client(url)
    assert client.post("/entrar", {"municipality": "chapada", "document": cpf, "password": PASSWORD})[0] == 303
    return client, cpf


@pytest.fixture
def portal(db, today, rates):  # noqa: F811
    with support.portal_server(db) as url:
        yield url


def path(dam: dict) -> str:
    year, sequence = dam["number"].split("/")[1], dam["number"].split("/")[0]
    return f"/dams/{year}/{sequence}"


def test_the_driver_sees_own_dams_and_asks_the_2a_via_by_the_form(db, today, portal):
    client, cpf = logged_in(db, portal)
    overdue, open_one, brunos = issue(db, cpf), issue(db, cpf, due=LATER.replace(month=5)), issue(db, BRUNO)
    today.set(LATER)
    status, _h, listing = client.request("/dams")
    assert status == 200 and overdue["number"] in listing and open_one["number"] in listing
    assert brunos["number"] not in listing and "Vencido" in listing and "Em aberto" in listing
    assert not re.search(r"[0-9a-f]{24}", listing)  # no internal id
    missing = client.request("/dams/2026/9999")
    another = client.request(path(brunos))
    assert missing[0] == another[0] == 404 and missing[2] == another[2]
    assert client.request(path(brunos) + "/pdf")[0] == 404

    status, _h, page = client.request(path(overdue))
    assert status == 200 and "Emitir a 2ª via" in page and "R$ 100,00" in page
    assert client.request(path(overdue) + "/2via", {"csrf": "0" * 64})[0] == 403  # a forged form
    assert client.request(path(brunos) + "/2via", {"csrf": client.csrf(path(overdue))})[0] == 404
    assert dams._load(db, "chapada", overdue["id"])["status"] == dams.ISSUED

    status, headers, _body = client.post(path(overdue) + "/2via", {}, form_page=path(overdue))
    assert status == 303
    status, _h, page = client.request(headers["location"])
    assert status == 200 and "2ª via emitida" in page and "15/04/2026" in page and "Linha digitável" in page
    assert f"Substitui</dt><dd>DAM {overdue['number']}" in page
    assert dams._load(db, "chapada", overdue["id"])["status"] == dams.CANCELLED
    assert len(page.encode()) < 20_000  # a small page for a weak network


def test_a_page_of_dams_without_a_session_sends_to_login(portal):
    client = Client(portal)
    for target in ("/dams", "/dams/2026/1", "/dams/2026/1/pdf"):
        status, headers, _body = client.request(target)
        assert status == 303 and headers["location"] == "/entrar", target


def test_the_status_without_an_account(db, today, portal):
    cpf = support.driver(db)
    dam = issue(db, cpf)
    today.set(LATER)
    client = Client(portal)
    status, _h, form = client.request("/consulta")
    assert status == 200 and 'for="number"' in form and 'for="document"' in form
    assert client.request("/consulta", {"municipality": "chapada", "number": dam["number"],
                                        "document": cpf})[0] == 403  # no CSRF token
    wrong_cpf = client.post("/consulta", {"municipality": "chapada", "number": dam["number"], "document": BRUNO})
    unknown = client.post("/consulta", {"municipality": "chapada", "number": "0099/2026", "document": BRUNO})
    assert wrong_cpf[0] == unknown[0] == 200
    assert wrong_cpf[2].replace(dam["number"], "0099/2026") == unknown[2]  # the same answer but the typed number
    assert "Não encontramos um DAM" in unknown[2]

    status, _h, found = client.post("/consulta", {"municipality": "chapada", "number": dam["number"], "document": cpf})
    assert status == 200 and "Vencido" in found and "R$ 100,00" in found and "Emitir a 2ª via" in found
    name = db["drivers"].find_one({"cpf": cpf})["name"]
    assert name not in found and "Flores" not in found and "Ana Souza" not in found
    status, _h, via = client.post("/consulta/2via", {"municipality": "chapada", "number": dam["number"],
                                                    "document": cpf}, form_page="/consulta")
    assert status == 200 and "2ª via emitida" in via and "15/04/2026" in via and "Ana Souza" not in via
    assert dams._load(db, "chapada", dam["id"])["status"] == dams.CANCELLED

    empty = client.post("/consulta", {"municipality": "chapada", "number": "", "document": "123"})
    assert empty[0] == 400 and 'aria-describedby="number-dica number-erro"' in empty[2]


def test_the_status_page_is_rate_limited_per_document_with_a_pt_br_page(db, portal):
    client = Client(portal)
    per_document = 10  # web.LIMITS["consulta"]
    answers = [client.post("/consulta", {"municipality": "chapada", "number": f"{n:04d}/2026", "document": BRUNO},
                           form_page="/consulta")[0] for n in range(per_document + 1)]
    assert answers == [200] * per_document + [429]
    status, headers, body = client.post("/consulta", {"municipality": "chapada", "number": "0001/2026",
                                                      "document": BRUNO}, form_page="/consulta")
    assert status == 429 and "Muitas tentativas" in body and int(headers["retry-after"]) > 0
    assert client.post("/consulta", {"municipality": "chapada", "number": "0001/2026", "document": "52998224725"},
                       form_page="/consulta")[0] == 200  # another document is not held back


def test_the_status_of_an_authorization_request_without_an_account(db, today, portal):
    from datetime import date

    from services.ridehailing import authorizations
    from tests.conftest import SECRETARIA_CG
    from tests.ridehailing_data import requested

    doc = authorizations.get_authorization(db, SECRETARIA_CG, "chapada", requested(db, "chapada", date(2026, 2, 25)))
    client = Client(portal)
    asked = {"municipality": "chapada", "what": "protocolo", "number": doc["protocol"]}
    status, _h, found = client.post("/consulta", {**asked, "document": doc["driver_cpf"]})
    assert status == 200 and "Requerida" in found and "25/02/2026" in found
    name = db["drivers"].find_one({"cpf": doc["driver_cpf"]})["name"]
    assert name not in found and doc["plate"] not in found
    wrong_cpf = client.post("/consulta", {**asked, "document": BRUNO})
    unknown = client.post("/consulta", {**asked, "number": "0099/2026", "document": BRUNO})
    assert wrong_cpf[0] == unknown[0] == 200 and "Não encontramos um pedido" in unknown[2]
    assert wrong_cpf[2].replace(doc["protocol"], "0099/2026") == unknown[2]
