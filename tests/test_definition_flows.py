"""A simple status flow on a defined register (issue 24 item 4): states, allowed moves, the role of each,
a deadline in business days of the legal calendar that feeds the work queue."""
from __future__ import annotations

import json
from datetime import date, datetime, timezone

import pytest

from services.shared import clock, definitions, entities, entity_files, entity_lists, flows, parameters, views
from services.shared.auth import Actor, PermissionDenied
from services.shared.errors import Conflict, ValidationFailed
from services.shared.flow_queue_view import ITEMS
from services.shared.schema import ListQuery
from tests.conftest import GABINETE, SECRETARIA_CG, TI

TI_CG = Actor("ti.cg", "TI de Chapada", "ti", ("chapada",))
TI_MP = Actor("ti.mp", "TI de Matupá", "ti", ("matupa",))
CPF = "529.982.247-25"
FRIDAY = datetime(2026, 11, 13, 14, 0, tzinfo=timezone.utc)  # 10:00 in Cuiabá, Friday 13/11/2026


def licence_flow() -> dict:
    return {"states": [{"label": "Protocolado", "deadline_days": 5}, {"label": "Em análise", "deadline_days": 10},
                       {"label": "Deferido"}, {"label": "Indeferido"}],
            "transitions": [
                {"source": "protocolado", "target": "em_analise", "label": "Iniciar análise", "roles": ["secretaria"]},
                {"source": "em_analise", "target": "deferido", "label": "Deferir", "roles": ["ti"]},
                {"source": "em_analise", "target": "indeferido", "label": "Indeferir", "roles": ["secretaria"]}]}


def licences(**extra) -> dict:
    return {"name": "licencas_feira", "label": "Licença de feira", "label_plural": "Licenças de feira",
            "feminine": True, "read_roles": ["secretaria", "ti"], "write_roles": ["secretaria"],
            "municipalities": ["chapada"],
            "fields": [{"name": "numero", "label": "Número", "kind": "text", "required": True, "unique": True},
                       {"name": "titular", "label": "CPF do titular", "kind": "cpf", "required": True}],
            "flow": licence_flow(), **extra}


@pytest.fixture
def at(monkeypatch):
    """The panel's clock, settable: ``at(datetime)``; starts on Friday 13/11/2026."""
    moment = {"now": FRIDAY}
    monkeypatch.setattr(clock, "now_utc", lambda: moment["now"])

    def set_now(when: datetime) -> None:
        moment["now"] = when
    return set_now


@pytest.fixture
def licence(db, at):
    definitions.define_register(db, TI_CG, "chapada", licences())
    return entities.create(db, SECRETARIA_CG, "licencas_feira", "chapada", {"numero": "F-1", "titular": CPF})


def queue(db, actor=SECRETARIA_CG) -> list[flows.FlowItem]:
    return flows.deadlines(db, actor, "chapada", date(2027, 12, 31))


def version(db, record: str) -> int:
    return entities.get(db, SECRETARIA_CG, "licencas_feira", "chapada", record)["version"]


def test_a_new_record_starts_in_the_first_state_with_a_deadline_in_business_days(db, licence):
    doc = entities.get(db, SECRETARIA_CG, "licencas_feira", "chapada", licence)
    assert doc["state"] == "protocolado"
    # 5 business days from Friday 13/11 (excluded): 16, 17, 18, 19 and — Zumbi on Friday 20/11 — Monday 23/11
    [item] = queue(db)
    assert (item.due, item.state, item.title, item.entered) == (date(2026, 11, 23), "Protocolado", "F-1",
                                                                  date(2026, 11, 13))


def test_a_move_follows_the_flow_by_the_role_it_names_and_is_audited(db, licence, at):
    with pytest.raises(Conflict, match="não passa para “Deferido”"):
        flows.move(db, SECRETARIA_CG, "chapada", "licencas_feira", licence, "deferido", expected_version=1)
    at(datetime(2026, 11, 16, 15, 0, tzinfo=timezone.utc))
    assert flows.move(db, SECRETARIA_CG, "chapada", "licencas_feira", licence, "em_analise",
                      "Documentos conferidos", expected_version=1) == "Em análise"
    doc = entities.get(db, SECRETARIA_CG, "licencas_feira", "chapada", licence)
    assert doc["state"] == "em_analise" and doc["version"] == 2
    assert [(h["from"], h["to"], h["by"], h["note"]) for h in doc["state_history"]] == [
        ("protocolado", "em_analise", SECRETARIA_CG.username, "Documentos conferidos")]
    entry = db["audit"].find_one({"collection": "licencas_feira", "action": "update"})
    assert entry["changes"] == {"state": {"before": "protocolado", "after": "em_analise"}}
    assert entry["note"] == "Iniciar análise: Documentos conferidos"
    # 10 business days from Monday 16/11: 17, 18, 19, (20 Zumbi), 23, 24, 25, 26, 27, 30/11, 1/12
    [item] = queue(db)
    assert (item.state, item.due) == ("Em análise", date(2026, 12, 1))
    with pytest.raises(PermissionDenied, match="“Deferir” não está liberada"):
        flows.move(db, SECRETARIA_CG, "chapada", "licencas_feira", licence, "deferido", expected_version=2)
    with pytest.raises(Conflict, match="alterado por"):
        flows.move(db, TI_CG, "chapada", "licencas_feira", licence, "deferido", expected_version=1)
    flows.move(db, TI_CG, "chapada", "licencas_feira", licence, "deferido", expected_version=2)
    assert queue(db) == []  # a state without a deadline leaves the queue


def test_only_the_roles_and_municipalities_the_definition_names_move_a_record(db, licence):
    for actor in (GABINETE, TI_MP):
        with pytest.raises(PermissionDenied):
            flows.move(db, actor, "chapada", "licencas_feira", licence, "em_analise", expected_version=1)
    with pytest.raises(PermissionDenied):
        flows.deadlines(db, TI_MP, "chapada", date(2027, 1, 1))
    assert version(db, licence) == 1


def test_a_form_or_an_import_never_writes_the_state(db, licence):
    entities.update(db, SECRETARIA_CG, "licencas_feira", "chapada", licence, {"state": "deferido"},
                    expected_version=1)
    assert entities.get(db, SECRETARIA_CG, "licencas_feira", "chapada", licence)["state"] == "protocolado"
    exported = entity_files.export_csv(db, SECRETARIA_CG, "licencas_feira", "chapada", ListQuery()).decode()
    assert "Situação" in exported.splitlines()[0] and "Protocolado" in exported
    back = exported.replace("F-1", "F-2").replace("Protocolado", "Deferido").encode()
    report = entity_files.import_csv(db, SECRETARIA_CG, "licencas_feira", "chapada", back, commit=True)
    assert not report.errors
    page = entity_lists.list_page(db, SECRETARIA_CG, "licencas_feira", "chapada",
                                  ListQuery(filters={"state": "protocolado"}))
    assert sorted(r["numero"] for r in page.rows) == ["F-1", "F-2"]


def test_a_municipal_holiday_moves_the_deadline_of_records_already_in_the_queue(db, licence):
    parameters.add_version(db, TI, "chapada", parameters.HOLIDAYS, date(2026, 1, 1),
                           [{"day": "11-19", "name": "Feriado municipal de teste"}], "Lei municipal de teste")
    [item] = queue(db)
    assert item.due == date(2026, 11, 24)


def test_the_queue_kept_as_data_equals_its_rebuild(db, licence, at):
    entities.create(db, SECRETARIA_CG, "licencas_feira", "chapada", {"numero": "F-2", "titular": CPF})
    flows.move(db, SECRETARIA_CG, "chapada", "licencas_feira", licence, "em_analise", expected_version=1)
    kept = sorted((d["record_id"], d["due"]) for d in db[ITEMS].find({}))
    views.rebuild(db, "chapada")
    assert sorted((d["record_id"], d["due"]) for d in db[ITEMS].find({})) == kept and len(kept) == 2


def test_a_deactivated_register_leaves_the_queue(db, licence):
    definitions.set_active(db, TI_CG, "chapada", "licencas_feira", False, expected_version=1)
    assert queue(db, TI_CG) == [] and db[ITEMS].count_documents({}) == 0


def test_a_flow_added_to_a_register_with_records_asks_where_they_start(db, at):
    definitions.define_register(db, TI_CG, "chapada", licences(flow=None))
    for number in ("F-1", "F-2"):
        entities.create(db, SECRETARIA_CG, "licencas_feira", "chapada", {"numero": number, "titular": CPF})
    change = licences()
    [issue] = definitions.preview_change(db, TI_CG, "chapada", "licencas_feira", change)
    assert (issue.field, issue.asks, issue.count) == ("state", "default", 2)
    assert [v for v, _ in issue.choices] == ["protocolado", "em_analise", "deferido", "indeferido"]
    with pytest.raises(ValidationFailed):
        definitions.change_register(db, TI_CG, "chapada", "licencas_feira", change, expected_version=1)
    definitions.change_register(db, TI_CG, "chapada", "licencas_feira", change, {"state": {"*": "em_analise"}},
                                expected_version=1)
    states = {d["numero"]: d["state"] for d in db["licencas_feira"].find({})}
    assert states == {"F-1": "em_analise", "F-2": "em_analise"}
    assert [i.state for i in queue(db)] == ["Em análise", "Em análise"]


def test_a_state_removed_while_records_are_in_it_asks_where_they_go(db, licence):
    flow = licence_flow()
    flow["states"][0]["label"] = "Recebido"  # a renamed state keeps its records (its value stays)
    flow["states"][0]["value"] = "protocolado"
    definitions.change_register(db, TI_CG, "chapada", "licencas_feira", licences(flow=flow), expected_version=1)
    assert queue(db)[0].state == "Recebido"
    flow["states"] = flow["states"][1:]
    flow["transitions"] = flow["transitions"][1:]
    [issue] = definitions.preview_change(db, TI_CG, "chapada", "licencas_feira", licences(flow=flow))
    assert (issue.field, issue.asks, issue.values) == ("state", "mapping", ("protocolado",))
    definitions.change_register(db, TI_CG, "chapada", "licencas_feira", licences(flow=flow),
                                {"state": {"protocolado": "em_analise"}}, expected_version=2)
    assert db["licencas_feira"].find_one({})["state"] == "em_analise"


def _flow(**change) -> dict:
    flow = licence_flow()
    flow.update(change)
    return flow


STATES = licence_flow()["states"]
MOVES = licence_flow()["transitions"]


@pytest.mark.parametrize("flow, key, words", [
    (_flow(states=STATES[:1], transitions=[]), "flow.states", "ao menos duas situações"),
    (_flow(states=[{"label": f"S{i}"} for i in range(10_000)]), "flow.states", "no máximo 20 situações"),
    (_flow(states=STATES + [{"label": "Em  análise"}]), "flow.states.4", "repete a situação 2"),
    (_flow(states=[{**STATES[0], "deadline_days": 400}] + STATES[1:]), "flow.states.0", "de 1 a 365"),
    (_flow(states=[{**STATES[0], "deadline_days": "5"}] + STATES[1:]), "flow.states.0", "número inteiro"),
    (_flow(states=STATES[:2] + [{"label": "Deferido", "deadline_days": 3}] + STATES[3:]), "flow.states.2",
     "nenhuma ação sai dela"),
    (_flow(states=STATES + [{"label": "Arquivado"}]), "flow.states.4", "nenhuma ação leva"),
    (_flow(transitions=MOVES + [{"source": "protocolado", "target": "nada", "label": "X", "roles": ["ti"]}]),
     "flow.transitions.3", "entre as situações do fluxo"),
    (_flow(transitions=MOVES + [dict(MOVES[0])]), "flow.transitions.3", "já existe uma ação"),
    (_flow(transitions=[{**MOVES[0], "roles": ["gabinete"]}] + MOVES[1:]), "flow.transitions.0", "quem pode fazer"),
    (_flow(transitions=[{**MOVES[0], "label": ""}] + MOVES[1:]), "flow.transitions.0", "nome da ação"),
], ids=["one-state", "ten-thousand-states", "duplicate-state", "deadline-too-long", "deadline-not-int",
        "deadline-on-a-final-state", "unreachable-state", "move-to-nothing", "duplicate-move", "role-not-allowed",
        "move-without-label"])
def test_bad_flows_are_refused_in_ptbr_next_to_their_row(db, flow, key, words):
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", licences(flow=flow))
    assert words in refused.value.errors[key]
    assert db["register_definitions"].count_documents({}) == 0


def test_a_move_by_a_role_that_does_not_read_the_register_is_refused_when_defined(db):
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", licences(read_roles=["secretaria"]))
    assert "precisa também consultar" in refused.value.errors["flow.transitions.1"]


def test_a_flow_and_its_records_states_travel_with_the_definition(db, licence, prepared_store, tmp_path):
    from services.shared import definition_transfer
    from services.store import connect
    from tests.conftest import SECRETARIA_MP, copy_store

    flows.move(db, SECRETARIA_CG, "chapada", "licencas_feira", licence, "em_analise", expected_version=1)
    entities.create(db, SECRETARIA_CG, "licencas_feira", "chapada", {"numero": "F-2", "titular": CPF})
    data = definition_transfer.export_register(db, TI_CG, "chapada", "licencas_feira", with_records=True)
    other = connect(uri="", data_dir=str(copy_store(prepared_store, tmp_path / "other")))
    definition_transfer.import_register(other, TI_MP, "matupa", data)
    states = {d["numero"]: d["state"] for d in other["licencas_feira"].find({})}
    assert states == {"F-1": "em_analise", "F-2": "protocolado"}
    assert [i.state for i in flows.deadlines(other, SECRETARIA_MP, "matupa", date(2027, 12, 31))] == [
        "Protocolado", "Em análise"]
    document = json.loads(data)
    document["records"][0]["state"] = "arquivado"
    bad = json.dumps(document).encode()
    plan = definition_transfer.check_import(other, TI_MP, "matupa", bad, rename_to="licencas_2")
    assert any("“arquivado” não é uma situação do fluxo" in p.message for p in plan.problems)


def test_the_record_page_moves_a_record_twice_and_shows_its_history(db, licence):
    """The clerk opens the record on its register's page: its state, the moves her role may make, and
    each move recorded below (the move's choices change with the state)."""
    from streamlit.testing.v1 import AppTest

    from tests.test_page_forms import ROOT

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.session_state["actor"], app.session_state["municipality"] = SECRETARIA_CG, "chapada"
    app.run()
    app.switch_page("app_pages/register_records.py")
    app.session_state["defined_register"] = "licencas_feira"
    app.session_state["licencas_feira_open"] = licence
    app.run()
    assert not app.exception, app.exception
    assert [m.value for m in app.metric][:2] == ["Protocolado", "13/11/2026"]
    assert [r.options for r in app.radio] == [["Iniciar análise"]]
    app.text_area(key=f"licencas_feira_move_{licence}_note").input("Documentos conferidos")
    next(b for b in app.button if b.label == "Registrar a ação").click()
    app.run()
    assert not app.exception, app.exception
    assert "Licença de feira F-1: situação “Em análise”." in [s.value for s in app.success]
    assert [r.options for r in app.radio] == [["Indeferir"]]  # "Deferir" is TI's
    next(b for b in app.button if b.label == "Registrar a ação").click()
    app.run()
    assert not app.exception, app.exception
    assert app.radio.len == 0 and "Situação final" in " ".join(c.value for c in app.caption)
    history = app.dataframe[-1].value
    assert list(history["Ação"]) == ["Iniciar análise", "Indeferir"]
    assert list(history["Observação"]) == ["Documentos conferidos", ""]


@pytest.mark.parametrize("flow", ["em análise", ["Protocolado", "Deferido"], {"states": "Protocolado"},
                                  {"states": [{"label": "A"}, "B"]}, {"states": STATES, "transitions": [["a", "b"]]}],
                         ids=["text", "list", "states-text", "state-not-item", "move-not-item"])
def test_a_flow_of_the_wrong_shape_is_refused_not_a_crash(db, flow):
    """A definition read from a file (issue 24 item 5) may carry anything under "flow"."""
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", licences(flow=flow))
    assert "formato inválido" in refused.value.errors["flow"]
