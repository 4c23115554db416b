"""Users (TI): create, change role or municipalities, unlock, deactivate."""
import pandas as pd
import streamlit as st

from services.shared import accounts, auth, clock, exports, municipalities
from ui import common
from ui.lists import export_buttons

actor = common.guard("admin")
common.page_header("Usuários")
db = common.db()
names = {m.code: m.name for m in municipalities.all_municipalities(db)}
grantable = {m.code: m.name for m in municipalities.of_actor(db, actor)}
ok, users = common.attempt(accounts.list_users, db, actor)
if ok:
    search = st.text_input("Buscar usuário", key="users_search")
    shown = [u for u in users if search.lower() in (u["username"] + u["name"]).lower()]
    rows = [{
        "Usuário": u["username"], "Nome": u["name"], "Perfil": auth.ROLES.get(u["role"], u["role"]),
        "Municípios": ", ".join(names.get(c, c) for c in u.get("municipalities", [])),
        "Ativo": u.get("active", True), "Bloqueado até": u.get("locked_until"),
    } for u in shown]
    columns = ["Usuário", "Nome", "Perfil", "Municípios", "Ativo", "Bloqueado até"]
    st.dataframe(pd.DataFrame([{
        **row, "Ativo": "Sim" if row["Ativo"] else "Não",
        "Bloqueado até": clock.to_local(row["Bloqueado até"]).strftime("%d/%m/%Y %H:%M") if row["Bloqueado até"] else "",
    } for row in rows], columns=columns), hide_index=True, width="stretch")
    left, right, _ = st.columns([2, 2, 6])
    export_buttons(left, right, "Usuários", None, "users", lambda: exports.to_csv(rows, columns),
                   lambda: exports.to_xlsx(rows, columns, sheet="Usuários"))

left, right = st.columns(2)
with left, st.form("users_new"):
    st.subheader("Novo usuário")
    username = st.text_input("Usuário (login)", key="users_new_username")
    name = st.text_input("Nome completo", key="users_new_name")
    role = st.selectbox("Perfil", list(auth.ROLES), format_func=auth.ROLES.get, key="users_new_role",
        placeholder="Escolha...")
    muns = st.multiselect("Municípios", list(grantable), format_func=grantable.get, key="users_new_muns",
        placeholder="Escolha...")
    password = st.text_input(f"Senha inicial (mín. {accounts.MIN_PASSWORD_LENGTH} caracteres)", type="password",
                             key="users_new_password")
    if st.form_submit_button("Criar usuário", type="primary"):
        done, _ = common.attempt(accounts.create_user, db, actor, username, name, role, muns, password)
        if done:
            st.success(f"Usuário '{auth.normal_username(username)}' criado.")
with right, st.form("users_edit"):
    st.subheader("Alterar usuário")
    usernames = [u["username"] for u in users] if ok else []
    if st.session_state.get("users_edit_target") not in usernames:  # a link to a user no longer listed
        st.session_state.pop("users_edit_target", None)
    target = st.selectbox("Usuário", usernames, key="users_edit_target", placeholder="Escolha...")
    action = st.radio("Ação", ["Desbloquear", "Desativar", "Reativar", "Nova senha"], key="users_edit_action",
                      horizontal=True)
    new_password = st.text_input("Nova senha (para 'Nova senha')", type="password", key="users_edit_password")
    confirm = st.checkbox("Confirmo a alteração", key="users_edit_confirm")
    if st.form_submit_button("Aplicar"):
        if not confirm:
            st.warning("Marque a confirmação para aplicar.")
        else:
            changes = {"Desbloquear": {"unlock": True}, "Desativar": {"active": False},
                       "Reativar": {"active": True}, "Nova senha": {"password": new_password}}[action]
            done, _ = common.attempt(accounts.update_user, db, actor, target, **changes)
            if done:
                st.success("Alteração aplicada.")
