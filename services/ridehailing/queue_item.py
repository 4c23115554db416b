"""One item of the ride-hailing work queue (Pendências), as every module that adds to it builds it."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

HORIZON_DAYS = 30  # how far ahead the queue looks: a screen setting, not a legal term


@dataclass(frozen=True)
class Pendencia:
    due: date
    kind: str
    protocol: str
    plate: str
    driver_cpf: str
    message: str
    reference: str
    late: bool
    authorization_id: str
