"""The electronic domicile on the portal: the person's messages, a message opened, its PDF.

The service is ``services.shared.domicile`` (whose one owner check reads ``Person.actor``); a page names a
message by its public code, never by its id. Opening is a form (POST) the person submits, never a link a
browser may fetch ahead: the first opening is the legal receipt (CG Decreto 06/2026 art. 25 §1 IV; MP Lei
1.552/2025 art. 21 §1) and starts the defence term.
"""
from __future__ import annotations

from pymongo.database import Database

from rules import notice
from rules.fmt import day
from services.ridehailing import renewal_reminders
from services.shared import domicile
from services.shared.regulated_accounts import Person

PAGE = 20


# the portal page a message of a category leads to (the renewal reminder: the renewal page, issue 38)
LEADS_TO = {renewal_reminders.CATEGORY: ("/renovacao", "Pedir a renovação pelo portal")}


def _shown(message: dict) -> dict:
    receipt = message["receipt"]
    return {"code": message["code"], "title": message["title"], "delivered": day(message["delivered_on"]),
            "state": notice.STATES[receipt.state], "receipt": receipt.text(), "opened": bool(message.get("opened_on")),
            "leads_to": LEADS_TO.get(message.get("category", ""))}


def domicile_section(db: Database, person: Person, before: str = "") -> dict:
    """What "Início" shows under "Domicílio eletrônico": the newest messages, a page at a time."""
    page = domicile.inbox(db, person.actor, before=before, limit=PAGE)
    return {"ready": True, "messages": [_shown(m) for m in page["items"]], "next": page["next"]}


def open_message(db: Database, person: Person, code: str) -> dict:
    """The person opens their message (the first opening is recorded by the service)."""
    return _shown(domicile.open_message(db, person.actor, domicile.message_id_of(db, person.actor, code)))


def message(db: Database, person: Person, code: str) -> dict:
    """The message as its page shows it, without opening it."""
    return _shown(domicile.own_message(db, person.actor, domicile.message_id_of(db, person.actor, code)))


def opened_pdf(db: Database, person: Person, code: str) -> bytes | None:
    """The message's PDF once the person has opened it (its content is read only after the opening); None
    before."""
    message_id = domicile.message_id_of(db, person.actor, code)
    if not domicile.own_message(db, person.actor, message_id).get("opened_on"):
        return None
    return domicile.message_pdf(db, person.actor, message_id)
