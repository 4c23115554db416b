"""Zonas e localidades (TI): the list in force of the machinery module and an editor for a new dated
version (Decreto 017/2026, art. 3, §1: the zone order is the order of the regional schedule)."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from rules import fmt
from services.machinery import localities
from services.shared.errors import ServiceError, ValidationFailed
from ui import bookings, common
from ui.lists import export_buttons

actor = bookings.guard("admin")
common.page_header("Zonas e localidades", "Cronograma regionalizado do Decreto 017/2026 (art. 3, §1)")
db = common.db()
mun = common.municipality()
today = common.today()

ok, current = common.attempt(localities.in_force, db, actor, mun, today)
if not ok:
    st.stop()

st.subheader("Lista em vigor hoje")
if current:
    st.dataframe(pd.DataFrame(current), hide_index=True, width="stretch", key="localities_table")
    cols = st.columns(2)
    export_buttons(cols[0], cols[1], "Zonas e localidades", mun, "localities",
                   lambda: localities.export_csv(db, actor, mun, today),
                   lambda: localities.export_xlsx(db, actor, mun, today))
else:
    st.info("Não há lista de zonas e localidades em vigor neste município.")
st.caption("A ordem das zonas é a ordem do cronograma regionalizado de atendimento. "
           "Uma nova versão vale a partir da sua data; as anteriores ficam no histórico.")

st.subheader("Nova versão")
st.caption("Acrescente, apague ou reordene linhas (coluna Ordem). Linhas totalmente em branco são ignoradas.")
draft = st.session_state.get("localities_draft", current or [{"Ordem": 1, "Zona": "", "Localidade": "", "Área": None}])
generation = st.session_state.get("localities_generation", 0)
errors: dict[str, str] = st.session_state.get("localities_errors", {})


def under(field: str) -> None:
    if errors.get(field):
        st.caption(f":red[{errors[field]}]")


with st.form("localities_form"):
    edited = st.data_editor(
        pd.DataFrame(draft, columns=list(localities.COLUMNS)), num_rows="dynamic", hide_index=True,
        width="stretch", key=f"localities_editor_{generation}",
        column_config={
            "Ordem": st.column_config.NumberColumn("Ordem", min_value=1, step=1, required=True),
            "Zona": st.column_config.TextColumn("Zona", required=True),
            "Localidade": st.column_config.TextColumn("Localidade", required=True),
            "Área": st.column_config.SelectboxColumn("Área", options=list(localities.AREAS), required=True),
        })
    for name, message in errors.items():
        if name.startswith("linha") or name == "entries":
            st.caption(f":red[{message}]")
    cols = st.columns(2)
    with cols[0]:
        effective = st.date_input("Em vigor a partir de", value=today + timedelta(days=1), min_value=today,
                                  format="DD/MM/YYYY", key="localities_effective")
        under("effective")
    with cols[1]:
        act = st.text_input("Ato do Poder Executivo", key="localities_act", placeholder="Ex.: Portaria 12/2027")
        under("act")
    reviewed = st.form_submit_button("Revisar antes de salvar", type="primary")

if reviewed:
    st.session_state["localities_draft"] = edited.to_dict("records")
    st.session_state["localities_generation"] = generation + 1
    st.session_state["localities_pending"] = {"effective": effective, "act": act}
    st.session_state.pop("localities_errors", None)
    st.rerun()

if errors.get("_form"):
    st.error(errors["_form"])

pending = st.session_state.get("localities_pending")
if pending is not None:
    rows = [r for r in draft if any(str(r.get(k) or "").strip() for k in ("Zona", "Localidade"))]
    st.warning(f"Confirma a nova lista com {fmt.count(len(rows), 'localidade', 'localidades')}, em vigor a partir de "
               f"{fmt.day(pending['effective'])} ({pending['act'] or 'ato não informado'})? Nada foi gravado ainda.")
    cols = st.columns(2)
    if cols[0].button("Confirmar e salvar", type="primary", key="localities_save", icon=":material/save:"):
        st.session_state.pop("localities_pending", None)
        try:
            saved = localities.save(db, actor, mun, pending["effective"], draft, pending["act"])
        except ValidationFailed as exc:
            st.session_state["localities_errors"] = exc.errors
        except ServiceError as exc:
            st.session_state["localities_errors"] = {exc.field or "_form": exc.message}
        else:
            st.session_state.pop("localities_draft", None)
            st.session_state["localities_generation"] = generation + 1
            st.session_state["localities_saved"] = (saved, pending["effective"])
        st.rerun()
    if cols[1].button("Voltar a editar", key="localities_back"):
        st.session_state.pop("localities_pending", None)
        st.rerun()

if st.session_state.get("localities_saved"):
    count, day = st.session_state.pop("localities_saved")
    st.success(f"Nova lista registrada com {fmt.count(count, 'localidade', 'localidades')}, em vigor a partir de {fmt.day(day)}.")
