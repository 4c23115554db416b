"""Issue 38 item 4 on the portal, over real HTTP: a person fills the public form of a register TI defined, is
told under each field what the clerk's validation refuses (what was typed kept), gets a protocol number
(never an id), and follows the request in "Meus pedidos"; another person's protocol is the same 404 as a
missing one, and a field the public does not fill is refused when posted anyway."""
from __future__ import annotations

import re
import urllib.error
import urllib.request

from services.shared import clock, mail, regulated_access
from tests import portal_support as support
from tests.test_portal_answers import multipart, send
from tests.test_portal_http import Client
from tests.test_public_forms import NAME, PDF, opened

PASSWORD = "minha-senha-forte"
OTHER_EMAIL = "outro.condutor@exemplo.com.br"


def active_driver(db, inbox, email: str = support.DRIVER_EMAIL, seed: int = 7) -> str:
    """A driver of Chapada with an active portal account (password ``PASSWORD``); returns the CPF."""
    cpf = support.driver(db, email=email, seed=seed)
    regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
    mail.send_pending(db)
    regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code(email), PASSWORD, True)
    return cpf


def driver_logged_in(db, inbox, url: str, email: str = support.DRIVER_EMAIL, seed: int = 7) -> Client:
    cpf = active_driver(db, inbox, email, seed)
    client = Client(url)
    assert client.post("/entrar", {"municipality": "chapada", "document": cpf, "password": PASSWORD})[0] == 303
    return client


def test_a_person_fills_a_public_form_is_told_under_the_field_and_follows_the_request(db, monkeypatch):
    year = clock.today().year
    with support.smtp_server(monkeypatch) as inbox, support.portal_server(db) as url:
        client = driver_logged_in(db, inbox, url)
        assert "/formularios" not in client.request("/inicio")[2]  # no form open yet: no section
        opened(db)
        assert 'href="/formularios"' in client.request("/inicio")[2]
        status, _h, listing = client.request("/formularios")
        assert status == 200 and f'href="/formularios/{NAME}"' in listing and "Banca da feira" in listing
        status, _h, page = client.request(f"/formularios/{NAME}")
        assert status == 200 and 'name="area"' not in page and 'type="file"' in page and 'type="date"' in page
        assert "Início desejado <span class=\"opcional\">(opcional)</span>" in page
        assert "Foto da banca <span class=\"opcional\">(opcional)</span>" in page  # a file too (it said nothing)
        assert 'id="energia-sim"' in page and 'id="energia-nao"' in page and 'inputmode="numeric"' in page
        assert '<option value="">Escolha...</option>' in page and 'id="titular" name="titular" type="text"' in page

        path = f"/formularios/{NAME}"
        status, _h, body = send(client, path, None, {"foto": ("banca.pdf", PDF)})  # no CSRF token
        assert status == 403
        csrf = client.csrf(path)
        status, _h, body = client.request(path, {"csrf": csrf, "titular": "Ana Souza", "produto": "Carros",
                                                 "quantidade": "dois", "energia": "sim"})
        assert status == 400
        assert re.search(r'<p class="erro" id="produto-erro">Produto: [^<]+</p>', body)
        assert '<p class="erro" id="quantidade-erro">Número de bancas: número inteiro inválido.</p>' in body
        assert 'value="Ana Souza"' in body and 'aria-describedby="produto-erro"' in body
        assert 'value="dois"' in body and re.search(r'value="sim"\s+checked', body)  # what was typed, kept
        status, _h, body = client.request(path, {"csrf": csrf, "titular": "Ana", "produto": "Hortaliças",
                                                 "area": "40"})
        assert status == 400 and "não é preenchido no portal" in body
        assert db[NAME].count_documents({}) == 0

        fields = {"csrf": csrf, "titular": "Ana Souza", "produto": "Hortaliças", "inicio": f"{year + 1}-01-10",
                  "quantidade": "2", "energia": "nao"}
        body_bytes, kind = multipart(fields, {"foto": ("banca.pdf", PDF)})
        try:
            response = client.opener.open(urllib.request.Request(url + path, data=body_bytes,
                                                                 headers={"content-type": kind}), timeout=60)
        except urllib.error.HTTPError as answer:  # the redirect, not followed
            response = answer
        assert response.status == 303 and response.headers["location"] == f"/solicitacoes/{year}/1?novo=1"
        record = db[NAME].find_one({})
        assert (record["state"], record["foto"]["name"], record["protocol"]) == ("protocolado", "banca.pdf",
                                                                                f"0001/{year}")
        assert (record["quantidade"], record["energia"], record["inicio"]) == (2, False, f"{year + 1}-01-10")
        status, _h, shown = client.request(f"/solicitacoes/{year}/1?novo=1")
        assert status == 200 and f"Guarde o número do protocolo: 0001/{year}" in shown and "Protocolado" in shown
        assert str(record["_id"]) not in shown
        status, _h, mine = client.request("/solicitacoes")
        assert f'href="/solicitacoes/{year}/1"' in mine and str(record["_id"]) not in mine

        other = driver_logged_in(db, inbox, url, OTHER_EMAIL, seed=8)
        theirs = other.request(f"/solicitacoes/{year}/1")
        missing = other.request(f"/solicitacoes/{year}/99")
        assert theirs[0] == missing[0] == 404 and theirs[2] == missing[2]
        assert "0001/" not in other.request("/solicitacoes")[2]
        assert other.request("/formularios/register_definitions")[0] == 404
