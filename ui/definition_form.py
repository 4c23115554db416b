"""The parts of the "Cadastros definidos" screen: a field's row, the register's fields, and the fixes a
breaking change asks for. Every widget key starts with ``regdef_``; errors show under the row they name."""
from __future__ import annotations

import uuid
from typing import Any

import streamlit as st

from services.shared.definition_changes import DEFAULT, Breaking
from services.shared.definition_spec import REFERENCE, identifier_of
from services.shared.definition_words import FLAGS, KIND_NAMES

FIELDS = "regdef_fields"
ERRORS = "regdef_errors"


def blank_field() -> dict[str, Any]:
    return {"uid": uuid.uuid4().hex[:8], "name": "", "label": "", "kind": "text", "in_list": True, "choices": [],
            "new": True}


def load(definition: dict[str, Any] | None) -> None:
    """Put a definition's fields (or one blank field) where the rows read them."""
    rows = [{**f, "uid": uuid.uuid4().hex[:8], "new": False} for f in (definition or {}).get("fields", [])]
    st.session_state[FIELDS] = rows or [blank_field()]
    st.session_state.pop(ERRORS, None)


def error(key: str) -> None:
    message = (st.session_state.get(ERRORS) or {}).get(key)
    if message:
        st.error(message, icon=":material/error:")


def _remove(uid: str) -> None:
    st.session_state[FIELDS] = [f for f in st.session_state[FIELDS] if f["uid"] != uid]


def field_rows(targets: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """A bordered row per field: label, identifier, kind, flags, options or the register referred to."""
    target_labels = dict(targets)
    result = []
    for index, f in enumerate(st.session_state.get(FIELDS, [])):
        key = f"regdef_f_{f['uid']}"
        with st.container(border=True):
            cols = st.columns([3, 3, 3, 1.4])
            label = cols[0].text_input(f"Rótulo do campo {index + 1}", f.get("label", ""), key=f"{key}_label")
            name = cols[1].text_input(
                f"Identificador do campo {index + 1}", f.get("name", ""), key=f"{key}_name",
                disabled=not f.get("new"), help="Letras minúsculas, números e _. Em branco: feito a partir do "
                "rótulo. Não muda depois de salvo (os valores guardados dependem dele).")
            kinds = list(KIND_NAMES)
            kind = cols[2].selectbox(f"Tipo do campo {index + 1}", kinds, index=kinds.index(f.get("kind", "text"))
                                     if f.get("kind", "text") in kinds else 0, placeholder="Escolha...", key=f"{key}_kind",
                                     format_func=KIND_NAMES.get)
            cols[3].button("Remover", key=f"{key}_remove", on_click=_remove, args=(f["uid"],),
                           icon=":material/delete:", help="Os valores já guardados ficam nos registros.")
            flags = st.columns(len(FLAGS))
            values = {flag: flags[i].checkbox(text, bool(f.get(flag, flag == "in_list")), key=f"{key}_{flag}")
                      for i, (flag, text) in enumerate(FLAGS)}
            choices, target = [], None
            if kind == "choice":
                typed = st.text_area(f"Opções do campo {index + 1} (uma por linha)",
                                     "\n".join(c[1] if isinstance(c, (list, tuple)) else str(c)
                                               for c in f.get("choices", [])), key=f"{key}_choices", height=90)
                choices = [line.strip() for line in typed.splitlines() if line.strip()]
            if kind == REFERENCE:
                names = list(target_labels)
                current = f.get("target")
                target = st.selectbox(f"Cadastro referido pelo campo {index + 1}", names,
                                      index=names.index(current) if current in names else None,
                                      key=f"{key}_target", format_func=target_labels.get,
                                      placeholder="Escolha o cadastro...")
            for part in ("name", "label", "kind", "choices", "target", "unique"):
                error(f"fields.{index}.{part}")
        result.append({"name": name.strip() or identifier_of(label), "label": label, "kind": kind,
                       "choices": [[c, c] for c in choices], "target": target, **values})
    st.button("Adicionar campo", key="regdef_add", icon=":material/add:",
              on_click=lambda: st.session_state[FIELDS].append(blank_field()))
    return result


def fix_inputs(issues: list[Breaking]) -> dict[str, dict[str, str]]:
    """For each breaking change: what it touches and the default or the mapping TI gives."""
    fixes: dict[str, dict[str, str]] = {}
    for issue in issues:
        key = f"regdef_fix_{issue.field}"
        with st.container(border=True):
            st.warning(f"**{issue.label}**: {issue.reason}", icon=":material/warning:")
            st.caption("Registros afetados: " + ", ".join(title for _, title in issue.records)
                       + (" e outros" if issue.count > len(issue.records) else ""))
            options = dict(issue.choices)  # value → label (a state's label, not its identifier)
            if issue.asks == "default":
                fixes[issue.field] = {DEFAULT: _value_input(f"Valor padrão para “{issue.label}”", key, options)}
            elif issue.asks == "mapping":
                fixes[issue.field] = {old: _value_input(f"“{issue.shown.get(old, old)}” passa a ser", f"{key}_{i}",
                                                        options) for i, old in enumerate(issue.values)}
            else:
                fixes[issue.field] = {record_id: _value_input(f"Novo valor para {title}", f"{key}_{record_id}", {})
                                      for record_id, title in issue.records}
    return {field: {k: v for k, v in values.items() if v} for field, values in fixes.items()}


def _value_input(label: str, key: str, options: dict[str, str]) -> str:
    if options:
        return st.selectbox(label, list(options), index=None, key=key, placeholder="Escolha...",
                            format_func=options.get) or ""
    return st.text_input(label, key=key).strip()
