"""The three municipalities (tenants) and the parameters every module shares.

Addresses and phones are illustrative demo values; municipal IT confirms them on deployment
(parameters and municipality data are editable without code).
"""
from __future__ import annotations

from datetime import date

from rules.params import ParameterVersion

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

DEMO_ACT = "Dados de demonstração — confirmar o ato municipal"


def shared_parameters(code: str) -> list[ParameterVersion]:
    """Parameters every module uses: ouvidoria phone, municipal holidays, FEBRABAN code."""
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
