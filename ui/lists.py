"""The panel's one list: a register's list (search, filters, order, columns, pages, CSV and XLSX,
saved views) and the table every other list of the panel draws (``list_view``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from rules import fmt
from services.shared import clock, entity_files, entity_lists, exports, list_counts
from services.shared.schema import EntitySpec, ListQuery
from ui import common
from ui.saved_views import view_bar

PER_PAGE = (25, 50, 100)


def entity_list(spec: EntitySpec, actor, mun: str) -> str | None:
    """The list with server-side search/filter/sort/pagination, its columns and saved views (``ui.saved_views``);
    returns the selected record id."""
    key = f"{spec.name}_list"
    shown = [spec.field(n) for n in view_bar(spec, actor, mun, key, [f.name for f in spec.list_fields])]
    filterable = [f for f in spec.fields if f.filterable]
    cols = st.columns([3] + [2] * len(filterable) + [2, 1.4])
    search = cols[0].text_input("Buscar", key=f"{key}_search", placeholder="Nome, CPF/CNPJ, placa…")
    filters: dict[str, Any] = {}
    for col, f in zip(cols[1:], filterable):
        # "" is "Todos": a choice a saved view can set back (a None set through the state shows no choice)
        options = [""] + ([True, False] if f.kind == "bool" else [v for v, _ in f.choices])
        chosen = col.selectbox(f.label, options, key=f"{key}_f_{f.name}", placeholder="Escolha...",
                               format_func=lambda v, f=f: "Todos" if v in ("", None) else f.show(v))
        filters[f.name] = None if chosen in ("", None) else chosen  # False (a "Não" filter) stays
    sortable = [f.name for f in spec.list_fields if f.kind != "file"]
    # the register's own order first (its index serves the first page); "Escolha..." is that order too
    first = sortable.index(spec.default_sort) if spec.default_sort in sortable else None
    sort = cols[-2].selectbox("Ordenar por", sortable, index=first, key=f"{key}_sort",
                              format_func=lambda n: spec.field(n).label, placeholder="Ordem do cadastro")
    descending = cols[-1].toggle("Decrescente", key=f"{key}_desc")
    query = ListQuery(search=search, filters=filters, sort=sort, descending=descending,
                      page=st.session_state.get(f"{key}_page", 1),
                      per_page=st.session_state.get(f"{key}_per_page", PER_PAGE[0]))
    ok, page = common.attempt(entity_lists.list_page, common.db(), actor, spec.name, mun, query)
    if not ok:
        return None
    frame = pd.DataFrame([{f.label: f.show(row.get(f.name)) for f in shown} for row in page.rows],
                         columns=[f.label for f in shown])
    index = list_view(key, frame, page.total, page.pages, spec.label_plural, mun,
                      lambda: entity_files.export_csv(common.db(), actor, spec.name, mun, query),
                      lambda: entity_files.export_xlsx(common.db(), actor, spec.name, mun, query))
    return page.rows[index]["id"] if index is not None else None


def list_view(key: str, frame: pd.DataFrame, total: int, pages: int | None, kind: str, mun: str | None,
              csv_data: Callable[[], bytes], xlsx_data: Callable[[], bytes],
              noun: tuple[str, str] = ("registro", "registros"),
              column_config: dict | None = None, exact: bool = False,
              hint: str | None = "Clique em uma linha para abrir o registro.") -> int | None:
    """The table of a list with its pages, count and CSV + XLSX exports of the filter shown — the one
    list of the panel (registers, authorizations, pendências). A click on a row selects it: the
    index of the selected row is returned (None when none); ``hint`` says what the click does (None:
    a list whose rows open nothing). ``pages`` None: no page controls; ``noun``: what the count
    counts, singular and plural ("1 registro", "2 registros")."""
    event = common.table(frame, on_select="rerun" if hint else "ignore", selection_mode="single-row",
                         key=f"{key}_table", column_config=column_config)
    nav = st.columns([2, 2, 2, 2, 2])
    if pages is not None:
        if st.session_state.get(f"{key}_page", 1) > max(1, pages):  # a narrower filter has fewer pages
            st.session_state[f"{key}_page"] = max(1, pages)
        nav[0].number_input("Página", min_value=1, max_value=max(1, pages), key=f"{key}_page")
        nav[1].selectbox("Por página", PER_PAGE, key=f"{key}_per_page", placeholder="Escolha...")
    shown = list_counts.words(total, *noun, exact=exact) + (f" · {fmt.count(pages, 'página', 'páginas')}"
                                                            if pages is not None else "")
    nav[2].markdown(f"<br>{shown}", unsafe_allow_html=True)
    export_buttons(nav[3], nav[4], kind, mun, key, csv_data, xlsx_data)
    if not hint:
        return None
    st.caption(hint)
    rows = event.selection.rows if event and event.selection else []
    return rows[0] if rows and rows[0] < len(frame) else None


def follow_click(clicked: str | None, target: str) -> None:
    """A row clicked in a list chooses its record in the widget ``target`` below (drawn after this):
    once per click, so a choice made afterwards in the widget itself stays."""
    seen = f"{target}_clicked"
    if clicked is not None and st.session_state.get(seen) != clicked:
        st.session_state[target] = clicked
    st.session_state[seen] = clicked


def keep_choice(key: str, options: list) -> None:
    """Drop the widget's choice when it is no longer among ``options`` (another page, another day)."""
    if key in st.session_state and st.session_state[key] is not None and st.session_state[key] not in options:
        del st.session_state[key]


def every_row(fetch: Callable[[int, int], Any], per_page: int = 500, field: str = "rows") -> list:
    """Every row of a list that a service reads a page at a time (``fetch(page, per_page)`` returns a
    page with its ``pages`` and its rows in ``field``): what its export writes, made when clicked."""
    first = fetch(1, per_page)
    return [*getattr(first, field),
            *(row for n in range(2, first.pages + 1) for row in getattr(fetch(n, per_page), field))]


def asked_page(key: str) -> tuple[int, int]:
    """(page, per page) the list ``key`` asks for: what a service reads as skip and limit."""
    return st.session_state.get(f"{key}_page", 1), st.session_state.get(f"{key}_per_page", PER_PAGE[0])


def pages_of(key: str, total: int, per_page: int) -> int:
    """The pages of ``total`` rows; a page asked past the last (a narrower filter) shows the last."""
    pages = max(1, -(-total // per_page))
    if st.session_state.get(f"{key}_page", 1) > pages:
        st.session_state[f"{key}_page"] = pages
        st.rerun()
    return pages


def export_buttons(csv_place, xlsx_place, kind: str, mun: str | None, key: str,
                   csv_data: Callable[[], bytes], xlsx_data: Callable[[], bytes]) -> None:
    """The two exports of a list side by side (the filter shown), each made only when clicked and
    named like ``condutores_chapada_2026-12-01.xlsx``. ``key`` is the list's key prefix."""
    today = clock.today()
    csv_place.download_button("Exportar CSV (filtro atual)", data=csv_data, mime=exports.CSV_MIME,
                              file_name=exports.file_name(kind, mun, today, "csv"), key=f"{key}_export",
                              icon=":material/download:", on_click="ignore")
    xlsx_place.download_button("Exportar XLSX (filtro atual)", data=xlsx_data, mime=exports.XLSX_MIME,
                               file_name=exports.file_name(kind, mun, today, "xlsx"), key=f"{key}_export_xlsx",
                               icon=":material/table_view:", on_click="ignore")


