"""A defined register's status flow as data (issue 24 item 4): its check, its spec and its deadlines.

Municipal IT writes the flow on "Cadastros definidos" beside the fields: the states (the first one is
where a new record starts; each may have a deadline in business days to leave it), the allowed
moves between them, and which roles may make each move. Enough to prototype a licensing service
before it gets its own rules module. The flow is the key ``flow`` of the definition:

    {"states": [{"value": "protocolado", "label": "Protocolado", "deadline_days": 5}, ...],
     "transitions": [{"source": "protocolado", "target": "deferido", "label": "Deferir",
                      "roles": ["secretaria"]}, ...]}

A record's state is kept in its field ``state`` (a choice no form writes: only
``services.shared.flows.move`` changes it), the instant it entered it in ``state_since``, and the moves
made in ``state_history``. A deadline counts business days of the legal calendar
(:mod:`rules.calendar`: the municipality's holidays from its parameters), the entry day excluded.

Pure functions: no store.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from rules.calendar import LegalCalendar
from services.shared.fields import identifier_of
from services.shared.schema import LABEL_MAX, Field, Flow, State, Transition

STATE, SINCE, HISTORY = "state", "state_since", "state_history"
STATE_LABEL = "Situação"
MOVE_ROLES = ("secretaria", "ti")  # who may be granted a move (the gabinete reads counts only)
MAX_STATES = 20
MAX_TRANSITIONS = 100
MAX_DEADLINE = 365  # business days: more than a year and a half is not a deadline a queue can follow
MOVE_LABEL_MAX = 40


def clean(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """The flow as stored (None: the register has no flow). Call after :func:`problems` found none."""
    if not raw or not raw.get("states"):
        return None
    states = [{"value": _value(s), "label": str(s["label"]).strip(),
               "deadline_days": int(s["deadline_days"]) if s.get("deadline_days") not in (None, "", 0) else None}
              for s in raw["states"]]
    transitions = [{"source": str(t["source"]), "target": str(t["target"]), "label": str(t["label"]).strip(),
                    "roles": sorted(set(t.get("roles") or ()))} for t in raw.get("transitions") or ()]
    return {"states": states, "transitions": transitions}


def _value(state: dict[str, Any]) -> str:
    """A state's stored value: kept once given (a renamed state keeps its records), else from its label."""
    return str(state.get("value") or "").strip() or identifier_of(str(state.get("label") or ""))


def problems(raw: dict[str, Any] | None, read_roles: list[str] | None,
             write_roles: list[str] | None) -> dict[str, str]:
    """What is wrong with a flow, by the part of the TI form (``flow.states.1``, ``flow.transitions.0``)."""
    if not raw:
        return {}
    if not _shaped(raw):  # a definition read from a file, not typed on the TI screen
        return {"flow": "Fluxo: formato inválido (situações e ações devem ser listas de itens)."}
    if not raw.get("states"):
        return {"flow.transitions": "Fluxo: sem situações, não pode haver ações."} if raw.get("transitions") else {}
    errors: dict[str, str] = {}
    states, transitions = list(raw["states"]), list(raw.get("transitions") or ())
    if len(states) < 2:
        errors["flow.states"] = "Fluxo: informe ao menos duas situações (a inicial e uma para onde ir)."
    elif len(states) > MAX_STATES:
        errors["flow.states"] = f"Fluxo: no máximo {MAX_STATES} situações."
    if len(transitions) > MAX_TRANSITIONS:
        errors["flow.transitions"] = f"Fluxo: no máximo {MAX_TRANSITIONS} ações."
    if errors:
        return errors
    seen: dict[str, int] = {}
    for index, state in enumerate(states):
        errors.update(_state_problems(index, state, seen))
    pairs: set[tuple[str, str]] = set()
    granted = set(read_roles or ()) | set(write_roles or ())
    for index, move in enumerate(transitions):
        errors.update(_move_problems(index, move, seen, pairs, granted))
    if not errors:
        errors.update(_shape_problems(clean(raw)))
    return errors


def _shaped(raw: Any) -> bool:
    """A flow as a dict of lists of dicts (what the TI screen sends and an export writes)."""
    if not isinstance(raw, dict):
        return False
    parts = (raw.get("states") or [], raw.get("transitions") or [])
    return all(isinstance(part, list) and all(isinstance(item, dict) for item in part) for part in parts)


def _state_problems(index: int, state: dict[str, Any], seen: dict[str, int]) -> dict[str, str]:
    at, row = f"flow.states.{index}", f"Situação {index + 1}"
    label = str(state.get("label") or "").strip()
    if not label:
        return {at: f"{row}: informe o nome da situação."}
    if len(label) > LABEL_MAX:
        return {at: f"{row}: o nome tem no máximo {LABEL_MAX} caracteres."}
    value = _value(state)
    if not value:
        return {at: f"{row}: o nome precisa de ao menos uma letra ou número."}
    if value in seen:
        return {at: f"{row}: repete a situação {seen[value] + 1}."}
    seen[value] = index
    days = state.get("deadline_days")
    if days in (None, "", 0):
        return {}
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DEADLINE:
        return {at: f"{row}: o prazo é um número inteiro de dias úteis, de 1 a {MAX_DEADLINE} (ou em branco)."}
    return {}


def _move_problems(index: int, move: dict[str, Any], states: dict[str, int], pairs: set[tuple[str, str]],
                   granted: set[str]) -> dict[str, str]:
    at, row = f"flow.transitions.{index}", f"Ação {index + 1}"
    source, target = str(move.get("source") or ""), str(move.get("target") or "")
    if source not in states or target not in states:
        return {at: f"{row}: escolha a situação de origem e a de destino entre as situações do fluxo."}
    if source == target:
        return {at: f"{row}: a origem e o destino são a mesma situação."}
    if (source, target) in pairs:
        return {at: f"{row}: já existe uma ação da situação {states[source] + 1} para a {states[target] + 1}."}
    pairs.add((source, target))
    label = str(move.get("label") or "").strip()
    if not label:
        return {at: f"{row}: informe o nome da ação (o texto do botão, ex.: Deferir)."}
    if len(label) > MOVE_LABEL_MAX:
        return {at: f"{row}: o nome da ação tem no máximo {MOVE_LABEL_MAX} caracteres."}
    roles = set(move.get("roles") or ())
    if not roles or not roles <= set(MOVE_ROLES):
        return {at: f"{row}: escolha quem pode fazer a ação (Secretaria, TI municipal)."}
    if roles - granted:
        return {at: f"{row}: quem faz a ação precisa também consultar o cadastro (veja “Quem consulta”)."}
    return {}


def _shape_problems(flow: dict[str, Any] | None) -> dict[str, str]:
    """Every state reachable from the first; no deadline on a state no action leaves."""
    if flow is None:
        return {}
    values = [s["value"] for s in flow["states"]]
    reached, frontier = {values[0]}, [values[0]]
    while frontier:
        here = frontier.pop()
        for move in flow["transitions"]:
            if move["source"] == here and move["target"] not in reached:
                reached.add(move["target"])
                frontier.append(move["target"])
    errors = {}
    leaves = {m["source"] for m in flow["transitions"]}
    for index, state in enumerate(flow["states"]):
        if state["value"] not in reached:
            errors[f"flow.states.{index}"] = (f"Situação {index + 1}: nenhuma ação leva a “{state['label']}” a partir "
                                              "da situação inicial.")
        elif state["deadline_days"] and state["value"] not in leaves:
            errors[f"flow.states.{index}"] = (f"Situação {index + 1}: tem prazo, mas nenhuma ação sai dela; tire o "
                                              "prazo ou crie a ação.")
    return errors


def to_flow(stored: dict[str, Any] | None) -> Flow | None:
    if not stored or not stored.get("states"):
        return None
    return Flow(states=tuple(State(s["value"], s["label"], s.get("deadline_days")) for s in stored["states"]),
                transitions=tuple(Transition(t["source"], t["target"], t["label"], tuple(t["roles"]))
                                  for t in stored.get("transitions") or ()))


def state_field(flow: Flow) -> Field:
    """The record's state as the list, its filter, its exports and a breaking change see it: a required
    choice among the states (a state removed while records are in it asks TI where they go)."""
    return Field(name=STATE, label=STATE_LABEL, kind="choice", required=True,
                 choices=tuple((s.value, s.label) for s in flow.states), filterable=True, in_form=False)


def due(calendar: LegalCalendar, entered: date, state: State | None) -> date | None:
    """When a record that entered ``state`` on ``entered`` must have left it (None: no deadline)."""
    if state is None or not state.deadline_days:
        return None
    return calendar.add_business_days(entered, state.deadline_days)
