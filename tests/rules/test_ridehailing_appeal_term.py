"""When the appeal term against a decision starts: from the receipt (juntada) of the decision's notification
when one was delivered, else from the decision (docs/LEITURAS.md, seção 7, leituras 12 e 28); and a
decision whose notification awaits ciência takes no effect."""
from __future__ import annotations

from datetime import date

import pytest

from rules.calendar import LegalCalendar
from rules.ridehailing.process import Effect, Ruling, appeal_deadline, penalty_effect

CAL = LegalCalendar()
DECIDED = date(2026, 4, 10)  # a Friday
DAYS = 30
CG = "Decreto 06/2026 (Chapada dos Guimarães), art. 25, §1º e §2º"
MP = "Lei 1.552/2025 (Matupá), art. 21, §2º e art. 25, §4º"


@pytest.mark.parametrize("delivered, received, expected", [
    pytest.param(False, None, date(2026, 5, 11),
                 id="leitura 12: no notification of the decision delivered: 30 days from the decision "
                    "(10/05 a Sunday: moved to Monday 11/05, Lei 9.784/1999 art. 66 §1)"),
    pytest.param(True, None, None,
                 id="CG art. 25 §1 caput: delivered, not yet received: the offender is not notified, no term"),
    pytest.param(True, date(2026, 4, 14), date(2026, 5, 14),
                 id="CG art. 25 §2; MP art. 21 §2: opened on 14/04 and joined that day: 30 days from 14/04"),
    pytest.param(True, date(2026, 4, 26), date(2026, 5, 26),
                 id="Decreto 70.235 art. 23 §2 III a: never opened, tacit on 26/04: 30 days from the tacit day"),
    pytest.param(True, date(2026, 4, 10), date(2026, 5, 11),
                 id="MP art. 25 §4: received on the decision's own day: the same term as from the decision"),
])
def test_the_appeal_term_starts_at_the_decision_notice_s_receipt(delivered, received, expected):
    assert appeal_deadline(DECIDED, DAYS, CAL, notice_delivered=delivered, notice_received_on=received) == expected


def test_no_decision_no_term():
    assert appeal_deadline(None, DAYS, CAL, notice_delivered=True, notice_received_on=date(2026, 4, 14)) is None


@pytest.mark.parametrize("ruling, on, effect, effective_on", [
    pytest.param(Ruling("mantido", DECIDED, None, awaiting_notice=True), date(2026, 6, 30), Effect.SCHEDULED, None,
                 id=f"{CG}: awaiting ciência of the decision, never final, whatever the day"),
    pytest.param(Ruling("mantido", DECIDED, None, date(2026, 4, 20), awaiting_notice=True), date(2026, 4, 20),
                 Effect.SUSPENDED, None,
                 id=f"{MP}: an appeal filed before the ciência is in time and holds the penalty"),
    pytest.param(Ruling("mantido", DECIDED, date(2026, 5, 14)), date(2026, 5, 14), Effect.SCHEDULED,
                 date(2026, 5, 15), id=f"{CG}: received on 14/04: final the day after the term from the receipt"),
    pytest.param(Ruling("mantido", DECIDED, date(2026, 5, 14)), date(2026, 5, 15), Effect.APPLIED,
                 date(2026, 5, 15), id=f"{MP}: the term from the receipt lapsed: applied"),
    pytest.param(Ruling("anulado", DECIDED, None, awaiting_notice=True), date(2026, 4, 11), Effect.DROPPED, None,
                 id=f"{CG}: annulled: dropped, notified or not"),
])
def test_a_decision_awaiting_its_notice_takes_no_effect(ruling, on, effect, effective_on):
    found = penalty_effect(ruling, on, "ref")
    assert (found.effect, found.effective_on) == (effect, effective_on)
