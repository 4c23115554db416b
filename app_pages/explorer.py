"""Data explorer (TI): browse any register read-only, in the Auditoria's words."""
import pandas as pd
import streamlit as st

from services.shared import explorer, exports, list_counts
from ui import common

actor = common.guard("admin")
common.page_header("Explorador de dados", "Somente leitura")
db = common.db()
cols = st.columns([3, 2, 1])
collection = common.selectbox(cols[0], "Registro", explorer.collections(db), key="explorer_collection",
                              format_func=explorer.label, index=None)
only_here = cols[1].toggle("Somente o município escolhido", value=True, key="explorer_only_here")
page = cols[2].number_input("Página", min_value=1, value=1, key="explorer_page")
if not collection:
    st.info("Escolha um registro para ver os documentos guardados.")
else:
    ok, result = common.attempt(explorer.browse, db, actor, collection,
                                common.municipality() if only_here else None, (page - 1) * 50, 50)
    if ok:
        rows, total = result
        st.caption(list_counts.words(total, "documento", "documentos"))
        frame = pd.DataFrame(explorer.shown_rows(db, collection, rows))
        common.table(frame)
        cells = frame.map(lambda v: exports.spreadsheet_safe(v) if isinstance(v, str) else v)
        st.download_button("Exportar CSV", cells.to_csv(index=False, sep=";").encode("utf-8-sig"),
                           f"{collection}.csv", "text/csv", key="explorer_export", on_click="ignore")
