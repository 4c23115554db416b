"""A register's definition as the Auditoria reads it: each part TI saved on "Cadastros definidos" in
that screen's own words ("Quem consulta: Secretaria, TI municipal"; a field as "O que vai vender (Lista
de opções: Hortaliças e frutas, Artesanato; obrigatório)"; the flow as its states and actions), never
the stored keys (``label_plural``, ``em_analise``).

Pure functions: no store. The entry's changes are the definition's changed keys, before and after
(``services.shared.definitions``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rules import fmt
from services.shared.definition_spec import KINDS, REFERENCE
from services.shared.schema import EntitySpec

ROLE_NAMES = {"secretaria": "Secretaria", "ti": "TI municipal"}  # the roles a definition may name
KIND_NAMES = {**KINDS, REFERENCE: "Referência a outro cadastro"}
PART_NAMES = {  # in the screen's order; the identifier ("name") is the entry's key, never a change
    "label": "Nome no singular", "label_plural": "Nome no plural",
    "feminine": "Gênero do nome", "municipalities": "Municípios que têm o cadastro", "read_roles": "Quem consulta",
    "write_roles": "Quem cadastra", "fields": "Campos", "default_sort": "Ordem padrão da lista",
    "title_field": "Campo que nomeia o registro", "flow": "Fluxo", "public": "Pedidos do público (portal)",
    "removable": "Registros podem ser removidos", "active": "Em uso", "module": "Módulo",
}
FLAGS = (("required", "Obrigatório"), ("unique", "Único no município"), ("searchable", "Entra na busca"),
         ("filterable", "Filtro da lista"), ("in_list", "Coluna da lista"))  # a field's boxes, as the screen has them
NONE = "—"


def changes_in_words(entry: Mapping[str, Any], stored: EntitySpec | None, towns: Mapping[str, str],
                     register: Callable[[str], str] = str) -> str:
    """An audit entry of a definition as "Part: before → after", each part by the screen's name; field
    names by their labels, from the entry's own fields or else from the definition as ``stored``; a
    register a field refers to by ``register(name)``."""
    changes = entry.get("changes") or {}
    labels = {f.name: f.label for f in stored.fields} if stored is not None else {}
    for side in ("before", "after"):
        labels.update({f.get("name"): f.get("label") for f in (changes.get("fields") or {}).get(side) or ()
                       if isinstance(f, Mapping)})
    labels["created_at"] = "Data de cadastro"
    order = list(PART_NAMES)
    parts = sorted((p for p, c in changes.items() if p != "name" and isinstance(c, Mapping)),  # "name": the Chave
                   key=lambda p: order.index(p) if p in order else len(order))

    def shown(part: str, side: str) -> str:
        return part_shown(part, changes[part].get(side), labels, towns, register)

    return "; ".join(f"{PART_NAMES.get(p, p)}: {shown(p, 'before')} → {shown(p, 'after')}" for p in parts)


def part_shown(part: str, value: Any, labels: Mapping[str, str], towns: Mapping[str, str],
               register: Callable[[str], str] = str) -> str:
    """One part of a definition in words (``labels``: field name → label; ``towns``: code → name)."""
    if value is None or value == "" or value == [] or value == {}:
        return NONE
    if part == "feminine":
        return "Feminino" if value else "Masculino"
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if part in ("read_roles", "write_roles"):
        return ", ".join(ROLE_NAMES.get(r, r) for r in value)
    if part == "municipalities":
        return ", ".join(towns.get(c, c) for c in value)
    if part in ("default_sort", "title_field"):
        return labels.get(value, value)
    if part == "fields":
        return "; ".join(_field(f, register) for f in value if isinstance(f, Mapping))
    if part == "flow" and isinstance(value, Mapping):
        return _flow(value)
    if part == "public" and isinstance(value, Mapping):
        asked = ", ".join(labels.get(n, n) for n in value.get("fields") or ())
        said = "Recebe pedidos" if value.get("open") else "Não recebe pedidos"
        return said + (f" (campos: {asked})" if asked else "")
    return str(value)


def _field(f: Mapping[str, Any], register: Callable[[str], str]) -> str:
    kind = KIND_NAMES.get(f.get("kind"), f.get("kind"))
    choices = [c[-1] if isinstance(c, (list, tuple)) else c for c in f.get("choices") or ()]
    if f.get("refers_to"):  # stored with the kind of the other register's key
        kind = f"{KIND_NAMES[REFERENCE]}: {register(f['refers_to'][0])}"
    elif choices:
        kind = f"{kind}: {', '.join(str(c) for c in choices)}"
    flags = [text.lower() for flag, text in FLAGS if flag != "in_list" and f.get(flag)] + (
        [] if f.get("in_list", True) else ["fora da lista"])
    return f"{f.get('label') or f.get('name')} ({'; '.join([kind, *flags])})"


def _flow(flow: Mapping[str, Any]) -> str:
    states = {s.get("value"): s.get("label") or s.get("value") for s in flow.get("states") or ()}
    shown = [f"{s.get('label')}" + (f" (prazo de {fmt.count(s['deadline_days'], 'dia útil', 'dias úteis')})"
                                    if s.get("deadline_days") else "")
             for s in flow.get("states") or ()]
    moves = [f"{t.get('label')} ({states.get(t.get('source'), t.get('source'))} → "
             f"{states.get(t.get('target'), t.get('target'))}; "
             f"{', '.join(ROLE_NAMES.get(r, r) for r in t.get('roles') or ())})"
             for t in flow.get("transitions") or ()]
    return f"situações {', '.join(shown)}" + (f"; ações {', '.join(moves)}" if moves else "")
