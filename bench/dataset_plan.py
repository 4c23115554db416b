"""What the benchmark's dataset holds: its fixed "today", its span and the counts per scale.

Two years of the panel up to :data:`TODAY` for the three municipalities, from the fixed random seed
:data:`SEED`. Scale 1 is one small municipality's two years in Chapada dos Guimarães (the biggest);
Matupá has half of that and Nova Lacerda (machinery: no ride-hailing records yet) half the DAMs and
taxpayers (:data:`SHARE`). Scale N multiplies every count (:func:`counts_for`).
"""
from __future__ import annotations

from datetime import date

from services.shared import clock

TODAY = date(2026, 12, 1)  # the dataset's "today": every date counts back from it
FIRST_DAY = date(2025, 1, 2)  # the day after the shared and fee parameters take effect (seed, bootstrap)
DAYS = (TODAY - FIRST_DAY).days  # about two years of history
# Ride-hailing records start once the municipal act is in force (as in seed/ridehailing.py).
RIDE_FIRST_DAY = {"chapada": date(2026, 1, 8), "matupa": date(2025, 8, 29)}
SEED = 20261201
RIDE_HAILING = ("chapada", "matupa")
# Share of the scale-1 counts per municipality (Chapada is the biggest and the one pages are timed in).
SHARE = {"chapada": 1.0, "matupa": 0.5, "nova_lacerda": 0.5}
PER_SCALE = {"drivers": 300, "inspections": 2000, "dams": 6000, "audit": 30000, "taxpayers": 600, "staff": 3}
# Where an authorization's history ends: (outcome, weight).
OUTCOMES = (("requested", 4), ("refused", 6), ("awaiting_inspection", 5), ("blocked", 4), ("awaiting_fee", 5),
            ("active", 46), ("renewing", 6), ("expired", 12), ("suspended", 5), ("revoked", 3), ("cassada", 4))
BANKS = ("Banco do Brasil", "Caixa", "Sicredi", "Bradesco", "PIX")
LOCAL = clock.LOCAL_TZ


def counts_for(scale: int, municipality: str, fraction: float = 1.0) -> dict[str, int]:
    share = SHARE[municipality] * fraction
    return {name: max(1, round(count * scale * share)) for name, count in PER_SCALE.items()}


# Cloned from the chains the services replay (bench/dataset_clones.py). Nova Lacerda: 600 requests at
# scale 1, about three per workday since the decree (the order of Chapada's 2,000 vistorias a scale,
# and half its 6,000 DAMs as Nova Lacerda's SHARE, since each request issues one or two DAMs); the autos:
# two for every three drivers (Chapada 300 drivers, 200 autos; Matupá half of it, as in SHARE).
CLONED = {"nova_lacerda": ("booking_requests", 600), "chapada": ("autos", 200), "matupa": ("autos", 100)}


def cloned_counts(scale: int, fraction: float = 1.0) -> dict[str, int]:
    """Requests (Nova Lacerda) or autos (Chapada, Matupá) each municipality ends with, replay included."""
    return {mun: max(1, round(count * scale * fraction)) for mun, (_, count) in CLONED.items()}
