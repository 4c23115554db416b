"""Pendências of the machinery module: visits, social reports, payments, schedule, balances and credits."""
import pandas as pd
import streamlit as st

from rules import fmt
from services.machinery import pending
from services.shared import clock, exports
from ui import bookings as ui_bookings
from ui import common
from ui.lists import asked_page, list_view, pages_of

actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
today = clock.today()
common.page_header("Pendências do módulo", "Serviços de máquinas e veículos")
COLUMNS = ["Data", "Pendência", "Detalhe", "Vencida"]


def cells(i: pending.PendingItem) -> dict:
    return {"Data": i.on, "Pendência": i.title, "Detalhe": i.detail, "Vencida": "Sim" if i.overdue else ""}


def everything() -> list[dict]:
    """Every pendência, for the exports (made on their click)."""
    return [cells(i) for i in pending.pending(db, actor, mun, today)]


page, per_page = asked_page("mpend")
ok, found = common.attempt(pending.page, db, actor, mun, today, (page - 1) * per_page, per_page)
if ok:
    pages = pages_of("mpend", found.total, per_page)
    st.markdown(f"**{fmt.count(found.total, 'pendência', 'pendências')}**"
                + (f" · :red[{fmt.count(found.overdue, 'vencida', 'vencidas')}]" if found.overdue else ""))
    frame = pd.DataFrame([{**cells(i), "Data": fmt.day(i.on) if i.on else "—"} for i in found.rows], columns=COLUMNS)
    index = list_view("mpend", frame, found.total, pages, "Pendencias maquinas", mun,
                      lambda: exports.to_csv(everything(), COLUMNS),
                      lambda: exports.to_xlsx(everything(), COLUMNS, sheet="Pendências"), ("pendência", "pendências"), exact=True)
    if index is not None:  # a click on the row opens its request
        st.session_state.pop("mpend_table", None)
        st.session_state["req_open"] = found.rows[index].record_id
        st.switch_page("app_pages/machinery_requests.py")
