"""Issue 36 item 2: the e-mail alert of a message delivered to the electronic domicile, through a real SMTP
server on localhost (aiosmtpd) — to the e-mail on file of each active account (a platform: each authorized
person with an active login), carrying only the title and the portal's address; a failed send retried and
shown, the notice intact and its receipt unchanged."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from email.header import decode_header, make_header

import pytest

from rules import notice
from services.shared import clock, domicile, domicile_alerts, mail, regulated_access, regulated_accounts
from tests import portal_support as support
from tests.browser_support import free_port
from tests.enforcement_support import driver
from tests.ridehailing_data import ACTORS

CG = ACTORS["chapada"]
DAY = date(2026, 3, 2)
PASSWORD = "minha-senha-forte"
SECRET = "CONTEÚDO SIGILOSO DA NOTIFICAÇÃO"


@pytest.fixture
def at(monkeypatch, today):
    def move(day: date, hour: int = 10, minute: int = 0) -> None:
        moment = datetime.combine(day, time(hour, minute), clock.LOCAL_TZ)
        today.set(day)
        monkeypatch.setattr(clock, "now_utc", lambda: moment.astimezone(clock.timezone.utc))
    return move


def activate(db, inbox, kind: str, document: str, person_cpf: str, email: str) -> None:
    """The person activates their account through the e-mailed code (the real flow)."""
    regulated_access.request_code(db, "chapada", kind, document, person_cpf, "ativacao")
    assert mail.send_pending(db) >= 1
    regulated_access.activate(db, "chapada", kind, document, person_cpf, inbox.last_code(email), PASSWORD, True)


def subject(message) -> str:
    return str(make_header(decode_header(message["Subject"])))


def deliver(db, kind: str, document: str, title: str = "Notificação do Auto de Infração nº CG-1/2026") -> dict:
    return domicile.deliver(db, CG, "chapada", kind, document, title=title, category="aviso",
                            pdf=f"%PDF-1.4 {SECRET}".encode(), ref={"collection": "avisos", "id": "1"})


def test_the_driver_gets_an_alert_with_the_title_and_the_portal_link_only(db, at, monkeypatch):
    monkeypatch.setenv("PAINEL_PORTAL_URL", "https://portal.chapada.exemplo/")
    at(DAY)
    cpf, _ = driver(db, "chapada", seed=31)
    db["drivers"].update_one({"cpf": cpf}, {"$set": {"email": "Condutor@Exemplo.com"}})
    with support.smtp_server(monkeypatch) as inbox:
        activate(db, inbox, "condutor", cpf, "", "Condutor@Exemplo.com")
        inbox.messages.clear()
        sent = deliver(db, "condutor", cpf)
        assert mail.send_pending(db) == 1
    (alert,) = inbox.to("condutor@exemplo.com")
    text = alert.get_payload(decode=True).decode()
    assert subject(alert) == "Nova mensagem no seu domicílio eletrônico: Notificação do Auto de Infração nº CG-1/2026"
    assert "https://portal.chapada.exemplo" in text and "Notificação do Auto de Infração nº CG-1/2026" in text
    assert SECRET not in text and SECRET not in subject(alert)
    assert domicile.alert_line(db, CG, "chapada", sent["id"]) == "alerta por e-mail: enviado em 02/03/2026 às 10:00"


def test_a_platform_alerts_each_authorized_person_with_an_active_login(db, at, monkeypatch):
    at(DAY)
    support.platform_with_agent(db)
    other_cpf = "11144477735"
    regulated_accounts.authorize_agent(db, CG, "chapada", support.PLATFORM_CNPJ, other_cpf, "Caio Agente",
                                       "caio@plataforma.exemplo")
    pending_cpf = "39053344705"  # authorized, but never activated a login
    regulated_accounts.authorize_agent(db, CG, "chapada", support.PLATFORM_CNPJ, pending_cpf, "Lia Agente",
                                       "lia@plataforma.exemplo")
    with support.smtp_server(monkeypatch) as inbox:
        activate(db, inbox, "plataforma", support.PLATFORM_CNPJ, support.AGENT_CPF, support.AGENT_EMAIL)
        activate(db, inbox, "plataforma", support.PLATFORM_CNPJ, other_cpf, "caio@plataforma.exemplo")
        regulated_accounts.revoke_agent(db, CG, "chapada", support.PLATFORM_CNPJ, other_cpf)  # no longer authorized
        inbox.messages.clear()
        deliver(db, "plataforma", support.PLATFORM_CNPJ, title="Convocação para vistoria")
        assert mail.send_pending(db) == 1
    assert [m["X-Envelope-To"] for m in inbox.messages] == [support.AGENT_EMAIL]


def test_a_domicile_opened_by_the_secretariat_alerts_the_email_it_was_opened_with(db, at, monkeypatch):
    at(DAY)
    cpf, _ = driver(db, "chapada", seed=32)
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "oficio@exemplo.com")
    with support.smtp_server(monkeypatch) as inbox:
        deliver(db, "condutor", cpf)
        assert mail.send_pending(db) == 1
    assert [m["X-Envelope-To"] for m in inbox.messages] == ["oficio@exemplo.com"]


def test_a_failing_server_is_retried_and_shown_and_the_notice_stands(db, at, monkeypatch):
    at(DAY)
    cpf, _ = driver(db, "chapada", seed=33)
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "c@exemplo.com")
    port = free_port()  # nothing listens there: the connection is refused
    monkeypatch.setenv("PAINEL_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAINEL_SMTP_PORT", str(port))
    monkeypatch.setenv("PAINEL_SMTP_STARTTLS", "0")
    sent = deliver(db, "condutor", cpf)
    assert domicile.alert_line(db, CG, "chapada", sent["id"]) == "alerta por e-mail: na fila de envio"
    assert mail.send_pending(db) == 0
    assert domicile.alert_line(db, CG, "chapada", sent["id"]) == (
        "alerta por e-mail: falhou (1 tentativa), nova tentativa em 02/03/2026 às 10:01")
    # the notice is delivered whatever the e-mail: the inbox holds it, its tacit day is the law's
    person = regulated_accounts.Person("chapada", "condutor", cpf, "", "Titular").actor
    (message,) = domicile.inbox(db, person)["items"]
    assert message["tacit_on"] == DAY + timedelta(days=notice.DEFAULT_TACIT_DAYS)
    assert message["receipt"].state == notice.WAITING
    assert mail.send_pending(db) == 0  # not due yet: no hammering
    at(DAY, 10, 1)
    mail.send_pending(db)
    assert "falhou (2 tentativas), nova tentativa em 02/03/2026 às 10:03" in domicile.alert_line(
        db, CG, "chapada", sent["id"])
    # the server comes back on that port: the next try goes
    from aiosmtpd.controller import Controller
    inbox = support.Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        at(DAY, 10, 3)
        assert mail.send_pending(db) == 1
    finally:
        controller.stop()
    assert [m["X-Envelope-To"] for m in inbox.messages] == ["c@exemplo.com"]
    assert domicile.alert_line(db, CG, "chapada", sent["id"]) == "alerta por e-mail: enviado em 02/03/2026 às 10:03"
    opened = domicile.open_message(db, person, message["id"])
    assert opened["receipt"].state == notice.OPENED and opened["opened_on"] == DAY


def test_a_message_to_nobody_with_an_email_is_still_delivered(db, at):
    at(DAY)
    cpf, _ = driver(db, "chapada", seed=34)
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "")
    sent = deliver(db, "condutor", cpf)
    assert db[mail.OUTBOX].count_documents({"purpose": domicile_alerts.PURPOSE}) == 0
    assert domicile.alert_line(db, CG, "chapada", sent["id"]) == (
        "alerta por e-mail: não enviado (sem e-mail no cadastro)")
