"""The status of an authorization request asked without an account (the portal's "Consultar", issue 38 item
5): the protocol number and the driver's CPF answer the status on today (the same fold the clerk's screen
shows, ``authorization_records.state_of``), with the date that matters for it — nothing else: no name, no
plate, no reasons (they may name a document of the person). A wrong CPF, an unknown protocol and another
municipality's answer alike (``None``), each by one read of the index ``i_authorizations_protocol``.
"""
from __future__ import annotations

import re
import weakref

from pymongo.database import Database

from rules import fmt
from services.ridehailing import authorization_records
from services.shared import clock, fields
from services.store import decode, ensure_indexes, parse_date

PROTOCOL = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")
INDEXES = {"authorizations": [([("municipality", 1), ("protocol", 1)], {"name": "i_authorizations_protocol"})]}
_prepared: weakref.WeakSet = weakref.WeakSet()


def prepare(db: Database) -> None:
    """The index of the lookup (idempotent; once per database handle)."""
    if db not in _prepared:
        ensure_indexes(db, INDEXES)
        _prepared.add(db)


def request_status(db: Database, municipality: str, protocol: str, cpf: str) -> dict | None:
    """{"protocol", "protocol_date", "status_label", "deadline"} of the authorization request of
    ``protocol`` ("0007/2026") whose driver is the CPF typed; None otherwise."""
    match = PROTOCOL.fullmatch(protocol or "")
    digits = fields.digits(cpf or "")
    if not match or len(digits) != 11 or not isinstance(municipality, str):
        return None
    prepare(db)
    number = f"{int(match[1]):04d}/{match[2]}"
    raw = db["authorizations"].find_one({"municipality": municipality, "protocol": number, "driver_cpf": digits})
    if raw is None:
        return None
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    state = authorization_records.state_of(doc, municipality, clock.today(), db)
    return {"protocol": number, "protocol_date": fmt.day(parse_date(doc["protocol_date"])), "status_label": state.label,
            "deadline": fmt.day(state.deadline) if state.deadline else ""}
