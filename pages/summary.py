"""Summary for the mayor's office: read-only figures of the chosen municipality."""
import pandas as pd
import streamlit as st

from services import summary
from ui import common

actor = common.guard("summary")
common.page_header("Resumo", "Somente leitura")
ok, figures = common.attempt(summary.overview, common.db(), actor, common.municipality())
if ok:
    columns = st.columns(max(1, len(figures.counts)))
    for column, (label, count) in zip(columns, figures.counts.items()):
        column.metric(label, f"{count:n}".replace(",", "."))
    st.subheader("Atividade registrada nos últimos 30 dias")
    if figures.activity:
        frame = pd.DataFrame(figures.activity, columns=["Dia", "Registros"]).set_index("Dia")
        st.bar_chart(frame)
    else:
        st.info("Nenhuma atividade registrada nos últimos 30 dias.")
