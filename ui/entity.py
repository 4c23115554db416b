"""Generic screens driven by an entity spec: list (search, filters, sort, pages, CSV and XLSX), form, import."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pandas as pd
import streamlit as st

from services import clock, entities, exports
from services.entities import EntitySpec, Field, ListQuery
from services.errors import ServiceError, ValidationFailed
from ui import common

PER_PAGE = (25, 50, 100)


def entity_page(entity: str, title: str | None = None) -> None:
    """Full screen of an entity: list with export, new record form, CSV import."""
    actor = common.guard("write")
    mun = common.municipality()
    spec = entities.spec_for(common.db(), entity, mun)
    common.page_header(title or spec.label_plural)
    tab_list, tab_new, tab_import = st.tabs(["Lista", f"Novo(a) {spec.label.lower()}", "Importar CSV"])
    with tab_list:
        selected = entity_list(spec, actor, mun)
        if selected:
            st.divider()
            st.subheader(f"Editar {spec.label.lower()}")
            ok, doc = common.attempt(entities.get, common.db(), actor, entity, mun, selected)
            if ok:
                entity_form(spec, actor, mun, doc)
    with tab_new:
        entity_form(spec, actor, mun)
    with tab_import:
        entity_import(spec, actor, mun)


def record_picker(entity: str, actor, mun: str, label: str, describe, key: str,
                  filters: dict | None = None, on_change=None) -> dict | None:
    """Pick a registered record by typing part of its name or key: the store answers the 20 newest
    matches (never the whole register). Returns the chosen record or None."""
    # "Buscar", not the picker's own label: a screen reader (and a browser test) finds each by its name
    term = st.text_input("Buscar", key=f"{key}_term", placeholder=f"{label}: digite parte do nome, CPF/CNPJ ou placa")
    ok, rows = common.attempt(entities.lookup, common.db(), actor, entity, mun, term, filters)
    found = {r["id"]: r for r in rows} if ok else {}
    chosen = st.session_state.get(key)
    if chosen and chosen not in found:  # keep the current choice while another term is typed
        ok, doc = common.attempt(entities.get, common.db(), actor, entity, mun, chosen)
        if ok:
            found = {chosen: doc, **found}
    picked = st.selectbox(label, list(found), index=None, key=key, format_func=lambda i: describe(found[i]),
                          placeholder="Escolha entre os encontrados…" if found else "Nenhum registro encontrado",
                          on_change=on_change, args=(found,) if on_change else ())
    return found.get(picked)


def entity_list(spec: EntitySpec, actor, mun: str) -> str | None:
    """The list with server-side search/filter/sort/pagination; returns the selected record id."""
    key = f"{spec.name}_list"
    filterable = [f for f in spec.fields if f.filterable]
    cols = st.columns([3] + [2] * len(filterable) + [2, 1.4])
    search = cols[0].text_input("Buscar", key=f"{key}_search", placeholder="Nome, CPF/CNPJ, placa…")
    filters: dict[str, Any] = {}
    for col, f in zip(cols[1:], filterable):
        options = [None] + ([True, False] if f.kind == "bool" else [v for v, _ in f.choices])
        filters[f.name] = col.selectbox(
            f.label, options, key=f"{key}_f_{f.name}",
            format_func=lambda v, f=f: "Todos" if v is None else f.show(v),
        )
    sortable = spec.list_fields
    sort = cols[-2].selectbox("Ordenar por", [f.name for f in sortable], key=f"{key}_sort",
                              format_func=lambda n: spec.field(n).label)
    descending = cols[-1].toggle("Decrescente", key=f"{key}_desc")
    query = ListQuery(search=search, filters=filters, sort=sort, descending=descending,
                      page=st.session_state.get(f"{key}_page", 1),
                      per_page=st.session_state.get(f"{key}_per_page", PER_PAGE[0]))
    ok, page = common.attempt(entities.list_page, common.db(), actor, spec.name, mun, query)
    if not ok:
        return None
    frame = pd.DataFrame([{f.label: f.show(row.get(f.name)) for f in spec.list_fields} for row in page.rows],
                         columns=[f.label for f in spec.list_fields])
    event = st.dataframe(frame, hide_index=True, width="stretch", on_select="rerun",
                         selection_mode="single-row", key=f"{key}_table")
    nav = st.columns([2, 2, 2, 2, 2])
    nav[0].number_input("Página", min_value=1, max_value=page.pages, key=f"{key}_page")
    nav[1].selectbox("Por página", PER_PAGE, key=f"{key}_per_page")
    nav[2].markdown(f"<br>{page.total} registro(s) · {page.pages} página(s)", unsafe_allow_html=True)
    export_buttons(nav[3], nav[4], spec.label_plural, mun, key,
                   lambda: entities.export_csv(common.db(), actor, spec.name, mun, query),
                   lambda: entities.export_xlsx(common.db(), actor, spec.name, mun, query))
    st.caption("Selecione uma linha para ver e editar o registro.")
    rows = event.selection.rows if event and event.selection else []
    return page.rows[rows[0]]["id"] if rows else None


def export_buttons(csv_place, xlsx_place, kind: str, mun: str | None, key: str,
                   csv_data: Callable[[], bytes], xlsx_data: Callable[[], bytes]) -> None:
    """The two exports of a list side by side (the filter shown), each made only when clicked and
    named like ``condutores_chapada_2026-12-01.xlsx``. ``key`` is the list's key prefix."""
    today = clock.today()
    csv_place.download_button("Exportar CSV (filtro atual)", data=csv_data, mime=exports.CSV_MIME,
                              file_name=exports.file_name(kind, mun, today, "csv"), key=f"{key}_export",
                              icon=":material/download:")
    xlsx_place.download_button("Exportar XLSX (filtro atual)", data=xlsx_data, mime=exports.XLSX_MIME,
                               file_name=exports.file_name(kind, mun, today, "xlsx"), key=f"{key}_export_xlsx",
                               icon=":material/table_view:")


def field_widget(f: Field, key: str, current: Any, error: str | None) -> Any:
    """The input of one spec field, with its error below it (shared by every form of the panel)."""
    label = f.label + (" *" if f.required else "")
    if f.kind == "bool":
        value = st.checkbox(label, value=bool(current), key=key, help=f.help or None)
    elif f.kind == "date":
        value = st.date_input(label, value=current, key=key, format="DD/MM/YYYY", help=f.help or None,
                              min_value=date(1950, 1, 1), max_value=date(2100, 12, 31))
    elif f.kind == "choice":
        options = [v for v, _ in f.choices]
        index = options.index(current) if current in options else None
        value = st.selectbox(label, options, index=index, key=key, placeholder="Escolha…",
                             format_func=lambda v: dict(f.choices).get(v, v), help=f.help or None)
    elif f.kind == "textarea":
        value = st.text_area(label, value=f.show(current) if current is not None else "", key=key, help=f.help or None)
    else:
        shown = "" if current is None else (f.show(current) if f.kind != "money" else entities.fields.fmt.number(current, 2))
        value = st.text_input(label, value=shown, key=key, help=f.help or None)
    if error:
        st.caption(f":red[{error}]")
    return value


def entity_form(spec: EntitySpec, actor, mun: str, doc: dict | None = None) -> None:
    """Create (doc None) or edit form; errors show next to each field and nothing typed is lost.

    An edit form keeps the version it first loaded: if someone else saves the record meanwhile, the
    save is refused with who and when, what was typed stays, and a button loads the current version.
    """
    form_key = f"{spec.name}_form_{doc['id'] if doc else 'new'}"
    version_key = f"{form_key}_version"
    if doc:
        st.session_state.setdefault(version_key, doc.get("version", 0))
    errors: dict[str, str] = st.session_state.get(f"{form_key}_errors", {})
    if errors.get("_form"):
        st.error(errors["_form"])
    if doc and st.session_state[version_key] != doc.get("version", 0):
        if st.button("Carregar a versão atual (descarta o que foi digitado)", key=f"{form_key}_reload",
                     icon=":material/refresh:"):
            _forget(spec, form_key)
            st.rerun()
    with st.form(form_key, clear_on_submit=False):
        values = {}
        columns = st.columns(2)
        for index, f in enumerate(spec.fields):
            with columns[index % 2]:
                values[f.name] = field_widget(f, f"{form_key}_{f.name}", (doc or {}).get(f.name), errors.get(f.name))
        submitted = st.form_submit_button("Salvar", type="primary")
    if not submitted:
        return
    errors = _save(spec, actor, mun, doc, values, st.session_state.get(version_key))
    if errors:
        st.session_state[f"{form_key}_errors"] = errors
        st.rerun()
    st.session_state.pop(f"{form_key}_errors", None)
    st.session_state.pop(version_key, None)
    if not doc:
        _forget(spec, form_key)
    st.toast(f"{spec.label} salvo(a).", icon=":material/check_circle:")
    st.rerun()


def _forget(spec: EntitySpec, form_key: str) -> None:
    """Drop what a form holds (typed values, errors, loaded version): the next run starts afresh."""
    for name in [f"{form_key}_{f.name}" for f in spec.fields] + [f"{form_key}_errors", f"{form_key}_version"]:
        st.session_state.pop(name, None)


def _save(spec: EntitySpec, actor, mun: str, doc: dict | None, values: dict, version: int | None) -> dict[str, str]:
    """Save through the service; the errors by field (``_form`` for the whole form)."""
    db = common.db()
    try:
        if doc:
            entities.update(db, actor, spec.name, mun, doc["id"], values, expected_version=version)
        else:
            entities.create(db, actor, spec.name, mun, values)
    except ValidationFailed as exc:
        return exc.errors
    except ServiceError as exc:
        return {exc.field or "_form": exc.message}
    except Exception:  # noqa: BLE001 — never a traceback on screen
        common.log.exception("saving %s", spec.name)
        return {"_form": "Ocorreu um erro inesperado. Nada foi gravado; tente novamente ou avise a TI."}
    return {}


def entity_import(spec: EntitySpec, actor, mun: str) -> None:
    """CSV import: a dry run lists every bad row; only a clean file can be imported."""
    key = f"{spec.name}_import"
    st.caption("Colunas aceitas (cabeçalho com o rótulo ou o nome do campo; separador ';'): "
               + ", ".join(f.label + (" *" if f.required else "") for f in spec.fields))
    upload = st.file_uploader("Arquivo CSV", type=["csv"], key=f"{key}_file")
    if upload is None:
        return
    data = upload.getvalue()
    ok, report = common.attempt(entities.import_csv, common.db(), actor, spec.name, mun, data, commit=False)
    if not ok:
        return
    if report.errors:
        st.error(f"{len(report.errors)} problema(s) em {report.rows} linha(s). Nada foi gravado; corrija o arquivo.")
        st.dataframe(pd.DataFrame([{"Linha": e.line, "Campo": e.field, "Problema": e.message} for e in report.errors]),
                     hide_index=True, width="stretch")
        return
    st.success(f"Verificação concluída: {report.rows} linha(s) válida(s).")
    if st.button(f"Importar {report.rows} registro(s)", type="primary", key=f"{key}_commit"):
        with st.spinner("Importando…"):
            ok, done = common.attempt(entities.import_csv, common.db(), actor, spec.name, mun, data, commit=True)
        if ok:
            st.success(f"{done.inserted} registro(s) importado(s).")
