"""Municipal machines and vehicles, and the staff who operate or drive them (Decreto 017/2026)."""
import streamlit as st

from services.shared import entities
from ui import bookings as ui_bookings
from ui import common
from ui.entity import entity_form, entity_import
from ui.lists import entity_list

actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
common.page_header("Bens e operadores", "Máquinas e veículos municipais e os servidores que os operam")

for tab, entity in zip(st.tabs(["Máquinas e veículos", "Operadores e motoristas"]),
                       ("machinery_assets", "machinery_operators")):
    with tab:
        spec = entities.spec_for(db, entity, mun)
        selected = entity_list(spec, actor, mun)
        if selected:
            ok, doc = common.attempt(entities.get, db, actor, entity, mun, selected)
            if ok:
                st.subheader(f"Editar {spec.label.lower()}")
                entity_form(spec, actor, mun, doc)
        with st.expander(spec.new_label):
            entity_form(spec, actor, mun)
        with st.expander("Importar CSV"):
            entity_import(spec, actor, mun)
