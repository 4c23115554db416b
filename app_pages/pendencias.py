"""Pendências: what is due or late in the ride-hailing registry, earliest first; a click opens the authorization."""
import pandas as pd
import streamlit as st

from rules.fmt import day
from services.ridehailing import registry
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import clock, exports, schema
from ui import common
from ui.lists import list_view, page_of
from ui.ridehailing import pendencias

actor = common.guard("write")
mun = common.municipality()
today = clock.today()
show_plate = schema.SPECS["vehicles"].field("plate").show
common.page_header("Pendências", registry.rules_of(mun).act)
st.caption(f"Prazos vencidos e os que vencem nos próximos {HORIZON_DAYS} dias, em {day(today)}.")
SORTS = {"due": "Prazo", "kind": "Tipo", "plate": "Placa", "protocol": "Protocolo"}
COLUMNS = ["Prazo", "Atrasada", "Tipo", "Protocolo", "Placa", "O que fazer", "Fundamento legal"]


def cells(p: Pendencia) -> dict:
    """A pendência as the list and its exports show it (the exports keep the date typed)."""
    return {"Prazo": p.due, "Atrasada": "Sim" if p.late else "Não", "Tipo": p.kind, "Protocolo": p.protocol,
            "Placa": show_plate(p.plate), "O que fazer": p.message, "Fundamento legal": p.reference}


ok, queue = pendencias(actor, mun)
if ok:
    kinds = sorted({p.kind for p in queue})
    cols = st.columns([3, 1.4, 2, 1.4])
    chosen = cols[0].multiselect("Tipo", kinds, key="pend_kinds", placeholder="Todos os tipos")
    only_late = cols[1].toggle("Só atrasadas", key="pend_late")
    sort = cols[2].selectbox("Ordenar por", list(SORTS), format_func=SORTS.get, key="pend_sort",
        placeholder="Escolha...")
    descending = cols[3].toggle("Decrescente", key="pend_desc")
    rows = [p for p in queue if (not chosen or p.kind in chosen) and (p.late or not only_late)]
    rows.sort(key=lambda p: (getattr(p, sort), p.due, p.protocol), reverse=descending)
    late = sum(p.late for p in queue)
    metrics = st.columns(3)
    metrics[0].metric("Pendências", len(queue))
    metrics[1].metric("Atrasadas", late)
    metrics[2].metric("Vencem em 7 dias", sum(1 for p in queue if not p.late and (p.due - today).days <= 7))
    page, per_page = page_of("pend", len(rows))
    shown = rows[(page - 1) * per_page: page * per_page]
    frame = pd.DataFrame([{**cells(p), "Prazo": day(p.due)} for p in shown], columns=COLUMNS)
    everything = [cells(p) for p in rows]
    index = list_view("pend", frame, len(rows), max(1, -(-len(rows) // per_page)), "Pendências", mun,
                      lambda: exports.to_csv(everything, COLUMNS),
                      lambda: exports.to_xlsx(everything, COLUMNS, sheet="Pendências"), "pendência(s)",
                      column_config={"O que fazer": st.column_config.TextColumn(width="large")})
    if index is not None:  # a click on the row opens its authorization
        st.session_state["auth_goto"] = shown[index].authorization_id
        st.session_state.pop("pend_table", None)  # back on this page, no row is still chosen
        st.switch_page("app_pages/authorizations.py")
