"""How much SQLite works for an action: its virtual-machine instructions, counted by a progress handler
(every row read or sorted costs them, whatever the machine's load). A test compares two counts — the
same action beside few and beside many other records — to show that work does not grow with the data."""
from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any


def sqlite_work(conn: sqlite3.Connection, action: Callable[[], Any]) -> int:
    """The instructions (in hundreds) ``action`` runs on ``conn``."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0
    conn.set_progress_handler(tick, 100)
    try:
        action()
    finally:
        conn.set_progress_handler(None, 100)
    return steps[0]
