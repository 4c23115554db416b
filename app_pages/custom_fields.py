"""Custom fields (TI): add a field to a register for this municipality, without code; edit or deactivate it."""
import pandas as pd
import streamlit as st

from services.shared import custom_fields, fields, schema
from ui import common
from ui.entity import (
    announce,
    announced,
    confirm_button,
    field_error,
    forget,
    form_errors,
    submit,
)

actor = common.guard("admin")
common.page_header("Campos personalizados", "Valem apenas para o município escolhido")
announced()
db = common.db()
mun = common.municipality()
entity = st.selectbox("Cadastro", list(schema.SPECS), format_func=lambda n: schema.SPECS[n].label_plural,
                      key="cf_entity", placeholder="Escolha...")
ok, existing = common.attempt(custom_fields.custom_field_rows, db, actor, entity, mun)
existing = existing if ok else []


def edit(row: dict) -> None:
    """Label, obligation and options of a field; deactivating it asks for confirmation."""
    key = f"cf_edit_{row['id']}"
    form_errors(key, ["label", "choices"])
    with st.form(key):
        label = st.text_input("Rótulo do campo", row["label"], key=f"{key}_label")
        field_error(key, "label")
        choices = st.text_input("Opções (separadas por vírgula)", ", ".join(row.get("choices", [])),
                                key=f"{key}_choices", disabled=row["kind"] != "choice")
        field_error(key, "choices")
        required = st.checkbox("Obrigatório", row.get("required", False), key=f"{key}_required")
        saved = st.form_submit_button("Salvar alterações", type="primary")
    if saved:
        submit(key, custom_fields.edit_custom_field, db, actor, mun, row["id"], label, required, row["active"],
               choices.split(",") if choices else [], expected_version=row["version"])
        forget(f"{key}_label", f"{key}_choices", f"{key}_required")
        announce(f"Campo '{label}' alterado.")
        st.rerun()
    if row["active"]:
        if confirm_button("Desativar o campo", f"{key}_off",
                          f"Desativar '{row['label']}'? Ele sai dos formulários, das listas e das exportações; os "
                          "valores já digitados ficam guardados e voltam se o campo for reativado."):
            submit(key, custom_fields.edit_custom_field, db, actor, mun, row["id"], row["label"], row["required"],
                   False, row.get("choices", []), expected_version=row["version"])
            announce(f"Campo '{row['label']}' desativado.")
            st.rerun()
    elif st.button("Reativar o campo", key=f"{key}_on", icon=":material/restart_alt:"):
        submit(key, custom_fields.edit_custom_field, db, actor, mun, row["id"], row["label"], row["required"], True,
               row.get("choices", []), expected_version=row["version"])
        announce(f"Campo '{row['label']}' reativado.")
        st.rerun()


if existing:
    st.dataframe(pd.DataFrame([{"Campo": r["label"], "Nome interno": r["name"], "Tipo": fields.KINDS[r["kind"]],
                                "Obrigatório": "Sim" if r.get("required") else "Não",
                                "Situação": "Ativo" if r["active"] else "Desativado",
                                "Opções": ", ".join(r.get("choices", []))} for r in existing]),
                 hide_index=True, width="stretch")
    by_id = {r["id"]: r for r in existing}
    chosen = st.selectbox("Editar o campo", list(by_id), index=None, key="cf_chosen",
                          format_func=lambda i: by_id[i]["label"], placeholder="Escolha um campo…")
    if chosen:
        edit(by_id[chosen])
else:
    st.info("Nenhum campo personalizado neste cadastro para este município.")

st.subheader("Novo campo")
form_errors("cf_new", ["label", "kind", "choices", "entity"])
with st.form("cf_new"):
    label = st.text_input("Rótulo do campo", key="cf_label")
    field_error("cf_new", "label")
    kind = st.selectbox("Tipo", list(fields.KINDS), format_func=fields.KINDS.get, key="cf_kind",
        placeholder="Escolha...")
    field_error("cf_new", "kind")
    choices = st.text_input("Opções (para 'Lista de opções', separadas por vírgula)", key="cf_choices")
    field_error("cf_new", "choices")
    required = st.checkbox("Obrigatório", key="cf_required")
    if st.form_submit_button("Adicionar campo", type="primary"):
        submit("cf_new", custom_fields.add_custom_field, db, actor, entity, mun, label, kind, required,
               choices.split(",") if choices else [])
        forget("cf_label", "cf_choices", "cf_required")
        announce(f"Campo '{label}' adicionado. Ele já aparece no formulário, na lista, na exportação e na "
                 "importação.")
        st.rerun()
