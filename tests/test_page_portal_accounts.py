"""Issue 36: the secretariat lists the persons a platform authorized, withdraws one, and enrolls a driver
(credenciamento de ofício) whose activation code goes to the e-mail on file; the accounts are listed."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.shared import regulated_access
from tests import portal_support as support
from tests.conftest import SECRETARIA_CG

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "portal_accounts.py")


def page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["actor"] = SECRETARIA_CG
    at.session_state["municipality"] = "chapada"
    return at.run()


def test_the_secretariat_authorizes_and_withdraws_a_platform_person(db):
    support.platform_with_agent(db)
    at = page()
    assert not at.exception and not at.error
    at.text_input(key="portal_agent_cpf").set_value("111.444.777-35")
    at.text_input(key="portal_agent_name").set_value("Bruno Agente")
    at.text_input(key="portal_agent_email").set_value("bruno@plataforma.exemplo")
    at.button[0].click().run()  # the form's "Autorizar"
    assert not at.exception and not at.error
    names = at.dataframe[0].value["Nome"].tolist()
    assert names == ["Bruno Agente", "Rita Agente"]
    at.selectbox(key="portal_revoke").set_value(support.AGENT_CPF)
    at.button(key="portal_revoke_button").click().run()  # a destructive action asks first
    assert "Retirar a autorização de Rita Agente" in at.warning[0].value
    assert regulated_access.accounts.register_entry(db, "chapada", "plataforma", support.PLATFORM_CNPJ,
                                                    support.AGENT_CPF) is not None
    at.button(key="portal_revoke_button_yes").click().run()
    assert not at.exception and "Autorização retirada" in at.success[0].value
    assert regulated_access.accounts.register_entry(db, "chapada", "plataforma", support.PLATFORM_CNPJ,
                                                    support.AGENT_CPF) is None


def test_a_driver_enrolled_by_the_secretariat_gets_the_code_at_the_email_on_file(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        at = page()
        at.text_input(key="portal_enroll_document").set_value(cpf)
        next(b for b in at.button if b.label == "Credenciar e enviar o código").click().run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert [m["X-Envelope-To"] for m in inbox.messages] == [support.DRIVER_EMAIL]
    accounts = at.dataframe[-1].value
    assert accounts["Situação"].tolist() == ["Aguardando ativação"]
