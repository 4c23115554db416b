"""Autos de infração, stage by stage, and the issue's rule-driven cases (CG Decreto 06/2026; MP Lei 1.552/2025)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from services import store
from services.dam import outbox, payments
from services.ridehailing import authorizations, public_check, work_queue
from services.ridehailing.enforcement import autos, lavratura, lists, penalties, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared.errors import Conflict, ServiceError, ValidationFailed
from tests.enforcement_support import (
    active_authorization,
    decided,
    defence_deadline,
    definitive,
    driver,
    lavrado,
    notified,
    set_upfm,
)
from tests.ridehailing_data import ACTORS

CG, MP = ACTORS["chapada"], ACTORS["matupa"]


def auto(db, municipality, auto_id):
    return autos.get(db, ACTORS[municipality], municipality, auto_id)


# ---- lavratura ----

def test_a_draft_has_no_number_and_lavrar_numbers_per_municipality_and_year(db, today):
    cpf, plate = driver(db, "chapada", seed=2)
    mp_cpf, _ = driver(db, "matupa", seed=3)
    today.set(date(2026, 3, 10))
    draft = lavratura.draft_auto(db, CG, "chapada", AutoInput(target_kind="driver", driver_cpf=cpf,
                                                              infraction_code="CG-29-VI", facts="Ponto de táxi na praça",
                                                              origin="Conciliação da relação da plataforma"))
    assert auto(db, "chapada", draft)["number"] == "" and auto(db, "chapada", draft)["stage"] == "rascunho"
    first = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 9), cpf)
    lavratura.lavrar(db, CG, "chapada", AutoInput(committed_on=date(2026, 3, 9), time="08:15",
                                                  place="Praça Dom Wunibaldo", agent_registration="AF-0042"), draft)
    other = lavrado(db, today, "matupa", "MP-12-III", date(2026, 3, 9), mp_cpf)
    assert [auto(db, m, a)["number"] for m, a in (("chapada", first), ("chapada", draft), ("matupa", other))] == \
        ["0001/2026", "0002/2026", "0001/2026"]
    shown = auto(db, "chapada", draft)
    assert (shown["severity"], shown["fine_amount"], shown["stage"]) == ("grave", Decimal("3000.00"), "aguardando_notificacao")
    assert any("art. 28, III" in f["reference"] for f in shown["findings"])
    assert shown["origin"] == "Conciliação da relação da plataforma"


def test_lavrar_names_each_missing_field(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    with pytest.raises(ValidationFailed) as refused:
        lavratura.lavrar(db, CG, "chapada", AutoInput(target_kind="driver", driver_cpf=cpf, infraction_code="CG-29-I",
                                                      facts="x", committed_on=date(2026, 3, 9), time="25:00", place="",
                                                      agent_registration=""))
    assert set(refused.value.errors) == {"time", "place", "agent_registration"}
    with pytest.raises(ValidationFailed) as unknown:
        lavratura.draft_auto(db, CG, "chapada", AutoInput(target_kind="driver", driver_cpf=cpf, infraction_code="MP-27",
                                                          facts="x"))
    assert "infraction_code" in unknown.value.errors


@pytest.mark.parametrize("typed, message", [
    ("25:99", "Hora: 25 não é uma hora do dia (de 00 a 23)."),
    ("10:75", "Hora: 75 não são minutos válidos (de 00 a 59)."),
    ("10h30", "Hora: «10h30» não está no formato HH:MM (ex.: 09:40)."),
])
def test_a_wrong_time_says_what_is_wrong_with_it(db, today, typed, message):
    """Issue 22 item 8: not a vague "use HH:MM" for 25:99."""
    cpf, _ = driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    with pytest.raises(ValidationFailed) as refused:
        lavratura.lavrar(db, CG, "chapada", AutoInput(target_kind="driver", driver_cpf=cpf, infraction_code="CG-29-I",
                                                      facts="x", committed_on=date(2026, 3, 9), time=typed,
                                                      place="Praça", agent_registration="A1"))
    assert refused.value.errors == {"time": message}


def test_evidence_files_are_kept_outside_the_document(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 9), cpf,
                      evidence=[("Foto do veículo no ponto", "foto.jpg", b"\xff\xd8jpeg")])
    item = auto(db, "chapada", auto_id)["evidence"][0]
    assert store.get_file(db, item["sha256"]) == b"\xff\xd8jpeg" and item["description"] == "Foto do veículo no ponto"


def test_an_auto_against_a_platform(db, today):
    from services.shared import entities

    set_upfm(db)
    today.set(date(2026, 3, 10))
    platform = entities.create(db, CG, "platforms", "chapada", {"name": "Plataforma Teste Ltda", "cnpj": "11222333000181",
                                                                 "status": "ativo", "credentialed_on": date(2026, 1, 10)})
    auto_id = lavrado(db, today, "chapada", "CG-30", date(2026, 3, 9), target_kind="platform", platform_id=platform)
    shown = auto(db, "chapada", auto_id)
    assert (shown["offender_name"], shown["offender_document"]) == ("Plataforma Teste Ltda", "11222333000181")
    assert [r.number for r in lists.history(db, CG, "chapada", platform_id=platform)] == ["0001/2026"]


# ---- notification ----

@pytest.mark.parametrize("received, refused", [
    pytest.param(date(2026, 6, 2), False, id="MP art. 21 §1: delivered on day 90 is in time"),
    pytest.param(date(2026, 6, 3), True, id="MP art. 21 §1: delivered on day 91 is refused and the auto void"),
])
def test_matupa_notification_limit_of_90_days(db, today, received, refused):
    cpf, _ = driver(db, "matupa", seed=3)
    auto_id = lavrado(db, today, "matupa", "MP-12-III", date(2026, 3, 4), cpf)
    today.set(date(2026, 6, 10))
    call = dict(method="post", sent_on=date(2026, 5, 20), received_on=received)
    if not refused:
        process.notify(db, MP, "matupa", auto_id, **call)
        assert auto(db, "matupa", auto_id)["stage"] == "notificado"
        return
    with pytest.raises(process.DeadlineMissed) as late:
        process.notify(db, MP, "matupa", auto_id, **call)
    assert "art. 21, §1º" in late.value.message and "02/06/2026" in late.value.message
    shown = auto(db, "matupa", auto_id)
    assert (shown["status"], shown["stage"]) == ("nulo", "nulo") and "art. 21, §1º" in shown["void_reference"]
    with pytest.raises(ServiceError, match="nulo"):
        process.file_defence(db, MP, "matupa", auto_id, filed_on=date(2026, 6, 5), by="Condutor", summary="x")


def test_chapada_has_no_90_day_limit(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    today.set(date(2026, 9, 1))
    process.notify(db, CG, "chapada", auto_id, method="official_gazette", sent_on=date(2026, 8, 20),
                   received_on=date(2026, 8, 20))
    assert auto(db, "chapada", auto_id)["status"] == "lavrado"


@pytest.mark.parametrize("municipality, method, ok", [
    pytest.param("chapada", "direct", True, id="CG art. 25 §1 I: direct notification"),
    pytest.param("matupa", "direct", False, id="MP art. 21 §1: no direct notification in the list"),
    pytest.param("matupa", "electronic", True, id="MP art. 21 §1: electronic"),
])
def test_notification_method_from_the_acts_list(db, today, municipality, method, ok):
    cpf, _ = driver(db, municipality, seed=4)
    code = "CG-29-I" if municipality == "chapada" else "MP-26-I"
    auto_id = lavrado(db, today, municipality, code, date(2026, 3, 4), cpf)
    today.set(date(2026, 3, 20))
    call = lambda: process.notify(db, ACTORS[municipality], municipality, auto_id, method=method,  # noqa: E731
                                  sent_on=date(2026, 3, 5), received_on=date(2026, 3, 9))
    if ok:
        call()
    else:
        with pytest.raises(ValidationFailed) as refused:
            call()
        assert "art. 21, §1º" in refused.value.errors["method"]


def test_defence_deadline_runs_from_the_juntada(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    today.set(date(2026, 3, 20))
    notice = process.notify(db, CG, "chapada", auto_id, method="post", sent_on=date(2026, 3, 5),
                            received_on=date(2026, 3, 9), juntada_on=date(2026, 3, 12))
    assert notice["defence_deadline"] == date(2026, 4, 13)  # 30 days from 12/03 = 11/04 (Saturday) → Monday 13/04
    with pytest.raises(ValidationFailed) as refused:
        process.notify(db, CG, "chapada", auto_id, method="post", sent_on=date(2026, 3, 5),
                       received_on=date(2026, 3, 9), juntada_on=date(2026, 3, 8))
    assert "juntada_on" in refused.value.errors


# ---- defence, decision, appeal ----

def test_no_decision_upholding_the_auto_before_the_defence_period_ends(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    last = notified(db, today, "chapada", auto_id, date(2026, 3, 4))
    today.set(last + timedelta(days=5))
    with pytest.raises(ServiceError, match="Prazo de defesa") as early:
        process.decide(db, CG, "chapada", auto_id, outcome="mantido", reasons="r", authority="a", decided_on=last)
    assert "art. 25, §2º" in early.value.message
    state = process.process_status(db, CG, "chapada", auto_id, last)
    assert not state["may_apply"] and state["defence_deadline"] == last
    process.decide(db, CG, "chapada", auto_id, outcome="mantido", reasons="r", authority="a",
                   decided_on=last + timedelta(days=1))
    # upheld, the penalty waits for the decision to become final (CG art. 25 caput; LEITURAS §7)
    decided_state = process.process_status(db, CG, "chapada", auto_id, last + timedelta(days=1))
    final = decided_state["appeal_deadline"] + timedelta(days=1)
    assert not decided_state["may_apply"] and decided_state["effective_on"] == final
    assert process.process_status(db, CG, "chapada", auto_id, final)["may_apply"]


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_once_the_defence_is_filed_the_authority_may_decide_before_the_term_ends(db, today, municipality):
    """LEITURAS §1 item 33: the term exists to hear the offender; with the defence in the file the
    decision opens (and the queue asks for it) without waiting 30 days."""
    cpf, _ = driver(db, municipality, seed=2)
    actor = CG if municipality == "chapada" else MP
    code = "CG-29-I" if municipality == "chapada" else "MP-12-III"
    auto_id = lavrado(db, today, municipality, code, date(2026, 3, 4), cpf)
    last = notified(db, today, municipality, auto_id, date(2026, 3, 4))
    filed = date(2026, 3, 16)
    today.set(filed)
    assert process.process_status(db, actor, municipality, auto_id, filed)["decision_opens"] == last + timedelta(days=1)
    process.file_defence(db, actor, municipality, auto_id, filed_on=filed, by="Condutor", summary="Não estava no local")
    assert process.process_status(db, actor, municipality, auto_id, filed)["decision_opens"] == filed
    queue = {p.kind: p for p in lists.pending(db, actor, municipality, filed)}
    assert queue[lists.DECIDE].due == filed and "defesa apresentada em 16/03/2026" in queue[lists.DECIDE].message
    process.decide(db, actor, municipality, auto_id, outcome="mantido", reasons="Defesa não afasta os fatos",
                   authority="Secretário", decided_on=filed)
    final = process.process_status(db, actor, municipality, auto_id, filed)["effective_on"]
    assert process.process_status(db, actor, municipality, auto_id, final)["may_apply"]


def test_defence_filed_late_is_kept_and_flagged(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    last = notified(db, today, "chapada", auto_id, date(2026, 3, 4))
    today.set(last + timedelta(days=3))
    on_time = process.file_defence(db, CG, "chapada", auto_id, filed_on=last, by="Condutor", summary="Não estava no local",
                                   attachments=[("declaracao.pdf", b"%PDF-1.4 x")])
    assert on_time["late"] is False and store.get_file(db, on_time["attachments"][0]["sha256"]) == b"%PDF-1.4 x"
    assert auto(db, "chapada", auto_id)["stage"] == "defesa"


def test_annulled_auto_applies_no_penalty(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    decided(db, today, "chapada", auto_id, date(2026, 3, 4), outcome="anulado")
    assert auto(db, "chapada", auto_id)["stage"] == "anulado"
    with pytest.raises(ServiceError, match="já foi decidido"):
        process.notify(db, CG, "chapada", auto_id, method="post", sent_on=date(2026, 3, 5))
    with pytest.raises(penalties.PenaltyNotYet, match="anulado"):
        penalties.issue_fine_dam(db, CG, "chapada", auto_id)


def test_pending_appeal_holds_the_penalty_and_its_decision_can_reduce_the_fine(db, today):
    cpf, _ = driver(db, "matupa", seed=3)
    auto_id = lavrado(db, today, "matupa", "MP-12-I", date(2026, 3, 4), cpf)
    decided_on = decided(db, today, "matupa", auto_id, date(2026, 3, 4))
    process.file_appeal(db, MP, "matupa", auto_id, filed_on=decided_on, by="Advogado", summary="Multa excessiva")
    with pytest.raises(penalties.PenaltyNotYet, match="Recurso"):
        penalties.issue_fine_dam(db, MP, "matupa", auto_id)
    today.set(decided_on + timedelta(days=10))
    process.decide_appeal(db, MP, "matupa", auto_id, outcome="parcialmente", reasons="Primeira infração",
                          authority="Prefeito", decided_on=decided_on + timedelta(days=10),
                          fine_amount=Decimal("250.00"))
    dam = penalties.issue_fine_dam(db, MP, "matupa", auto_id)
    assert dam["amount"] == Decimal("250.00") and dam["revenue_kind"] == "multa"


# ---- fine and penalties ----

def test_fine_becomes_a_dam_and_paying_it_closes_the_fine_once(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-18-III", date(2026, 3, 4), cpf)
    with pytest.raises(penalties.PenaltyNotYet, match="não notificado"):
        penalties.issue_fine_dam(db, CG, "chapada", auto_id)
    decided(db, today, "chapada", auto_id, date(2026, 3, 4))
    with pytest.raises(penalties.PenaltyNotYet, match="sujeita a recurso"):  # CG art. 25 caput: not yet final
        penalties.issue_fine_dam(db, CG, "chapada", auto_id)
    today.set(autos.appeal_deadline(db, "chapada", autos._load(db, "chapada", auto_id)) + timedelta(days=1))
    dam = penalties.issue_fine_dam(db, CG, "chapada", auto_id)
    assert (dam["amount"], dam["pays"]["label"]) == (Decimal("2000.00"), "Auto nº 0001/2026")
    assert dam["due_on"] >= today.value + timedelta(days=30)
    with pytest.raises(Conflict):
        penalties.issue_fine_dam(db, CG, "chapada", auto_id)
    payments.record_payment(db, CG, "chapada", dam["id"], today.value, dam["amount"], "Banco do Brasil")
    shown = auto(db, "chapada", auto_id)
    assert shown["fine_dam"]["paid"] is True and shown["stage"] == "multa_paga"
    penalties.fine_paid(db, dam["charge_id"])  # a second run changes nothing
    assert db["audit"].count_documents({"collection": "autos", "action": "fine_paid"}) == 1
    assert outbox.resume_pending(db) == 0


def test_second_street_boarding_in_chapada_suspends_30_days_and_the_public_check_is_valid_on_day_31(db, today):
    auth, cpf, plate = active_authorization(db, today, "chapada")
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    counts_from = definitive(db, today, "chapada", first, date(2026, 3, 2))
    second = lavrado(db, today, "chapada", "CG-29-IV", counts_from, cpf)
    shown = auto(db, "chapada", second)
    assert shown["suspension_days"] == 30 and "suspensão da autorização" in shown["penalties"]
    assert shown["recurrence_of"]["number"] == "0001/2026"
    assert any("art. 29, §1º" in f["reference"] for f in shown["findings"])
    decided(db, today, "chapada", second, counts_from)
    start = autos.appeal_deadline(db, "chapada", autos._load(db, "chapada", second)) + timedelta(days=1)
    applied = penalties.apply_sanction(db, CG, "chapada", second, penalty="suspensão da autorização")
    assert (applied["start"], applied["until"]) == (start, start + timedelta(days=29))
    token = public_check.token_for("chapada", auth)
    words = [public_check.check(db, token, start + timedelta(days=n)).status_word for n in (-1, 0, 29, 30)]
    assert words == ["válida", "suspensa", "suspensa", "válida"]


def test_a_suspended_drivers_later_auto_counts_the_recurrence(db, today):
    auth, cpf, _ = active_authorization(db, today, "chapada")
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    counts_from = definitive(db, today, "chapada", first, date(2026, 3, 2))
    second = lavrado(db, today, "chapada", "CG-29-IV", counts_from, cpf)
    start = definitive(db, today, "chapada", second, counts_from)
    penalties.apply_sanction(db, CG, "chapada", second, penalty="suspensão da autorização", start=start)
    assert authorizations.status(db, CG, "chapada", auth, start).status.value == "suspended"
    third = lavrado(db, today, "chapada", "CG-29-IV", start + timedelta(days=3), cpf)
    shown = auto(db, "chapada", third)
    # the suspension runs once the second decision is final: that one, the latest, makes the recurrence
    assert shown["recurrent"] and shown["recurrence_of"]["number"] == "0002/2026" and shown["suspension_days"] == 30
    rows = lists.history(db, CG, "chapada", driver_cpf=cpf)
    assert [(r.number, r.recurrence_of.split(" de ")[0]) for r in rows] == \
        [("0001/2026", ""), ("0002/2026", "Auto nº 0001/2026"), ("0003/2026", "Auto nº 0002/2026")]


@pytest.mark.parametrize("decide_first, severity, amount", [
    pytest.param(True, "média", Decimal("500.00"), id="MP art. 25 II: second leve within 12 months is média"),
    pytest.param(False, "leve", Decimal("200.00"), id="MP art. 25 §4: an undecided earlier auto does not count"),
])
def test_second_leve_in_matupa_within_12_months_is_charged_as_media(db, today, decide_first, severity, amount):
    cpf, _ = driver(db, "matupa", seed=3)
    first = lavrado(db, today, "matupa", "MP-12-III", date(2026, 3, 4), cpf)
    if decide_first:
        decided(db, today, "matupa", first, date(2026, 3, 4))
    second = lavrado(db, today, "matupa", "MP-12-IX", date(2026, 6, 1), cpf)
    shown = auto(db, "matupa", second)
    assert (shown["base_severity"], shown["severity"], shown["fine_amount"]) == ("leve", severity, amount)
    assert (shown["recurrence_of"] or {}).get("number") == ("0001/2026" if decide_first else None)


def test_penalty_not_in_the_decision_is_refused_and_cassacao_ends_the_authorization(db, today):
    auth, cpf, _ = active_authorization(db, today, "matupa")
    auto_id = lavrado(db, today, "matupa", "MP-26-VI", date(2026, 3, 2), cpf)
    decided(db, today, "matupa", auto_id, date(2026, 3, 2))
    with pytest.raises(ServiceError, match="não aplica"):
        penalties.apply_sanction(db, MP, "matupa", auto_id, penalty="suspensão da autorização", start=today.value)
    with pytest.raises(penalties.PenaltyNotYet, match="sujeita a recurso"):  # MP art. 25 §4: not before final
        penalties.apply_sanction(db, MP, "matupa", auto_id, penalty="cassação da autorização", start=today.value)
    applied = penalties.apply_sanction(db, MP, "matupa", auto_id, penalty="cassação da autorização")
    assert applied["start"] > today.value
    assert authorizations.status(db, MP, "matupa", auth, today.value).status.value == "active"
    assert authorizations.status(db, MP, "matupa", auth, applied["start"]).status.value == "cassada"
    item = penalties.record_measure(db, MP, "matupa", auto_id, measure="apreensão do veículo até a regularização",
                                    on=today.value, by="Agente AF-0042")
    assert item["by"] == "Agente AF-0042" and auto(db, "matupa", auto_id)["measures_applied"][0]["on"] == today.value


# ---- the queue ----

def test_pending_lists_the_matupa_limit_defences_decisions_and_overdue_fines(db, today):
    cpf, _ = driver(db, "matupa", seed=3)
    waiting = lavrado(db, today, "matupa", "MP-12-III", date(2026, 3, 4), cpf)
    fined = lavrado(db, today, "matupa", "MP-26-I", date(2026, 3, 4), cpf)
    definitive(db, today, "matupa", fined, date(2026, 3, 4))
    dam = penalties.issue_fine_dam(db, MP, "matupa", fined)
    later = dam["due_on"] + timedelta(days=1)
    queue = [p for p in work_queue.pendencias(db, MP, "matupa", later) if p.protocol.startswith("Auto")]
    by_kind = {p.kind: p for p in queue}
    assert by_kind["Notificar auto"].due == date(2026, 6, 2) and "art. 21, §1º" in by_kind["Notificar auto"].reference
    assert by_kind["Multa"].late and dam["number"] in by_kind["Multa"].message
    assert waiting


def test_export_lists_what_the_filter_shows(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    lavrado(db, today, "chapada", "CG-29-VI", date(2026, 3, 5), cpf)
    text = lists.export_csv(db, CG, "chapada", search="CG-29-VI").decode("utf-8-sig")
    assert "CG-29-VI" in text and "CG-29-I;" not in text
    assert lists.export_xlsx(db, CG, "chapada")[:2] == b"PK"


def test_pending_lists_defences_running_decisions_due_and_suspensions_ending(db, today):
    auth, cpf, _ = active_authorization(db, today, "chapada")
    other, _ = driver(db, "chapada", seed=5)
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    counts_from = definitive(db, today, "chapada", first, date(2026, 3, 2))
    second = lavrado(db, today, "chapada", "CG-29-IV", counts_from, cpf)
    definitive(db, today, "chapada", second, counts_from)
    applied = penalties.apply_sanction(db, CG, "chapada", second, penalty="suspensão da autorização", start=today.value)
    running = lavrado(db, today, "chapada", "CG-29-I", today.value - timedelta(days=10), other)
    last = notified(db, today, "chapada", running, today.value - timedelta(days=10))
    queue = {p.kind: p for p in work_queue.pendencias(db, CG, "chapada", today.value)
             if p.protocol.startswith("Auto")}
    assert queue["Prazo de defesa"].due == last and "art. 25, §2º" in queue["Prazo de defesa"].reference
    assert queue["Suspensão (auto)"].due == applied["until"]
    later = {p.kind: p for p in work_queue.pendencias(db, CG, "chapada", last + timedelta(days=1))
             if p.protocol.startswith("Auto")}
    assert later["Decidir auto"].late is False and later["Decidir auto"].due == last + timedelta(days=1)
    assert defence_deadline(db, "chapada", today.value) >= today.value


def test_a_draft_is_lavrado_once(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    draft = lavratura.draft_auto(db, CG, "chapada", AutoInput(target_kind="driver", driver_cpf=cpf,
                                                              infraction_code="CG-29-I",
                                                              facts="Não compareceu à vistoria", origin="Conciliação"))
    values = AutoInput(committed_on=date(2026, 3, 9), time="08:15", place="Sede", agent_registration="AF-0042")
    lavratura.lavrar(db, CG, "chapada", values, draft)
    with pytest.raises(Conflict, match="já foi lavrado"):
        lavratura.lavrar(db, CG, "chapada", values, draft)
    assert db["counters"].find_one({"_id": "chapada/auto/2026"})["seq"] == 1


def test_an_auto_against_a_vehicle_counts_recurrence_by_plate_and_bills_its_driver(db, today):
    cpf, plate = driver(db, "matupa", seed=3)
    first = lavrado(db, today, "matupa", "MP-12-XV", date(2026, 3, 4), plate=plate, target_kind="vehicle")
    counts_from = definitive(db, today, "matupa", first, date(2026, 3, 4))
    second = lavrado(db, today, "matupa", "MP-12-XVII", counts_from, plate=plate, target_kind="vehicle")
    shown = auto(db, "matupa", second)
    assert (shown["severity"], shown["recurrence_of"]["number"]) == ("média", "0001/2026")
    assert shown["offender_document"] == cpf


def test_the_platform_is_notified_apart_and_its_notice_opens_no_defence(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 4), cpf)
    today.set(date(2026, 3, 20))
    process.notify(db, CG, "chapada", auto_id, method="electronic", sent_on=date(2026, 3, 5),
                   received_on=date(2026, 3, 6), juntada_on=date(2026, 3, 7), recipient="plataforma")
    shown = auto(db, "chapada", auto_id)
    assert shown["platform_notification"]["received_on"] == date(2026, 3, 6)
    assert shown["stage"] == "aguardando_notificacao" and not shown.get("notification")
