"""Custom fields (TI): add a field to a register for this municipality, without code."""
import pandas as pd
import streamlit as st

from services import entities, fields
from ui import common

actor = common.guard("admin")
common.page_header("Campos personalizados", "Valem apenas para o município escolhido")
db = common.db()
mun = common.municipality()
entity = st.selectbox("Cadastro", list(entities.SPECS), format_func=lambda n: entities.SPECS[n].label_plural,
                      key="cf_entity")
existing = entities.custom_fields(db, entity, mun)
if existing:
    st.dataframe(pd.DataFrame([{"Campo": f.label, "Nome interno": f.name, "Tipo": fields.KINDS[f.kind],
                                "Obrigatório": "Sim" if f.required else "Não",
                                "Opções": ", ".join(v for v, _ in f.choices)} for f in existing]),
                 hide_index=True, width="stretch")
else:
    st.info("Nenhum campo personalizado neste cadastro para este município.")
with st.form("cf_new"):
    label = st.text_input("Rótulo do campo", key="cf_label")
    kind = st.selectbox("Tipo", list(fields.KINDS), format_func=fields.KINDS.get, key="cf_kind")
    choices = st.text_input("Opções (para 'Lista de opções', separadas por vírgula)", key="cf_choices")
    required = st.checkbox("Obrigatório", key="cf_required")
    if st.form_submit_button("Adicionar campo", type="primary"):
        ok, name = common.attempt(entities.add_custom_field, db, actor, entity, mun, label, kind, required,
                                  choices.split(",") if choices else [])
        if ok:
            st.success(f"Campo '{label}' adicionado. Ele já aparece no formulário, na lista, na exportação e na importação.")
            st.rerun()
