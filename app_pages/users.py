"""Users (TI): create, change role or municipalities, unlock, deactivate."""
import pandas as pd
import streamlit as st

from rules import fmt
from services.shared import accounts, auth, clock, exports, municipalities
from services.shared.errors import NotFound
from ui import common
from ui.lists import asked_page, list_view, pages_of

actor = common.guard("admin")
common.page_header("Usuários")
db = common.db()
names = {m.code: m.name for m in municipalities.all_municipalities(db)}
grantable = {m.code: m.name for m in municipalities.of_actor(db, actor)}
COLUMNS = ["Usuário", "Nome", "Perfil", "Municípios", "Ativo", "Bloqueado até"]


def cells(u: dict) -> dict:
    return {"Usuário": u["username"], "Nome": u["name"], "Perfil": auth.ROLES.get(u["role"], u["role"]),
            "Municípios": ", ".join(names.get(c, c) for c in u.get("municipalities", [])),
            "Ativo": "Sim" if u.get("active", True) else "Não",
            "Bloqueado até": fmt.moment(clock.to_local(u["locked_until"])) if u.get("locked_until") else ""}


def everything(search: str) -> list[dict]:
    """Every user the search finds, for the exports (made on their click)."""
    return [cells(u) for u in accounts.users_page(db, actor, search, 0, 0).rows]


search = st.text_input("Buscar usuário", key="users_search", placeholder="Usuário ou nome")
page, per_page = asked_page("users_list")
ok, found = common.attempt(accounts.users_page, db, actor, search, (page - 1) * per_page, per_page)
listed = [u["username"] for u in found.rows] if ok else []
if ok:
    pages = pages_of("users_list", found.total, per_page)
    index = list_view("users_list", pd.DataFrame([cells(u) for u in found.rows], columns=COLUMNS), found.total, pages,
                      "Usuários", None, lambda: exports.to_csv(everything(search), COLUMNS),
                      lambda: exports.to_xlsx(everything(search), COLUMNS, sheet="Usuários"), ("usuário", "usuários"))
    if index is not None:  # a click on the row picks the user to change
        st.session_state.pop("users_list_table", None)
        st.session_state["users_edit_target"] = listed[index]
        st.rerun()

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
    usernames = listed  # the users of the page shown; a link or a click on a row brings its own
    linked = st.session_state.get("users_edit_target")
    if linked and linked not in usernames:
        try:
            linked = st.session_state["users_edit_target"] = accounts.managed_user(db, actor, linked)["username"]
            usernames = [linked, *usernames] if linked not in usernames else usernames
        except NotFound:  # a link to a user this TI does not manage, or no longer there
            st.session_state.pop("users_edit_target", None)
    target = st.selectbox("Usuário", usernames, key="users_edit_target", placeholder="Escolha...",
                          help="Os usuários da página da lista; busque acima para achar outro.")
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
