"""Ride-hailing platforms: register, lists and monthly ISSQN handed in, and the compliance of the law
(APP insurance, periodic lists, ISSQN) with each article."""
import pandas as pd
import streamlit as st

from rules.fmt import day
from services.ridehailing import platforms, registry
from services.shared import clock, entities, schema
from ui import common, search_results
from ui.entity import (
    announce,
    announced,
    entity_form,
    entity_import,
    field_error,
    forget,
    form_errors,
    record_picker,
    saved_panel,
    submit,
)
from ui.lists import entity_list
from ui.verdicts import verdict

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
spec = entities.spec_for(db, "platforms", mun)
KINDS = dict(schema.SPECS["platform_reports"].field("kind").choices)
common.page_header("Plataformas", rules.act)
announced()


def reports(doc: dict) -> None:
    ok, rows = common.attempt(platforms.platform_reports, db, actor, mun, doc["cnpj"])
    if ok:
        st.dataframe(pd.DataFrame([{
            "Obrigação": KINDS[r["kind"]],
            "Data": f"{r['on']:%m/%Y}" if r["kind"] == "issqn" else day(r["on"]),
            "Protocolo ou DAM": r.get("reference") or "",
        } for r in reversed(rows)], columns=["Obrigação", "Data", "Protocolo ou DAM"]),
            hide_index=True, width="stretch", key="plat_reports_table")
    form_errors("plat_report", ["kind", "on", "reference"])
    with st.form("plat_report_form"):
        cols = st.columns(3)
        with cols[0]:
            kind = st.selectbox("Obrigação", list(KINDS), format_func=KINDS.get, key="plat_report_kind",
                placeholder="Escolha...")
            field_error("plat_report", "kind")
        with cols[1]:
            on = st.date_input("Data da entrega ou mês de competência", clock.today(), format="DD/MM/YYYY",
                               key="plat_report_on")
            field_error("plat_report", "on")
        with cols[2]:
            reference = st.text_input("Protocolo ou DAM", key="plat_report_ref")
            field_error("plat_report", "reference")
        submitted = st.form_submit_button("Registrar")
    if submitted:
        submit("plat_report", platforms.add_report, db, actor, mun, doc["cnpj"], kind, on, reference)
        forget("plat_report_kind", "plat_report_on", "plat_report_ref", plat_report_kind=list(KINDS)[0],
               plat_report_on=clock.today())
        announce("Registro adicionado.")
        st.rerun()


def platform_detail(doc: dict) -> None:
    st.subheader(f"{doc['name']} · CNPJ {spec.field('cnpj').show(doc['cnpj'])}")
    on = st.date_input("Verificar na data", clock.today(), format="DD/MM/YYYY", key="plat_on")
    ok, decision = common.attempt(platforms.compliance, db, actor, mun, doc["id"], on)
    if ok:
        verdict(decision, "Plataforma", "plat_compliance")
    blank = platforms.missing_policy_fields(doc)
    if blank:
        st.caption("Apólice APP incompleta no cadastro — preencha: " + ", ".join(blank) + ".")
    tab_reports, tab_links, tab_edit = st.tabs(["Relações e ISSQN", "Vínculos", "Editar dados"])
    with tab_reports:
        reports(doc)
    with tab_links:
        search_results.related(actor, mun, doc["cnpj"], doc["id"], "Nenhum auto ou DAM com este CNPJ.")
    with tab_edit:
        entity_form(spec, actor, mun, doc)


def picker() -> str | None:
    """Open a platform by name when no row of the table is selected."""
    doc = record_picker("platforms", actor, mun, "Abrir plataforma",
                        lambda d: f"{d['name']} · CNPJ {spec.field('cnpj').show(d['cnpj'])}", "plat_open")
    return doc["id"] if doc else None


tab_list, tab_new, tab_import = common.tabs(["Lista", "Nova plataforma", "Importar CSV"], "plat_tabs")
with tab_list:
    selected = entity_list(spec, actor, mun) or picker()
    if selected:
        st.divider()
        ok, doc = common.attempt(entities.get, db, actor, "platforms", mun, selected)
        if ok:
            platform_detail(doc)
with tab_new:
    entity_form(spec, actor, mun,
                after_save=lambda record_id: saved_panel(spec, actor, mun, record_id, "plat_tabs", "plat_open"))
with tab_import:
    entity_import(spec, actor, mun)
