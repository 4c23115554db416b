"""Login page (pt-BR)."""
import streamlit as st

from services.shared import municipalities, sessions
from ui import common


@st.cache_data(max_entries=8, show_spinner=False)
def coat_of_arms(code: str, sha256: str) -> bytes | None:
    """The image TI uploaded, kept by its hash (a new image is a new hash: never a stale one)."""
    return municipalities.coat_of_arms(common.db(), code)


towns = municipalities.all_municipalities(common.db())
if towns:  # whose panel this is: each Prefeitura's coat of arms (when TI uploaded it) and name
    for column, town in zip(st.columns(len(towns)), towns):
        if town.coat_of_arms:
            column.image(coat_of_arms(town.code, town.coat_of_arms), width=64)
        column.markdown(f"**Prefeitura de {town.name}**")
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
