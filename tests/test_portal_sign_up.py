"""Issue 38: a person opens their own portal account — a resident or entity ("requerente") in any municipality,
or a driver candidate the driver register does not hold yet — proving the e-mail they typed with a code (a
real SMTP server). Nobody takes over a registered person's account this way, and the answer never tells
whether a CPF or CNPJ is registered."""
from __future__ import annotations

import random

import pytest

from seed.ridehailing import driver_values
from services.shared import clock, entities, mail, regulated_access, regulated_accounts
from services.shared.errors import ValidationFailed
from services.shared.sessions import InvalidCredentials
from tests import portal_support as support
from tests.conftest import SECRETARIA_CG
from tests.test_portal_http import Client

PASSWORD = "minha-senha-forte"
RESIDENT_CPF = "71428793860"  # valid check digits, invented
ENTITY_CNPJ = "11222333000181"  # valid check digits, invented
RESIDENT_EMAIL = "moradora@exemplo.com.br"


def signed_up(db, inbox, municipality: str, kind: str, document: str, email: str, person_cpf: str = "") -> str:
    answer = regulated_access.sign_up(db, municipality, kind, document, person_cpf, "Joana da Silva", email)
    mail.send_pending(db)
    return answer


def test_a_resident_of_nova_lacerda_opens_an_account_with_the_code_sent_to_the_email_typed(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        answer = signed_up(db, inbox, "nova_lacerda", "requerente", RESIDENT_CPF, RESIDENT_EMAIL)
        assert "código" in answer
        code = inbox.last_code(RESIDENT_EMAIL)
        person = regulated_access.activate(db, "nova_lacerda", "requerente", RESIDENT_CPF, "", code, PASSWORD, True)
    assert (person.kind, person.document, person.person_cpf) == ("requerente", RESIDENT_CPF, RESIDENT_CPF)
    logged, cookie, _ = regulated_access.login(db, "nova_lacerda", "requerente", RESIDENT_CPF, "", PASSWORD)
    assert regulated_access.resume(db, cookie) == logged == person
    assert regulated_accounts.addressee(person.actor) == ("nova_lacerda", "requerente", RESIDENT_CPF)
    names = [e["action"] for e in db["audit"].find({"username": f"requerente:{RESIDENT_CPF}"}).sort("at", 1)]
    assert names == ["sign_up", "activate", "consent", "login"]
    # the acts' electronic domicile is the ride-hailing one: a resident's account opens none
    assert db["domiciles"].count_documents({"document": RESIDENT_CPF}) == 0


def test_an_entity_signs_up_by_its_cnpj_with_its_representatives_cpf(db, monkeypatch):
    with pytest.raises(ValidationFailed) as refused:
        regulated_access.sign_up(db, "nova_lacerda", "requerente", ENTITY_CNPJ, "", "Associação do Pontal", "a@b.br")
    assert set(refused.value.errors) == {"person_cpf"}
    with support.smtp_server(monkeypatch) as inbox:
        signed_up(db, inbox, "nova_lacerda", "requerente", ENTITY_CNPJ, "associacao@exemplo.com.br", RESIDENT_CPF)
        code = inbox.last_code("associacao@exemplo.com.br")
    person = regulated_access.activate(db, "nova_lacerda", "requerente", ENTITY_CNPJ, RESIDENT_CPF, code, PASSWORD,
                                       True)
    assert (person.document, person.person_cpf) == (ENTITY_CNPJ, RESIDENT_CPF)


@pytest.mark.parametrize("values, field", [
    ({"document": "123"}, "document"),
    ({"name": "  "}, "name"),
    ({"email": "sem-arroba"}, "email"),
    ({"kind": "plataforma"}, "kind"),  # a platform's person is listed by the secretariat, never self-made
], ids=["CPF", "name", "e-mail", "platform"])
def test_what_is_typed_wrong_is_told_under_its_field_and_nothing_is_stored(db, values, field):
    typed = {"municipality": "nova_lacerda", "kind": "requerente", "document": RESIDENT_CPF, "person_cpf": "",
             "name": "Joana da Silva", "email": RESIDENT_EMAIL, **values}
    with pytest.raises(ValidationFailed) as refused:
        regulated_access.sign_up(db, **typed)
    assert field in refused.value.errors
    assert db["regulated_accounts"].count_documents({}) == 0 and db["mail_outbox"].count_documents({}) == 0


def test_a_driver_account_is_refused_where_the_municipality_does_not_regulate_ride_hailing(db):
    with pytest.raises(ValidationFailed) as refused:
        regulated_access.sign_up(db, "nova_lacerda", "condutor", RESIDENT_CPF, "", "Joana da Silva", RESIDENT_EMAIL)
    assert "cidadão ou entidade" in refused.value.errors["kind"]


def test_a_cpf_the_driver_register_holds_cannot_be_taken_over_by_signing_up_with_another_email(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        answer = signed_up(db, inbox, "chapada", "condutor", cpf, "intruso@exemplo.com.br")
        assert answer == regulated_access.SIGN_UP_SENT  # the same answer as for anyone: nothing told
        assert inbox.to("intruso@exemplo.com.br") == []
    assert db["regulated_accounts"].count_documents({"document": cpf}) == 0


def test_an_active_account_is_not_reopened_and_its_password_stands(db, monkeypatch):
    support.ready_account(db, "nova_lacerda", "requerente", RESIDENT_CPF, "Joana da Silva", RESIDENT_EMAIL, PASSWORD)
    with support.smtp_server(monkeypatch) as inbox:
        assert signed_up(db, inbox, "nova_lacerda", "requerente", RESIDENT_CPF, "outra@exemplo.com.br") == \
            regulated_access.SIGN_UP_SENT
        assert inbox.messages == []
    regulated_access.login(db, "nova_lacerda", "requerente", RESIDENT_CPF, "", PASSWORD)


def test_a_candidates_account_follows_the_register_once_the_secretariat_registers_that_cpf(db, monkeypatch):
    """A driver candidate's own account stands on itself until the register holds the CPF; if the secretariat
    registers it with another e-mail (the real person came to the counter), the account stops until a code
    sent to the register's e-mail sets a new password."""
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db, email=None, seed=11)  # only to get a valid CPF: removed below
        db["drivers"].delete_many({"cpf": cpf})
        signed_up(db, inbox, "chapada", "condutor", cpf, "candidato@exemplo.com.br")
        regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code("candidato@exemplo.com.br"),
                                  PASSWORD, True)
        _person, cookie, _ = regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
        values = driver_values(random.Random(11), "chapada", clock.today(), email=support.DRIVER_EMAIL)
        entities.create(db, SECRETARIA_CG, "drivers", "chapada", values)
        assert regulated_access.resume(db, cookie) is None
        with pytest.raises(InvalidCredentials) as refused:
            regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
        assert refused.value.message == regulated_access.OTHER_EMAIL
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "senha")
        mail.send_pending(db)
        assert inbox.to("candidato@exemplo.com.br")[-1:] and len(inbox.to(support.DRIVER_EMAIL)) == 1
        regulated_access.reset_password(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL),
                                        "outra-senha-forte")
    regulated_access.login(db, "chapada", "condutor", cpf, "", "outra-senha-forte")


def test_the_sign_up_form_keeps_what_was_typed_and_leads_to_the_code(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox, support.portal_server(db) as url:
        client = Client(url)
        status, _headers, html = client.post("/cadastro", {"municipality": "nova_lacerda", "kind": "requerente",
                                                            "document": RESIDENT_CPF, "name": "Joana da Silva",
                                                            "email": "sem-arroba"})
        assert status == 400 and 'id="email-erro"' in html and "Joana da Silva" in html
        status, _headers, html = client.post("/cadastro", {"municipality": "nova_lacerda", "kind": "requerente",
                                                            "document": RESIDENT_CPF, "name": "Joana da Silva",
                                                            "email": RESIDENT_EMAIL})
        assert status == 200 and "Código recebido por e-mail" in html
        code = inbox.last_code(RESIDENT_EMAIL)
        status, _headers, _html = client.post("/ativar/codigo", {
            "municipality": "nova_lacerda", "kind": "requerente", "document": RESIDENT_CPF, "code": code,
            "password": PASSWORD, "password2": PASSWORD, "consent": "sim"})
        assert status == 200
        assert client.post("/entrar", {"municipality": "nova_lacerda", "kind": "requerente", "document": RESIDENT_CPF,
                                       "password": PASSWORD})[0] == 303
        status, _headers, html = client.request("/inicio")
        assert status == 200 and "Cidadão ou entidade" in html and "Domicílio eletrônico" not in html
