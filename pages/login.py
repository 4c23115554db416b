"""Login page (pt-BR)."""
import streamlit as st

from services import auth
from ui import common

st.title("Painel Municipal")
st.caption("Acesso restrito a servidores municipais autorizados.")
with st.form("login_form"):
    username = st.text_input("Usuário", key="login_username")
    password = st.text_input("Senha", type="password", key="login_password")
    submitted = st.form_submit_button("Entrar", type="primary")
if submitted:
    if not username or not password:
        st.error("Informe usuário e senha.")
    else:
        ok, actor = common.attempt(auth.authenticate, common.db(), username, password)
        if ok:
            st.session_state["actor"] = actor
            st.session_state["municipality"] = None
            st.session_state.pop("login_password", None)
            st.rerun()
