"""Between the login and the panel: the browser is being given the login cookie (a moment)."""
import streamlit as st

from ui import common

st.title("Painel Municipal")
st.info("Entrando… guardando o acesso neste navegador.", icon=":material/hourglass_top:")
st.caption("Se esta mensagem não sumir em alguns segundos, o navegador não aceitou o cookie de acesso: "
           "continue sem ele (ao recarregar a página, o login será pedido de novo).")
if st.button("Continuar sem guardar o acesso", key="signing_in_go_on"):
    common.go_on_without_cookie()
    st.rerun()
