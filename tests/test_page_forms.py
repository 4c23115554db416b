"""Screens that prevent mistakes and let them be undone (issue 11, items 2, 3, 5–9), driven as a clerk
would (AppTest): references picked from the register, each error under its field with what was typed
kept, a guided next step, removal and cancellation with confirmation, the verdict in one line."""
from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

from streamlit.testing.v1 import AppTest

from rules.ridehailing.lifecycle import Status
from seed.people import cpf as random_cpf
from services.ridehailing import authorizations, registry
from services.shared import (
    audit_log,
    clock,
    custom_fields,
    entities,
    entity_lists,
)
from services.shared.schema import ListQuery
from tests.conftest import TI
from tests.ridehailing_data import ACTORS, register, requested

ROOT = Path(__file__).resolve().parent.parent
TODAY = clock.today()


def page(name: str, actor=ACTORS["chapada"], municipality: str = "chapada") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / name), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    return at.run()


def captions(at: AppTest) -> str:
    return " | ".join(c.value for c in at.caption)


def texts(at: AppTest, kind: str) -> str:
    return " | ".join(e.value for e in getattr(at, kind))


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_the_vehicle_form_picks_the_driver_from_the_register(db):
    cpf, _ = register(db, "chapada")
    at = page("vehicles.py")
    picker = at.selectbox(key="vehicles_form_new_driver_cpf")
    shown = entities.fields.show("cpf", cpf)
    assert picker.label == "CPF do condutor *" and any(shown in option for option in picker.options)
    assert "CPF do condutor *" not in [t.label for t in at.text_input]  # never typed


def test_a_future_cnh_date_is_refused_under_its_field_and_the_form_keeps_the_rest(db, ):
    at = page("drivers.py")
    form = "drivers_form_new"
    at.text_input(key=f"{form}_name").input("Beatriz Teste")
    at.text_input(key=f"{form}_cpf").input(random_cpf(random.Random(5)))
    at.text_input(key=f"{form}_address").input("Rua A, 1")
    at.text_input(key=f"{form}_cnh_number").input("04512345678")
    at.selectbox(key=f"{form}_cnh_category").set_value("B")
    at.date_input(key=f"{form}_cnh_first_license").set_value(TODAY + timedelta(days=1))
    at.date_input(key=f"{form}_cnh_valid_until").set_value(TODAY + timedelta(days=900))
    button(at, "Salvar e novo").click().run()
    assert not at.exception
    assert f"Primeira habilitação: não pode ser posterior a hoje ({TODAY:%d/%m/%Y})." in captions(at)
    assert not at.error  # no red block with every message
    assert at.text_input(key=f"{form}_name").value == "Beatriz Teste"
    assert at.text_input(key=f"{form}_address").value == "Rua A, 1"
    assert db["drivers"].count_documents({}) == 0


def test_a_saved_driver_clears_the_form_and_offers_the_record_and_the_next_step(db):
    at = page("drivers.py")
    form = "drivers_form_new"
    cpf = random_cpf(random.Random(6))
    at.text_input(key=f"{form}_name").input("Beatriz Teste")
    at.text_input(key=f"{form}_cpf").input(cpf)
    at.text_input(key=f"{form}_address").input("Rua A, 1")
    at.text_input(key=f"{form}_cnh_number").input("04512345678")
    at.selectbox(key=f"{form}_cnh_category").set_value("B")
    at.date_input(key=f"{form}_cnh_first_license").set_value(TODAY - timedelta(days=4000))
    at.date_input(key=f"{form}_cnh_valid_until").set_value(TODAY + timedelta(days=900))
    button(at, "Salvar e novo").click().run()
    assert not at.exception
    assert at.text_input(key=f"{form}_name").value == ""
    assert "Beatriz Teste" in texts(at, "success")
    labels = [b.label for b in at.button]
    assert "Abrir o registro" in labels and "Cadastrar o veículo" in labels
    button(at, "Abrir o registro").click().run()
    driver = registry.driver_record(db, "chapada", cpf)
    assert at.session_state["drivers_open"] == driver["id"]
    assert any(s.value.startswith("Beatriz Teste · CPF") for s in at.subheader)


def test_a_driver_with_vehicle_offers_the_request_as_next_step(db):
    cpf, _ = register(db, "chapada")
    at = page("drivers.py")
    at.selectbox(key="drivers_open").set_value(registry.driver_record(db, "chapada", cpf)["id"]).run()
    # the first action of the record (the list's saved-view controls above it belong to the list)
    assert [b.label for b in at.button if not (b.key or "").startswith("drivers_list_")][0] == "Protocolar o requerimento"


def test_a_vehicle_in_vistoria_offers_to_record_it(db):
    auth = requested(db, "chapada")
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, TODAY)
    plate = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)["plate"]
    at = page("vehicles.py")
    at.selectbox(key="vehicles_open").set_value(registry.vehicle_record(db, "chapada", plate)["id"]).run()
    assert "Registrar vistoria" in [b.label for b in at.button]


def open_driver(db, cpf: str) -> AppTest:
    at = page("drivers.py")
    at.selectbox(key="drivers_open").set_value(registry.driver_record(db, "chapada", cpf)["id"]).run()
    return at


def test_a_document_is_removed_with_a_reason_and_a_confirmation(db):
    cpf, _ = register(db, "chapada")
    at = open_driver(db, cpf)
    assert "Condutor: atende a todos os requisitos da lei." in texts(at, "success")
    documents = entity_lists.list_all(db, ACTORS["chapada"], "driver_documents", "chapada",
                                      ListQuery(filters={"driver_cpf": cpf}))
    medical = next(i for i, d in enumerate(documents) if d["code"] == "medical")
    at.session_state["drivers_docs_table_0"] = {"selection": {"rows": [medical], "columns": [], "cells": []}}
    at.run()
    reason = next(t for t in at.text_input if t.label.startswith("Motivo da remoção"))
    button(at, "Remover o documento").click().run()
    assert "removido, com o seu nome" in texts(at, "warning")
    assert db["driver_documents"].count_documents({"removed": {"$exists": True}}) == 0  # not before confirming
    button(at, "Confirmar").click().run()
    assert "Motivo da remoção: campo obrigatório." in captions(at)  # a reason is required
    reason = next(t for t in at.text_input if t.label.startswith("Motivo da remoção"))
    reason.input("Atestado de outro condutor")
    button(at, "Remover o documento").click().run()
    button(at, "Confirmar").click().run()
    assert not at.exception
    assert "Registro removido: " in texts(at, "success") and "O motivo ficou no registro de auditoria." in texts(at, "success")
    assert "Condutor — Falta comprovar" in texts(at, "warning")
    entries, _ = audit_log.search(db, TI, "chapada", action="remove")
    assert [e["note"] for e in entries] == ["Removido por engano: Atestado de outro condutor"]


def test_a_wrong_protocol_is_cancelled_from_the_screen(db):
    auth = requested(db, "chapada")
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    at.text_input(key="auth_cancel_reason").input("Protocolado em duplicidade")
    at.button(key="auth_cancel").click().run()
    at.button(key="auth_cancel_yes").click().run()
    assert not at.exception
    assert "cancelado. O motivo ficou no histórico e na auditoria." in texts(at, "success")
    state = authorizations.status(db, ACTORS["chapada"], "chapada", auth, TODAY)
    assert state.status is Status.CANCELLED


def test_the_authorization_list_filters_by_status_exports_xlsx_and_opens_a_row(db):
    first = requested(db, "chapada")
    second = requested(db, "chapada", seed=2)
    authorizations.approve(db, ACTORS["chapada"], "chapada", second, TODAY)
    at = page("authorizations.py")
    downloads = [b.proto.label for b in at.get("download_button")]
    assert "Exportar CSV (filtro atual)" in downloads and "Exportar XLSX (filtro atual)" in downloads
    at.selectbox(key="auth_status").set_value("awaiting_inspection").run()
    table = at.dataframe[0].value
    assert list(table["Situação"]) == ["Aguardando vistoria"]
    at.session_state["auth_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    protocol = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", second)["protocol"]
    assert any(protocol in s.value for s in at.subheader)
    assert first != second


def test_the_pendencias_queue_pages_exports_and_opens(db):
    auth = requested(db, "chapada", protocol=TODAY - timedelta(days=20))
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, TODAY - timedelta(days=15))
    at = page("pendencias.py")
    assert "Exportar XLSX (filtro atual)" in [b.proto.label for b in at.get("download_button")]
    assert list(at.dataframe[0].value["Protocolo"]) != []


def test_a_click_on_a_pendencia_opens_its_record_where_the_work_is(db):
    from tests.test_pages_smoke import app_as

    auth = requested(db, "chapada", protocol=TODAY - timedelta(days=20))
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, TODAY - timedelta(days=15))
    at = app_as(ACTORS["chapada"])
    at.switch_page("app_pages/pendencias.py").run()
    assert at.dataframe[0].value["Tipo"].iloc[0] == "Vistoria"
    at.session_state["pend_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert not at.exception
    # issue 35 item 11: the vistoria is recorded on Vistorias, its authorization chosen, in one click
    assert [t.value for t in at.title] == ["Vistorias"] and at.selectbox(key="insp_auth").value == auth
    at.switch_page("app_pages/pendencias.py").run()
    assert not at.exception and [t.value for t in at.title] == ["Pendências"]  # no row still chosen


def test_the_vistoria_computes_the_age_item_and_needs_the_inspector(db):
    auth = requested(db, "chapada")
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, TODAY)
    at = page("inspections.py")
    at.selectbox(key="insp_auth").set_value(auth).run()
    assert "insp_item_III" not in [c.key for c in at.checkbox]
    assert any("III — Idade máxima" in m.value and "calculado do ano modelo" in m.value for m in at.markdown)
    for box in at.checkbox:
        box.check()
    at.button[0].click().run()
    assert "Vistoriador: informe o nome de quem fez a vistoria." in captions(at)
    assert db["inspections"].count_documents({}) == 0


def test_a_parameter_error_shows_under_the_value_and_keeps_the_act(db):
    at = page("parameters.py", TI)
    at.selectbox(key="params_new_name").set_value("defence_period_days")  # read as its kind, a whole number
    at.text_input(key="params_new_value").input("doze reais")
    at.text_input(key="params_new_act").input("Decreto 20/2027")
    next(b for b in at.button if b.label == "Revisar antes de gravar").click().run()
    assert not at.exception
    assert "Valor: número inteiro inválido." in captions(at)
    assert not at.error
    assert at.text_input(key="params_new_act").value == "Decreto 20/2027"


def test_a_custom_field_is_deactivated_after_confirmation(db):
    custom_fields.add_custom_field(db, TI, "drivers", "chapada", "Apelido", "text")
    at = page("custom_fields.py", TI)
    at.selectbox(key="cf_entity").set_value("drivers").run()
    row = custom_fields.custom_field_rows(db, TI, "drivers", "chapada")[0]
    at.selectbox(key="cf_chosen").set_value(row["id"]).run()
    button(at, "Desativar o campo").click().run()
    assert "Desativar 'Apelido'?" in texts(at, "warning")
    button(at, "Confirmar").click().run()
    assert not at.exception
    assert "Campo 'Apelido' desativado." in texts(at, "success")
    assert "cf_apelido" not in {f.name for f in entities.spec_for(db, "drivers", "chapada").fields}


def test_the_verdict_is_one_line_with_words_not_colour_emoji(db):
    cpf, _ = register(db, "chapada", driver={"fit_for_duty": False}, missing=("medical", "criminal"))
    at = open_driver(db, cpf)
    assert "Condutor — Falta comprovar: 2 documentos faltando ou vencidos, 1 requisito a comprovar" in texts(
        at, "warning")
    tables = [d.value for d in at.dataframe if "Requisito" in d.value.columns]
    words = {w for t in tables for w in t["Situação"]}
    assert words <= {"✓ Atende", "? Falta comprovar", "✗ Não atende", "! Atenção", "i Informação"}
    assert not any(ch in "".join(t.to_string() for t in tables) for ch in "✅❌⚠️ℹ️🔴")


def test_a_saved_taxpayer_is_one_click_from_its_record(db):
    at = page("taxpayers.py")
    form = "taxpayers_form_new"
    at.text_input(key=f"{form}_name").input("Associação Teste")
    at.text_input(key=f"{form}_document").input(random_cpf(random.Random(8)))
    at.selectbox(key=f"{form}_kind").set_value("pf")
    at.text_input(key=f"{form}_address").input("Rua B, 2")
    button(at, "Salvar e novo").click().run()
    assert not at.exception
    assert at.text_input(key=f"{form}_name").value == ""
    button(at, "Abrir o registro").click().run()
    assert "Editar contribuinte" in [s.value for s in at.subheader]
    edit = next(t for t in at.text_input if t.key and t.key.endswith("_name") and t.key != f"{form}_name")
    assert edit.value == "Associação Teste"


def test_a_refusal_is_confirmed_before_it_is_recorded(db):
    auth = requested(db, "chapada", vehicle={"model_year": TODAY.year - 11})
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    at.button(key="auth_refuse").click().run()
    assert "Indeferir o requerimento" in texts(at, "warning")
    assert authorizations.status(db, ACTORS["chapada"], "chapada", auth, TODAY).status is Status.REQUESTED
    at.button(key="auth_refuse_no").click().run()
    assert authorizations.status(db, ACTORS["chapada"], "chapada", auth, TODAY).status is Status.REQUESTED



def test_a_vistoria_due_opens_in_the_record_tab(db):
    auth = requested(db, "chapada")
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, TODAY)
    at = page("inspections.py")
    assert "Exportar XLSX (filtro atual)" in [b.proto.label for b in at.get("download_button")]
    at.session_state["insp_due_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    at.button(key="insp_due_open").click().run()
    assert not at.exception
    assert at.session_state["insp_auth"] == auth and at.session_state["insp_tabs"] == "Registrar vistoria"


def test_the_parameters_list_exports_xlsx(db):
    at = page("parameters.py", TI)
    assert [b.proto.label for b in at.get("download_button")][:2] == ["Exportar CSV (filtro atual)",
                                                                      "Exportar XLSX (filtro atual)"]


def test_the_next_step_opens_the_vehicle_form_with_the_driver_picked(db):
    from seed.ridehailing import driver_values

    values = driver_values(random.Random(12), "chapada", TODAY)
    driver_id = entities.create(db, ACTORS["chapada"], "drivers", "chapada", values)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"] = ACTORS["chapada"]
    at.session_state["municipality"] = "chapada"
    at.run()
    at.switch_page("app_pages/drivers.py").run()
    at.selectbox(key="drivers_open").set_value(driver_id).run()
    button(at, "Cadastrar o veículo").click().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Veículos"]
    assert at.session_state["vehicles_tabs"] == "Novo veículo"
    assert at.selectbox(key="vehicles_form_new_driver_cpf").value == values["cpf"]


def test_an_older_unregistered_reference_is_shown_and_kept_on_edit(db):
    cpf, _ = register(db, "chapada")
    db["drivers"].update_one({"cpf": cpf}, {"$set": {"platform_cnpj": "11222333000181"}})  # saved before the rule
    driver = registry.driver_record(db, "chapada", cpf)
    at = open_driver(db, cpf)
    key = f"drivers_change_{driver['id']}"
    assert at.selectbox(key=f"{key}_platform_cnpj").value == "11222333000181"
    at.date_input(key=f"{key}_changed_on").set_value(TODAY)
    at.text_input(key=f"{key}_address").input("Rua Nova, 5")
    button(at, "Salvar alteração").click().run()
    assert not at.exception
    after = registry.driver_record(db, "chapada", cpf)
    assert (after["address"], after["platform_cnpj"]) == ("Rua Nova, 5", "11222333000181")


def test_salvar_e_abrir_opens_the_saved_record_and_leaves_the_new_form_blank(db):
    """Issue 22: every create form offers "Salvar e novo" (the blank form, for the next one) and
    "Salvar e abrir" (the record just saved, open on the list's tab)."""
    at = page("taxpayers.py")
    form = "taxpayers_form_new"
    at.text_input(key=f"{form}_name").input("Cooperativa Teste")
    at.text_input(key=f"{form}_document").input(random_cpf(random.Random(9)))
    at.selectbox(key=f"{form}_kind").set_value("pf")
    at.text_input(key=f"{form}_address").input("Rua C, 3")
    button(at, "Salvar e abrir").click().run()
    assert not at.exception
    saved = db["taxpayers"].find_one({"name": "Cooperativa Teste"})
    assert saved is not None
    assert at.session_state["taxpayers_open"] == str(saved["_id"]) and at.session_state["taxpayers_tabs"] == "Lista"
    assert "Editar contribuinte" in [s.value for s in at.subheader]
    assert at.text_input(key=f"{form}_name").value == ""
    assert "Contribuinte salvo." in texts(at, "success")



def test_a_reference_is_one_picker_and_a_large_register_adds_its_search_box(db, monkeypatch):
    """Issue 22 item 7: "Condutor" on the vehicle form is one widget the clerk types in to filter; only a
    register past ``PICK_ALL`` records gets a "Buscar" box (the store answers the 20 newest matches)."""
    from ui import entity

    register(db, "chapada")
    at = page("vehicles.py")
    form = "vehicles_form_new"
    keys = {t.key for t in at.text_input}
    assert f"{form}_driver_cpf_term" not in keys
    assert len(at.selectbox(key=f"{form}_driver_cpf").options) == 1  # the register's one driver, offered at once
    monkeypatch.setattr(entity, "PICK_ALL", 0)
    at = page("vehicles.py")
    assert f"{form}_driver_cpf_term" in {t.key for t in at.text_input}
    assert len(at.selectbox(key=f"{form}_driver_cpf").options) == 1  # the newest, before anything is typed
    at.text_input(key=f"{form}_driver_cpf_term").input("Ninguém com este nome").run()
    assert at.selectbox(key=f"{form}_driver_cpf").options == []  # the store's matches of the term
