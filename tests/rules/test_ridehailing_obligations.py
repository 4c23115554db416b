"""Platform obligations as rules: list due dates (CG art. 5º VIII every 60 days; MP art. 5º IX
monthly), the 24-hour trip data deadline to the minute (CG art. 11 §2º; MP art. 4º §2º), the
reconciliation verdict of one list row (CG art. 30; MP art. 12 XXV), the minimum trip fields (CG
art. 11 §1º; MP art. 4º §1º) and ISSQN per vehicle and month (CG art. 19; MP art. 10)."""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest

from rules.calendar import LegalCalendar
from rules.registry import ruleset
from rules.ridehailing import obligations as ob
from rules.ridehailing.lifecycle import AuthorizationState, Status

CAL = LegalCalendar()
CG, MP = ruleset("chapada", "transporte"), ruleset("matupa", "transporte")


@pytest.mark.parametrize("rules, last, on, due, late", [
    pytest.param(CG, date(2026, 3, 12), date(2026, 5, 11), date(2026, 5, 11), False, id="CG art. 5 VIII: day 60 on time"),
    pytest.param(CG, date(2026, 3, 12), date(2026, 5, 12), date(2026, 5, 11), True, id="CG art. 5 VIII: day 61 late"),
    pytest.param(MP, date(2026, 3, 2), date(2026, 4, 2), date(2026, 4, 2), False, id="MP art. 5 IX: one month on time"),
    pytest.param(MP, date(2026, 3, 2), date(2026, 4, 3), date(2026, 4, 2), True, id="MP art. 5 IX: a day after late"),
])
def test_list_due(rules, last, on, due, late):
    found = ob.list_due([last], date(2026, 1, 5), on, rules.list_period, CAL, rules.ref("lists"))
    assert (found.due, found.late, found.finding.ok) == (due, late, not late)
    assert ("art. 5º, VIII" if rules is CG else "art. 5º, IX") in found.finding.reference


def test_list_due_counts_from_credentialing_when_no_list_came():
    found = ob.list_due([], date(2026, 3, 12), date(2026, 6, 1), CG.list_period, CAL, CG.ref("lists"))
    assert found.due == date(2026, 5, 11) and found.late


NOTIFIED = datetime(2026, 3, 2, 13, 30, 15)  # UTC


@pytest.mark.parametrize("answered, now, late", [
    pytest.param(None, datetime(2026, 3, 3, 13, 30, 59), False, id="24 h: the deadline's own minute is on time"),
    pytest.param(None, datetime(2026, 3, 3, 13, 31), True, id="24 h: one minute after is late"),
    pytest.param(datetime(2026, 3, 3, 13, 30), datetime(2026, 3, 9), False, id="answered within 24 h"),
    pytest.param(datetime(2026, 3, 3, 13, 31), datetime(2026, 3, 9), True, id="answered one minute late"),
])
def test_data_request_late(answered, now, late):
    assert ob.data_request_deadline(NOTIFIED) == datetime(2026, 3, 3, 13, 30, 15)
    assert ob.data_request_late(NOTIFIED, answered, now) is late


CPF, PLATE = "52998224725", "QBC1D23"


def registered(status: Status, cpf: str = CPF, plate: str = PLATE, deadline: date | None = None):
    return ob.Registered(cpf, plate, "0001/2026", AuthorizationState(status, deadline=deadline))


@pytest.mark.parametrize("register, ok, text", [
    pytest.param([registered(Status.ACTIVE)], True, "Autorização 0001/2026 ativa", id="active pair: valid"),
    pytest.param([], False, "Condutor e veículo sem autorização", id="nothing in the register"),
    pytest.param([registered(Status.SUSPENDED, deadline=date(2026, 7, 30))], False, "suspensa até 30/07/2026",
                 id="suspended"),
    pytest.param([registered(Status.EXPIRED)], False, "vencida", id="expired"),
    pytest.param([registered(Status.CASSADA)], False, "cassada", id="cassada"),
    pytest.param([registered(Status.AWAITING_FEE)], False, "ainda não expedida", id="not issued yet"),
    pytest.param([registered(Status.ACTIVE, plate="ABC1234")], False, "outro veículo (placa ABC1234)",
                 id="driver authorized with another car"),
    pytest.param([registered(Status.ACTIVE, cpf="11144477735")], False, "outro condutor",
                 id="car authorized for another driver"),
    pytest.param([registered(Status.EXPIRED), registered(Status.ACTIVE)], True, "ativa",
                 id="an expired and a renewed one: valid"),
])
def test_reconcile_row(register, ok, text):
    finding = ob.reconcile_row(CPF, PLATE, register, "Decreto 06/2026 (Chapada dos Guimarães), art. 30")
    assert finding.ok is ok and text in finding.message and "art. 30" in finding.reference


GOOD_TRIP = {"data_hora": "02/03/2026 08:15", "origem": "Praça Dom Wunibaldo", "destino": "Rodoviária",
             "duracao_min": "12", "distancia_km": "4,3", "mapa": "https://mapa.example/trajeto/1",
             "cpf_condutor": CPF, "placa": PLATE, "valor_total": "18,50",
             "composicao_valor": "tarifa 15,00; taxa 3,50", "avaliacao": "5"}
NOW = datetime(2026, 3, 2, 12, 0)


@pytest.mark.parametrize("rules, change, column, article", [
    pytest.param(CG, {"origem": ""}, "Origem", "art. 11, §1º, I", id="CG art. 11 §1 I: origin required"),
    pytest.param(CG, {"distancia_km": "0"}, "Distância (km)", "", id="CG art. 11 §1 II: distance above zero"),
    pytest.param(CG, {"mapa": ""}, "Mapa do trajeto", "art. 11, §1º, III", id="CG art. 11 §1 III: map required"),
    pytest.param(MP, {"composicao_valor": ""}, "Composição do valor", "art. 4º, §1º, V",
                 id="MP art. 4 §1 V: fare composition required"),
    pytest.param(MP, {"avaliacao": "6"}, "Avaliação (1 a 5)", "art. 4º, §1º, VI", id="MP art. 4 §1 VI: rating 1-5"),
    pytest.param(MP, {"data_hora": "02/03/2026 12:01"}, "Data e hora do início", "", id="trip after now refused"),
    pytest.param(MP, {"valor_total": "18,505"}, "Valor pago (R$)", "", id="fare in centavos"),
])
def test_trip_errors(rules, change, column, article):
    errors = ob.trip_errors({**GOOD_TRIP, **change}, rules.trip_data_fields, NOW)
    assert [c for c, _m in errors] == [column] and article in errors[0][1]


def test_a_trip_without_rating_is_accepted_and_a_good_one_has_no_error():
    assert ob.trip_errors(GOOD_TRIP, CG.trip_data_fields, NOW) == []
    assert ob.trip_errors({**GOOD_TRIP, "avaliacao": ""}, CG.trip_data_fields, NOW) == []


def test_issqn_amount_uses_the_rate_of_each_trips_day_and_rounds_at_the_end():
    rates = {date(2026, 3, 1): Decimal("0.02"), date(2026, 3, 16): Decimal("0.05")}

    def rate_on(on):
        return rates[max(d for d in rates if d <= on)]

    trips = [(date(2026, 3, 10), Decimal("10.25")), (date(2026, 3, 10), Decimal("10.25")),
             (date(2026, 3, 20), Decimal("10.10"))]
    # 20,50 × 2% = 0,41; 10,10 × 5% = 0,505 → 0,915 → 0,92 (half up once, at the end)
    assert ob.issqn_amount(trips, rate_on) == Decimal("0.92")


@pytest.mark.parametrize("competence, due", [
    pytest.param(date(2026, 3, 1), date(2026, 4, 10), id="March due 10/04 (Friday)"),
    pytest.param(date(2026, 4, 1), date(2026, 5, 11), id="April: 10/05 is a Sunday, due Monday 11/05"),
])
def test_issqn_due(competence, due):
    assert ob.issqn_due(competence, 10, CAL) == due


@pytest.mark.parametrize("paid_on, on, situation", [
    pytest.param(None, date(2026, 4, 10), ob.ISSQN_OPEN, id="unpaid on the due date: open"),
    pytest.param(None, date(2026, 4, 11), ob.ISSQN_OVERDUE, id="unpaid the day after: overdue"),
    pytest.param(date(2026, 4, 12), date(2026, 4, 13), ob.ISSQN_PAID, id="paid late: paid"),
])
def test_issqn_situation(paid_on, on, situation):
    assert ob.issqn_situation(date(2026, 4, 10), paid_on, on) == situation
