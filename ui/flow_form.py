"""The status flow part of "Cadastros definidos": the states (the first is where a record starts; each
with an optional deadline in business days) and the actions between them, with who may make each.
Every widget key starts with ``regdef_``; errors show under the row they name (``flow.states.N``)."""
from __future__ import annotations

import uuid
from typing import Any

import streamlit as st

from services.shared.definition_words import ROLE_NAMES
from services.shared.fields import identifier_of
from services.shared.flow_spec import MAX_DEADLINE
from ui import definition_form as form

STATES, MOVES = "regdef_states", "regdef_moves"
ROLES = tuple(ROLE_NAMES.items())


def _uid() -> str:
    return uuid.uuid4().hex[:8]


def load(definition: dict[str, Any] | None) -> None:
    """Put a definition's flow (or none) where the rows read it."""
    flow = (definition or {}).get("flow") or {}
    st.session_state[STATES] = [{**s, "uid": _uid()} for s in flow.get("states", [])]
    st.session_state[MOVES] = [{**t, "uid": _uid()} for t in flow.get("transitions", [])]


def _remove(key: str, uid: str) -> None:
    st.session_state[key] = [row for row in st.session_state[key] if row["uid"] != uid]


def _add(key: str, row: dict[str, Any]) -> None:
    st.session_state.setdefault(key, []).append({**row, "uid": _uid()})


def flow_rows() -> dict[str, Any] | None:
    """The flow as typed (None: the register has no flow)."""
    st.subheader("Fluxo de situações (opcional)")
    st.caption("Para um serviço com etapas (protocolo, análise, deferimento): o registro novo começa na primeira "
               "situação e só muda pelas ações abaixo. Um prazo em dias úteis (calendário legal do município) põe o "
               "registro na lista de prazos do Início até que saia da situação.")
    states = _state_rows()
    values = {s["value"] or identifier_of(s["label"]): s["label"] for s in states if s["label"].strip()}
    moves = _move_rows(values) if states else []
    form.error("flow.states")
    form.error("flow.transitions")
    return {"states": states, "transitions": moves} if states else None


def _state_rows() -> list[dict[str, Any]]:
    states = []
    for index, s in enumerate(st.session_state.get(STATES, [])):
        key = f"regdef_s_{s['uid']}"
        with st.container(border=True):
            cols = st.columns([4, 2.2, 1.4])
            label = cols[0].text_input(f"Situação {index + 1}" + (" (inicial)" if index == 0 else ""),
                                       s.get("label", ""), key=f"{key}_label", placeholder="Ex.: Em análise")
            days = cols[1].number_input(f"Prazo da situação {index + 1} (dias úteis)", 0, MAX_DEADLINE,
                                        int(s.get("deadline_days") or 0), 1, key=f"{key}_days",
                                        help="0: sem prazo. Contado do dia em que o registro entrou na situação.")
            cols[2].button("Remover", key=f"{key}_remove", on_click=_remove, args=(STATES, s["uid"]),
                           icon=":material/delete:")
            form.error(f"flow.states.{index}")
        states.append({"value": s.get("value") or "", "label": label, "deadline_days": int(days) or None})
    st.button("Adicionar situação", key="regdef_add_state", icon=":material/add:", on_click=_add,
              args=(STATES, {"label": "", "deadline_days": None}))
    return states


def _move_rows(values: dict[str, str]) -> list[dict[str, Any]]:
    options = list(values)
    moves = []
    for index, t in enumerate(st.session_state.get(MOVES, [])):
        key = f"regdef_t_{t['uid']}"
        with st.container(border=True):
            cols = st.columns([3, 3, 3, 1.4])
            source = cols[0].selectbox(f"Ação {index + 1}: de", options, key=f"{key}_source", format_func=values.get,
                                       index=options.index(t["source"]) if t.get("source") in options else None,
                                       placeholder="Escolha a situação...")
            target = cols[1].selectbox(f"Ação {index + 1}: para", options, key=f"{key}_target", format_func=values.get,
                                       index=options.index(t["target"]) if t.get("target") in options else None,
                                       placeholder="Escolha a situação...")
            label = cols[2].text_input(f"Nome da ação {index + 1} (texto do botão)", t.get("label", ""),
                                       key=f"{key}_label", placeholder="Ex.: Deferir")
            cols[3].button("Remover", key=f"{key}_remove", on_click=_remove, args=(MOVES, t["uid"]),
                           icon=":material/delete:")
            boxes = st.columns(len(ROLES) + 2)
            roles = [role for i, (role, text) in enumerate(ROLES)
                     if boxes[i].checkbox(f"{text} pode fazer", role in (t.get("roles") or ["secretaria"]),
                                          key=f"{key}_{role}")]
            form.error(f"flow.transitions.{index}")
        moves.append({"source": source or "", "target": target or "", "label": label, "roles": roles})
    st.button("Adicionar ação", key="regdef_add_move", icon=":material/add:", on_click=_add,
              args=(MOVES, {"source": None, "target": None, "label": "", "roles": ["secretaria"]}))
    return moves
