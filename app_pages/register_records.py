"""A register defined by municipal IT: the same list, form, import and export as the coded registers.

The register is the one the menu entry names (``/cadastro_<identifier>``, see ui.navigation); its
definition says who reads and who writes it, and the generic services refuse anyone else.
"""
import streamlit as st

from services.shared import entities, public_forms
from services.shared.errors import ServiceError
from ui import common, navigation
from ui.entity import announced, entity_page
from ui.flow import flow_panel
from ui.lists import entity_list
from ui.record_files import downloads

actor = common.guard("read")


def requester(spec, actor, mun: str, doc: dict) -> None:
    """Who asked, when the record came from the portal's public form; then the flow, if any."""
    asked = public_forms.requested_by(doc)
    if asked:
        st.info(asked, icon=":material/public:")
    if spec.flow:
        flow_panel(spec, actor, mun, doc)


mun = common.municipality()
name = st.session_state.get(navigation.DEFINED_KEY) or st.query_params.get("cadastro")
try:
    spec = entities.authorize_entity(common.db(), actor, "read", str(name or ""), mun)
except ServiceError as exc:
    common.page_header("Cadastro")
    st.error(exc.message)
    st.stop()
if actor.can("write") and spec.grants(actor.role, "write", mun):
    entity_page(spec.name, detail=requester)
else:
    common.page_header(spec.label_plural, "Somente consulta para o seu perfil")
    announced()
    selected = entity_list(spec, actor, mun)
    if selected and (spec.flow or any(f.kind == "file" for f in spec.fields)):
        ok, doc = common.attempt(entities.get, common.db(), actor, spec.name, mun, selected)
        if ok:
            downloads(spec, actor, mun, doc)  # the record's files
            requester(spec, actor, mun, doc)  # who asked on the portal; a move the flow grants to a reading role
