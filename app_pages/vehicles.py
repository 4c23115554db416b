"""Ride-hailing vehicles: register, link to the driver and the eligibility verdict of the law."""
import streamlit as st

from services.ridehailing import registry
from services.shared import clock, entities
from ui import common, search_results
from ui.entity import record_picker
from ui.ridehailing import change_form, histories, next_step_bar, registry_page
from ui.verdicts import verdict

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
spec = entities.spec_for(db, "vehicles", mun)
common.page_header("Veículos", rules.act)


def vehicle_detail(doc: dict) -> None:
    st.subheader(f"{spec.field('plate').show(doc['plate'])} · {doc['make']} {doc['model']} {doc['model_year']}")
    ok, driver = common.attempt(registry.driver_record, db, doc["municipality"], doc["driver_cpf"])
    if ok:
        st.caption(f"Serve ao condutor {driver['name']} (CPF {spec.field('driver_cpf').show(driver['cpf'])}) como "
                   f"{spec.field('holder').show(doc['holder']).lower()}.")
    next_step_bar("vehicles", actor, mun, doc, "vehicles_next")
    on = st.date_input("Verificar na data", clock.today(), format="DD/MM/YYYY", key="vehicles_on")
    ok, decision = common.attempt(registry.vehicle_eligibility, db, actor, mun, doc["plate"], on)
    if ok:
        verdict(decision, "Veículo", "vehicles_verdict")
    st.caption("Substituição de veículo (acidente, venda ou locação): cadastre o novo veículo e registre a "
               "substituição na autorização; o novo veículo passa por nova vistoria.")
    tab_links, tab_edit, tab_history = st.tabs(["Autorizações e autos", "Editar dados", "Histórico de alterações"])
    with tab_links:
        search_results.related(actor, mun, doc["plate"], doc["id"], "Nenhuma autorização ou auto com esta placa.")
    with tab_edit:
        change_form(spec, actor, mun, doc, rules.ref("data_change"))
    with tab_history:
        histories(actor, mun, "vehicles", doc["id"])


def picker() -> str | None:
    """Open a record by plate or model when no row of the table is selected."""
    doc = record_picker("vehicles", actor, mun, "Abrir veículo",
                        lambda d: f"{spec.field('plate').show(d['plate'])} · {d['model']}", "vehicles_open")
    return doc["id"] if doc else None


registry_page(spec, actor, mun, "Novo veículo", picker, vehicle_detail, "vehicles_open")
