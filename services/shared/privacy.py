"""What the panel shows of people to a role that does not need it in full (LGPD, Lei 13.709/2018).

The mayor's office (``gabinete``) sees aggregates only: no names, CPFs, plates or document numbers;
in a breakdown, a count of 1 or 2 could point at a person (one driver of a district, two fines of
a kind) and is shown as "< 3". A list that shows a CPF to a role that does not need the whole number
shows it masked, the middle six digits only (the form the federal government uses when it
publishes CPFs: ``***.456.789-**``).
"""
from __future__ import annotations

import re

SMALL_CELL = 3  # counts below this in a breakdown are shown as "< 3"
SMALL_TEXT = f"< {SMALL_CELL}"


def mask_cpf(cpf: str) -> str:
    """``123.456.789-09`` (or its 11 digits) → ``***.456.789-**``; anything else → ``***``."""
    digits = re.sub(r"\D", "", cpf or "")
    if len(digits) != 11:
        return "***"
    return f"***.{digits[3:6]}.{digits[6:9]}-**"


def cell(count: int) -> int | str:
    """A count of a breakdown as the mayor's office sees it: 1 and 2 become "< 3"; 0 stays 0."""
    return SMALL_TEXT if 0 < count < SMALL_CELL else count
