"""Implantação (TI): per municipality of the user, the values the law leaves to it that are still
missing or still a demo value, and where each is set."""
import pandas as pd
import streamlit as st

from services import deployment, municipalities
from ui import common

actor = common.guard("admin")
common.page_header("Implantação", "Valores que a lei deixa ao município e que ainda faltam")
db = common.db()
st.caption("Enquanto um valor faltar, as telas que dependem dele não o inventam: o DAM não é emitido sem o "
           "código FEBRABAN, a multa em UPFM não é calculada sem a UPFM. A chave PIX só é necessária se o "
           "município receber por PIX.")
st.page_link("pages/parameters.py", label="Abrir Parâmetros", icon=":material/tune:")

for town in municipalities.of_actor(db, actor):
    st.subheader(town.name)
    ok, items = common.attempt(deployment.missing_values, db, actor, town.code)
    if not ok:
        continue
    if not items:
        st.success("Todos os valores do município estão cadastrados.")
        continue
    pending = sum(item.status == deployment.NOT_SET for item in items)
    st.markdown(f"**{pending}** não cadastrado(s), **{len(items) - pending}** com valor de demonstração.",
                help="Um valor de demonstração cita um ato com a palavra 'demonstração'.")
    st.dataframe(pd.DataFrame([{
        "Valor": item.what, "Situação": item.status, "Onde cadastrar": item.where, "Ato citado": item.act,
    } for item in items]), hide_index=True, width="stretch", key=f"deployment_{town.code}")
