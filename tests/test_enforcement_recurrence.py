"""Recurrence counts only decisions no longer open to appeal, and falls with the earlier auto: a later
auto that relied on an auto annulled on appeal is flagged in the work queue and recalculated before a
penalty (CG Decreto 06/2026 art. 25 and art. 29 §1; MP Lei 1.552/2025 art. 25 §4; issue 23, item 3)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from services.ridehailing import work_queue
from services.ridehailing.enforcement import assessment, autos, lavratura, penalties, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared.errors import Conflict, ServiceError
from tests.enforcement_support import active_authorization, decided, definitive, driver, lavrado
from tests.ridehailing_data import ACTORS

CG, MP = ACTORS["chapada"], ACTORS["matupa"]


def test_a_decision_inside_its_appeal_term_does_not_count_yet(db, today):
    """CG art. 25 caput: the offender may still appeal; the day after the term the decision counts."""
    cpf, _ = driver(db, "chapada", seed=2)
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    decided_on = decided(db, today, "chapada", first, date(2026, 3, 2))
    last = autos.appeal_deadline(db, "chapada", autos._load(db, "chapada", first))
    second = lavrado(db, today, "chapada", "CG-29-IV", decided_on + timedelta(days=1), cpf)
    shown = autos.get(db, CG, "chapada", second)
    assert not shown["recurrent"] and shown["recurrence_of"] is None and shown["suspension_days"] is None
    for on, recurrent in ((last, False), (last + timedelta(days=1), True)):
        today.set(on)
        preview = assessment.assess(db, CG, "chapada", AutoInput(target_kind="driver", driver_cpf=cpf,
                                                                 infraction_code="CG-29-IV", committed_on=on))
        assert preview["recurrent"] is recurrent, on


@pytest.mark.parametrize("municipality, code, base", [
    pytest.param("matupa", "MP-12-III", "leve", id="MP art. 25 II: a leve repeated is charged as média"),
])
def test_an_appeal_pending_on_the_earlier_auto_keeps_it_from_counting(db, today, municipality, code, base):
    cpf, _ = driver(db, municipality, seed=3)
    first = lavrado(db, today, municipality, code, date(2026, 3, 4), cpf)
    decided_on = decided(db, today, municipality, first, date(2026, 3, 4))
    process.file_appeal(db, MP, municipality, first, filed_on=decided_on, by="Advogado",
                        summary="Não estava em serviço")
    today.set(date(2026, 7, 1))  # long after the term: the appeal, not the term, holds it
    second = lavrado(db, today, municipality, "MP-12-IX", date(2026, 7, 1), cpf)
    assert autos.get(db, MP, municipality, second)["severity"] == base


def test_an_earlier_auto_annulled_on_appeal_flags_the_later_one_before_its_penalty(db, today):
    auth, cpf, _ = active_authorization(db, today, "chapada")
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    counts_from = definitive(db, today, "chapada", first, date(2026, 3, 2))
    second = lavrado(db, today, "chapada", "CG-29-IV", counts_from, cpf)
    assert autos.get(db, CG, "chapada", second)["recurrence_of"]["id"] == first
    decided(db, today, "chapada", second, counts_from)
    # a late appeal against the first auto, annulled: the recurrence of the second falls with it
    process.file_appeal(db, CG, "chapada", first, filed_on=today.value, by="Defensor", summary="Prova nova")
    process.decide_appeal(db, CG, "chapada", first, outcome="anulado", reasons="Prova nova afasta a infração",
                          authority="Secretário de Finanças", decided_on=today.value)
    flagged = autos.get(db, CG, "chapada", second)
    assert flagged["recurrence_review"]["open"] and flagged["recurrence_review"]["prior_number"] == "0001/2026"
    queue = [p for p in work_queue.pendencias(db, CG, "chapada", today.value) if p.kind == "Rever reincidência"]
    assert [(p.protocol, p.due) for p in queue] == [("Auto 0002/2026", today.value)]
    assert "0001/2026" in queue[0].message and "art. 25" in queue[0].reference
    with pytest.raises(ServiceError, match="Reincidência a rever"):
        penalties.apply_sanction(db, CG, "chapada", second, penalty="suspensão da autorização", start=today.value)
    with pytest.raises(ServiceError, match="Reincidência a rever"):
        penalties.issue_fine_dam(db, CG, "chapada", second)
    reviewed = lavratura.review_recurrence(db, CG, "chapada", second)
    assert (reviewed["recurrent"], reviewed["recurrence_of"], reviewed["suspension_days"]) == (False, None, None)
    shown = autos.get(db, CG, "chapada", second)
    assert not shown["recurrence_review"]["open"] and shown["decision"]["penalties"] == ["multa"]
    assert shown["decision"]["fine_amount"] == Decimal("3000.00") and shown["recurrence_of"] is None
    assert not [p for p in work_queue.pendencias(db, CG, "chapada", today.value) if p.kind == "Rever reincidência"]
    with pytest.raises(ServiceError):  # the suspension is no longer in the decision
        penalties.apply_sanction(db, CG, "chapada", second, penalty="suspensão da autorização", start=today.value)
    today.set(autos.appeal_deadline(db, "chapada", autos._load(db, "chapada", second)) + timedelta(days=1))
    assert penalties.issue_fine_dam(db, CG, "chapada", second)["amount"] == Decimal("3000.00")
    with pytest.raises(Conflict):
        lavratura.review_recurrence(db, CG, "chapada", second)
