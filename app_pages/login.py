"""Login page (pt-BR)."""
import streamlit as st

from services.shared import municipalities, sessions
from ui import common


@st.cache_data(max_entries=8, show_spinner=False)
def coat_of_arms(code: str, sha256: str) -> bytes | None:
    """The image TI uploaded, kept by its hash (a new image is a new hash: never a stale one)."""
    return municipalities.coat_of_arms(common.db(), code)


towns = municipalities.all_municipalities(common.db())
# whose panel this is: each Prefeitura's name, and its coat of arms once the form is drawn (the
# images' first decoding after a start would keep the form waiting)
columns = st.columns(len(towns)) if towns else []
arms = [column.empty() for column in columns]
for column, town in zip(columns, towns):
    column.markdown(f"**Prefeitura de {town.name}**")
st.title("Painel Municipal")
st.caption("Acesso restrito a servidores municipais autorizados.")
if notice := st.session_state.get("login_notice"):  # kept through the reruns of the cookie manager
    st.warning(notice)
with st.form("login_form"):
    username = st.text_input("Usuário", key="login_username")
    password = st.text_input("Senha", type="password", key="login_password")
    submitted = st.form_submit_button("Entrar", type="primary")
for place, town in zip(arms, towns):
    if town.coat_of_arms:
        place.image(coat_of_arms(town.code, town.coat_of_arms), width=64)
if submitted:
    if not username or not password:
        st.error("Informe usuário e senha.")
    else:
        ok, signed_in = common.attempt(sessions.login, common.db(), username, password)
        if ok:
            common.sign_in(*signed_in)
            st.session_state.pop("login_password", None)
            st.rerun()
