"""Issue 36 item 1: the accounts of drivers and platforms' authorized persons, apart from staff — activation
by a code sent to the e-mail on file (through a real SMTP server), password, LGPD consent, lockout, reset,
revocation, and the audit of every access with the person as actor."""
from __future__ import annotations

from datetime import timedelta

import pytest

from services.shared import auth, clock, domicile, mail, public_forms, regulated_access, regulated_accounts, sessions
from services.shared.errors import PermissionDenied, ValidationFailed
from services.shared.regulated_access import CodeRefused
from services.shared.sessions import AccountLocked, InvalidCredentials
from tests import portal_support as support
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP

PASSWORD = "minha-senha-forte"


def activated_driver(db, inbox) -> str:
    cpf = support.driver(db)
    regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
    assert mail.send_pending(db) == 1
    regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL), PASSWORD, True)
    return cpf


def actions(db, username: str) -> list[str]:
    return [e["action"] for e in db["audit"].find({"username": username}).sort("at", 1)]


def test_a_driver_activates_with_the_code_sent_to_the_email_on_file_and_logs_in(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        answer = regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        assert "e-mail" in answer
        assert mail.send_pending(db) == 1
        [message] = inbox.messages
        assert message["X-Envelope-To"] == support.DRIVER_EMAIL  # the address of the register, never a typed one
        code = inbox.last_code(support.DRIVER_EMAIL)
        stored = db["regulated_accounts"].find_one({"document": cpf})
        assert code not in str(stored)  # the code is kept only hashed
        assert db["mail_outbox"].find_one({})["body"] == "(conteúdo descartado após o envio)"
        person = regulated_access.activate(db, "chapada", "condutor", cpf, "", code, PASSWORD, True)
    assert (person.kind, person.document, person.municipality) == ("condutor", cpf, "chapada")
    logged, cookie, _expiry = regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
    assert logged == person and regulated_access.resume(db, cookie) == person
    regulated_access.logout(db, cookie)
    assert regulated_access.resume(db, cookie) is None
    assert actions(db, f"condutor:{cpf}") == ["code_sent", "activate", "consent", "open_domicile", "login", "logout"]
    # the activated account is the driver's electronic domicile (CG art. 25 §1 IV): the clerk is offered the channel
    assert domicile.has_domicile(db, SECRETARIA_CG, "chapada", "condutor", cpf)


def test_the_consent_is_recorded_with_its_date_and_version_and_is_required(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        mail.send_pending(db)
        code = inbox.last_code(support.DRIVER_EMAIL)
        with pytest.raises(ValidationFailed) as refused:
            regulated_access.activate(db, "chapada", "condutor", cpf, "", code, PASSWORD, False)
        assert "consent" in refused.value.errors
        regulated_access.activate(db, "chapada", "condutor", cpf, "", code, PASSWORD, True)
    consent = db["regulated_accounts"].find_one({"document": cpf})["consent"]
    assert consent["version"] == regulated_accounts.LGPD_VERSION
    assert abs(clock.now_utc() - consent["at"].replace(tzinfo=clock.now_utc().tzinfo)) < timedelta(minutes=1)


@pytest.mark.parametrize("password", ["curta", "52998224725"], ids=["too short", "the CPF"])
def test_a_weak_password_is_refused(db, password):
    cpf = support.driver(db)
    with pytest.raises(ValidationFailed) as refused:
        chosen = password if password == "curta" else cpf  # the driver's own CPF as the password
        regulated_access.activate(db, "chapada", "condutor", cpf, "", "123456", chosen, True)
    assert "password" in refused.value.errors


def test_a_wrong_code_is_refused_and_five_wrong_codes_use_it_up(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        mail.send_pending(db)
        code = inbox.last_code(support.DRIVER_EMAIL)
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    for _ in range(regulated_accounts.CODE_ATTEMPTS):
        with pytest.raises(CodeRefused):
            regulated_access.activate(db, "chapada", "condutor", cpf, "", wrong, PASSWORD, True)
    with pytest.raises(CodeRefused):  # the right code after five wrong ones: used up
        regulated_access.activate(db, "chapada", "condutor", cpf, "", code, PASSWORD, True)
    assert db["regulated_accounts"].find_one({"document": cpf})["status"] == "pendente"
    assert "code_failed" in actions(db, f"condutor:{cpf}")


def test_an_expired_code_is_refused(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        mail.send_pending(db)
        code = inbox.last_code(support.DRIVER_EMAIL)
    later = clock.now_utc() + timedelta(minutes=regulated_accounts.CODE_MINUTES + 1)
    monkeypatch.setattr(clock, "now_utc", lambda: later)
    with pytest.raises(CodeRefused):
        regulated_access.activate(db, "chapada", "condutor", cpf, "", code, PASSWORD, True)


def test_no_code_without_an_email_on_file_nor_for_someone_outside_the_register(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db, email=None)
        for document in (cpf, "52998224725"):
            answer = regulated_access.request_code(db, "chapada", "condutor", document, "", "ativacao")
            assert answer == regulated_access.CODE_SENT  # the same answer: nothing tells who is registered
        mail.send_pending(db)
    assert inbox.messages == []


def test_five_wrong_passwords_lock_the_account_and_a_reset_by_email_code_opens_it(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = activated_driver(db, inbox)
        for _ in range(sessions.MAX_FAILED_LOGINS - 1):
            with pytest.raises(InvalidCredentials):
                regulated_access.login(db, "chapada", "condutor", cpf, "", "senha-errada-1")
        with pytest.raises(AccountLocked):
            regulated_access.login(db, "chapada", "condutor", cpf, "", "senha-errada-1")
        with pytest.raises(AccountLocked):  # locked: even the right password waits
            regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "senha")
        mail.send_pending(db)
        regulated_access.reset_password(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL),
                                        "outra-senha-forte")
    with pytest.raises(InvalidCredentials):
        regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
    regulated_access.login(db, "chapada", "condutor", cpf, "", "outra-senha-forte")
    assert {"lock", "password_reset"} <= set(actions(db, f"condutor:{cpf}"))


def test_a_reset_ends_the_open_sessions(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = activated_driver(db, inbox)
        _person, cookie, _ = regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "senha")
        mail.send_pending(db)
        regulated_access.reset_password(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL),
                                        "outra-senha-forte")
    assert regulated_access.resume(db, cookie) is None


def test_a_platform_person_no_longer_authorized_cannot_log_in_and_loses_the_open_session(db, monkeypatch):
    cnpj, cpf = support.PLATFORM_CNPJ, support.AGENT_CPF
    with support.smtp_server(monkeypatch) as inbox:
        support.platform_with_agent(db)
        regulated_access.request_code(db, "chapada", "plataforma", cnpj, cpf, "ativacao")
        mail.send_pending(db)
        assert [m["X-Envelope-To"] for m in inbox.messages] == [support.AGENT_EMAIL]
        regulated_access.activate(db, "chapada", "plataforma", cnpj, cpf, inbox.last_code(support.AGENT_EMAIL),
                                  PASSWORD, True)
    person, cookie, _ = regulated_access.login(db, "chapada", "plataforma", cnpj, cpf, PASSWORD)
    assert person.actor.username == f"plataforma:{cnpj}:{cpf}"
    regulated_accounts.revoke_agent(db, SECRETARIA_CG, "chapada", cnpj, cpf)
    assert regulated_access.resume(db, cookie) is None
    with pytest.raises(InvalidCredentials) as refused:
        regulated_access.login(db, "chapada", "plataforma", cnpj, cpf, PASSWORD)
    assert refused.value.message == regulated_access.NO_LONGER


def test_an_account_is_of_one_municipality(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = activated_driver(db, inbox)
    with pytest.raises(InvalidCredentials):
        regulated_access.login(db, "matupa", "condutor", cpf, "", PASSWORD)


def test_the_secretariat_enrolls_a_driver_and_the_code_goes_to_the_email_on_file(db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        with pytest.raises(PermissionDenied):
            regulated_accounts.enroll(db, SECRETARIA_MP, "chapada", "condutor", cpf)
        regulated_accounts.enroll(db, SECRETARIA_CG, "chapada", "condutor", cpf)
        mail.send_pending(db)
        regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL), PASSWORD,
                                  True)
    assert [e["username"] for e in db["audit"].find({"action": "enroll"})] == [SECRETARIA_CG.username]


def test_a_failed_send_is_kept_with_its_error_and_sent_on_a_later_try(db, monkeypatch, caplog):
    cpf = support.driver(db)
    regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
    with caplog.at_level("WARNING", logger="painel"):
        assert mail.send_pending(db) == 0  # no server configured: the message waits, shown once in the log
        assert mail.send_pending(db) == 0
    shown = [r.getMessage() for r in caplog.records if "sem PAINEL_SMTP_HOST" in r.getMessage()]
    assert len(shown) == 1 and support.DRIVER_EMAIL in shown[0] and "Seu código" in shown[0]
    monkeypatch.setenv("PAINEL_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAINEL_SMTP_PORT", str(support.free_port()))  # nobody listens there
    monkeypatch.setenv("PAINEL_SMTP_STARTTLS", "0")
    assert mail.send_pending(db) == 0
    kept = db["mail_outbox"].find_one({})
    assert kept["status"] == "pendente" and kept["attempts"] == 1 and "Connection" in kept["last_error"]
    later = clock.now_utc() + timedelta(minutes=2)
    monkeypatch.setattr(clock, "now_utc", lambda: later)
    with support.smtp_server(monkeypatch) as inbox:
        assert mail.send_pending(db) == 1
    assert [m["X-Envelope-To"] for m in inbox.messages] == [support.DRIVER_EMAIL]
    assert db["mail_outbox"].find_one({})["status"] == "enviada"


def test_a_regulated_actor_passes_no_staff_permission():
    person = regulated_accounts.Person("chapada", "condutor", "52998224725", "52998224725", "Condutor")
    for permission in ("read", "write", "summary", "admin"):
        with pytest.raises(PermissionDenied):
            auth.authorize(person.actor, permission, "chapada")
    forged = auth.Actor("x", "x", auth.REGULATED_ROLE, ("*",))  # even with every municipality
    with pytest.raises(PermissionDenied):
        auth.authorize(forged, "read")


def test_the_demo_accounts_of_the_readme_log_in(demo_db):
    """README's table of the portal's demo accounts: what ``python -m seed --demo`` made."""
    from seed.portal_accounts import PORTAL_PASSWORD

    readme = (support.ROOT / "README.md").read_text(encoding="utf-8")
    driver = regulated_access.login(demo_db, "chapada", "condutor", "730.215.736-73", "", PORTAL_PASSWORD)[0]
    agent = regulated_access.login(demo_db, "chapada", "plataforma", "46.028.837/0001-40", "500.410.823-46",
                                   PORTAL_PASSWORD)[0]
    assert driver.name in readme and "`730.215.736-73`" in readme and "`46.028.837/0001-40`" in readme
    assert agent.kind == "plataforma" and f"`{PORTAL_PASSWORD}`" in readme
    resident = regulated_access.login(demo_db, "nova_lacerda", "requerente", "998.267.962-71", "", PORTAL_PASSWORD)[0]
    assert resident.name in readme and "`998.267.962-71`" in readme
    assert demo_db["booking_requests"].count_documents({"requester.document": resident.document}) > 0
    # a register TI opened to the public, on Chapada's Início
    assert [form.label for form in public_forms.open_forms(demo_db, driver.actor)] == ["Banca da feira do produtor"]
    assert "Banca da feira do produtor" in readme


def test_a_portal_session_ends_when_idle_or_past_its_expiry_and_never_opens_the_panel(db, monkeypatch):
    from services.shared import config

    with support.smtp_server(monkeypatch) as inbox:
        cpf = activated_driver(db, inbox)
    _person, cookie, expires_at = regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
    assert sessions.resume_cookie(db, cookie, clock.now_utc()) is None  # a portal cookie is no panel session
    start = clock.now_utc()
    monkeypatch.setattr(clock, "now_utc", lambda: start + timedelta(minutes=config.session_idle_minutes() - 1))
    assert regulated_access.resume(db, cookie) is not None
    monkeypatch.setattr(clock, "now_utc", lambda: start + timedelta(minutes=2 * config.session_idle_minutes()))
    assert regulated_access.resume(db, cookie) is None
    assert "session_expired" in actions(db, f"condutor:{cpf}")
    _person, cookie, expires_at = regulated_access.login(db, "chapada", "condutor", cpf, "", PASSWORD)
    monkeypatch.setattr(clock, "now_utc", lambda: expires_at + timedelta(seconds=1))  # the absolute expiry
    assert regulated_access.resume(db, cookie) is None


def test_a_regulated_person_opens_no_staff_page_even_in_their_own_municipality(db):
    from streamlit.testing.v1 import AppTest

    from tests.test_pages_smoke import ROOT
    from ui.navigation import PAGES

    person = regulated_accounts.Person("chapada", "condutor", "52998224725", "52998224725", "Condutor")
    opened = []
    for page in PAGES:
        at = AppTest.from_file(str(ROOT / page.path), default_timeout=60)
        at.session_state["actor"], at.session_state["municipality"] = person.actor, "chapada"
        at.run()
        if at.exception or [e.value for e in at.error] != ["Seu perfil não tem acesso a esta página."]:
            opened.append(page.path)
    assert opened == []
