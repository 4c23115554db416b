"""The driver's application pages over real HTTP (issue 38 item 1): the draft's forms keep what was typed with
each error under its field, the documents sent as one multipart form with the law's finding beside each one,
the sending refused with the article of what is missing, the protocol shown, another person's protocol the
same 404 as an unknown one, CSRF on every POST, no internal id on a page.

The person is set by the test (``regulated_access.resume``): a candidate's own account (self sign-up) is the
lead's; the browser test logs in through it."""
from __future__ import annotations

import re

import pytest

from portal import web
from seed.ridehailing import passing
from services.dam import payments
from services.ridehailing import applications, fees, inspections
from services.shared import regulated_access
from services.shared.regulated_accounts import PLATFORM, Person
from tests import portal_support as support
from tests.application_support import PDF, approve, candidate, documents_form, driver_form, fill, vehicle_form
from tests.ridehailing_data import ACTORS, set_fee
from tests.test_portal_http import Client

OBJECT_ID = re.compile(r"\b[0-9a-f]{24}\b")


class Who:
    person: Person | None = None


@pytest.fixture
def who(monkeypatch):
    holder = Who()
    monkeypatch.setattr(regulated_access, "resume", lambda db, cookie: holder.person)
    return holder


@pytest.fixture
def portal(db, today, who):
    with support.portal_server(db) as url:
        yield url


def test_a_candidate_applies_page_by_page_and_gets_the_protocol(db, portal, who):
    who.person = person = candidate("matupa")
    client = Client(portal)
    status, _h, html = client.request("/inicio")
    assert status == 200 and 'href="/credenciamento"' in html
    typed = {**driver_form(person), "cnh_valid_until": "31/02/2030"}
    status, _h, html = client.post("/credenciamento/dados", typed)
    assert status == 400 and 'value="31/02/2030"' in html and "Validade da CNH: data inválida" in html
    assert 'id="cnh_valid_until-erro"' in html and f'value="{typed["name"]}"' in html  # kept as typed
    assert client.post("/credenciamento/dados", driver_form(person))[0] == 303
    assert client.post("/credenciamento/veiculo", vehicle_form(person))[0] == 303
    texts, files = documents_form("matupa", missing=("garage",))
    status, headers, _html = client.multipart("/credenciamento/documentos", texts, files)
    assert status == 303, _html
    _s, _h, html = client.request("/credenciamento/documentos")
    garage = html[html.index('id="doc-garage"'):]
    assert "Falta: Documento não apresentado: Comprovação de local para guarda do veículo (Lei 1.552/2025 " \
           "(Matupá), art. 8º, III)" in garage[:garage.index("</fieldset>")]
    status, _h, html = client.post("/credenciamento/enviar", {}, form_page="/credenciamento")
    assert status == 400 and "Falta: Comprovação de local para guarda do veículo (Lei 1.552/2025 (Matupá), " \
                             "art. 8º, III)" in html
    texts, _files = documents_form("matupa")
    assert client.multipart("/credenciamento/documentos", texts, {"garage-file": (PDF, "garagem.pdf")})[0] == 303
    status, headers, _html = client.post("/credenciamento/enviar", {}, form_page="/credenciamento")
    assert status == 303 and headers["location"].endswith("/credenciamento/2026/1?enviado=1")
    status, _h, html = client.request("/credenciamento/2026/1?enviado=1")
    assert status == 200 and "Pedido enviado: protocolo 0001/2026" in html and "Em análise" in html
    for path in ("/credenciamento", "/credenciamento/2026/1", "/credenciamento/documentos"):
        assert not OBJECT_ID.search(client.request(path)[2]), path


def test_a_refused_copy_is_shown_under_its_field(db, portal, who):
    who.person = candidate("chapada")
    client = Client(portal)
    texts, _files = documents_form("chapada")
    status, _h, html = client.multipart("/credenciamento/documentos", texts, {"cnh-file": (b"MZ\x90\x00", "cnh.exe")})
    assert status == 400 and 'id="cnh-file-erro"' in html and "Cópia não aceita" in html


def test_another_persons_protocol_is_the_same_404_as_an_unknown_one(db, portal, who):
    first = candidate("chapada", seed=11)
    who.person = first
    fill(db, first)
    applications.submit(db, first.actor)
    who.person = candidate("chapada", seed=12)
    client = Client(portal)
    for path in ("/credenciamento/2026/1", "/credenciamento/2026/1/selo", "/credenciamento/2026/1/certificado"):
        theirs, unknown = client.request(path), client.request(path.replace("/2026/1", "/2026/77"))
        assert theirs[0] == unknown[0] == 404 and theirs[2] == unknown[2], path
    who.person = Person("chapada", PLATFORM, support.PLATFORM_CNPJ, support.AGENT_CPF, "Rita Agente")
    assert client.request("/credenciamento")[0] == 404


def test_every_post_checks_csrf(db, portal, who):
    who.person = candidate("chapada")
    client = Client(portal)
    client.request("/credenciamento")  # the CSRF cookie
    for path in ("/credenciamento/dados", "/credenciamento/veiculo", "/credenciamento/enviar"):
        assert client.request(path, {"csrf": "0" * 64})[0] == 403, path
    assert client.request(path, {})[0] == 403
    assert web.LIMITS["credenciamento"]



def test_the_issued_authorizations_sticker_and_certificate_are_the_persons_to_download(db, portal, who, today):
    who.person = person = candidate("chapada")
    fill(db, person)
    protocol = applications.submit(db, person.actor)
    clerk, on = ACTORS["chapada"], today.value
    set_fee(db, "chapada")
    auth = approve(db, clerk, "chapada", protocol, on)
    client = Client(portal)
    assert 'href="/credenciamento/2026/1/selo"' not in client.request("/credenciamento/2026/1")[2]
    status, _h, html = client.request("/credenciamento/2026/1/selo")  # not issued yet: said on the page
    assert status == 400 and "após o pagamento da taxa" in html
    inspections.record_inspection(db, clerk, "chapada", auth, on, passing("chapada"), "Vistoriador")
    dam = fees.issue_fee_dam(db, clerk, "chapada", auth, on)
    assert f'href="/dams/2026/{int(dam["number"].split("/")[0])}"' in client.request("/credenciamento/2026/1")[2]
    payments.record_payment(db, clerk, "chapada", dam["id"], on, dam["amount"], "Banco do Brasil")
    html = client.request("/credenciamento/2026/1")[2]
    assert 'href="/credenciamento/2026/1/selo"' in html and 'href="/credenciamento/2026/1/certificado"' in html
    for kind in ("selo", "certificado"):
        response = client.opener.open(client.url + f"/credenciamento/2026/1/{kind}", timeout=30)
        assert response.status == 200 and response.headers["Content-Type"] == "application/pdf"
        assert response.read().startswith(b"%PDF")
