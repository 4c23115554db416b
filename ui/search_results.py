"""The results of the Busca and the "Vínculos" of a person's or a vehicle's page: one table per kind,
a click on a row opens the record on its page (in its municipality)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from services import search
from services.search import Group
from services.shared import clock
from ui import common, navigation


def show(groups: list[Group], key: str, names: dict[str, str] | None = None, more: str = "") -> None:
    """``names`` (code → name) adds a Município column; ``more`` is said under a kind cut short."""
    # a table's selection outlives the page: each opening draws the tables anew, so coming back opens nothing
    generation = st.session_state.get(f"{key}_generation", 0)
    for group in groups:
        st.markdown(f"**{group.label}** ({len(group.hits)}{'+' if group.more else ''})")
        rows = [{"Registro": h.title, "Detalhe": h.detail,
                 **({"Município": names.get(h.municipality, "")} if names else {})} for h in group.hits]
        event = st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", on_select="rerun",
                             selection_mode="single-row", key=f"{key}_{group.kind}_{generation}")
        if group.more and more:
            st.caption(more.format(label=group.label.lower()))
        picked = event.selection.rows if event and event.selection else []
        if picked:
            hit = group.hits[picked[0]]
            st.session_state[f"{key}_generation"] = generation + 1
            navigation.open_record(group.kind, hit.record_id, hit.municipality)


def related(actor, municipality: str, key: str, record_id: str, empty: str) -> None:
    """Everything of ``municipality`` that names ``key`` (a CPF/CNPJ or a plate), the record itself left out."""
    ok, groups = common.attempt(search.related, common.db(), actor, municipality, key, record_id, clock.today())
    if not ok:
        return
    if not groups:
        st.caption(empty)
        return
    st.caption("Clique numa linha para abrir o registro na sua página.")
    show(groups, "related", more=f"Mostrando os {search.RELATED} mais recentes: a lista de {{label}} mostra todos.")


LINKED_BY = {"taxpayers": "document", "machinery_requesters": "document"}  # the key others name them by


def of_person(entity: str, actor, municipality: str, doc: dict) -> None:
    """Under a taxpayer's or a requester's form: what names their CPF/CNPJ (nothing for other registers)."""
    if entity in LINKED_BY:
        st.markdown("#### Vínculos")
        related(actor, municipality, doc[LINKED_BY[entity]], doc["id"], "Nenhum pedido, auto ou DAM com este CPF/CNPJ.")
