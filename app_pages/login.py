"""Login page (pt-BR)."""
import streamlit as st

from services.shared import sessions
from ui import common

st.title("Painel Municipal")
st.caption("Acesso restrito a servidores municipais autorizados.")
if notice := st.session_state.get("login_notice"):  # kept through the reruns of the cookie manager
    st.warning(notice)
with st.form("login_form"):
    username = st.text_input("Usuário", key="login_username")
    password = st.text_input("Senha", type="password", key="login_password")
    submitted = st.form_submit_button("Entrar", type="primary")
if submitted:
    if not username or not password:
        st.error("Informe usuário e senha.")
    else:
        ok, signed_in = common.attempt(sessions.login, common.db(), username, password)
        if ok:
            common.sign_in(*signed_in)
            st.session_state.pop("login_password", None)
            st.rerun()
