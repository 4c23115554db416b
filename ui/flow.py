"""A defined register's status flow on screen: where a record stands and the moves the clerk may make
(on its page), and the deadlines of every flow on Início (issue 24 item 4)."""
from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import streamlit as st

from rules import fmt
from services.shared import clock, flows
from services.shared.errors import ServiceError
from services.shared.schema import EntitySpec
from ui import common, navigation
from ui.entity import announce

SHOWN = 10  # rows of the Início list


def flow_panel(spec: EntitySpec, actor, mun: str, doc: dict) -> None:
    """The record's state, since when, until when, the move form and the moves made."""
    ok, status = common.attempt(flows.status, common.db(), actor, mun, spec.name, doc["id"])
    if not ok or status is None:
        return
    st.subheader("Situação")
    cols = st.columns(3)
    cols[0].metric("Situação atual", status.state)
    cols[1].metric("Desde", fmt.day(status.since) if status.since else "—")
    late = status.due is not None and status.due < clock.today()
    cols[2].metric("Prazo para sair dela", fmt.day(status.due) if status.due else "Sem prazo",
                   delta="Atrasado" if late else None, delta_color="inverse" if late else "normal")
    if status.moves:
        key = f"{spec.name}_move_{doc['id']}"
        with st.form(key, border=True):
            labels = dict(status.moves)
            target = st.radio("Ação", list(labels), format_func=labels.get, key=f"{key}_target", horizontal=True)
            note = st.text_area("Observação (opcional, entra no histórico e na auditoria)", key=f"{key}_note",
                                max_chars=flows.NOTE_MAX, height=80)
            if st.form_submit_button("Registrar a ação", type="primary", icon=":material/arrow_forward:"):
                try:
                    now = flows.move(common.db(), actor, mun, spec.name, doc["id"], target, note,
                                     expected_version=doc["version"])
                except ServiceError as exc:
                    st.error(exc.message, icon=":material/error:")
                else:
                    common.forget(f"{key}_note")
                    announce(f"{spec.label} {spec.title_of(doc) or ''}: situação “{now}”.")
                    st.rerun()
    else:
        st.caption("Situação final: nenhuma ação do fluxo sai dela." if status.final
                   else "Nenhuma ação do fluxo está liberada para o seu perfil nesta situação.")
    if status.history:
        st.caption("Histórico de situações")
        common.table(pd.DataFrame([{"Quando": clock.to_local(h["at"]).strftime("%d/%m/%Y %H:%M"), "Ação": h["action"],
                                    "De": h["from"], "Para": h["to"], "Por": h["by"], "Observação": h.get("note") or ""}
                                   for h in status.history]), key=f"{spec.name}_history_{doc['id']}")


def _open(register: str, record_id: str) -> None:
    st.session_state[f"{register}_open"] = record_id
    st.session_state[f"{register}_tabs"] = "Lista"


def inbox(actor, mun: str, today: date, week_days: int) -> None:
    """Início: the records whose state's deadline passed or falls this week, in every flow the actor reads."""
    week = today + timedelta(days=week_days)
    ok, items = common.attempt(flows.deadlines, common.db(), actor, mun, week)
    if not ok or not items:
        return
    st.subheader("Cadastros definidos: prazos das situações")
    cols = st.columns(3)
    cols[0].metric("Atrasadas", sum(i.late for i in items))
    cols[1].metric("Para hoje", sum(1 for i in items if i.due == today))
    cols[2].metric(f"Nos próximos {week_days} dias", sum(1 for i in items if today < i.due <= week))
    shown = items[:SHOWN]
    event = common.table(pd.DataFrame([{
        "Prazo": f"Atrasada desde {fmt.day(i.due)}" if i.late else "Hoje" if i.due == today else fmt.day(i.due),
        "Cadastro": i.register_label, "Registro": i.title, "Situação": i.state,
        "Desde": fmt.day(i.entered)} for i in shown]), key="home_flows", on_select="rerun",
        selection_mode="single-row")
    picked = event.selection.rows if event is not None and event.selection else []
    if picked:  # a click on the row opens the record on its register's page
        chosen = shown[picked[0]]
        st.session_state.pop("home_flows", None)
        _open(chosen.register, chosen.record_id)
        st.switch_page(st.Page(navigation.DEFINED_PAGE, url_path=navigation.defined_path(chosen.register)))
    st.caption("Clique numa linha para abrir o registro." + (f" Mostrando {SHOWN} de {len(items)}."
                                                                if len(items) > SHOWN else ""))
