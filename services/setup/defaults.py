"""The store's own set-up: the three municipalities (tenants) and the parameters a new store starts with.

Only values fixed by the law or neutral operating defaults live here (the rule sets' own
``DEFAULT_PARAMETERS`` and the DAM's). A value the law leaves to the municipality and that has no
neutral default (UPFM, fees, the ISSQN rate ``issqn_rate`` of the platforms, municipal holidays, FEBRABAN
code, PIX key, ouvidoria phone) is set by
TI on the Parâmetros page; until it is, the Implantação page lists it (services/setup/deployment.py). The
demo store's fictitious values are loaded only by ``python -m seed --demo`` (seed/municipalities.py).

Addresses and phones of the Prefeituras are printed on the documents; municipal IT confirms them on
deployment.
"""
from __future__ import annotations

from rules.dam.parameters import DEFAULT_PARAMETERS as DAM_PARAMETERS
from rules.edital import DEFAULT_PARAMETERS as EDITAL_PARAMETERS
from rules.notice import DEFAULT_PARAMETERS as NOTICE_PARAMETERS
from rules.params import ParameterVersion
from rules.registry import default_parameters

MUNICIPALITIES = [
    {
        "code": "chapada",
        "name": "Chapada dos Guimarães",
        "secretariat": "Secretaria Municipal de Finanças",
        "address": "Rua Quinco Caldas, 100, Centro, Chapada dos Guimarães - MT, 78195-000",
        "phone": "(65) 3301-1100",
        "modules": ["transporte"],
        "acts": {"transporte": "Decreto Municipal 06/2026 (regulamenta a Lei Municipal 2.103/2025)"},
    },
    {
        "code": "matupa",
        "name": "Matupá",
        "secretariat": "Secretaria Municipal de Administração",
        "address": "Avenida Hermínio Ometto, 101, Centro, Matupá - MT, 78525-000",
        "phone": "(66) 3595-1200",
        "modules": ["transporte"],
        "acts": {"transporte": "Lei Municipal 1.552/2025"},
    },
    {
        "code": "nova_lacerda",
        "name": "Nova Lacerda",
        "secretariat": "Secretaria Municipal de Obras e Infraestrutura",
        "address": "Avenida Mato Grosso, 200, Centro, Nova Lacerda - MT, 78243-000",
        "phone": "(65) 3247-1100",
        "modules": ["maquinas"],
        "acts": {"maquinas": "Decreto Municipal 017/2026 (regulamenta a Lei Municipal 1.063/2026)"},
    },
]


def initial_parameters(code: str) -> list[ParameterVersion]:
    """The versions every store of the municipality starts with: the DAM's, the electronic domicile's
    (the days of the tacit receipt, ``rules/notice.py``), the edital's (``rules/edital.py``) and its rule
    sets' defaults."""
    return [*DAM_PARAMETERS, *NOTICE_PARAMETERS, *EDITAL_PARAMETERS, *default_parameters(code)]
