"""Pendências: what is due or late in the ride-hailing registry, earliest first, a page at a time (the
queue kept as data: ``work_queue.page``); a click opens its record where the work is."""
import pandas as pd
import streamlit as st

from rules.fmt import day
from services.ridehailing import queue_pages, registry
from services.ridehailing.queue_item import HORIZON_DAYS, KINDS, Pendencia
from services.shared import clock, exports, schema
from ui import common
from ui.lists import asked_page, list_view, pages_of
from ui.ridehailing import follow, pendencia_step, queue_page, whole_queue

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


cols = st.columns([3, 1.4, 2, 1.4])
chosen = tuple(cols[0].multiselect("Tipo", KINDS, key="pend_kinds", placeholder="Todos os tipos"))
only_late = cols[1].toggle("Só atrasadas", key="pend_late")
sort = cols[2].selectbox("Ordenar por", list(SORTS), format_func=SORTS.get, key="pend_sort",
                         placeholder="Escolha...") or "due"
descending = cols[3].toggle("Decrescente", key="pend_desc")
page, per_page = asked_page("pend")
ok, found = queue_page(actor, mun, kinds=chosen, only_late=only_late, order=sort, descending=descending,
                       skip=(page - 1) * per_page, limit=per_page)
if ok:
    pages = pages_of("pend", found.total, per_page)
    metrics = st.columns(3)
    metrics[0].metric("Pendências", found.everything)
    metrics[1].metric("Atrasadas", found.late)
    metrics[2].metric("Vencem em 7 dias", found.within_week)
    shown = list(found.rows)
    frame = pd.DataFrame([{**cells(p), "Prazo": day(p.due)} for p in shown], columns=COLUMNS)

    def everything() -> list[dict]:
        rows = sorted(whole_queue(actor, mun, chosen, only_late), key=queue_pages.key(sort), reverse=descending)
        return [cells(p) for p in rows]

    index = list_view("pend", frame, found.total, pages, "Pendências", mun,
                      lambda: exports.to_csv(everything(), COLUMNS),
                      lambda: exports.to_xlsx(everything(), COLUMNS, sheet="Pendências"), ("pendência", "pendências"),
                      column_config={"O que fazer": st.column_config.TextColumn(width="large")}, exact=True)
    step = pendencia_step(shown[index]) if index is not None else None
    if step is not None:  # a click on the row opens its record where the work is
        st.session_state.pop("pend_table", None)  # back on this page, no row is still chosen
        follow(step)
