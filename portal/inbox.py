"""The one place where the electronic domicile plugs into the portal's home page.

:func:`domicile_section` is what "Início" shows under "Domicílio eletrônico" for the person logged in.
Today it has nothing to show (the inbox service of issue 36 item 2 is not here yet); once
``services.shared.domicile`` exists, this function asks it for the person's messages — identified by
(municipality, kind "condutor"|"plataforma", document CPF/CNPJ) — and returns them for the template.
"""
from __future__ import annotations

from pymongo.database import Database

from services.shared.regulated_accounts import Person


def domicile_section(db: Database, person: Person) -> dict:
    """What the "Domicílio eletrônico" section shows: {"ready": bool, "messages": [...]}."""
    return {"ready": False, "messages": []}
