"""Ride-hailing drivers: register, documents of the law's checklist, records and the eligibility verdict."""
import pandas as pd
import streamlit as st

from rules.fmt import day
from services import clock, entities, ridehailing
from services.entities import ListQuery
from ui import common
from ui.entity import record_picker
from ui.ridehailing import change_form, histories, registry_page, verdict

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = ridehailing.rules_of(mun)
spec = entities.spec_for(db, "drivers", mun)
common.page_header("Condutores", rules.act)


def children(entity: str, cpf: str) -> list[dict]:
    ok, rows = common.attempt(entities.list_all, db, actor, entity, mun, ListQuery(filters={"driver_cpf": cpf}))
    return rows if ok else []


def add_child(entity: str, cpf: str, form_key: str, widgets) -> None:
    """A small form that adds a dated record of the driver (document, infraction, course)."""
    with st.form(form_key, clear_on_submit=True):
        values = widgets()
        submitted = st.form_submit_button("Adicionar")
    if submitted:
        ok, _ = common.attempt(entities.create, db, actor, entity, mun, {"driver_cpf": cpf, **values})
        if ok:
            st.toast("Registro adicionado.", icon=":material/check_circle:")
            st.rerun()


def documents(cpf: str) -> None:
    st.markdown(f"**Documentos exigidos** — {rules.act}")
    rows = children("driver_documents", cpf)
    labels = dict(entities.SPECS["driver_documents"].field("code").choices)
    handed = [{"Documento": labels.get(r["code"], r["code"]), "Emissão": day(r["issued_on"]),
               "Validade impressa": day(r["valid_until"]) if r.get("valid_until") else "—"} for r in rows]
    st.dataframe(pd.DataFrame(handed, columns=["Documento", "Emissão", "Validade impressa"]), hide_index=True,
                 width="stretch", key="drivers_docs_table")
    required = {req.code: req.label for req in rules.documents}

    def widgets() -> dict:
        cols = st.columns(3)
        code = cols[0].selectbox("Documento", list(required), format_func=required.get, key="drivers_doc_code")
        issued = cols[1].date_input("Emissão", clock.today(), format="DD/MM/YYYY", key="drivers_doc_issued")
        until = cols[2].date_input("Validade impressa (se houver)", value=None, format="DD/MM/YYYY",
                                   key="drivers_doc_until")
        return {"code": code, "issued_on": issued, "valid_until": until}

    add_child("driver_documents", cpf, "drivers_doc_form", widgets)


def records(cpf: str) -> None:
    left, right = st.columns(2)
    with left:
        st.markdown("**Infrações de trânsito (CNH)**")
        rows = children("traffic_infractions", cpf)
        severity = entities.SPECS["traffic_infractions"].field("severity")
        st.dataframe(pd.DataFrame([{"Data": day(r["committed_on"]), "Gravidade": severity.show(r["severity"]),
                                    "Descrição": r.get("description") or ""} for r in rows],
                                  columns=["Data", "Gravidade", "Descrição"]),
                     hide_index=True, width="stretch", key="drivers_infractions_table")

        def infraction() -> dict:
            on = st.date_input("Data da infração", clock.today(), format="DD/MM/YYYY", key="drivers_inf_on")
            level = st.selectbox("Gravidade", [v for v, _ in severity.choices], format_func=severity.show,
                                 key="drivers_inf_severity")
            text = st.text_input("Descrição", key="drivers_inf_text")
            return {"committed_on": on, "severity": level, "description": text}

        add_child("traffic_infractions", cpf, "drivers_inf_form", infraction)
    with right:
        st.markdown("**Cursos e palestras de qualificação**")
        rows = children("training_courses", cpf)
        st.dataframe(pd.DataFrame([{"Data": day(r["held_on"]), "Curso": r["title"]} for r in rows],
                                  columns=["Data", "Curso"]),
                     hide_index=True, width="stretch", key="drivers_courses_table")

        def course() -> dict:
            on = st.date_input("Data", clock.today(), format="DD/MM/YYYY", key="drivers_course_on")
            title = st.text_input("Curso ou palestra", key="drivers_course_title")
            return {"held_on": on, "title": title}

        add_child("training_courses", cpf, "drivers_course_form", course)


def driver_detail(doc: dict) -> None:
    st.subheader(f"{doc['name']} · CPF {spec.field('cpf').show(doc['cpf'])}")
    on = st.date_input("Verificar na data do protocolo", clock.today(), format="DD/MM/YYYY", key="drivers_on")
    ok, decision = common.attempt(ridehailing.driver_eligibility, db, actor, mun, doc["cpf"], on)
    if ok:
        verdict(decision, "Condutor", "drivers_verdict")
    tab_docs, tab_records, tab_edit, tab_history = st.tabs(
        ["Documentos", "Infrações e cursos", "Editar dados", "Histórico de alterações"])
    with tab_docs:
        documents(doc["cpf"])
    with tab_records:
        records(doc["cpf"])
    with tab_edit:
        change_form(spec, actor, mun, doc, rules.ref("data_change"))
    with tab_history:
        histories(actor, mun, "drivers", doc["id"])


def picker() -> str | None:
    """Open a record by name or CPF when no row of the table is selected."""
    doc = record_picker("drivers", actor, mun, "Abrir condutor",
                        lambda d: f"{d['name']} · CPF {spec.field('cpf').show(d['cpf'])}", "drivers_open")
    return doc["id"] if doc else None


registry_page(spec, actor, mun, "Novo condutor", picker, driver_detail)
