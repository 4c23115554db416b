"""How many records a list says it holds (issue 21): counted in the store up to :data:`CAP`, past which
the list says "mais de 10.000". A count reads every matching index entry, so an exact one grew with
the register (the DAMs of a municipality at scale 100: 600.000 entries for one caption); past ten
thousand records a clerk searches or filters instead of paging, and the pages go on up to the cap.
Every paged list counts through here."""
from __future__ import annotations

from typing import Any

from rules import fmt

CAP = 10_000


def counted(collection: Any, query: dict) -> int:
    """The records of ``query``, up to ``CAP + 1`` (more than the cap: :func:`text` says so)."""
    return collection.count_documents(query, limit=CAP + 1)


def text(total: int, exact: bool = False) -> str:
    """"1.234", or "mais de 10.000" past the cap (unless ``exact``: a count kept as data)."""
    return f"mais de {fmt.number(CAP)}" if total > CAP and not exact else fmt.number(total)


def words(total: int, one: str, other: str, exact: bool = False) -> str:
    """The count of :func:`text` with its words in pt-BR's plural: "1 registro", "mais de 10.000 registros"."""
    return f"{text(total, exact)} {fmt.plural(total, one, other)}"


def pages(total: int, per_page: int) -> int:
    """The pages a list offers (at least one; up to the cap's)."""
    return max(1, -(-min(total, CAP) // per_page))
