"""The data explorer: a read-only look at any register of the store for municipal IT, within the
actor's municipalities, secrets never shown — in the words of the Auditoria (issue 35 item 9): each
register by its pt-BR name, each field by its label, each stored code, date and municipality as the
register of acts shows it (:mod:`services.shared.audit_log`), never ``inspection_failed`` or
``nova_lacerda``. What a screen keeps as data (the work queue, the summary's months, counters) is rebuilt
from these registers and is not listed; nor are the definitions of registers, which "Cadastros definidos"
shows field by field.
"""
from __future__ import annotations

from typing import Any

from pymongo.database import Database

from services.shared import accounts, audit_log, clock, entity_lists, list_counts, municipalities
from services.shared.auth import Actor, authorize, scope_of
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.store import decode

AUDIT = "audit"
# registers another screen of TI shows in words: the definitions of registers (their fields, flow and versions
# on "Cadastros definidos"), whose stored form is a structure of codes, not a row
SHOWN_ELSEWHERE = ("sessions", "register_definitions")
HIDDEN = {"password_hash": 0, "hash_scheme": 0, "session_generation": 0}


def label(collection: str) -> str:
    """A register as the Auditoria names it ("Pedido de serviço"); the audit log itself by its page."""
    return "Registro de auditoria" if collection == AUDIT else audit_log.entity_label(collection)


def collections(db: Database) -> list[str]:
    """The registers of the store that have a pt-BR name, in the order of their names."""
    named = [c for c in db.list_collection_names() if c not in SHOWN_ELSEWHERE and label(c) != c]
    return sorted(named, key=lambda c: label(c).casefold())


@checked
def browse(db: Database, actor: Actor, collection: str, municipality: str | None, skip: int = 0,
           limit: int = 50) -> tuple[list[dict], int]:
    """Read-only look at any register (``ti`` data explorer); secrets are never shown.

    ``collection`` must be one of :func:`collections`; ``municipality`` one of the actor's (None: all of
    them). The rows come as stored: :func:`shown_rows` puts them in the Auditoria's words.
    """
    authorize(actor, "admin", municipality)
    if not isinstance(collection, str) or collection not in collections(db):
        raise ValidationFailed({"collection": "Coleção inexistente: escolha uma da lista."})
    if not isinstance(municipality, (str, type(None))):
        raise ValidationFailed({"municipality": "Município inválido."})
    skip, limit = max(0, int(skip)), max(1, min(int(limit), entity_lists.PER_PAGE_MAX))
    if collection == "users":  # users carry a list of municipalities: only those wholly within the actor's
        query = accounts.users_scope(db, actor)
        if municipality:
            query = {"$and": [query, {"municipalities": municipality}]}
    else:
        query = {"municipality": municipality} if municipality else scope_of(actor)
    total = list_counts.counted(db[collection], query)
    rows = db[collection].find(query, HIDDEN).skip(skip).limit(limit)
    return [decode(r) for r in rows], total


def shown_rows(db: Database, collection: str, rows: list[dict]) -> list[dict[str, Any]]:
    """The rows of :func:`browse` as the Auditoria shows them: the audit log with the page's own
    columns, any other register each field under its label and each value formatted (a code by its
    label, a municipality by its name). Two fields of one label are told apart by a number."""
    if collection == AUDIT:
        return [{k: clock.to_local(v).strftime("%d/%m/%Y %H:%M:%S") if k == "Quando" else v
                 for k, v in row.items()} for row in audit_log.rows_shown(rows, db)]
    towns = {town.code: town.name for town in municipalities.all_municipalities(db)}
    headers: dict[str, str] = {}
    for row in rows:
        for name in row:
            if name not in headers:
                heading = "Identificador" if name == "_id" else audit_log.field_label(collection, name)
                taken = set(headers.values())
                headers[name] = next(f"{heading} ({n})" for n in range(2, len(taken) + 3)
                                     if f"{heading} ({n})" not in taken) if heading in taken else heading
    return [{headers[name]: audit_log.shown_value(row.get(name), collection, name, towns) for name in headers}
            for row in rows]
