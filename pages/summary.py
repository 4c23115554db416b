"""Summary for the mayor's office: read-only figures of the chosen municipality."""
import pandas as pd
import streamlit as st

from rules import fmt
from services import summary
from ui import common

actor = common.guard("summary")
common.page_header("Resumo", "Somente leitura")


@st.cache_data(ttl=600, show_spinner="Calculando os números…", max_entries=64)
def overview(_actor, username: str, municipality: str, today, version: str) -> summary.Overview:
    """The figures under one data version (the latest audited write): recomputed after any write."""
    return summary.overview(common.db(), _actor, municipality)


ok, version = common.attempt(summary.data_version, common.db(), actor, common.municipality())
if ok:
    ok, figures = common.attempt(overview, actor, actor.username, common.municipality(), common.today(), version)
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
                         hide_index=True, width="stretch")
        else:
            st.info("Nenhum DAM emitido.")
    with right:
        if figures.authorizations_by_status:
            st.subheader("Autorizações por situação")
            st.dataframe(pd.DataFrame([{"Situação": label, "Quantidade": count}
                                       for label, count in figures.authorizations_by_status.items()]),
                         hide_index=True, width="stretch")
    st.subheader("Gravações registradas nos últimos 30 dias")
    if any(count for _, count in figures.activity):
        frame = pd.DataFrame({"Dia": pd.to_datetime([day for day, _ in figures.activity]),
                              "Gravações": [count for _, count in figures.activity]})
        st.bar_chart(frame, x="Dia", y="Gravações")
    else:
        st.info("Nenhuma gravação nos últimos 30 dias.")
