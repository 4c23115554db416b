"""Issue 38 item 1 over real HTTP (uvicorn, urllib): the driver's desk on the portal — the renewal page (closed
with the day it opens and the article, then asked by the form, the fee DAM in "Meus DAMs"), the report of a
data change (a refused form keeps what was typed, the message under its field) and the autos with their
term; another driver's account gets the same 404 as for an unknown number, and no page shows an id."""
from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from services.ridehailing import authorizations, renewal_reminders
from services.ridehailing.enforcement import autos
from services.setup import bootstrap
from services.shared import domicile, regulated_accounts
from tests import portal_support as support
from tests.enforcement_support import active_authorization, lavrado, notified
from tests.ridehailing_data import ACTORS, register
from tests.test_portal_http import Client

PASSWORD = "senha-de-demonstracao"
ISSUED = date(2026, 2, 23)


def login(url: str, cpf: str) -> Client:
    client = Client(url)
    assert client.post("/entrar", {"municipality": "chapada", "document": cpf, "password": PASSWORD})[0] == 303
    return client


def account(db, cpf: str) -> None:
    bootstrap.mark_store(db, "demo")
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)


def shows_no_id(page: str) -> bool:
    """No internal id (24 hex digits) on the page, the forms' CSRF tokens apart."""
    return not re.search(r"\b[0-9a-f]{24}\b", re.sub(r'name="csrf" value="[0-9a-f]+"', "", page))


@pytest.fixture
def desk(db, today):
    auth_id, cpf, _plate = active_authorization(db, today, "chapada", ISSUED)
    account(db, cpf)
    with support.portal_server(db) as url:
        yield url, cpf, authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth_id)["protocol"]


def test_the_driver_asks_the_renewal_on_its_page_once_it_opens(db, today, desk):
    url, cpf, protocol = desk
    client = login(url, cpf)
    status, _h, start = client.request("/inicio")
    assert status == 200 and 'href="/renovacao"' in start and 'href="/autos"' in start and 'href="/alteracoes"' in start
    today.set(date(2026, 11, 1))
    status, _h, page = client.request("/renovacao")
    assert status == 200 and "a partir de 08/11/2026" in page and "art. 9, §2º" in page
    assert '<form method="post" action="/renovacao' not in page
    sequence, year = protocol.split("/")
    target = f"/renovacao/{year}/{int(sequence)}"
    status, _h, refused = client.post(target, {}, form_page="/inicio")  # no form on the page yet: a forged one
    assert status == 400 and "a partir de 08/11/2026" in refused
    today.set(date(2026, 11, 20))
    domicile.open_domicile(db, ACTORS["chapada"], "chapada", "condutor", cpf, "condutor@exemplo.com.br")
    assert renewal_reminders.send_reminders(db, ACTORS["chapada"], "chapada", today.value) == 1
    message = re.search(r'href="(/domicilio/[\w-]+)"', client.request("/inicio")[2])[1]
    assert 'href="/renovacao">Pedir a renovação pelo portal' in client.request(message)[2]  # the reminder leads here
    status, headers, _b = client.post(target, {}, form_page="/renovacao")
    assert status == 303 and headers["location"] == "/renovacao?pedida=1"
    status, _h, page = client.request("/renovacao?pedida=1")
    fee = re.search(r"Pague o DAM (\d{4}/\d{4})", page)[1]
    assert "Renovação já pedida" in page and fee in client.request("/dams")[2]
    assert shows_no_id(page)


def test_another_driver_gets_404_with_the_first_ones_protocol_and_auto(db, today, desk):
    url, cpf, protocol = desk
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    notified(db, today, "chapada", auto_id, date(2026, 3, 4))
    number = autos._load(db, "chapada", auto_id)["number"]
    other_cpf, _ = register(db, "chapada", ISSUED, seed=9)
    account(db, other_cpf)
    other = login(url, other_cpf)
    sequence, year = number.split("/")
    missing, anothers = other.request("/autos/2026/999"), other.request(f"/autos/{year}/{int(sequence)}")
    assert missing[0] == anothers[0] == 404 and missing[2] == anothers[2]
    assert number not in other.request("/autos")[2]
    p_sequence, p_year = protocol.split("/")
    csrf = other.csrf("/inicio")
    assert other.request(f"/renovacao/{p_year}/{int(p_sequence)}", {"csrf": csrf})[0] == 404
    assert other.request("/renovacao/2026/999", {"csrf": csrf})[0] == 404
    mine = login(url, cpf)
    status, _h, page = mine.request(f"/autos/{year}/{int(sequence)}")
    assert status == 200 and "Apresentar defesa" in page and "Prazo até" in page
    assert shows_no_id(page)


def test_a_data_change_refused_keeps_what_was_typed_and_then_is_sent(db, today, desk):
    url, cpf, _protocol = desk
    client = login(url, cpf)
    today.set(date(2026, 3, 10))
    status, _h, page = client.request("/alteracoes")
    option = re.search(r'<option value="([^"]+)">Meus dados — Telefone</option>', page)[1]
    texts = {"what": option, "value": "(65) 99999-1234", "changed_on": "05/03/2026"}
    status, _h, refused = client.multipart("/alteracoes", texts, {}, "/alteracoes")
    assert status == 400 and 'id="proof-erro"' in refused and 'value="(65) 99999-1234"' in refused
    assert f'<option value="{option}" selected>' in refused and 'value="05/03/2026"' in refused
    status, headers, _b = client.multipart("/alteracoes", texts, {"proof": (b"%PDF-1.4 conta", "conta.pdf")},
                                    "/alteracoes")
    assert status == 303
    status, _h, page = client.request(headers["location"])
    assert "Alteração comunicada" in page and "no prazo" in page and "art. 18, XIX" in page
    assert "Aguardando a conferência da secretaria" in page
    eight_days_ago = (date(2026, 3, 10) - timedelta(days=8)).strftime("%d/%m/%Y")
    late = {**texts, "value": "(65) 98888-0000", "changed_on": eight_days_ago}
    assert client.multipart("/alteracoes", late, {"proof": (b"%PDF-1.4 conta", "conta.pdf")}, "/alteracoes")[0] == 303
    assert "fora do prazo" in client.request("/alteracoes")[2]
