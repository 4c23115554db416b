"""Painel Municipal: session defaults, login, the navigation of each role, nothing else."""
import streamlit as st

from services.shared import definitions, municipalities
from services.shared.auth import ROLES
from services.shared.store_file import StoreFault
from ui import common, drafts, navigation

st.set_page_config(page_title="Painel Municipal", page_icon=":material/account_balance:", layout="wide")
common.defaults()
common.house_style()

actor = common.resume()
cookie_kept = common.keep_cookie()
requested = navigation.requested_path()
if actor is None and st.query_params.get("t"):
    page = st.navigation([st.Page("app_pages/public_check.py", title="Verificação pública",
                                  icon=":material/verified:")])
elif actor is None:
    page = st.navigation(navigation.for_visitor(requested), position="hidden")
elif not cookie_kept:  # the panel's menu once the cookie is written (see common.keep_cookie)
    page = st.navigation(navigation.for_visitor(requested, navigation.SIGNING_IN), position="hidden")
else:
    options = municipalities.of_actor(common.db(), actor)
    codes = [m.code for m in options]
    if st.session_state.get(navigation.SWITCH_MUNICIPALITY) in codes:  # a record opened in another one
        st.session_state["municipality"] = st.session_state.pop(navigation.SWITCH_MUNICIPALITY)
    if common.municipality() not in codes:
        st.session_state["municipality"] = codes[0] if codes else None
    drafts.install(actor.username)
    with st.sidebar:
        st.markdown(f"**{actor.name}**  \nPerfil: {ROLES.get(actor.role, actor.role)}")
        st.selectbox(
            "Município", codes, key="municipality", placeholder=common.CHOOSE,
            format_func=lambda code: next(m.name for m in options if m.code == code),
        )
        if actor.can("write"):
            st.text_input("Buscar no painel", key="nav_search", on_change=navigation.search_typed,
                          placeholder="CPF/CNPJ, placa, protocolo, nº, nome")
        if st.button("Sair", icon=":material/logout:", key="app_logout"):
            common.sign_out()
            st.rerun()
    chosen = next((m for m in options if m.code == common.municipality()), None)
    registers = definitions.readable_registers(common.db(), actor, chosen.code) \
        if chosen and actor.can("read") else []
    page = st.navigation(navigation.build(actor, chosen.modules if chosen else (), requested,
                                          tuple((r.name, r.label_plural) for r in registers)),
                          expanded=True)  # every page in sight: a clerk never hunts behind "View more"
    st.session_state[navigation.DEFINED_KEY] = navigation.defined_register_of(page)
    if notice := st.session_state.pop(navigation.NOTICE, None):
        st.info(notice)
    navigation.open_linked_record(page)
    if st.session_state.pop(navigation.SEARCH_GO, False):
        st.switch_page("app_pages/search.py")
try:
    page.run()
except StoreFault as fault:  # met mid-page (a damaged file found by this very read, a full disk): in pt-BR
    st.error(fault.message)
