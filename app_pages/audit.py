"""Audit log (TI): who changed what, when, filtered; read-only."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from services.shared import audit_log, clock, list_counts, municipalities
from ui import common, navigation
from ui.lists import export_buttons

actor = common.guard("admin")
common.page_header("Auditoria", "Registro permanente de todas as gravações")
db = common.db()
cols = st.columns(5)
start = common.date_input(cols[0], "De", clock.today() - timedelta(days=30), key="audit_start")
end = common.date_input(cols[1], "Até", clock.today(), key="audit_end")
username = cols[2].text_input("Usuário", key="audit_user")
collection = common.selectbox(cols[3], "Registro", [""] + audit_log.collections(db), key="audit_collection",
                              format_func=lambda c: audit_log.entity_label(c) if c else "Todos", placeholder="Escolha...")
action = common.selectbox(cols[4], "Ação", [""] + audit_log.actions(db, actor), key="audit_action",
                          format_func=lambda a: audit_log.action_label(a, collection) if a else "Todas",
                          placeholder="Escolha...")
town = municipalities.get(db, common.municipality()).name
only_here = st.toggle(f"Somente {town}", value=True, key="audit_only_here",
                      help="Desligado: os registros de todos os municípios que você administra.")
page = st.number_input("Página", min_value=1, value=1, key="audit_page")
ok, result = common.attempt(audit_log.search, db, actor, common.municipality() if only_here else None,
                            username.strip().lower() or None, collection or None, action or None,
                            start, end, 100, (page - 1) * 100)
if ok:
    rows, total = result
    st.caption(list_counts.words(total, "registro", "registros"))
    shown = [{**row, "Quando": clock.to_local(row["Quando"]).strftime("%d/%m/%Y %H:%M:%S"),
              "Abrir": navigation.record_link(entry["collection"], entry.get("doc_id"), entry.get("key"))}
             for row, entry in zip(audit_log.rows_shown(rows, db), rows)]
    if shown:
        # what changed before the town: the town's column (one town when "Somente" is on) pushed
        # "Alterações" off the screen
        columns = [c for c in audit_log.EXPORT_COLUMNS if c != "Município"] + ["Município", "Abrir"]
        st.dataframe(pd.DataFrame(shown, columns=columns), hide_index=True, width="stretch", column_config={
            "Quando": st.column_config.TextColumn("Quando", width=140),
            # fixed widths, so a long user or register name (a portal person's "plataforma:CNPJ:CPF", "Conta
            # do portal de condutores e plataformas") never pushes "Alterações" off the screen
            "Usuário": st.column_config.TextColumn("Usuário", width=150),
            "Ação": st.column_config.TextColumn("Ação", width=170),
            "Registro": st.column_config.TextColumn("Registro", width=170),
            "Chave": st.column_config.TextColumn("Chave", width=130),
            "Alterações": st.column_config.TextColumn("Alterações", width="large"),
            "Abrir": st.column_config.LinkColumn("Abrir", display_text="Abrir registro"),
        })
    else:
        st.info("Nenhum registro no período e nos filtros escolhidos.")
    wanted = (db, actor, common.municipality() if only_here else None, username.strip().lower() or None,
              collection or None, action or None, start, end)
    left, right, _ = st.columns([2, 2, 6])
    export_buttons(left, right, "Auditoria", common.municipality() if only_here else "todos", "audit",
                   lambda: audit_log.export_csv(*wanted), lambda: audit_log.export_xlsx(*wanted))
