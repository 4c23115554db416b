"""Helpers of the DAM tests: a fixed Monday to start from (the movable ``today`` is in conftest)."""
from __future__ import annotations

from datetime import date

MONDAY = date(2026, 3, 2)


def last_paid_dam(db, charge_id: str) -> str:
    """The number of the DAM whose payment a handler was told of: the charge's latest payment, read from
    the store as the handlers read it (they get only the charge's id)."""
    from services.dam import charges

    return charges.load(db, charge_id)["payments"][-1]["dam_number"]
