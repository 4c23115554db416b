"""Issue 38 item 3 over real HTTP: a resident of Nova Lacerda asks for a service on the portal (the form of art. 2
§4, refused field by field and kept as typed), follows it (quote in R$, the DAM linked to "Meus DAMs", the place
in the zone's queue with the urgency moved ahead and its justification, never the other person's name), and
another resident reaches none of it (the same 404 as an unknown protocol); a block says which DAM unblocks it."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest

from services.machinery import booking_requests, execution, payment, protocol, quotes, schedule
from services.machinery.execution import ExecutionInput
from services.setup import bootstrap
from services.shared import regulated_accounts
from services.shared.regulated_accounts import Person
from tests import portal_support as support
from tests.test_bookings import BPC, CLERK, LOADS5, MONDAY, NL, D, form, nl, pay, upfront  # noqa: F401
from tests.test_portal_http import Client

MARIA = Person(NL, "requerente", "52998224725", "52998224725", "Maria BPC")
ANTONIO = Person(NL, "requerente", "11144477735", "11144477735", "Antônio Sitiante")
FORM = {"identification": "RG 123456 SSP/MT", "address": "Lote 12", "place": "Zona Norte|Assentamento Bandeira",
        "residence_proof": "Conta de energia 03/2026", "loads": "5", "justification": "Cascalhar a entrada do lote",
        "licence": "Cascalheira municipal, LO 12/2026", "agrees": "sim", "liability": "sim"}


PASSWORD = "senha-do-portal-1"


def logged_in(db, url: str, person: Person) -> Client:
    """A browser with the person's portal account (opened by themself), logged in on the form."""
    support.ready_account(db, person.municipality, person.kind, person.document, person.name,
                          f"{person.document}@exemplo.com.br", PASSWORD)
    client = Client(url)
    assert client.post("/entrar", {"municipality": person.municipality, "kind": person.kind,
                                   "document": person.document, "password": PASSWORD})[0] == 303
    return client


@pytest.fixture
def portal(db, nl, today):  # noqa: F811
    with support.portal_server(db) as url:
        yield url


def test_the_form_is_refused_field_by_field_and_then_lands_in_the_clerks_queue(db, nl, portal):
    client = logged_in(db, portal, MARIA)
    status, _h, page = client.request("/inicio")
    assert status == 200 and 'href="/servicos/novo"' in page and "Serviços de máquinas e veículos" in page
    status, _h, page = client.request("/servicos")
    assert status == 200 and 'href="/servicos/novo"' in page and "Você ainda não tem pedidos" in page
    missing = {k: v for k, v in FORM.items() if k not in ("agrees", "residence_proof")}
    status, _h, page = client.post("/servicos/novo", {**missing, "loads": "cinco"})
    assert status == 400 and "Cargas: informe um número inteiro" in page and 'value="Lote 12"' in page
    status, _h, page = client.post("/servicos/novo", {**missing, "loads": ""})
    assert status == 400 and 'id="agrees-erro"' in page and 'id="residence_proof-erro"' in page
    assert 'id="services-erro"' in page
    assert "art. 2, §4, V" in page and 'value="Cascalhar a entrada do lote"' in page
    status, _h, page = client.post("/servicos/novo", {**FORM, "criterion": "BPC", "evidence_kind": "BPC_RECEIPT"})
    assert status == 400 and 'id="evidence_file-erro"' in page and "art. 7, §3" in page  # the receipt is a file
    status, headers, _body = client.post("/servicos/novo", FORM)
    assert status == 303 and headers["location"] == "/servicos/2026/1?novo=1"
    status, _h, page = client.request("/servicos/2026/1")
    assert status == 200 and "Pedido 0001/2026" in page and "Aguardando orçamento" in page
    assert not re.search(r"[0-9a-f]{24}", page)
    [row] = booking_requests.list_requests(db, CLERK, NL)
    assert (row["protocol"], row["requester"]["name"]) == ("0001/2026", "Maria BPC")


def test_the_quote_the_dam_the_queue_and_another_resident_gets_404(db, nl, today, portal):
    rid = protocol.create_request(db, MARIA.actor, NL, form(nl["family"], LOADS5, claims=(BPC,)))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    client = logged_in(db, portal, MARIA)
    status, _h, page = client.request("/servicos/2026/1")
    assert status == 200 and "R$ 750,00" in page and "R$ 525,00" in page and "total R$ 225,00" in page
    sequence, year = full["dam_number"].split("/")
    assert f'href="/dams/{year}/{int(sequence)}"' in page
    pay(db, full["dam_id"])
    other = protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, NL, other, MONDAY)
    pay(db, upfront(payment.issue_payment(db, CLERK, NL, other, MONDAY))[0]["dam_id"])
    schedule.mark_urgent(db, CLERK, NL, other, "Ponte caída isolou a escola")
    status, _h, page = client.request("/servicos/2026/1")
    assert "Posição <strong>2 de 2</strong> na fila da Zona Norte" in page and "Ponte caída isolou a escola" in page
    assert "Antônio" not in page and "0002/2026" not in page
    schedule.book(db, CLERK, NL, rid, MONDAY + timedelta(days=2), [(nl["truck"], nl["pedro"])])
    assert "08/04/2026" in client.request("/servicos/2026/1")[2]
    assert client.request("/servicos/2026/1/extrato")[0] == 404  # the statement comes after completion
    day = MONDAY + timedelta(days=2)
    today.set(day)
    execution.start_execution(db, CLERK, NL, rid, day)
    execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["pedro"], ((nl["truck"], D(80000), D(80060)),),
                                                         loads_delivered=5))
    status, _h, page = client.request("/servicos/2026/1")
    assert "Serviço concluído" in page and 'href="/servicos/2026/1/extrato"' in page
    response = client.opener.open(portal + "/servicos/2026/1/extrato", timeout=30)
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    assert response.read()[:4] == b"%PDF"

    client = logged_in(db, portal, ANTONIO)
    for path in ("/servicos/2026/1", "/servicos/2026/1/extrato"):
        mine, unknown = client.request(path), client.request(path.replace("2026/1", "2026/99"))
        assert mine[0] == unknown[0] == 404 and mine[2] == unknown[2], path
    assert "0001/2026" not in client.request("/servicos")[2]
    cpf = support.driver(db)
    client = Client(portal)
    bootstrap.mark_store(db, "demo")
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)
    assert client.post("/entrar", {"municipality": "chapada", "document": cpf, "password": PASSWORD})[0] == 303
    assert client.request("/servicos")[0] == 404 and client.request("/servicos/2026/1")[0] == 404
    assert "/servicos" not in client.request("/inicio")[2]


def test_a_blocked_resident_sees_why_and_which_dam_to_pay(db, nl, today, portal):
    rid = protocol.create_request(db, MARIA.actor, NL, form(nl["family"], LOADS5, claims=(BPC,)))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    today.set(full["due"] + timedelta(days=1))
    client = logged_in(db, portal, MARIA)
    status, _h, page = client.request("/servicos/novo")
    assert status == 200 and "Novo pedido bloqueado" in page and "art. 8, §4" in page
    sequence, year = full["dam_number"].split("/")
    assert f'href="/dams/{year}/{int(sequence)}"' in page
    status, _h, page = client.post("/servicos/novo", FORM)
    assert status == 400 and full["dam_number"] in page


def test_a_refused_request_shows_the_reason_and_the_credit_to_return(db, nl, today, portal):
    rid = protocol.create_request(db, MARIA.actor, NL, form(nl["family"], LOADS5, claims=(BPC,)))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    pay(db, upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))[0]["dam_id"])
    payment.refuse_request(db, CLERK, NL, rid, "Acesso ao lote inviável para o caminhão")
    client = logged_in(db, portal, MARIA)
    status, _h, page = client.request("/servicos/2026/1")
    assert status == 200 and "Pedido recusado" in page and "Acesso ao lote inviável para o caminhão" in page
    assert "Valor a devolver a você: <strong>R$ 225,00</strong>" in page
