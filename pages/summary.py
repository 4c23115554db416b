"""Summary for the mayor's office: read-only figures of the chosen municipality."""
import pandas as pd
import streamlit as st

from rules import fmt
from services import summary
from ui import common

actor = common.guard("summary")
common.page_header("Resumo", "Somente leitura")
ok, figures = common.attempt(summary.overview, common.db(), actor, common.municipality())
if ok:
    columns = st.columns(max(1, len(figures.counts)))
    for column, (label, count) in zip(columns, figures.counts.items()):
        column.metric(label, fmt.number(count))
    st.metric(f"Arrecadado por DAM em {common.today().year}", fmt.brl(figures.paid_this_year))
    left, right = st.columns(2)
    with left:
        st.subheader("DAM por situação")
        if figures.dams_by_situation:
            st.dataframe(pd.DataFrame([{"Situação": label, "Quantidade": count, "Valor emitido": fmt.brl(amount)}
                                       for label, (count, amount) in figures.dams_by_situation.items()]),
                         hide_index=True, use_container_width=True)
        else:
            st.info("Nenhum DAM emitido.")
    with right:
        if figures.authorizations_by_status:
            st.subheader("Autorizações por situação")
            st.dataframe(pd.DataFrame([{"Situação": label, "Quantidade": count}
                                       for label, count in figures.authorizations_by_status.items()]),
                         hide_index=True, use_container_width=True)
    st.subheader("Gravações registradas nos últimos 30 dias")
    if any(count for _, count in figures.activity):
        frame = pd.DataFrame({"Dia": pd.to_datetime([day for day, _ in figures.activity]),
                              "Gravações": [count for _, count in figures.activity]})
        st.bar_chart(frame, x="Dia", y="Gravações")
    else:
        st.info("Nenhuma gravação nos últimos 30 dias.")
