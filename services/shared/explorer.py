"""The data explorer: a read-only look at any collection of the store for municipal IT, within the
actor's municipalities, secrets never shown.
"""
from __future__ import annotations

from pymongo.database import Database

from services.shared import accounts, entity_lists, list_counts
from services.shared.auth import Actor, authorize, scope_of
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.store import decode


def collections(db: Database) -> list[str]:
    return sorted(db.list_collection_names())


@checked
def browse(db: Database, actor: Actor, collection: str, municipality: str | None, skip: int = 0, limit: int = 50) -> tuple[list[dict], int]:
    """Read-only look at any collection (``ti`` data explorer); secrets are never shown.

    ``collection`` must be one that exists; ``municipality`` one of the actor's (None: all of them).
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
    rows = db[collection].find(query, {"password_hash": 0, "hash_scheme": 0}).skip(skip).limit(limit)
    return [decode(r) for r in rows], total
