"""Infraction process deadlines and platform obligations of both laws."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from rules.ridehailing.concepts import (
    DataRequest,
    InfractionProcess,
    InsurancePolicy,
    Platform,
)
from tests.rules.ridehailing_support import CAL, CG, CG_BOOK, MP, MP_BOOK

AUTO = date(2026, 3, 2)


def process(**fields) -> InfractionProcess:
    base = dict(auto_on=AUTO, notified_on=date(2026, 3, 5), method="post", juntada_on=date(2026, 3, 10),
                decided_on=date(2026, 4, 10))
    return InfractionProcess(**{**base, **fields})


def book(rules):
    return CG_BOOK if rules is CG else MP_BOOK


PROCESS_ROWS = [
    pytest.param(MP, {}, date(2026, 4, 10), True, None, id="MP art. 21: regular process, penalty may apply"),
    pytest.param(MP, {"notified_on": date(2026, 6, 1), "juntada_on": date(2026, 6, 2), "decided_on": date(2026, 7, 3)},
                 date(2026, 7, 3), True, None, id="MP art. 21 §1: notified on day 90 (moved past sunday)"),
    pytest.param(MP, {"notified_on": date(2026, 6, 2), "juntada_on": date(2026, 6, 2), "decided_on": date(2026, 7, 3)},
                 date(2026, 7, 3), False, "art. 21, §1º", id="MP art. 21 §1: notified after 90 days"),
    pytest.param(MP, {"notified_on": None, "juntada_on": None, "decided_on": None}, date(2026, 6, 2), False,
                 "art. 21, §1º", id="MP art. 21 §1: never notified"),
    pytest.param(MP, {"method": "direct"}, date(2026, 4, 10), False, "art. 21, §1º",
                 id="MP art. 21 §1: direct delivery is not a listed method"),
    pytest.param(CG, {"method": "direct"}, date(2026, 4, 10), True, None, id="CG art. 25 §1 I: direct notification"),
    pytest.param(CG, {"method": "official_gazette"}, date(2026, 4, 10), True, None, id="CG art. 25 §1 II: DOM"),
    pytest.param(CG, {"method": "whatsapp"}, date(2026, 4, 10), False, "art. 25, §1º", id="CG art. 25 §1: unlisted"),
    pytest.param(CG, {"notified_on": date(2026, 12, 1), "juntada_on": date(2026, 12, 2), "decided_on": date(2027, 1, 5)},
                 date(2027, 1, 5), True, None, id="CG art. 25: no 90-day limit"),
    pytest.param(CG, {"decided_on": date(2026, 4, 9)}, date(2026, 4, 10), False, "art. 25 e art. 27, caput",
                 id="CG art. 25 §2: decision on the defence's last day is premature"),
    pytest.param(MP, {"decided_on": None}, date(2026, 4, 10), False, "art. 23, §2º e art. 25, §4º",
                 id="MP art. 23 §2: no penalty without a decision"),
    pytest.param(MP, {"juntada_on": None}, date(2026, 4, 10), False, "art. 21, §2º e art. 25, §4º",
                 id="MP art. 21 §2: no juntada, no defence period"),
    pytest.param(CG, {"juntada_on": date(2026, 3, 4)}, date(2026, 4, 10), False, "art. 25, §2º",
                 id="CG art. 25 §2: juntada before the notification"),
    pytest.param(CG, {"defence_on": date(2026, 3, 20), "decided_on": date(2026, 3, 25)}, date(2026, 3, 25), True, None,
                 id="CG art. 25 §2 (LEITURAS 33): defence filed, decided before the term ends"),
    pytest.param(MP, {"defence_on": date(2026, 3, 20), "decided_on": date(2026, 3, 20)}, date(2026, 3, 20), True, None,
                 id="MP art. 21 §2, art. 23 §2 (LEITURAS 33): decided the day the defence is filed"),
    pytest.param(MP, {"defence_on": date(2026, 3, 26), "decided_on": date(2026, 3, 25)}, date(2026, 3, 26), False,
                 "art. 23, §2º e art. 25, §4º", id="MP art. 23 §2: decided before the defence and the term's end"),
    pytest.param(CG, {"defence_on": date(2026, 3, 20), "juntada_on": None, "decided_on": date(2026, 3, 25)},
                 date(2026, 3, 25), False, "art. 25, §2º", id="CG art. 25 §2: a defence without juntada opens nothing"),
]


@pytest.mark.parametrize("rules, fields, on, may_apply, failing", PROCESS_ROWS)
def test_process(rules, fields, on, may_apply, failing):
    result = rules.process_status(process(**fields), on, book(rules), CAL)
    assert result.may_apply_penalty is may_apply
    if failing:
        assert any(f.reference.endswith(failing) for f in result.decision.failures), result.decision.reasons()


@pytest.mark.parametrize("rules, limit", [pytest.param(MP, date(2026, 6, 1), id="MP art. 21 §1: 90 days"),
                                          pytest.param(CG, None, id="CG art. 25: no limit")])
def test_notification_limit(rules, limit):
    assert rules.process_status(process(), AUTO, book(rules), CAL).notification_deadline == limit


@pytest.mark.parametrize("rules", [pytest.param(CG, id="CG art. 25 §2"), pytest.param(MP, id="MP art. 21 §2")])
def test_defence_counted_from_juntada(rules):
    result = rules.process_status(process(juntada_on=date(2026, 3, 10)), date(2026, 3, 11), book(rules), CAL)
    assert result.defence_deadline == date(2026, 4, 9)
    later = rules.process_status(process(juntada_on=date(2026, 3, 11)), date(2026, 3, 11), book(rules), CAL)
    assert later.defence_deadline == date(2026, 4, 10)


@pytest.mark.parametrize("fields, opens", [
    pytest.param({"decided_on": None}, date(2026, 4, 10), id="CG art. 25 §2: the day after the defence period"),
    pytest.param({"decided_on": None, "defence_on": date(2026, 3, 20)}, date(2026, 3, 20),
                 id="LEITURAS 33: the day the defence is filed, if first"),
    pytest.param({"decided_on": None, "defence_on": date(2026, 3, 8)},
                 date(2026, 3, 10), id="LEITURAS 33: a defence before the juntada waits for the juntada"),
    pytest.param({"decided_on": None, "juntada_on": None}, None, id="CG art. 25 §2: no juntada, no date yet"),
])
def test_decision_opens(fields, opens):
    assert CG.process_status(process(**fields), date(2026, 3, 11), CG_BOOK, CAL).decision_opens == opens


def platform(**fields) -> Platform:
    base = dict(name="Rota Certa", cnpj="11222333000181", credentialed_on=date(2026, 1, 5),
                insurance=InsurancePolicy("Seguradora X", Decimal("50000.00"), date(2026, 1, 1), date(2026, 12, 31)),
                lists_submitted=(date(2026, 1, 5),), issqn_paid_competences=(date(2026, 1, 1), date(2026, 2, 1)))
    return Platform(**{**base, **fields})


def policy(coverage: str, until: date = date(2026, 12, 31)) -> InsurancePolicy:
    return InsurancePolicy("Seguradora X", Decimal(coverage), date(2026, 1, 1), until)


PLATFORM_ROWS = [
    pytest.param(MP, {}, date(2026, 2, 5), None, id="MP: compliant platform"),
    pytest.param(MP, {"insurance": policy("49999.99")}, date(2026, 2, 5), "art. 5º, XI",
                 id="MP art. 5 XI: APP R$ 49.999,99 refused"),
    pytest.param(MP, {"insurance": policy("50000.00")}, date(2026, 2, 5), None, id="MP art. 5 XI: APP R$ 50.000,00"),
    pytest.param(CG, {"insurance": policy("10000.00")}, date(2026, 3, 6), None, id="CG art. 5 X: APP without minimum"),
    pytest.param(CG, {"insurance": None}, date(2026, 3, 6), "art. 5º, X", id="CG art. 5 X: no APP policy"),
    pytest.param(MP, {"insurance": policy("60000.00", date(2026, 2, 4))}, date(2026, 2, 5), "art. 5º, XI",
                 id="MP art. 5 XI: policy expired the day before"),
    pytest.param(CG, {}, date(2026, 3, 6), None, id="CG art. 5 VIII: list due on day 60"),
    pytest.param(CG, {"lists_submitted": (date(2026, 1, 6),)}, date(2026, 3, 9), None,
                 id="CG art. 5 VIII: day 60 on saturday moves to monday"),
    pytest.param(CG, {"lists_submitted": (date(2026, 1, 6),)}, date(2026, 3, 10), "art. 5º, VIII",
                 id="CG art. 5 VIII: late the tuesday after"),
    pytest.param(CG, {}, date(2026, 3, 7), "art. 5º, VIII", id="CG art. 5 VIII: list late on day 61"),
    pytest.param(MP, {}, date(2026, 2, 6), "art. 5º, IX e art. 10", id="MP art. 5 IX: monthly list late"),
    pytest.param(MP, {"lists_submitted": (date(2026, 2, 5),)}, date(2026, 3, 5), None,
                 id="MP art. 5 IX: list a month after the last"),
    pytest.param(CG, {"issqn_paid_competences": (), "lists_submitted": (date(2026, 2, 1),)}, date(2026, 2, 10), None,
                 id="CG art. 19: January ISSQN due on 10/02"),
    pytest.param(CG, {"issqn_paid_competences": (), "lists_submitted": (date(2026, 2, 1),)}, date(2026, 2, 11),
                 "art. 19", id="CG art. 19: January ISSQN unpaid after 10/02"),
    pytest.param(MP, {"issqn_paid_competences": (date(2026, 1, 1),), "lists_submitted": (date(2026, 3, 1),)},
                 date(2026, 3, 11), "art. 10", id="MP art. 10: February ISSQN unpaid after 10/03"),
]


@pytest.mark.parametrize("rules, fields, on, failing", PLATFORM_ROWS)
def test_platform_compliance(rules, fields, on, failing):
    decision = rules.platform_compliance(platform(**fields), on, book(rules), CAL)
    if failing is None:
        assert decision.ok, decision.reasons()
    else:
        assert [f.reference.split(", ", 1)[1] for f in decision.failures] == [failing], decision.reasons()


NOTIFIED = datetime(2026, 3, 6, 10, 0)
ALL = frozenset({"origin_destination", "duration_distance", "route_map", "driver", "fare", "rating"})


@pytest.mark.parametrize("rules, request_, now, ok", [
    pytest.param(CG, DataRequest(NOTIFIED, datetime(2026, 3, 7, 10, 0), ALL), NOTIFIED, True,
                 id="CG art. 11 §2: answered at hour 24"),
    pytest.param(CG, DataRequest(NOTIFIED, datetime(2026, 3, 7, 10, 1), ALL), NOTIFIED, False,
                 id="CG art. 11 §2: answered one minute late"),
    pytest.param(MP, DataRequest(NOTIFIED, None), datetime(2026, 3, 7, 10, 0), True, id="MP art. 4 §2: still in time"),
    pytest.param(MP, DataRequest(NOTIFIED, None), datetime(2026, 3, 7, 10, 1), False, id="MP art. 4 §2: unanswered, late"),
    pytest.param(CG, DataRequest(NOTIFIED, datetime(2026, 3, 6, 12, 0), ALL - {"route_map"}), NOTIFIED, False,
                 id="CG art. 11 §1 III: route map missing"),
    pytest.param(MP, DataRequest(NOTIFIED, datetime(2026, 3, 6, 12, 0), ALL - {"fare"}), NOTIFIED, False,
                 id="MP art. 4 §1 V: fare breakdown missing"),
])
def test_trip_data_request(rules, request_, now, ok):
    decision = rules.data_request_check(request_, now)
    assert decision.ok is ok


def test_missing_field_cites_its_inciso():
    decision = CG.data_request_check(DataRequest(NOTIFIED, NOTIFIED, ALL - {"route_map"}), NOTIFIED)
    assert decision.failures[0].reference.endswith("art. 11, §1º, III")
    assert "mapa do trajeto" in decision.failures[0].message
