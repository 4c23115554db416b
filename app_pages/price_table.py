"""Public price table (TI): the versions with their act, and an update by INPC/IPCA previewed before it is saved."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from rules import fmt
from rules.machinery.prices import PriceIndex
from services.machinery import price_tables
from services.shared import clock
from services.shared.errors import ServiceError, ValidationFailed
from ui import bookings, common
from ui.lists import export_buttons

actor = bookings.guard("admin")
common.page_header("Tabela de preços", "Preços públicos do Anexo I do Decreto 017/2026 (art. 12)")
db = common.db()
mun = common.municipality()
today = clock.today()

ok, tables = common.attempt(price_tables.versions, db, actor, mun)
if not ok or not tables:
    st.info("Não há tabela de preços neste município.")
    st.stop()

chosen = st.selectbox("Versão", [t.effective for t in tables], key="prices_version",
                      format_func=lambda d: next(t.label for t in tables if t.effective == d)
                      + (" · em vigor hoje" if d == max(t.effective for t in tables if t.effective <= today)
                         else " · futura" if d > today else ""), placeholder="Escolha...")
table = next(t for t in tables if t.effective == chosen)
st.dataframe(pd.DataFrame([{**row, "Preço (R$)": fmt.brl(row["Preço (R$)"]),
                            "Em vigor desde": fmt.day(row["Em vigor desde"])}
                           for row in price_tables.rows_of(table)]),
             hide_index=True, width="stretch", key="prices_table")
if table.note:
    st.caption(table.note)
cols = st.columns(2)
export_buttons(cols[0], cols[1], "Tabela de preços", mun, "prices",
               lambda: price_tables.export_csv(db, actor, mun, chosen),
               lambda: price_tables.export_xlsx(db, actor, mun, chosen))
st.caption("Orçamentos guardam a versão com que foram feitos; uma nova versão vale só a partir da sua data.")

st.subheader("Atualizar pelo índice (art. 12)")
errors: dict[str, str] = st.session_state.get("prices_errors", {})


def under(field: str) -> None:
    if errors.get(field):
        st.caption(f":red[{errors[field]}]")


with st.form("prices_update"):
    cols = st.columns(2)
    with cols[0]:
        index = st.selectbox("Índice", [i.value for i in PriceIndex], key="prices_index", placeholder="Escolha...")
        under("index")
        variation = st.text_input("Variação acumulada do índice (%) *", key="prices_variation",
                                  placeholder="Ex.: 4,62")
        under("variation")
        period = st.text_input("Período de referência *", key="prices_period", placeholder="Ex.: 03/2026 a 02/2027")
        under("reference_period")
    with cols[1]:
        effective = st.date_input("Novos preços em vigor a partir de", value=today + timedelta(days=1),
                                  min_value=today, format="DD/MM/YYYY", key="prices_effective")
        under("effective")
        act = st.text_input("Ato do Poder Executivo *", key="prices_act", placeholder="Ex.: Decreto Municipal 40/2027")
        under("act")
    previewed = st.form_submit_button("Pré-visualizar novos preços", type="primary")

if previewed:
    st.session_state.pop("prices_preview", None)
    try:
        st.session_state["prices_preview"] = price_tables.preview_update(
            db, actor, mun, index, variation, period, effective, act)
        st.session_state.pop("prices_errors", None)
    except ValidationFailed as exc:
        st.session_state["prices_errors"] = exc.errors
    except ServiceError as exc:
        st.session_state["prices_errors"] = {exc.field or "_form": exc.message}
    st.rerun()

if errors.get("_form"):
    st.error(errors["_form"])

update = st.session_state.get("prices_preview")
if update is not None:
    st.markdown(f"**Prévia — nada foi gravado ainda.** {update.note}. Em vigor a partir de "
                f"{fmt.day(update.effective)} ({update.act}).")
    if update.next_version:
        st.warning(f"Já há uma versão a partir de {fmt.day(update.next_version)}: esta valerá só até a véspera.")
    st.dataframe(pd.DataFrame([{
        "Item": r.code, "Máquina ou veículo": r.machine, "Unidade": r.unit, "Preço atual": fmt.brl(r.current),
        "Novo preço": fmt.brl(r.new), "Diferença": fmt.brl(r.change)} for r in update.rows]),
        hide_index=True, width="stretch", key="prices_preview_table")
    cols = st.columns(2)
    if cols[0].button("Salvar nova versão", type="primary", key="prices_save", icon=":material/save:"):
        done, saved = common.attempt(price_tables.save_update, db, actor, mun, update)
        if done:
            st.session_state.pop("prices_preview", None)
            st.session_state["prices_saved"] = saved.label
            st.rerun()
    if cols[1].button("Descartar prévia", key="prices_discard"):
        st.session_state.pop("prices_preview", None)
        st.rerun()

if st.session_state.get("prices_saved"):
    st.success(f"Nova versão registrada: {st.session_state.pop('prices_saved')}. As anteriores continuam no histórico.")
