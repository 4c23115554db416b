"""When a decided penalty takes effect: the day the decision becomes final, held by an appeal filed in
time, applied or dropped by the appeal's decision (CG Decreto 06/2026 art. 25 caput; MP Lei 1.552/2025
art. 23 §2 and art. 25 §4)."""
from __future__ import annotations

from datetime import date

import pytest

from rules.ridehailing.process import Effect, Ruling, penalty_effect

DECIDED, TERM = date(2026, 4, 10), date(2026, 5, 11)  # decided; last day of its appeal term
FINAL = date(2026, 5, 12)  # the day after the term: the decision is final
REF = "Lei 1.552/2025 (Matupá), art. 23, §2º e art. 25, §4º"
CASSACAO, SUSPENSAO = "cassação da autorização", "suspensão da autorização"
BOTH = ("multa", CASSACAO)


@pytest.mark.parametrize("ruling, on, penalty, effect, effective_on", [
    pytest.param(Ruling(None, None, None), date(2026, 4, 1), None, Effect.PENDING, None,
                 id="MP art. 25 §4: no decision, no penalty"),
    pytest.param(Ruling("mantido", DECIDED, TERM), date(2026, 4, 11), None, Effect.SCHEDULED, FINAL,
                 id="CG art. 25 caput: the day after the decision, open to appeal: scheduled for the final day"),
    pytest.param(Ruling("mantido", DECIDED, TERM), TERM, None, Effect.SCHEDULED, FINAL,
                 id="MP art. 25 §4: on the last day of the appeal term still scheduled"),
    pytest.param(Ruling("mantido", DECIDED, TERM), FINAL, None, Effect.APPLIED, FINAL,
                 id="CG art. 25 caput: the term lapsed with no appeal: applied on the day the decision is final"),
    pytest.param(Ruling("parcialmente", DECIDED, TERM, penalties=BOTH), FINAL, CASSACAO, Effect.APPLIED, FINAL,
                 id="MP art. 25 §4: upheld in part with the cassação kept: applied once final"),
    pytest.param(Ruling("parcialmente", DECIDED, TERM, penalties=("multa",)), FINAL, CASSACAO, Effect.DROPPED,
                 None, id="MP art. 23 §2: a penalty the decision leaves out never takes effect"),
    pytest.param(Ruling("anulado", DECIDED, TERM), FINAL, None, Effect.DROPPED, None,
                 id="CG art. 25 caput: annulled, dropped"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5)), date(2026, 4, 20), None, Effect.SCHEDULED,
                 FINAL, id="CG art. 25 caput: before the appeal is filed, still scheduled"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5)), date(2026, 5, 5), None, Effect.SUSPENDED,
                 None, id="MP art. 25 §4: an appeal filed in time suspends it from its filing"),
    pytest.param(Ruling("mantido", DECIDED, TERM, TERM), date(2026, 6, 30), None, Effect.SUSPENDED, None,
                 id="CG art. 25 caput: filed on the last day of the term it is in time; held past the final day"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "mantido", date(2026, 6, 2)),
                 date(2026, 6, 2), None, Effect.APPLIED, date(2026, 6, 2),
                 id="MP art. 25 §4: the appeal denied applies it from the appeal's decision"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "mantido", date(2026, 6, 2)),
                 date(2026, 6, 1), None, Effect.SUSPENDED, None,
                 id="MP art. 25 §4: the day before the appeal's decision it is still held"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "anulado", date(2026, 6, 2)),
                 date(2026, 6, 2), None, Effect.DROPPED, None,
                 id="CG art. 25 caput: the appeal granted drops it"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "parcialmente", date(2026, 6, 2), BOTH,
                        ("multa",)), date(2026, 6, 2), CASSACAO, Effect.DROPPED, None,
                 id="MP art. 23 §2: the appeal keeps the fine only: the cassação is dropped"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "parcialmente", date(2026, 6, 2), BOTH,
                        ("multa",)), date(2026, 6, 2), "multa", Effect.APPLIED, date(2026, 6, 2),
                 id="MP art. 25 §4: ...and the fine it keeps applies from the appeal's decision"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 20)), date(2026, 5, 25), None, Effect.APPLIED,
                 FINAL, id="CG art. 25 caput: an appeal after the term does not suspend a final decision"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 20), "anulado", date(2026, 6, 10)),
                 date(2026, 6, 10), None, Effect.DROPPED, None,
                 id="CG art. 25 caput: a late appeal granted drops it from the appeal's decision"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 20), "mantido", date(2026, 6, 10)),
                 date(2026, 6, 10), SUSPENSAO, Effect.APPLIED, FINAL,
                 id="MP art. 23 §1: a late appeal denied leaves it in effect since the final day"),
])
def test_a_penalty_takes_effect_when_the_decision_is_final(ruling, on, penalty, effect, effective_on):
    found = penalty_effect(ruling, on, REF, penalty)
    assert (found.effect, found.effective_on) == (effect, effective_on)
    assert found.in_effect is (effect is Effect.APPLIED)
    assert found.finding.reference == REF and found.finding.message


def test_the_scheduled_finding_names_the_term_and_the_day():
    found = penalty_effect(Ruling("mantido", DECIDED, TERM), date(2026, 4, 11), REF)
    assert "até 11/05/2026" in found.finding.message and "a partir de 12/05/2026" in found.finding.message
