"""Changes of drivers' and vehicles' data with the date of the fact and the date reported: 7 days to
report (CG art. 18 XIX; MP art. 12 XX), the history with both dates, the pendências of the late and
the unreported, and the edit form of the drivers' screen."""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.ridehailing import changes, registry, work_queue
from services.ridehailing.queue_item import Pendencia
from services.shared import clock, entities, parameters
from services.shared.errors import ValidationFailed
from tests.ridehailing_data import ACTORS, register

ROOT = Path(__file__).resolve().parent.parent
TODAY = clock.today()
ARTICLE = {"chapada": "art. 18, XIX", "matupa": "art. 12, XX"}


def driver_id(db, municipality: str, cpf: str) -> str:
    return registry.driver_record(db, municipality, cpf)["id"]


def deadline(db, municipality: str, changed_on: date) -> date:
    return registry.rules_of(municipality).data_change_deadline(
        changed_on, parameters.calendar(db, municipality, changed_on))


def change_address(db, municipality: str, changed_on: date, reported_on: date | None,
                   seed: int = 1) -> tuple[str, str | None]:
    cpf, _ = register(db, municipality, seed=seed)
    change = changes.record_change(db, ACTORS[municipality], municipality, "drivers",
                                               driver_id(db, municipality, cpf), {"address": "Rua Nova, 10"},
                                               changed_on, reported_on,
            expected_version=entities.get(db, ACTORS[municipality], "drivers", municipality, driver_id(db, municipality, cpf))["version"])
    return cpf, change


def queued(db, municipality: str) -> list[Pendencia]:
    return [p for p in work_queue.pendencias(db, ACTORS[municipality], municipality, TODAY)
            if p.kind == work_queue.DATA_CHANGE]


@pytest.mark.parametrize("municipality, days_after_deadline, in_time", [
    pytest.param("chapada", 0, True, id="CG art. 18 XIX: reported on the 7th day (deadline) in time"),
    pytest.param("chapada", 1, False, id="CG art. 18 XIX: reported the day after the deadline late"),
    pytest.param("matupa", 0, True, id="MP art. 12 XX: reported on the deadline in time"),
    pytest.param("matupa", 1, False, id="MP art. 12 XX: reported the day after late"),
])
def test_reported_change_in_time_or_late(db, municipality, days_after_deadline, in_time):
    changed_on = TODAY - timedelta(days=40)
    reported_on = deadline(db, municipality, changed_on) + timedelta(days=days_after_deadline)
    cpf, _ = change_address(db, municipality, changed_on, reported_on)
    [change] = changes.history(db, ACTORS[municipality], municipality, "drivers",
                                           driver_id(db, municipality, cpf), TODAY)
    assert (change.changed_on, change.reported_on, change.finding.ok) == (changed_on, reported_on, in_time)
    assert ARTICLE[municipality] in change.finding.reference
    assert change.fields_text.startswith("Endereço: ") and change.fields_text.endswith("→ Rua Nova, 10")
    items = queued(db, municipality)
    assert [(p.driver_cpf, p.late) for p in items] == ([] if in_time else [(cpf, True)])


@pytest.mark.parametrize("days_ago, late", [
    pytest.param(3, False, id="CG art. 18 XIX: not reported yet, still within the 7 days"),
    pytest.param(30, True, id="CG art. 18 XIX: not reported after the 7 days"),
])
def test_unreported_change_is_in_the_queue(db, days_ago, late):
    changed_on = TODAY - timedelta(days=days_ago)
    cpf, _ = change_address(db, "chapada", changed_on, None)
    [item] = queued(db, "chapada")
    assert (item.driver_cpf, item.late, item.due) == (cpf, late, deadline(db, "chapada", changed_on))
    assert f"Alteração de {changed_on:%d/%m/%Y} ainda não comunicada" in item.message
    assert "Endereço" in item.message and "art. 18, XIX" in item.reference


def test_reporting_and_closing_take_the_change_off_the_queue(db):
    actor = ACTORS["chapada"]
    changed_on = TODAY - timedelta(days=3)
    _, change = change_address(db, "chapada", changed_on, None)
    changes.report_change(db, actor, "chapada", change, TODAY)
    assert queued(db, "chapada") == []
    _, late = change_address(db, "chapada", TODAY - timedelta(days=30), None, seed=2)
    with pytest.raises(ValidationFailed):
        changes.close_change(db, actor, "chapada", late, " ")
    changes.close_change(db, actor, "chapada", late, "Auto de infração 0001/2026")
    assert queued(db, "chapada") == []


def test_vehicle_change_names_the_plate(db):
    actor = ACTORS["matupa"]
    _, plate = register(db, "matupa")
    vehicle = registry.vehicle_record(db, "matupa", plate)
    changes.record_change(db, actor, "matupa", "vehicles", vehicle["id"], {"color": "Azul"},
                                      TODAY - timedelta(days=20), None,
            expected_version=entities.get(db, actor, "vehicles", "matupa", vehicle["id"])["version"])
    [item] = queued(db, "matupa")
    assert item.plate == plate and "Cor:" in item.message and "art. 12, XX" in item.reference


def test_saving_without_a_change_keeps_no_record(db):
    cpf, _ = register(db, "chapada")
    record = registry.driver_record(db, "chapada", cpf)
    assert changes.record_change(db, ACTORS["chapada"], "chapada", "drivers", record["id"],
                                             {"address": record["address"]}, TODAY, TODAY,
            expected_version=entities.get(db, ACTORS["chapada"], "drivers", "chapada", record["id"])["version"]) is None
    assert changes.history(db, ACTORS["chapada"], "chapada", "drivers", record["id"], TODAY) == []


@pytest.mark.parametrize("changed_on, reported_on, field", [
    pytest.param(None, TODAY, "changed_on", id="date of the fact required"),
    pytest.param(TODAY + timedelta(days=1), None, "changed_on", id="fact in the future refused"),
    pytest.param(TODAY - timedelta(days=2), TODAY - timedelta(days=3), "reported_on", id="reported before the fact"),
    pytest.param(TODAY - timedelta(days=2), TODAY + timedelta(days=1), "reported_on", id="reported in the future"),
])
def test_change_dates_are_checked_before_saving(db, changed_on, reported_on, field):
    cpf, _ = register(db, "chapada")
    record = registry.driver_record(db, "chapada", cpf)
    with pytest.raises(ValidationFailed) as error:
        changes.record_change(db, ACTORS["chapada"], "chapada", "drivers", record["id"],
                                          {"address": "Rua Nova, 10"}, changed_on, reported_on,
            expected_version=entities.get(db, ACTORS["chapada"], "drivers", "chapada", record["id"])["version"])
    assert field in error.value.errors
    assert registry.driver_record(db, "chapada", cpf)["address"] == record["address"]


def test_drivers_screen_records_an_unreported_change_and_pendencias_shows_it(db):
    cpf, _ = register(db, "chapada")
    record = registry.driver_record(db, "chapada", cpf)
    at = AppTest.from_file(str(ROOT / "app_pages" / "drivers.py"), default_timeout=60)
    at.session_state["actor"] = ACTORS["chapada"]
    at.session_state["municipality"] = "chapada"
    at.run()
    at.selectbox(key="drivers_open").set_value(record["id"]).run()
    key = f"drivers_change_{record['id']}"
    changed_on = TODAY - timedelta(days=20)
    at.date_input(key=f"{key}_changed_on").set_value(changed_on)
    at.checkbox(key=f"{key}_unreported").check()
    at.text_input(key=f"{key}_address").input("Rua das Palmeiras, 77")
    next(b for b in at.button if b.label == "Salvar alteração").click().run()
    assert not at.exception
    assert "Alteração salva com as datas do fato e da comunicação." in " ".join(s.value for s in at.success)
    table = next(d.value for d in at.dataframe if "Data da alteração" in d.value.columns)
    assert list(table["Comunicada em"]) == ["não comunicada"]
    assert "Rua das Palmeiras, 77" in table.iloc[0]["Dados alterados"]
    assert table.iloc[0]["Prazo de 7 dias"] == "✗ Não atende"

    pend = AppTest.from_file(str(ROOT / "app_pages" / "pendencias.py"), default_timeout=60)
    pend.session_state["actor"] = ACTORS["chapada"]
    pend.session_state["municipality"] = "chapada"
    pend.run()
    rows = pend.dataframe[0].value
    row = rows[rows["Tipo"] == "Alteração de dados"].iloc[0]
    assert f"Alteração de {changed_on:%d/%m/%Y} ainda não comunicada" in row["O que fazer"]
    assert row["Atrasada"] == "Sim" and "art. 18, XIX" in row["Fundamento legal"]


def test_a_data_change_over_a_newer_version_is_refused_and_keeps_the_first(db):
    """Two clerks open the same driver; the second save, made on the version both loaded, is refused."""
    from services.shared.errors import Conflict

    cpf, _ = register(db, "chapada", seed=3)
    record = driver_id(db, "chapada", cpf)
    loaded = registry.driver_record(db, "chapada", cpf)["version"]
    changes.record_change(db, ACTORS["chapada"], "chapada", "drivers", record,
                                      {"address": "Rua Nova, 10"}, TODAY, TODAY, expected_version=loaded)
    with pytest.raises(Conflict, match="foi alterado por"):
        changes.record_change(db, ACTORS["chapada"], "chapada", "drivers", record,
                                          {"address": "Rua Velha, 99"}, TODAY, TODAY, expected_version=loaded)
    assert registry.driver_record(db, "chapada", cpf)["address"] == "Rua Nova, 10"
    assert len(changes.history(db, ACTORS["chapada"], "chapada", "drivers", record, TODAY)) == 1
