"""Start page: who is logged in, where, and what the panel offers there."""
import streamlit as st

from services.shared import municipalities
from ui import common, navigation

actor = common.guard("summary")
mun = municipalities.get(common.db(), common.municipality())
common.page_header(f"Olá, {actor.name.split(' (')[0]}")
st.markdown(f"**{mun.secretariat}** · {mun.address} · {mun.phone}")
for module, act in mun.acts.items():
    label = {"transporte": "Transporte por aplicativo", "maquinas": "Máquinas e veículos municipais"}.get(module, module)
    st.markdown(f"- **{label}**: {act}")
st.subheader("Acesso rápido")
pages = [p for p in navigation.visible_pages(actor, mun.modules) if p.path != "app_pages/home.py"]
columns = st.columns(3)
for index, page in enumerate(pages):
    columns[index % 3].page_link(page.path, label=page.title, icon=page.icon)
