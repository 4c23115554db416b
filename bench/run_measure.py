"""What every figure of the page benchmark shares: where and as whom it measures, and how.

The municipality timed (the dataset's biggest) and an actor per page permission; :data:`COUNTER`,
which counts store calls on whatever engine the store opened; the timing of an action over
``repeat`` runs with its p50/p95 in milliseconds; and :func:`attempt`, which turns a figure whose
service is missing or fails into "n/d (reason)" instead of stopping the run.
"""
from __future__ import annotations

import os
import statistics
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from services.shared.auth import Actor

MUNICIPALITY = "chapada"  # the biggest of the dataset
ROLE_ACTORS = {
    "write": Actor("secretaria.chapada", "Secretaria (benchmark)", "secretaria", (MUNICIPALITY,)),
    "admin": Actor("ti", "TI (benchmark)", "ti", ("chapada", "matupa", "nova_lacerda")),
    "summary": Actor("gabinete", "Gabinete (benchmark)", "gabinete", ("chapada", "matupa", "nova_lacerda")),
}
STORE_METHODS = ("find", "find_one", "count_documents", "distinct", "insert_one", "insert_many", "update_one",
                 "update_many", "replace_one", "delete_one", "delete_many", "find_one_and_update", "create_index",
                 "aggregate")
NA = "n/d"


# ---- store calls ----

class CallCounter:
    """Counts store calls by wrapping the collection class's methods (any engine: the embedded one,
    mongomock, pymongo). A call made inside another (an engine's find_one calling find) counts once."""

    def __init__(self) -> None:
        self.calls = 0
        self._depth = threading.local()
        self._patched: list[tuple[type, str, Any]] = []

    def install(self, collection_class: type) -> None:
        if any(cls is collection_class for cls, _, _ in self._patched):
            return
        for name in STORE_METHODS:
            original = collection_class.__dict__.get(name)
            if original is None:
                continue
            setattr(collection_class, name, self._wrap(original))
            self._patched.append((collection_class, name, original))

    def _wrap(self, method: Callable) -> Callable:
        counter = self

        def counted(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(counter._depth, "value", 0)
            if depth == 0:
                counter.calls += 1
            counter._depth.value = depth + 1
            try:
                return method(*args, **kwargs)
            finally:
                counter._depth.value = depth

        return counted

    def uninstall(self) -> None:
        for cls, name, original in reversed(self._patched):
            setattr(cls, name, original)
        self._patched.clear()


COUNTER = CallCounter()


def ms(seconds: float) -> float:
    return seconds * 1000


def p50(values: list[float]) -> float:
    return statistics.median(values)


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of the runs fall (nearest rank; the largest for few runs)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def p95(values: list[float]) -> float:
    return percentile(values, 0.95)


def p99(values: list[float]) -> float:
    return percentile(values, 0.99)


def timed(action: Callable[[], Any], repeat: int) -> tuple[list[float], int]:
    """Milliseconds of each run and the store calls of the last one."""
    figures, calls = [], 0
    for _ in range(repeat):
        COUNTER.calls = 0
        start = time.perf_counter()
        action()
        figures.append(ms(time.perf_counter() - start))
        calls = COUNTER.calls
    return figures, calls


def attempt(what: str, action: Callable[[], Any]) -> Any:
    """The figure, or "n/d: reason" when its service is missing or it fails."""
    try:
        return action()
    except Exception as exc:  # noqa: BLE001 — a missing figure is reported, never fatal
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:120]
        if os.environ.get("BENCH_DEBUG"):
            traceback.print_exc()
        return f"{NA} ({reason})"
