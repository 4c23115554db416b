"""Generic screens driven by an entity spec: list (search, filters, sort, pages, CSV and XLSX), form, import."""
from __future__ import annotations

import textwrap
from collections.abc import Callable
from datetime import date
from typing import Any

import streamlit as st

from rules.base import RuleError
from services.shared import entities, entity_lists
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.schema import EntitySpec, Field, ListQuery
from ui import common, navigation, record_files, search_results
from ui.common import forget
from ui.entity_import import entity_import
from ui.lists import entity_list



def entity_page(entity: str, title: str | None = None,
                detail: Callable[[EntitySpec, Any, str, dict], None] | None = None) -> None:
    """Full screen of an entity: list with export, new record form, CSV import; ``detail`` draws what a
    register adds below an opened record's form (a defined register's status flow)."""
    actor = common.guard("write")
    mun = common.municipality()
    spec = entities.spec_for(common.db(), entity, mun)
    common.page_header(title or spec.label_plural)
    announced()
    tabs_key, open_key = f"{entity}_tabs", f"{entity}_open"
    tab_list, tab_new, tab_import = common.tabs(["Lista", spec.new_label, "Importar CSV"], tabs_key)
    with tab_list:
        selected = entity_list(spec, actor, mun) or (record_picker(
            entity, actor, mun, f"Abrir {spec.label.lower()}", lambda d: describe(entity, d), open_key) or {}).get("id")
        if selected:
            st.divider()
            st.subheader(f"Editar {spec.label.lower()}")
            ok, doc = common.attempt(entities.get, common.db(), actor, entity, mun, selected)
            if ok:
                entity_form(spec, actor, mun, doc)
                if detail is not None:
                    detail(spec, actor, mun, doc)
                search_results.of_person(entity, actor, mun, doc)
    with tab_new:
        entity_form(spec, actor, mun,
                    after_save=lambda record_id: saved_panel(spec, actor, mun, record_id, tabs_key, open_key))
    with tab_import:
        entity_import(spec, actor, mun)


def _open_saved(tabs_key: str, open_key: str, record_id: str, saved_key: str) -> None:
    st.session_state[tabs_key] = "Lista"
    st.session_state[open_key] = record_id
    st.session_state.pop(saved_key, None)


def saved_panel(spec: EntitySpec, actor, mun: str, record_id: str, tabs_key: str, open_key: str,
                next_step: Callable[[dict], None] | None = None) -> None:
    """Above a blank new-record form: what was saved, "Abrir o registro" and the next step (when given)."""
    ok, doc = common.attempt(entities.get, common.db(), actor, spec.name, mun, record_id)
    if not ok:
        return
    with st.container(border=True):
        st.success(f"{spec.label} {describe(spec.name, doc)} {spec.saved}. O formulário abaixo está limpo para um "
                   "novo cadastro.", icon=":material/check_circle:")
        cols = st.columns(2)
        cols[0].button("Abrir o registro", key=f"{spec.name}_saved_open", icon=":material/open_in_new:",
                       on_click=_open_saved, args=(tabs_key, open_key, record_id, f"{spec.name}_form_new_saved"))
        if next_step:
            with cols[1]:
                next_step(doc)


PICK_ALL = 300  # a register this small is one list, filtered as the clerk types in it (issue 22 item 7)


def candidates(entity: str, actor, mun: str, key: str, placeholder: str, filters: dict | None = None) -> list[dict]:
    """What a picker offers: the whole register when it holds at most ``PICK_ALL`` records (one
    widget: the list filters itself as the clerk types); a larger one adds a "Buscar" box and offers
    the 20 newest matches (never the whole register)."""
    term = st.session_state.get(f"{key}_term") or ""  # typed in the box only a large register has
    ok, rows = common.attempt(entity_lists.lookup, common.db(), actor, entity, mun, term, filters,
                              entity_lists.LOOKUP_LIMIT if term else PICK_ALL + 1)  # one query either way
    rows = rows if ok else []
    if not term and len(rows) <= PICK_ALL:
        return rows
    st.text_input("Buscar", key=f"{key}_term", placeholder=placeholder)
    return rows[:entity_lists.LOOKUP_LIMIT]  # the newest, or the newest matches of the term


def record_picker(entity: str, actor, mun: str, label: str, describe, key: str,
                  filters: dict | None = None, on_change=None) -> dict | None:
    """Pick a registered record by typing part of its name or key (see :func:`candidates`). Returns the
    chosen record or None."""
    # "Buscar", not the picker's own label: a screen reader (and a browser test) finds each by its name
    rows = candidates(entity, actor, mun, key, f"{label}: digite parte do nome, CPF/CNPJ ou placa", filters)
    found = {r["id"]: r for r in rows}
    chosen = st.session_state.get(key)
    if chosen and chosen not in found:  # keep the current choice while another term is typed
        ok, doc = common.attempt(entities.get, common.db(), actor, entity, mun, chosen)
        if ok:
            found = {chosen: doc, **found}
    picked = st.selectbox(label, list(found), index=None, key=key, format_func=lambda i: describe(found[i]),
                          placeholder="Escolha ou digite para filtrar…" if found else "Nenhum registro encontrado",
                          on_change=on_change, args=(found,) if on_change else ())
    return found.get(picked)


# ---- forms: each error under its field, nothing typed lost ----

def errors_of(form_key: str) -> dict[str, str]:
    """The errors by field the last save of ``form_key`` left (empty when it saved or never ran)."""
    return st.session_state.get(f"{form_key}_errors", {})


def field_error(form_key: str, name: str) -> None:
    """The error of field ``name`` of the form, in red, right under the field (nothing when none)."""
    message = errors_of(form_key).get(name)
    if message:
        st.caption(f":red[{message}]")


def form_errors(form_key: str, names=()) -> None:
    """Above a form: the errors that belong to no field shown in it (a conflict, a stale version)."""
    loose = [m for n, m in errors_of(form_key).items() if n not in set(names)]
    if loose:
        st.error("\n\n".join(loose), icon=":material/error:")


def submit(form_key: str, action: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """Run a form's service call. On failure the errors are kept by field for :func:`field_error` and
    :func:`form_errors` and the page reruns to show them, every typed value kept (so the call does not
    return); on success they are cleared and (True, result) is returned. Never a traceback."""
    try:
        result = action(*args, **kwargs)
    except ValidationFailed as exc:
        errors = dict(exc.errors)
    except ServiceError as exc:
        errors = {exc.field or "_form": exc.message}
    except RuleError as exc:
        errors = {"_form": str(exc)}
    except Exception:  # noqa: BLE001 — never a traceback on screen
        common.log.exception("form %s", form_key)
        errors = {"_form": "Ocorreu um erro inesperado. Nada foi gravado; tente novamente ou avise a TI."}
    else:
        st.session_state.pop(f"{form_key}_errors", None)
        return True, result
    st.session_state[f"{form_key}_errors"] = errors
    st.rerun()  # shows the errors under their fields; never returns


def announce(text: str) -> None:
    """A confirmation that survives the rerun after a successful action (shown by :func:`announced`)."""
    st.session_state["entity_announce"] = text


def announced() -> None:
    """Show (once) the confirmation an action left before its rerun; its toast holds the first sentence
    (Streamlit folds a toast past three lines behind an English "view more")."""
    text = st.session_state.pop("entity_announce", None)
    if text:
        st.success(text, icon=":material/check_circle:")
        st.toast(textwrap.shorten(text.split(". ", 1)[0], 90, placeholder=" …"), icon=":material/check_circle:")


def confirm_button(label: str, key: str, question: str, disabled: bool = False,
                   icon: str = ":material/delete:") -> bool:
    """A destructive action in two steps: the first click asks ``question``; "Confirmar" returns True."""
    armed = f"{key}_armed"
    if not st.session_state.get(armed):
        if st.button(label, key=key, icon=icon, disabled=disabled):
            st.session_state[armed] = True
            st.rerun()
        return False
    st.warning(question, icon=":material/warning:")
    left, right = st.columns(2)
    if right.button("Cancelar", key=f"{key}_no"):
        st.session_state.pop(armed, None)
        st.rerun()
    if left.button("Confirmar", key=f"{key}_yes", type="primary", icon=":material/check:"):
        st.session_state.pop(armed, None)
        return True
    return False


def describe(entity: str, doc: dict) -> str:
    """A record as a picker shows it: its title and its key (``João da Silva · CPF 123.456.789-09``)."""
    target = entities.spec(entity)
    keys = {"drivers": "cpf", "platforms": "cnpj", "vehicles": "plate", "taxpayers": "document"}
    title = doc.get(target.title_field) or ""
    key = keys.get(entity)
    if not key:
        return str(title)
    shown = target.field(key).show(doc.get(key))
    return f"{title} · {target.field(key).label} {shown}" if title and key != target.title_field else shown


def reference_picker(f: Field, key: str, current: Any, actor, mun: str, error: str | None = None) -> Any:
    """A reference field (a vehicle's driver, a driver's platform) picked from the register, never
    typed (see :func:`candidates`). Returns the referenced key (CPF, CNPJ) or None. It must be drawn
    outside an ``st.form``: a large register's search box answers as the clerk types."""
    collection, key_field = f.refers_to
    rows = candidates(collection, actor, mun, key, f"{f.label}: digite parte do nome ou do número do cadastro")
    found = {r[key_field]: r for r in rows}
    if key not in st.session_state and current:
        st.session_state[key] = current
    chosen = st.session_state.get(key)
    if chosen and chosen not in found:  # keep the current choice while another term is typed
        ok, doc = common.attempt(entity_lists.referenced, common.db(), actor, collection, mun, key_field, chosen)
        if ok:  # a value saved before it had to be registered stays shown, never silently dropped
            found = {chosen: doc, **found}
    target = entities.spec(collection).label_plural.lower()
    picked = st.selectbox(f.label + (" *" if f.required else ""), list(found), index=None, key=key,
                          format_func=lambda v: describe(collection, found[v]) if found.get(v)
                          else f"{f.show(v)} (não está no cadastro)",
                          placeholder=f"Escolha no cadastro de {target}…" if found
                          else f"Nenhum registro em {target} com esta busca", help=f.help or None)
    if error:
        st.caption(f":red[{error}]")
    return picked


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
    elif f.kind == "file":
        value = record_files.file_input(f, label, key, current)
    elif f.kind == "textarea":
        value = st.text_area(label, value=f.show(current) if current is not None else "", key=key, help=f.help or None)
    else:
        shown = "" if current is None else (f.show(current) if f.kind != "money" else entities.fields.fmt.number(current, 2))
        value = st.text_input(label, value=shown, key=key, help=f.help or None)
    if error:
        st.caption(f":red[{error}]")
    return value


def references(spec: EntitySpec, form_key: str, doc: dict | None, actor, mun: str) -> dict[str, Any]:
    """The pickers of the spec's reference fields (outside the form), with their errors."""
    errors = errors_of(form_key)
    return {f.name: reference_picker(f, f"{form_key}_{f.name}", (doc or {}).get(f.name), actor, mun,
                                     errors.get(f.name))
            for f in spec.fields if f.refers_to}


def form_fields(spec: EntitySpec, form_key: str, doc: dict | None) -> dict[str, Any]:
    """The widgets of every field that is not a reference, two columns, each with its error."""
    errors = errors_of(form_key)
    values = {}
    plain = [f for f in spec.fields if not f.refers_to and f.in_form]
    columns = st.columns(2)
    for index, f in enumerate(plain):
        with columns[index % 2]:
            values[f.name] = field_widget(f, f"{form_key}_{f.name}", (doc or {}).get(f.name), errors.get(f.name))
    # a file not sent again on an edit: the record keeps the one it holds
    return {k: v for k, v in values.items() if not (doc and v is None and spec.field(k).kind == "file")}


def entity_form(spec: EntitySpec, actor, mun: str, doc: dict | None = None, after_save=None) -> None:
    """Create (doc None) or edit form; errors show next to each field and nothing typed is lost.

    Reference fields are picked from their register above the form. An edit form keeps the version
    it first loaded: if someone else saves the record meanwhile, the save is refused with who and
    when, what was typed stays, and a button loads the current version. After a new record is
    saved the form is blank again and ``after_save(new_id)`` (when given) offers what comes next.
    """
    form_key = f"{spec.name}_form_{doc['id'] if doc else 'new'}"
    version_key = f"{form_key}_version"
    if doc:
        st.session_state.setdefault(version_key, doc.get("version", 0))
    form_errors(form_key, [f.name for f in spec.fields])
    if doc and st.session_state[version_key] != doc.get("version", 0):
        if st.button("Carregar a versão atual (descarta o que foi digitado)", key=f"{form_key}_reload",
                     icon=":material/refresh:"):
            _forget(spec, form_key)
            st.rerun()
    saved = st.session_state.get(f"{form_key}_saved")
    if saved and not doc and after_save:
        after_save(saved)
    picked = references(spec, form_key, doc, actor, mun)
    if doc:
        record_files.downloads(spec, actor, mun, doc)
    with st.form(form_key, clear_on_submit=False):
        values = {**picked, **form_fields(spec, form_key, doc)}
        if doc:
            submitted, then_open = st.form_submit_button("Salvar", type="primary"), False
        else:  # the next record at once, or the one just saved
            left, right, _ = st.columns([1, 1, 3])
            submitted = left.form_submit_button("Salvar e novo", type="primary", width="stretch")
            then_open = right.form_submit_button("Salvar e abrir", width="stretch")
            submitted = submitted or then_open
    if not submitted:
        return
    if doc:
        submit(form_key, entities.update, common.db(), actor, spec.name, mun, doc["id"], values,
               expected_version=st.session_state.get(version_key))
        st.session_state.pop(version_key, None)
        announce(f"{spec.label} {spec.saved}.")
    else:
        _, new_id = submit(form_key, entities.create, common.db(), actor, spec.name, mun, values)
        _forget(spec, form_key)
        if then_open:
            # the list's picker is already drawn on this run: it takes the record on the next one
            tabs_key, _label = navigation.OPEN_TABS.get(spec.name, (f"{spec.name}_tabs", "Lista"))
            open_key = navigation.OPEN_KEYS.get(spec.name, f"{spec.name}_open")
            forget(tabs_key, open_key, **{tabs_key: "Lista", open_key: new_id})
            announce(f"{spec.label} {spec.saved}.")
        elif after_save:
            st.session_state[f"{form_key}_saved"] = new_id
        else:
            announce(f"{spec.label} {spec.saved}. O formulário está limpo para um novo cadastro.")
    st.rerun()


def _forget(spec: EntitySpec, form_key: str) -> None:
    """Drop what a form holds (typed values, errors, loaded version): the next run starts afresh."""
    blanks = {f"{form_key}_{f.name}": None if f.refers_to or f.kind in ("choice", "date")  # see field_widget
              else False if f.kind == "bool" else "" for f in spec.fields if f.kind != "file"}
    for f in spec.fields:
        if f.kind == "file":
            record_files.forget(f"{form_key}_{f.name}")
    blanks.update({f"{form_key}_{f.name}_term": "" for f in spec.fields if f.refers_to})
    forget(*blanks, **blanks)
    for name in (f"{form_key}_errors", f"{form_key}_version", f"{form_key}_saved"):
        st.session_state.pop(name, None)
