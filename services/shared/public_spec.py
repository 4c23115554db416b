"""A defined register open to requests of the public (issue 38 item 4) as data: its check and its shape.

Municipal IT marks a register "recebe pedidos do público" on "Cadastros definidos" and chooses which of
its fields a person fills on the public portal; the clerk fills the others. It is the key ``public`` of
the definition, versioned and audited as every other key of it (``services.shared.definitions``):

    {"open": True, "fields": ["nome_banca", "produtos", "foto"]}

``open`` False keeps the chosen fields for when TI opens it again, and keeps the requests already made
in "Meus pedidos". A request is a record of the register, made by the clerk's own service in the first
state of the register's flow, stamped with who asked (``requester``) and a protocol number
(``protocol``), which no form writes.

Pure functions: no store.
"""
from __future__ import annotations

from typing import Any

PUBLIC = "public"
REQUESTER, PROTOCOL = "requester", "protocol"  # what a request adds to its record (never a form's field)
CHANNEL = "portal"
MAX_FIELDS = 15  # a public form is short; the clerk completes the rest
MAX_FILES = 3  # files one request sends (the portal's request body is sized on it)
INDEXES = [([("municipality", 1), (f"{REQUESTER}.kind", 1), (f"{REQUESTER}.document", 1)],
            {"name": "i_public_requester", "partialFilterExpression": {REQUESTER: {"$exists": True}}}),
           ([("municipality", 1), (PROTOCOL, 1)],
            {"unique": True, "name": "u_public_protocol", "partialFilterExpression": {PROTOCOL: {"$exists": True}}})]


def clean(raw: Any) -> dict[str, Any] | None:
    """The key as stored (None: never opened to the public). Call after :func:`problems` found none."""
    if not isinstance(raw, dict) or (not raw.get("open") and not raw.get("fields")):
        return None
    return {"open": bool(raw.get("open")), "fields": list(dict.fromkeys(str(n) for n in raw.get("fields") or ()))}


def problems(raw: Any, definition: dict[str, Any]) -> dict[str, str]:
    """What is wrong with the public part of a definition, under ``public`` on the TI form."""
    if raw is None or raw == {}:
        return {}
    if not isinstance(raw, dict) or not isinstance(raw.get("fields") or [], list):
        return {PUBLIC: "Pedidos do público: formato inválido."}
    if not raw.get("open"):
        return {}
    chosen = [str(n) for n in raw.get("fields") or ()]
    own = {str(f.get("name")): f for f in definition.get("fields") or () if isinstance(f, dict)}
    if not chosen:
        return {PUBLIC: "Pedidos do público: escolha ao menos um campo que o público preenche."}
    if len(set(chosen)) > MAX_FIELDS:
        return {PUBLIC: f"Pedidos do público: no máximo {MAX_FIELDS} campos no formulário do público."}
    if not (definition.get("flow") or {}).get("states"):
        return {PUBLIC: "Pedidos do público: o cadastro precisa de um fluxo de situações (o pedido entra na "
                        "primeira e o requerente acompanha por ela)."}
    unknown = [n for n in chosen if n not in own]
    if unknown:
        return {PUBLIC: f"Pedidos do público: “{unknown[0]}” não é um campo deste cadastro."}
    for name in chosen:
        f = own[name]
        if f.get("kind") == "reference" or f.get("refers_to"):
            return {PUBLIC: f"Pedidos do público: “{f.get('label')}” refere outro cadastro e fica para a "
                            "secretaria (o público não consulta os cadastros da prefeitura)."}
        if f.get("unique"):
            return {PUBLIC: f"Pedidos do público: “{f.get('label')}” é único e fica para a secretaria (a recusa "
                            "de um valor repetido revelaria o registro de outra pessoa)."}
    if sum(1 for n in set(chosen) if own[n].get("kind") == "file") > MAX_FILES:
        return {PUBLIC: f"Pedidos do público: no máximo {MAX_FILES} arquivos no formulário do público."}
    missing = [f for n, f in own.items() if f.get("required") and n not in chosen]
    if missing:
        return {PUBLIC: f"Pedidos do público: “{missing[0].get('label')}” é obrigatório; inclua-o nos campos do "
                        "público ou deixe-o opcional (o pedido é gravado com a validação de sempre)."}
    return {}


def is_open(definition: dict[str, Any]) -> bool:
    return bool((definition.get(PUBLIC) or {}).get("open"))


def public_fields(definition: dict[str, Any]) -> tuple[str, ...]:
    return tuple((definition.get(PUBLIC) or {}).get("fields") or ())
