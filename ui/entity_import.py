"""CSV import into a register: a dry run lists every bad row; only a clean file is imported."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules import fmt

from services.shared import entity_files, uploads
from services.shared.schema import EntitySpec
from ui import common


def entity_import(spec: EntitySpec, actor, mun: str) -> None:
    """CSV import: a dry run lists every bad row; only a clean file can be imported."""
    key = f"{spec.name}_import"
    st.caption("Colunas aceitas (cabeçalho com o rótulo ou o nome do campo; separador ';'): "
               + ", ".join(f.label + (" *" if f.required else "") for f in spec.fields))
    upload = st.file_uploader(f"Arquivo CSV ({uploads.shown_limit('register_csv')})", type=["csv"], key=f"{key}_file")
    if upload is None:
        return
    data = upload.getvalue()
    ok, report = common.attempt(entity_files.import_csv, common.db(), actor, spec.name, mun, data, commit=False)
    if not ok:
        return
    if report.errors:
        st.error(f"{fmt.count(len(report.errors), 'problema', 'problemas')} em {fmt.count(report.rows, 'linha', 'linhas')}. "
                 "Nada foi gravado; corrija o arquivo.")
        st.dataframe(pd.DataFrame([{"Linha": e.line, "Campo": e.field, "Problema": e.message} for e in report.errors]),
                     hide_index=True, width="stretch")
        return
    st.success(f"Verificação concluída: {fmt.count(report.rows, 'linha válida', 'linhas válidas')}.")
    if st.button(f"Importar {fmt.count(report.rows, 'registro', 'registros')}", type="primary", key=f"{key}_commit"):
        with st.spinner("Importando…"):
            ok, done = common.attempt(entity_files.import_csv, common.db(), actor, spec.name, mun, data, commit=True)
        if ok:
            st.success(f"{fmt.count(done.inserted, 'registro importado', 'registros importados')}.")
