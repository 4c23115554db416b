"""Audit log (TI): who changed what, when, filtered; read-only."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from services import audit, clock, exports
from ui import common

actor = common.guard("admin")


def shown(value) -> str:
    """A changed value as a person reads it: empty as '—', ISO dates as dd/mm/aaaa."""
    if value in (None, "", [], {}):
        return "—"
    text = str(value)
    if len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit():
        return f"{text[8:]}/{text[5:7]}/{text[:4]}"
    return text

common.page_header("Auditoria", "Registro permanente de todas as gravações")
db = common.db()
cols = st.columns(5)
start = cols[0].date_input("De", clock.today() - timedelta(days=30), format="DD/MM/YYYY", key="audit_start")
end = cols[1].date_input("Até", clock.today(), format="DD/MM/YYYY", key="audit_end")
username = cols[2].text_input("Usuário", key="audit_user")
collection = cols[3].text_input("Coleção", key="audit_collection")
action = cols[4].selectbox("Ação", [""] + audit.actions(db, actor), key="audit_action",
                          format_func=lambda a: a or "Todas")
only_here = st.toggle("Somente o município escolhido", value=True, key="audit_only_here")
page = st.number_input("Página", min_value=1, value=1, key="audit_page")
ok, result = common.attempt(audit.search, db, actor, common.municipality() if only_here else None,
                            username.strip().lower() or None, collection.strip() or None, action or None,
                            start, end, 100, (page - 1) * 100)
if ok:
    rows, total = result
    st.caption(f"{total} registro(s)")
    frame = pd.DataFrame([{
        "Quando": clock.to_local(r["at"]).strftime("%d/%m/%Y %H:%M:%S"), "Usuário": r["username"],
        "Município": r.get("municipality") or "", "Ação": r["action"], "Coleção": r["collection"],
        "Documento": r.get("doc_id") or "",
        "Alterações": "; ".join(f"{k}: {shown(v['before'])} → {shown(v['after'])}" for k, v in r.get("changes", {}).items()),
    } for r in rows])
    st.dataframe(frame, hide_index=True, width="stretch")
    cells = frame.map(lambda v: exports.spreadsheet_safe(v) if isinstance(v, str) else v)
    st.download_button("Exportar CSV", cells.to_csv(index=False, sep=";").encode("utf-8-sig"), "auditoria.csv",
                       "text/csv", key="audit_export")
