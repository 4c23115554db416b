"""Implantação: the values the law leaves to each municipality that a store still lacks or still has
from the demo.

A real store starts with the municipalities and the values the law fixes (services/setup_data.py).
What each municipality must decide itself — its FEBRABAN code, holidays, ouvidoria phone, PIX key,
the fees and the UPFM its rule set has no default for, its CNPJ and coat of arms — is listed here
until TI sets it. A value counts as a demo value when the act it cites says "demonstração" (every
value ``python -m seed --demo`` and the rule sets' DEMO_PARAMETERS write does).
"""
from __future__ import annotations

from dataclasses import dataclass

from pymongo.database import Database

from rules.dam.parameters import FEBRABAN_CODE, PIX_KEY
from rules.params import ParameterBook, ParameterMissing
from rules.registry import RIDE_HAILING, demo_parameters
from services import clock, municipalities, parameters
from services.auth import Actor, authorize
from services.parameter_labels import label
from services.ridehailing import FEE_PARAMETER

NOT_SET = "não cadastrado"
DEMO_VALUE = "valor de demonstração"
DEMO_MARK = "demonstração"
PARAMETERS_PAGE = "Parâmetros"
NO_SCREEN = "Ainda sem tela no painel: cadastro do município pela TI"

COMMON = (FEBRABAN_CODE, parameters.HOLIDAYS, "ouvidoria_phone", PIX_KEY)
BY_MODULE = {RIDE_HAILING: (FEE_PARAMETER, "issqn_rate")}  # issqn_rate: CTM, CG art. 19; MP art. 10
WHAT = {  # pt-BR names where parameter_labels has none
    FEE_PARAMETER: "Taxa de autorização do transporte por aplicativo (R$)",
}
RECORDS = (  # data of the municipality itself, with no screen yet
    ("cnpj", "CNPJ da Prefeitura"),
    ("coat_of_arms", "Brasão do município (sem envio de imagem ainda)"),
)


@dataclass(frozen=True)
class MissingValue:
    """A value the municipality must set: what it is, why it is listed, and where TI sets it."""

    what: str
    status: str  # NOT_SET or DEMO_VALUE
    where: str
    parameter: str = ""  # the parameter's identifier, when it is one
    act: str = ""  # the demo act the value cites


def missing_values(db: Database, actor: Actor, municipality: str) -> list[MissingValue]:
    """Every value left to the municipality that is missing today or still a demo value (``admin``)."""
    authorize(actor, "admin", municipality)
    town = municipalities.get(db, municipality)
    book = parameters.book(db, municipality)
    names = [*COMMON, *(n for module in town.modules for n in BY_MODULE.get(module, ())),
             *(v.name for v in demo_parameters(municipality))]
    found = [item for name in dict.fromkeys(names) if (item := _parameter(book, name))]
    doc = db["municipalities"].find_one({"code": municipality}, {key: 1 for key, _ in RECORDS}) or {}
    found += [MissingValue(what, NOT_SET, NO_SCREEN) for key, what in RECORDS if not doc.get(key)]
    return found


def _parameter(book: ParameterBook, name: str) -> MissingValue | None:
    what = WHAT.get(name, label(name))
    where = f"{PARAMETERS_PAGE} → {what} ({name})"
    try:
        version = book.version(name, clock.today())
    except ParameterMissing:
        return MissingValue(what, NOT_SET, where, name)
    if DEMO_MARK in version.act.casefold():
        return MissingValue(what, DEMO_VALUE, where, name, version.act)
    return None
