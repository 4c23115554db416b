"""Helpers of the DAM tests: a fixed Monday to start from (the movable ``today`` is in conftest)."""
from __future__ import annotations

from datetime import date

MONDAY = date(2026, 3, 2)
