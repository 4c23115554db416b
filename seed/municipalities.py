"""Fictitious municipal values for the demo store only (``python -m seed --demo``).

A real store gets none of these: the municipality sets them on the Parâmetros page and the
Implantação page lists them until it does (services/setup/deployment.py). Every act here says
"demonstração", which is how that page tells a demo value from a real one.
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules.params import ParameterVersion
from rules.registry import demo_parameters
from services.setup import bootstrap
from services.setup.defaults import MUNICIPALITIES

DEMO_ACT = "Dados de demonstração — confirmar o ato municipal"


def demo_shared_parameters(code: str) -> list[ParameterVersion]:
    """Invented ouvidoria phone, municipal holidays and FEBRABAN code of the demo municipality."""
    start = date(2025, 1, 1)
    phones = {"chapada": "(65) 3301-1156", "matupa": "(66) 3595-1266", "nova_lacerda": "(65) 3247-1156"}
    febraban = {"chapada": "0281", "matupa": "0592", "nova_lacerda": "0733"}
    holidays = {
        "chapada": [{"day": "12-15", "name": "Aniversário do Município (demonstração)"}],
        "matupa": [{"day": "12-29", "name": "Aniversário do Município (demonstração)"}],
        "nova_lacerda": [{"day": "12-19", "name": "Aniversário do Município (demonstração)"}],
    }
    corpus_christi = [{"day": "2026-06-04", "name": "Corpus Christi"}, {"day": "2027-05-27", "name": "Corpus Christi"}]
    return [
        ParameterVersion("ouvidoria_phone", start, phones[code], DEMO_ACT),
        ParameterVersion("municipal_holidays", start, holidays[code] + corpus_christi, DEMO_ACT),
        ParameterVersion("dam_febraban_code", start, febraban[code], DEMO_ACT,
                         "Código de 4 dígitos atribuído pela FEBRABAN ao órgão arrecadador"),
    ]


def seed_demo_parameters(db: Database) -> None:
    """The demo values above and those the rule sets offer for a demo (e.g. an unknown UPFM); idempotent."""
    for municipality in MUNICIPALITIES:
        code = municipality["code"]
        for version in [*demo_shared_parameters(code), *demo_parameters(code)]:
            bootstrap.ensure_parameter(db, code, version)
