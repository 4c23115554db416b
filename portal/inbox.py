"""The one place where the electronic domicile plugs into the portal's home page.

:func:`domicile_section` is what "Início" shows under "Domicílio eletrônico" for the person logged in.
The inbox service is ``services.shared.domicile`` (``inbox``, ``open_message``, ``message_pdf``, whose owner
check reads ``Person.actor``); the portal's pages that list and open the messages are the next step of issue
36, and until then this section says there is nothing to show.
"""
from __future__ import annotations

from pymongo.database import Database

from services.shared.regulated_accounts import Person


def domicile_section(db: Database, person: Person) -> dict:
    """What the "Domicílio eletrônico" section shows: {"ready": bool, "messages": [...]}."""
    return {"ready": False, "messages": []}
