"""A cassação decided in Matupá (MP Lei 1.552/2025 art. 26 VI) takes effect only when the decision is
final (art. 23 §2, art. 25 §4): scheduled while it may be appealed, lifted by an appeal filed in time,
applied or dropped by the appeal's decision; the public check, the registry and the queue follow it."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services.ridehailing import authorization_lists, authorizations, public_check, work_queue
from services.ridehailing.enforcement import autos, documents, penalties, process
from tests.enforcement_support import active_authorization, decided, lavrado
from tests.pdf.test_auto_pdf import text as pdf_text
from tests.ridehailing_data import ACTORS

MP = ACTORS["matupa"]
CASSACAO = "cassação da autorização"


def _cassacao_decided(db, today) -> tuple[str, str, date, date]:
    """(authorization, auto, decision day, first day the decision is final) with the cassação scheduled."""
    auth, cpf, _ = active_authorization(db, today, "matupa")
    auto_id = lavrado(db, today, "matupa", "MP-26-VI", date(2026, 3, 2), cpf)
    decided_on = decided(db, today, "matupa", auto_id, date(2026, 3, 2))
    final = autos.appeal_deadline(db, "matupa", autos._load(db, "matupa", auto_id)) + timedelta(days=1)
    today.set(decided_on + timedelta(days=1))
    applied = penalties.apply_sanction(db, MP, "matupa", auto_id, penalty=CASSACAO)
    assert applied["start"] == final  # scheduled for the day the decision becomes final
    return auth, auto_id, decided_on, final


def _word(db, auth, on) -> str:
    return public_check.check(db, public_check.token_for("matupa", auth), on).status_word


def _listed(db, auth, on, status) -> bool:
    page = authorization_lists.authorization_page(db, MP, "matupa", on, status=status)
    return auth in {row.id for row in page.rows}


def _queued(db, auth, on) -> bool:
    """Whether the authorization has items in Pendências on ``on`` (a cassada one has none)."""
    work_queue.pendencias(db, MP, "matupa", on)  # computes again those whose day has come
    return db["work_queue"].count_documents({"authorization_id": auth}) > 0


def test_a_cassacao_still_open_to_appeal_leaves_the_authorization_active(db, today):
    auth, auto_id, decided_on, final = _cassacao_decided(db, today)
    assert _word(db, auth, today.value) == "válida" and _word(db, auth, final - timedelta(days=1)) == "válida"
    assert authorizations.status(db, MP, "matupa", auth, today.value).status.value == "active"
    assert _listed(db, auth, today.value, "active") and not _listed(db, auth, today.value, "cassada")
    assert _queued(db, auth, today.value)
    state = process.process_status(db, MP, "matupa", auto_id, today.value)
    assert not state["may_apply"] and state["effective_on"] == final
    assert any("sujeita a recurso" in r and "art. 25, §4º" in r for r in state["reasons"])


def test_the_term_lapsing_without_appeal_applies_the_cassacao_on_the_day_the_decision_is_final(db, today):
    auth, auto_id, _, final = _cassacao_decided(db, today)
    today.set(final)
    assert _word(db, auth, final - timedelta(days=1)) == "válida" and _word(db, auth, final) == "cassada"
    assert _listed(db, auth, final, "cassada") and not _listed(db, auth, final, "active")
    assert not _queued(db, auth, final)
    assert process.process_status(db, MP, "matupa", auto_id, final)["may_apply"]


def test_an_appeal_in_time_lifts_the_cassacao_and_keeps_its_history(db, today):
    auth, auto_id, decided_on, final = _cassacao_decided(db, today)
    filed = decided_on + timedelta(days=5)
    today.set(filed)
    process.file_appeal(db, MP, "matupa", auto_id, filed_on=filed, by="Advogado", summary="Não houve agressão")
    later = final + timedelta(days=10)
    today.set(later)
    assert _word(db, auth, later) == "válida"
    assert authorizations.status(db, MP, "matupa", auth, later).status.value == "active"
    assert _listed(db, auth, later, "active") and not _listed(db, auth, later, "cassada")
    assert _queued(db, auth, later)
    shown = autos.get(db, MP, "matupa", auto_id)
    [entry] = shown["sanctions_applied"]
    assert entry["lifted_on"] == filed and "no prazo" in entry["lifted_reason"] and shown["stage"] == "recurso"
    kinds = [e["kind"] for e in authorizations.get_authorization(db, MP, "matupa", auth)["events"]]
    assert kinds[-2:] == ["cassada", "penalty_lifted"]  # both kept: the history shows it scheduled and lifted
    state = process.process_status(db, MP, "matupa", auto_id, later)
    assert not state["may_apply"] and any("Recurso apresentado" in r for r in state["reasons"])
    case = pdf_text(documents.case_file_pdf(db, MP, "matupa", auto_id))
    assert f"afastada em {filed:%d/%m/%Y}" in case and "a penalidade fica suspensa até a decisão do recurso" in case


@pytest.mark.parametrize("outcome, word", [
    pytest.param("mantido", "cassada", id="MP art. 25 §4: appeal denied, the cassação applies from its decision"),
    pytest.param("anulado", "válida", id="MP art. 25 §4: appeal granted, the cassação is dropped"),
])
def test_the_appeals_decision_applies_or_drops_the_cassacao(db, today, outcome, word):
    auth, auto_id, decided_on, final = _cassacao_decided(db, today)
    today.set(decided_on + timedelta(days=5))
    process.file_appeal(db, MP, "matupa", auto_id, filed_on=today.value, by="Advogado",
                        summary="Não houve agressão")
    ruled_on = final + timedelta(days=20)
    today.set(ruled_on)
    process.decide_appeal(db, MP, "matupa", auto_id, outcome=outcome, reasons="Reexame das provas",
                          authority="Prefeito", decided_on=ruled_on)
    assert _word(db, auth, ruled_on - timedelta(days=1)) == "válida" and _word(db, auth, ruled_on) == word
    assert _listed(db, auth, ruled_on, "cassada") is (word == "cassada")
    assert _queued(db, auth, ruled_on) is (word == "válida")
    entries = autos.get(db, MP, "matupa", auto_id)["sanctions_applied"]
    assert entries[0]["lifted_on"] == decided_on + timedelta(days=5)  # the first stays, lifted
    if outcome == "mantido":
        assert [(e["start"], e.get("lifted_on")) for e in entries[1:]] == [(ruled_on, None)]
    else:
        assert len(entries) == 1


def test_a_late_appeal_does_not_lift_a_final_cassacao(db, today):
    auth, auto_id, _, final = _cassacao_decided(db, today)
    today.set(final + timedelta(days=3))
    appeal = process.file_appeal(db, MP, "matupa", auto_id, filed_on=today.value, by="Advogado", summary="Tardio")
    assert appeal["late"] and _word(db, auth, today.value) == "cassada"
    assert "lifted_on" not in autos.get(db, MP, "matupa", auto_id)["sanctions_applied"][0]
