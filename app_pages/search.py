"""Busca: one box for anything a clerk has at hand (CPF/CNPJ, plate, protocol, authorization, auto or
DAM number, name), in every municipality the user acts in, and the searchable fields of the registers
defined by TI; a result opens its record on its page."""
import streamlit as st

from services import search
from services.shared import clock, municipalities
from ui import common, navigation, search_results

actor = common.guard("write")
db = common.db()
common.page_header("Busca", "Condutores, veículos, autorizações, autos, plataformas, solicitantes, pedidos, "
                   "contribuintes, DAMs e cadastros definidos pela TI")
term = st.text_input("Buscar", key=navigation.SEARCH_TERM, placeholder="CPF/CNPJ, placa, protocolo, nº do auto "
                     "ou do DAM, nome…")
if len(search.clean(term)) < search.MIN_TERM:
    st.caption(f"Digite ao menos {search.MIN_TERM} caracteres. A caixa «Buscar no painel», na barra lateral, "
               "traz a esta página de qualquer outra.")
    st.stop()
ok, groups = common.attempt(search.search, db, actor, term, clock.today())
if not ok:
    st.stop()
if not groups:
    st.info(f"Nada encontrado para «{search.clean(term)}» nos seus municípios.")
    st.stop()
names = {m.code: m.name for m in municipalities.of_actor(db, actor)}
several = len({hit.municipality for group in groups for hit in group.hits}) > 1
st.caption(" · ".join(f"{g.label}: {len(g.hits)}{'+' if g.more else ''}" for g in groups)
           + ". Clique numa linha para abrir o registro.")
search_results.show(groups, "search", names if several else None,
                    f"Mostrando os {search.PER_KIND} mais recentes por município: refine a busca ou use a lista "
                    "de {label}.")
