"""Shared setup of the ride-hailing service, page and browser tests: an eligible driver and vehicle."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from rules.params import ParameterVersion
from seed import ridehailing as demo
from services.ridehailing import authorizations, fees, inspections
from services.setup import bootstrap
from services.shared import clock
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP

ACTORS = {"chapada": SECRETARIA_CG, "matupa": SECRETARIA_MP}
FEE = Decimal("180.00")


def set_fee(db, municipality: str, amount: Decimal = FEE) -> None:
    bootstrap.ensure_parameter(db, municipality, ParameterVersion(
        fees.FEE_PARAMETER, date(2025, 1, 1), amount, "Ato de teste"))


def register(db, municipality: str, protocol: date | None = None, seed: int = 1, **changes) -> tuple[str, str]:
    """An eligible driver and his vehicle (``driver=``/``vehicle=`` change one requirement)."""
    protocol = protocol or clock.today() - timedelta(days=5)
    return demo.register(db, ACTORS[municipality], municipality, random.Random(seed), protocol, **changes)


def requested(db, municipality: str, protocol: date | None = None, **changes) -> str:
    protocol = protocol or clock.today() - timedelta(days=5)
    cpf, plate = register(db, municipality, protocol, **changes)
    return authorizations.request_authorization(db, ACTORS[municipality], municipality, cpf, plate, protocol)


def inspected(db, municipality: str) -> str:
    """A request approved 4 days ago whose vistoria passed 2 days ago (awaiting the fee)."""
    actor, today = ACTORS[municipality], clock.today()
    auth = requested(db, municipality)
    authorizations.approve(db, actor, municipality, auth, today - timedelta(days=4))
    inspections.record_inspection(db, actor, municipality, auth, today - timedelta(days=2),
                                  demo.passing(municipality), "Vistoriador")
    return auth
