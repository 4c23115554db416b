"""Dates of things already done (a licence issued, a protocol filed, a vistoria performed, a decision
taken) are refused after today (Cuiabá), under their field; a model year is at most next year's."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from seed.ridehailing import passing
from services.ridehailing import authorizations, inspections
from services.shared import entities, schema
from services.shared.errors import ValidationFailed
from tests.ridehailing_data import ACTORS, register, requested

NOT_FUTURE = [
    ("platforms", "credentialed_on", "Credenciada em"),
    ("platform_reports", "on", "Data da entrega ou mês de competência"),
    ("drivers", "cnh_first_license", "Primeira habilitação"),
    ("driver_documents", "issued_on", "Emissão"),
    ("traffic_infractions", "committed_on", "Data da infração"),
    ("training_courses", "held_on", "Data"),
    ("vehicles", "first_registration", "Primeiro licenciamento"),
    ("authorizations", "protocol_date", "Data do protocolo"),
    ("inspections", "performed_on", "Data da vistoria"),
    ("machinery_requesters", "standing_checked_on", "Situação verificada em"),
]
IDS = [f"{entity}.{name}" for entity, name, _ in NOT_FUTURE]


def test_the_table_names_every_date_that_cannot_be_in_the_future():
    declared = {(s.name, f.name) for s in schema.SPECS.values() for f in s.fields if f.not_future}
    assert declared == {(entity, name) for entity, name, _ in NOT_FUTURE}


@pytest.mark.parametrize("entity, name, label", NOT_FUTURE, ids=IDS)
def test_today_is_accepted(today, entity, name, label):
    today.set(date(2026, 12, 1))
    clean = entities.validate(entities.spec(entity), {name: "01/12/2026"}, partial=True)
    assert clean == {name: date(2026, 12, 1)}


@pytest.mark.parametrize("entity, name, label", NOT_FUTURE, ids=IDS)
def test_tomorrow_is_refused_under_the_field(today, entity, name, label):
    today.set(date(2026, 12, 1))
    with pytest.raises(ValidationFailed) as refused:
        entities.validate(entities.spec(entity), {name: date(2026, 12, 2)}, partial=True)
    assert refused.value.errors == {name: f"{label}: não pode ser posterior a hoje (01/12/2026)."}


@pytest.mark.parametrize("year, error", [
    pytest.param(2027, None, id="next year accepted"),
    pytest.param(2028, "Ano modelo: não pode passar de 2027.", id="the year after refused"),
])
def test_a_model_year_is_at_most_next_year(today, year, error):
    today.set(date(2026, 12, 31))
    vehicles = entities.spec("vehicles")
    if error is None:
        assert entities.validate(vehicles, {"model_year": str(year)}, partial=True) == {"model_year": year}
    else:
        with pytest.raises(ValidationFailed) as refused:
            entities.validate(vehicles, {"model_year": str(year)}, partial=True)
        assert refused.value.errors == {"model_year": error}


def test_a_driver_with_a_future_first_licence_is_not_saved(db, today):
    with pytest.raises(ValidationFailed) as refused:
        register(db, "chapada", driver={"cnh_first_license": today.value + timedelta(days=1)})
    assert set(refused.value.errors) == {"cnh_first_license"}
    assert db["drivers"].count_documents({}) == 0


def test_a_request_protocolled_tomorrow_is_refused_and_reserves_no_number(db, today):
    cpf, plate = register(db, "chapada")
    tomorrow = today.value + timedelta(days=1)
    with pytest.raises(ValidationFailed) as refused:
        authorizations.request_authorization(db, ACTORS["chapada"], "chapada", cpf, plate, tomorrow)
    assert refused.value.errors == {"protocol_date": "Data do protocolo: não pode ser posterior a hoje (02/03/2026)."}
    assert db["authorizations"].count_documents({}) == 0
    assert db["counters"].count_documents({}) == 0


def _events(db, auth: str) -> list:
    return authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)["events"]


@pytest.mark.parametrize("decide", [
    pytest.param(lambda db, auth, on: authorizations.approve(db, ACTORS["chapada"], "chapada", auth, on), id="approve"),
    pytest.param(lambda db, auth, on: authorizations.refuse(db, ACTORS["chapada"], "chapada", auth, on, "Motivo"),
                 id="refuse"),
])
def test_a_decision_dated_tomorrow_is_refused_and_nothing_is_recorded(db, today, decide):
    auth = requested(db, "chapada")
    before = _events(db, auth)
    with pytest.raises(ValidationFailed) as refused:
        decide(db, auth, today.value + timedelta(days=1))
    assert refused.value.errors == {"on": "Data da decisão: não pode ser posterior a hoje (02/03/2026)."}
    assert _events(db, auth) == before


def test_a_vistoria_dated_tomorrow_is_refused_and_nothing_is_stored(db, today):
    auth = requested(db, "chapada")
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, today.value)
    before = _events(db, auth)
    with pytest.raises(ValidationFailed) as refused:
        inspections.record_inspection(db, ACTORS["chapada"], "chapada", auth, today.value + timedelta(days=1),
                                      passing("chapada"), "Vistoriador")
    assert refused.value.errors == {"performed_on": "Data da vistoria: não pode ser posterior a hoje (02/03/2026)."}
    assert db["inspections"].count_documents({}) == 0
    assert _events(db, auth) == before


def test_a_vistoria_performed_today_is_recorded(db, today):
    auth = requested(db, "chapada")
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, today.value)
    outcome = inspections.record_inspection(db, ACTORS["chapada"], "chapada", auth, today.value,
                                            passing("chapada"), "Vistoriador")
    assert outcome.decision.ok and db["inspections"].count_documents({}) == 1


def _new_driver_form():
    import streamlit as st

    from services.shared import entities
    from ui import common
    from ui.entity import entity_form

    actor = st.session_state["actor"]
    entity_form(entities.spec_for(common.db(), "drivers", "chapada"), actor, "chapada")


def test_the_driver_form_shows_a_future_first_licence_under_its_field_and_keeps_what_was_typed(db, today):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_new_driver_form, default_timeout=60)
    at.session_state["actor"] = ACTORS["chapada"]
    at.run()
    key = "drivers_form_new_"
    at.text_input(key=key + "name").input("Maria da Silva")
    at.date_input(key=key + "cnh_first_license").set_value(today.value + timedelta(days=1))
    at.get("form_submit_button")[-1].click().run()
    assert not at.exception
    message = "Primeira habilitação: não pode ser posterior a hoje (02/03/2026)."
    assert any(message in c.value for c in at.caption)
    assert at.text_input(key=key + "name").value == "Maria da Silva"
    assert at.date_input(key=key + "cnh_first_license").value == today.value + timedelta(days=1)
    assert db["drivers"].count_documents({}) == 0
