"""Pendências of the machinery module: visits, social reports, payments, schedule, balances and credits."""
import pandas as pd
import streamlit as st

from rules import fmt
from services.machinery import pending
from services.shared import clock, exports
from ui import bookings as ui_bookings
from ui import common
from ui.lists import export_buttons

actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
today = clock.today()
common.page_header("Pendências do módulo", "Serviços de máquinas e veículos")
ok, items = common.attempt(pending.pending, db, actor, mun, today)
items = items if ok else []
rows = [{"Data": i.on, "Pendência": i.title, "Detalhe": i.detail, "Vencida": "Sim" if i.overdue else ""}
        for i in items]
overdue = sum(1 for i in items if i.overdue)
st.markdown(f"**{len(items)} pendência(s)**" + (f" · :red[{overdue} vencida(s)]" if overdue else ""))
st.dataframe(pd.DataFrame([{**r, "Data": fmt.day(r["Data"]) if r["Data"] else "—"} for r in rows],
                          columns=["Data", "Pendência", "Detalhe", "Vencida"]), hide_index=True, width="stretch")
cols = st.columns(2)
export_buttons(cols[0], cols[1], "Pendencias maquinas", mun, "pend_list",
               lambda: exports.to_csv(rows), lambda: exports.to_xlsx(rows, sheet="Pendências"))
