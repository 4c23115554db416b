"""Above a register's list: its saved views (issue 24 item 3) — open one, save the list as it is
shown, remove one — and the columns it shows. A link of Início opens a view with ``?visao=<id>``."""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from services.shared import definitions, saved_views
from services.shared.saved_views import SavedView
from services.shared.schema import EntitySpec, ListQuery
from ui import common, navigation

VIEW_PARAM = "visao"
# The page that draws each register's list (``ui.lists.entity_list``), for the links of Início.
LIST_PAGES = {"taxpayers": "app_pages/taxpayers.py", "platforms": "app_pages/platforms.py",
              "drivers": "app_pages/drivers.py", "vehicles": "app_pages/vehicles.py",
              "machinery_requesters": "app_pages/machinery_requesters.py",
              "machinery_assets": "app_pages/machinery_registers.py",
              "machinery_operators": "app_pages/machinery_registers.py", "inspections": "app_pages/inspections.py"}


def label(view: SavedView) -> str:
    return f"{view.name} · compartilhada" if view.shared else view.name


def _apply(spec: EntitySpec, key: str, view: SavedView | None, default_columns: Sequence[str]) -> None:
    """Set the list's widgets to ``view`` (None: the whole list), before they are drawn."""
    state = st.session_state
    state[f"{key}_search"] = view.search if view else ""
    for f in spec.fields:
        if f.filterable:
            state[f"{key}_f_{f.name}"] = view.filters.get(f.name, "") if view else ""
    sortable = [f.name for f in spec.list_fields]
    state[f"{key}_sort"] = view.sort if view and view.sort in sortable else sortable[0]
    state[f"{key}_desc"] = bool(view and view.descending)
    chosen = set(view.columns if view and view.columns else default_columns)
    for f in spec.fields:
        if f.kind != "file":
            state[f"{key}_col_{f.name}"] = f.name in chosen
    state[f"{key}_page"] = 1


def _chosen(spec: EntitySpec, key: str, found: dict[str, SavedView], default_columns: Sequence[str]) -> None:
    _apply(spec, key, found.get(st.session_state.get(f"{key}_view")), default_columns)


def _delete(actor, mun: str, key: str, view_id: str) -> None:
    ok, _ = common.attempt(saved_views.delete_view, common.db(), actor, mun, view_id)
    if ok:
        st.session_state[f"{key}_view"] = None


def _save(spec: EntitySpec, actor, mun: str, key: str) -> None:
    """The list as it is shown now (search, filters, order, columns), saved under a name."""
    state = st.session_state
    with st.form(f"{key}_view_form", border=False):
        name = st.text_input("Nome da visão *", key=f"{key}_view_title", max_chars=saved_views.NAME_MAX,
                             placeholder="Ex.: Zona Norte em débito")
        shared = st.toggle("Compartilhar com a secretaria", key=f"{key}_view_shared", disabled=not actor.can("write"),
                           help="Compartilhada: todos da secretaria deste município a veem na lista e no Início.")
        if not st.form_submit_button("Salvar a visão", type="primary", icon=":material/bookmark_add:",
                                        key=f"{key}_view_submit"):
            return
    query = ListQuery(search=state.get(f"{key}_search") or "", sort=state.get(f"{key}_sort"),
                      descending=bool(state.get(f"{key}_desc")),
                      filters={f.name: state.get(f"{key}_f_{f.name}") for f in spec.fields if f.filterable})
    ok, new_id = common.attempt(saved_views.save_view, common.db(), actor, mun, spec.name, name, query,
                                [f.name for f in spec.fields if state.get(f"{key}_col_{f.name}")], shared)
    if ok:
        common.forget(f"{key}_view_title", f"{key}_view", **{f"{key}_view": new_id, f"{key}_view_title": ""})
        st.session_state[f"{key}_view_saved"] = f"Visão '{name.strip()}' salva" + (
            ": a secretaria a vê na lista e no Início." if shared else ": ela aparece para você na lista e no Início.")
        st.rerun()


def view_bar(spec: EntitySpec, actor, mun: str, key: str, default_columns: Sequence[str]) -> list[str]:
    """The saved views and the columns of the list ``key``; returns the columns to show (the list's own
    when none is ticked)."""
    ok, rows = common.attempt(saved_views.views, common.db(), actor, mun, spec.name)
    found = {v.id: v for v in (rows if ok else [])}
    state = st.session_state
    if saved := state.pop(f"{key}_view_saved", None):
        st.success(saved, icon=":material/bookmark_added:")
    linked = st.query_params.get(VIEW_PARAM)
    if linked in found and state.get(f"{key}_view_linked") != linked:  # opened from a link of Início
        state[f"{key}_view_linked"] = state[f"{key}_view"] = linked
        _apply(spec, key, found[linked], default_columns)
    if state.get(f"{key}_view") not in (None, *found):
        state[f"{key}_view"] = None  # removed meanwhile (by someone else, in another tab)
    shown = [f.name for f in spec.fields if f.kind != "file"]
    for name in shown:
        state.setdefault(f"{key}_col_{name}", name in default_columns)
    cols = st.columns([3, 1.4, 1.6, 1.6, 2.4], vertical_alignment="bottom")
    chosen = cols[0].selectbox("Visão salva", [None, *found], key=f"{key}_view", on_change=_chosen,
                               args=(spec, key, found, default_columns), placeholder="Escolha...",
                               format_func=lambda i: "Nenhuma: a lista inteira" if i is None else label(found[i]))
    with cols[1].popover("Colunas", icon=":material/view_column:", width="stretch"):
        for name in shown:  # checkboxes, not a multiselect: its chips read "Remove …" to a screen reader
            st.checkbox(spec.field(name).label, key=f"{key}_col_{name}")
    columns = [name for name in shown if state.get(f"{key}_col_{name}")]
    with cols[2].popover("Salvar visão", icon=":material/bookmark_add:", width="stretch"):
        _save(spec, actor, mun, key)
    view = found.get(chosen)
    if view and (view.owner == actor.username or (view.shared and actor.can("write"))):
        with cols[3].popover("Excluir visão", icon=":material/delete:", width="stretch"):
            st.write(f"Excluir a visão '{view.name}'" + (", compartilhada com a secretaria?" if view.shared else "?"))
            st.button("Confirmar exclusão", key=f"{key}_view_delete", type="primary", on_click=_delete,
                      args=(actor, mun, key, view.id))
    return [c for c in columns if c in shown] or list(default_columns)


def links(actor, mun: str, reachable: set[str]) -> None:
    """Início: the saved views of the municipality the user sees, each a link to its list (of the
    pages in ``reachable``, the user's menu)."""
    ok, rows = common.attempt(saved_views.views, common.db(), actor, mun)
    ok_defined, defined = common.attempt(definitions.readable_registers, common.db(), actor, mun)
    pages = {e: p for e, p in LIST_PAGES.items() if p in reachable}  # a register defined by TI: its own address
    pages |= {r.name: st.Page(navigation.DEFINED_PAGE, url_path=navigation.defined_path(r.name))
              for r in (defined if ok_defined else [])}
    rows = [v for v in (rows if ok else []) if v.entity in pages]
    if not rows:
        return
    st.subheader("Visões salvas")
    columns = st.columns(3)
    for index, view in enumerate(rows):
        columns[index % 3].page_link(pages[view.entity], label=label(view), icon=":material/bookmark:",
                                     query_params={VIEW_PARAM: view.id})
