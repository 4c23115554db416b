"""Pendências: what is due or late in the ride-hailing registry, earliest first."""
import pandas as pd
import streamlit as st

from rules.fmt import day
from services import clock, entities, ridehailing, ridehailing_queue
from ui import common
from ui.ridehailing import pendencias

actor = common.guard("write")
mun = common.municipality()
today = clock.today()
show_plate = entities.SPECS["vehicles"].field("plate").show
common.page_header("Pendências", ridehailing.rules_of(mun).act)
st.caption(f"Prazos vencidos e os que vencem nos próximos {ridehailing_queue.HORIZON_DAYS} dias, em {day(today)}.")

ok, queue = pendencias(actor, mun)
if ok:
    kinds = sorted({p.kind for p in queue})
    cols = st.columns([3, 1])
    chosen = cols[0].multiselect("Tipo", kinds, key="pend_kinds", placeholder="Todos os tipos")
    only_late = cols[1].toggle("Só atrasadas", key="pend_late")
    rows = [p for p in queue if (not chosen or p.kind in chosen) and (p.late or not only_late)]
    late = sum(p.late for p in queue)
    metrics = st.columns(3)
    metrics[0].metric("Pendências", len(queue))
    metrics[1].metric("Atrasadas", late)
    metrics[2].metric("Vencem em 7 dias", sum(1 for p in queue if not p.late and (p.due - today).days <= 7))
    st.dataframe(pd.DataFrame([{
        "Prazo": day(p.due), "": "🔴 atrasada" if p.late else "", "Tipo": p.kind, "Protocolo": p.protocol,
        "Placa": show_plate(p.plate), "O que fazer": p.message, "Fundamento legal": p.reference,
    } for p in rows], columns=["Prazo", "", "Tipo", "Protocolo", "Placa", "O que fazer", "Fundamento legal"]),
        hide_index=True, width="stretch", key="pend_table", height=min(36 + 35 * len(rows), 900),
        column_config={"O que fazer": st.column_config.TextColumn(width="large")})
