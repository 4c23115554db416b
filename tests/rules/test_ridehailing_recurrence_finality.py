"""Which earlier decisions count for recurrence: only those no longer open to appeal (CG Decreto
06/2026 art. 25 caput; MP Lei 1.552/2025 art. 25 §4), on both sides of the appeal term."""
from __future__ import annotations

from datetime import date

import pytest

from rules.ridehailing.process import Ruling, final_for_recurrence

DECIDED, TERM = date(2026, 4, 10), date(2026, 5, 11)  # decided; last day of its appeal term
REF = "Decreto 06/2026 (Chapada dos Guimarães), art. 25 e art. 27, caput"


@pytest.mark.parametrize("ruling, on, counts", [
    pytest.param(Ruling("mantido", DECIDED, TERM), TERM, False,
                 id="CG art. 25: on the last day of the appeal term the decision is still open"),
    pytest.param(Ruling("mantido", DECIDED, TERM), date(2026, 5, 12), True,
                 id="CG art. 25: the day after the term, with no appeal, it is definitive"),
    pytest.param(Ruling("parcialmente", DECIDED, TERM), date(2026, 5, 12), True,
                 id="MP art. 25 §4: upheld in part counts once definitive"),
    pytest.param(Ruling("anulado", DECIDED, TERM), date(2026, 6, 1), False, id="annulled never counts"),
    pytest.param(Ruling(None, None, None), date(2026, 6, 1), False, id="MP art. 25 §4: undecided does not count"),
    pytest.param(Ruling("mantido", date(2026, 6, 2), date(2026, 7, 2)), date(2026, 6, 1), False,
                 id="a decision after the later auto does not count for it"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5)), date(2026, 6, 1), False,
                 id="MP art. 25 §4: under appeal it is not definitive"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "mantido", date(2026, 5, 20)),
                 date(2026, 6, 1), True, id="CG art. 25: the appeal decided upholding it makes it definitive"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "anulado", date(2026, 5, 20)),
                 date(2026, 6, 1), False, id="CG art. 25: annulled on appeal it falls"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 5, 5), "mantido", date(2026, 6, 2)),
                 date(2026, 6, 1), False, id="an appeal decided after the later auto: still pending for it"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 6, 5)), date(2026, 6, 1), True,
                 id="a late appeal filed after the later auto: definitive when that auto was lavrado"),
    pytest.param(Ruling("mantido", DECIDED, TERM, date(2026, 6, 5), "anulado", date(2026, 6, 20)),
                 date(2026, 6, 1), False, id="CG art. 25: annulled on appeal after the later auto, it falls even so"),
])
def test_only_a_decision_no_longer_open_to_appeal_counts(ruling, on, counts):
    finding = final_for_recurrence(ruling, on, REF)
    assert finding.ok is counts and finding.reference == REF and finding.message
