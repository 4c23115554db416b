"""Issue 36 item 2: an auto's decision delivered to the offender's electronic domicile, and the appeal term
run from its receipt — the opening, or the tacit day (CG Decreto 06/2026 art. 25 §1 "iniciando-se o prazo
para reconsideração ou recurso" and §2; MP Lei 1.552/2025 art. 21 §2 and art. 25 §4; Decreto 70.235/1972
art. 23 §2 III; docs/LEITURAS.md, seção 7, leitura 29)."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest

from rules.ridehailing.process import Effect
from services.ridehailing.enforcement import autos, decision_notice, documents, penalties, process
from services.shared import clock, domicile
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.regulated_accounts import Person
from tests.authenticity_support import verified
from tests.enforcement_support import active_authorization, decided, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_bookings_charges import pdf_text

MP = ACTORS["matupa"]
AUTO_ON = date(2026, 3, 2)
CASSACAO = "cassação da autorização"


@pytest.fixture
def at(monkeypatch, today):
    """``at(day)``: the panel's today and instant (10:00 in Cuiabá) on ``day``."""
    def move(day: date, hour: int = 10) -> None:
        moment = datetime.combine(day, time(hour), clock.LOCAL_TZ)
        today.set(day)
        monkeypatch.setattr(clock, "now_utc", lambda: moment.astimezone(clock.timezone.utc))
    return move


def term_from(db, start: date) -> date:
    """The appeal term's last day counted from ``start`` (the defence's 30 days, end on a business day)."""
    from services.shared import parameters
    return parameters.calendar(db, "matupa", start).add_days(start, 30)


def decided_with_domicile(db, today, at) -> tuple[str, str, date]:
    """(auto, CPF, decision day): a cassação decided in Matupá against a driver with a domicile; delivered
    to the domicile the day after the decision."""
    _auth, cpf, _ = active_authorization(db, today, "matupa")
    auto_id = lavrado(db, today, "matupa", "MP-26-VI", AUTO_ON, cpf)
    decided_on = decided(db, today, "matupa", auto_id, AUTO_ON)
    at(decided_on + timedelta(days=1))
    domicile.open_domicile(db, MP, "matupa", "condutor", cpf, "condutor@exemplo.com")
    return auto_id, cpf, decided_on


def person(cpf: str):
    return Person("matupa", "condutor", cpf, "", "Titular").actor


def test_opened_on_day_3_the_appeal_term_runs_from_day_3(db, today, at):
    auto_id, cpf, decided_on = decided_with_domicile(db, today, at)
    delivered = decided_on + timedelta(days=1)
    assert decision_notice.available(db, MP, "matupa", auto_id)
    sent = decision_notice.notify_decision(db, MP, "matupa", auto_id)
    assert sent["sent_on"] == delivered and sent["tacit_on"] == delivered + timedelta(days=15)
    assert not decision_notice.available(db, MP, "matupa", auto_id)
    # awaiting ciência: no appeal term yet, and no penalty may take effect — even past the old term
    old_term = term_from(db, decided_on)
    state = process.process_status(db, MP, "matupa", auto_id, delivered)
    assert state["appeal_deadline"] is None and state["awaiting_decision_notice"]
    assert state["effect"].effect is Effect.SCHEDULED and state["effective_on"] is None
    assert any("aguardando a ciência do infrator" in r for r in state["reasons"])
    with pytest.raises(penalties.PenaltyNotYet):
        penalties.apply_sanction(db, MP, "matupa", auto_id, penalty=CASSACAO)
    opened_on = delivered + timedelta(days=3)
    at(opened_on)
    (message,) = domicile.inbox(db, person(cpf))["items"]
    assert message["title"] == f"Decisão do Auto de Infração nº {autos._load(db, 'matupa', auto_id)['number']}"
    domicile.open_message(db, person(cpf), message["id"])
    doc = autos.get(db, MP, "matupa", auto_id)
    recorded = doc["decision_notification"]
    assert (recorded["received_on"], recorded["juntada_on"], recorded["receipt"]) == (opened_on, opened_on, "aberta")
    term = term_from(db, opened_on)
    assert recorded["appeal_deadline"] == term and term > old_term
    state = process.process_status(db, MP, "matupa", auto_id, opened_on)
    assert state["appeal_deadline"] == term and state["effective_on"] == term + timedelta(days=1)
    # an appeal after the old term (from the decision) but within the new one is in time
    filed = old_term + timedelta(days=1)
    at(filed)
    appeal = process.file_appeal(db, MP, "matupa", auto_id, filed_on=filed, by="Advogado", summary="Recorre")
    assert appeal["late"] is False
    assert process.process_status(db, MP, "matupa", auto_id, filed)["effect"].effect is Effect.SUSPENDED


def test_never_opened_the_term_runs_from_the_tacit_day_without_a_write(db, today, at):
    auto_id, _cpf, decided_on = decided_with_domicile(db, today, at)
    sent = decision_notice.notify_decision(db, MP, "matupa", auto_id)
    tacit = sent["tacit_on"]
    version = autos._load(db, "matupa", auto_id)["version"]
    before = process.process_status(db, MP, "matupa", auto_id, tacit - timedelta(days=1))
    assert before["appeal_deadline"] is None
    state = process.process_status(db, MP, "matupa", auto_id, tacit)
    assert state["appeal_deadline"] == term_from(db, tacit) == sent["tacit_appeal_deadline"]
    final = state["appeal_deadline"] + timedelta(days=1)
    assert process.process_status(db, MP, "matupa", auto_id, final)["effect"].effect is Effect.APPLIED
    assert autos._load(db, "matupa", auto_id)["version"] == version  # nothing written on the tacit day
    case = pdf_text(documents.case_file_pdf(db, MP, "matupa", auto_id, tacit))
    assert f"ciência tácita em {tacit:%d/%m/%Y}" in case and "contado da ciência da decisão" in case
    assert "alerta por e-mail: na fila de envio" in case  # no SMTP server in this test: it waits, shown


def test_the_notice_says_what_was_decided_and_when_the_term_starts(db, today, at):
    auto_id, cpf, decided_on = decided_with_domicile(db, today, at)
    decision_notice.notify_decision(db, MP, "matupa", auto_id)
    (message,) = domicile.inbox(db, person(cpf))["items"]
    domicile.open_message(db, person(cpf), message["id"])
    pdf = domicile.message_pdf(db, person(cpf), message["id"])
    answer = verified(db, pdf)  # issued with its authentication code (issue 37)
    assert (answer.kind, answer.same_bytes) == ("Notificação da decisão do auto de infração", True)
    text = pdf_text(pdf)
    assert "NOTIFICAÇÃO DA DECISÃO" in text and "NOTIFICADO da decisão de primeira instância" in text
    assert f"em {decided_on:%d/%m/%Y}" in text and "Cabe recurso administrativo no prazo de 30 dias" in text
    assert "15 dias após a entrega" in text


def test_without_a_domicile_nothing_changes_the_term_counts_from_the_decision(db, today, at):
    _auth, cpf, _ = active_authorization(db, today, "matupa")
    auto_id = lavrado(db, today, "matupa", "MP-26-VI", AUTO_ON, cpf)
    decided_on = decided(db, today, "matupa", auto_id, AUTO_ON)
    at(decided_on)
    assert not decision_notice.available(db, MP, "matupa", auto_id)
    with pytest.raises(ValidationFailed):
        decision_notice.notify_decision(db, MP, "matupa", auto_id)
    assert process.process_status(db, MP, "matupa", auto_id, decided_on)["appeal_deadline"] == term_from(
        db, decided_on)
    assert db["domicile_messages"].count_documents({}) == 0


def test_a_second_delivery_and_one_before_the_decision_are_refused(db, today, at):
    auto_id, cpf, _ = decided_with_domicile(db, today, at)
    decision_notice.notify_decision(db, MP, "matupa", auto_id)
    with pytest.raises(ServiceError, match="já foi entregue"):
        decision_notice.notify_decision(db, MP, "matupa", auto_id)
    undecided = lavrado(db, today, "matupa", "MP-27", today.value, cpf)
    with pytest.raises(ServiceError, match="não tem decisão"):
        decision_notice.notify_decision(db, MP, "matupa", undecided)
