"""Issue 36 item 2: the convocation to an extraordinary vistoria and the renewal reminder delivered to the
electronic domicile, each only to an addressee with an active one (CG Decreto 06/2026 art. 17 §1 and art. 9
§1–2; MP Lei 1.552/2025 art. 15 §1 and art. 3 §ú; docs/LEITURAS.md, seção 7, leitura 30)."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest

from services.ridehailing import authorizations, convocation_delivery, registry, renewal_reminders
from services.shared import clock, domicile, parameters
from services.shared.regulated_accounts import Person
from tests.authenticity_support import verified
from tests import portal_support as support
from tests.enforcement_support import active_authorization
from tests.ridehailing_data import ACTORS
from services.store import parse_date
from tests.test_bookings_charges import pdf_text

CG = ACTORS["chapada"]


@pytest.fixture
def at(monkeypatch, today):
    def move(day: date, hour: int = 10) -> None:
        moment = datetime.combine(day, time(hour), clock.LOCAL_TZ)
        today.set(day)
        monkeypatch.setattr(clock, "now_utc", lambda: moment.astimezone(clock.timezone.utc))
    return move


def inbox(db, kind: str, document: str) -> list[dict]:
    return domicile.inbox(db, Person("chapada", kind, document, "" if kind == "condutor" else support.AGENT_CPF,
                                     "Titular").actor)["items"]


def test_the_convocation_goes_to_the_driver_and_a_copy_to_his_platform(db, today, at):
    auth, cpf, _ = active_authorization(db, today, "chapada")
    support.platform_with_agent(db)
    db["drivers"].update_one({"cpf": cpf}, {"$set": {"platform_cnpj": support.PLATFORM_CNPJ}})
    at(date(2026, 3, 10))
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "c@exemplo.com")
    domicile.open_domicile(db, CG, "chapada", "plataforma", support.PLATFORM_CNPJ, "p@exemplo.com")
    deadline, sent = convocation_delivery.call_and_deliver(db, CG, "chapada", auth, date(2026, 3, 10), "Denúncia")
    number = authorizations.get_authorization(db, CG, "chapada", auth)["convocation"]["number"]
    assert sorted(m["kind"] for m in sent) == ["condutor", "plataforma"]
    (driver_message,) = inbox(db, "condutor", cpf)
    assert driver_message["title"] == f"Convocação para vistoria extraordinária nº {number}"
    (copy,) = inbox(db, "plataforma", support.PLATFORM_CNPJ)
    assert copy["title"].endswith("(cópia à plataforma)")
    opened = domicile.open_message(db, Person("chapada", "condutor", cpf, "", "T").actor, driver_message["id"])
    text = pdf_text(domicile.message_pdf(db, Person("chapada", "condutor", cpf, "", "T").actor, opened["id"]))
    assert "CONVOCAÇÃO PARA VISTORIA EXTRAORDINÁRIA" in text and f"até {deadline:%d/%m/%Y}" in text
    # the deadline is the rule's, from the convocation, whatever the receipt
    book = parameters.book(db, "chapada")
    assert deadline == registry.rules_of("chapada").convocation_deadline(
        date(2026, 3, 10), book, parameters.calendar(db, "chapada", date(2026, 3, 10)))
    assert convocation_delivery.deliver(db, CG, "chapada", auth) == []  # once per convocation and addressee


def test_without_a_domicile_the_convocation_is_only_printed_as_before(db, today, at):
    auth, _cpf, _ = active_authorization(db, today, "chapada")
    at(date(2026, 3, 10))
    _deadline, sent = convocation_delivery.call_and_deliver(db, CG, "chapada", auth, date(2026, 3, 10))
    assert sent == [] and db["domicile_messages"].count_documents({}) == 0
    assert authorizations.get_authorization(db, CG, "chapada", auth)["convocation"]


def test_the_renewal_reminder_goes_once_per_authorization_and_year(db, today, at):
    """CG art. 9 §1: valid until 31/12; §2: renewal requested 15 business days before."""
    auth, cpf, _ = active_authorization(db, today, "chapada")
    doc = authorizations.get_authorization(db, CG, "chapada", auth)
    assert parse_date(doc["valid_until"]) == date(2026, 12, 31)
    request_by = registry.rules_of("chapada").renewal_deadline(
        date(2026, 12, 31), parameters.book(db, "chapada"), parameters.calendar(db, "chapada", date(2026, 12, 31)))
    first_day = request_by - timedelta(days=renewal_reminders.REMINDER_DAYS)
    at(first_day - timedelta(days=1))
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "c@exemplo.com")
    assert renewal_reminders.due_reminders(db, CG, "chapada", today.value) == []
    at(first_day)
    (due,) = renewal_reminders.due_reminders(db, CG, "chapada", first_day)
    assert (due.authorization_id, due.request_by, due.valid_until) == (auth, request_by, date(2026, 12, 31))
    assert renewal_reminders.send_reminders(db, CG, "chapada", first_day) == 1
    (message,) = inbox(db, "condutor", cpf)
    assert message["title"] == f"Renovação da autorização nº {doc['number']}: pedir até {request_by:%d/%m/%Y}"
    at(first_day + timedelta(days=5))
    assert renewal_reminders.send_reminders(db, CG, "chapada", today.value) == 0  # idempotent
    person = Person("chapada", "condutor", cpf, "", "T").actor
    domicile.open_message(db, person, message["id"])
    pdf = domicile.message_pdf(db, person, message["id"])
    answer = verified(db, pdf)  # issued with its authentication code (issue 37)
    assert (answer.kind, answer.same_bytes) == ("Lembrete de renovação da autorização", True)
    text = pdf_text(pdf)
    assert "vence em 31/12/2026" in text and f"requerida até {request_by:%d/%m/%Y}" in text and "art. 9" in text


def test_no_reminder_without_a_domicile(db, today, at):
    auth, _cpf, _ = active_authorization(db, today, "chapada")
    at(date(2026, 12, 1))
    assert renewal_reminders.due_reminders(db, CG, "chapada", date(2026, 12, 1)) == []
    assert renewal_reminders.send_reminders(db, CG, "chapada", date(2026, 12, 1)) == 0


def test_the_authorization_shows_its_messages_with_receipt_and_alert(db, today, at):
    auth, cpf, _ = active_authorization(db, today, "chapada")
    at(date(2026, 3, 10))
    domicile.open_domicile(db, CG, "chapada", "condutor", cpf, "c@exemplo.com")
    convocation_delivery.call_and_deliver(db, CG, "chapada", auth, date(2026, 3, 10))
    (shown,) = convocation_delivery.delivered(db, CG, "chapada", auth)
    assert shown["kind"] == "condutor" and shown["title"].startswith("Convocação para vistoria extraordinária nº")
    assert shown["receipt"] == "Entregue em 10/03/2026; aguardando ciência (tácita em 25/03/2026 se não for aberta)"
    assert shown["alert"] == "alerta por e-mail: na fila de envio"
