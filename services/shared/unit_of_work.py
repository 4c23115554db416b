"""What a unit of work runs at its end, before it commits: the read models' projections.

``services.store.transaction`` opens :func:`collecting` around the block of its outermost unit. A
write that moves derived figures asks for their projection with :func:`before_commit`; the projection
runs once per key, after every write of the block and inside the same transaction, so the figures
commit (or roll back) with the change that moved them. Outside a unit of work it runs at once.
"""
from __future__ import annotations

import contextvars
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager

_PENDING: contextvars.ContextVar[dict | None] = contextvars.ContextVar("painel_before_commit", default=None)


@contextmanager
def collecting() -> Iterator[None]:
    """Collect the projections asked for inside the block and run them at its end (in the order
    asked, those they ask for included); a nested block joins the outer one; an exception runs none."""
    if _PENDING.get() is not None:
        yield
        return
    token = _PENDING.set({})
    try:
        yield
        pending = _PENDING.get()
        while pending:
            key = next(iter(pending))
            pending.pop(key)()
    finally:
        _PENDING.reset(token)


def before_commit(key: Hashable, run: Callable[[], None]) -> None:
    """Run ``run`` at the end of the open unit of work, once for ``key`` (a projection reads the
    records as they are then, so the first request of a key stands for every later one); at once
    when no unit is open."""
    pending = _PENDING.get()
    if pending is None:
        run()
    else:
        pending.setdefault(key, run)


def is_open() -> bool:
    """Whether a unit of work is collecting."""
    return _PENDING.get() is not None
