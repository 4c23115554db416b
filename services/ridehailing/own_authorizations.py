"""The driver's own authorizations on the public portal (issue 38): each with its status, validity, renewal
window (``renewal_window``) and the fee DAM of a renewal asked for; named by the protocol, never by an id.

A regulated actor reaches only the authorizations of their own CPF; another's protocol and an unknown one
are the same ``NotFound``. The renewal itself is the clerk's service (``fees.request_renewal`` and
``fees.issue_fee_dam``), which checks the owner and the window for a regulated actor.
"""
from __future__ import annotations

import re

from pymongo.database import Database

from rules.ridehailing.lifecycle import RENEWABLE
from services.ridehailing import fees, registry, renewal_window
from services.shared import clock
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied
from services.shared.regulated_accounts import DRIVER, addressee
from services.store import decode

NUMBER = re.compile(r"(\d{1,6})/(\d{4})")


def _driver(actor: Actor) -> tuple[str, str]:
    whose = addressee(actor)
    if whose is None or whose[1] != DRIVER:
        raise PermissionDenied("Só o próprio condutor vê as suas autorizações no portal.")
    return whose[0], whose[2]


def _shown(db: Database, municipality: str, scope: registry.Scope, raw: dict) -> dict:
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    today = clock.today()
    state = scope.state(doc, today)
    bill = fees.bill_of(db, doc)
    pending = fees.pending_renewal(doc)
    return {"id": doc["id"], "protocol": doc["protocol"], "number": doc.get("number") or "", "plate": doc.get("plate"),
            "status": state.label, "renewable": state.status in RENEWABLE, "valid_until": state.valid_until,
            "window": renewal_window.window_of(db, municipality, doc, today), "pending_renewal": pending,
            "fee": bill.live if bill and bill.purpose == "renewal" and not bill.paid else None,
            "today": today}


@checked
def own_authorizations(db: Database, actor: Actor) -> list[dict]:
    """The authorizations of the driver logged in, newest protocol first."""
    municipality, cpf = _driver(actor)
    scope = registry.Scope(db, municipality)
    rows = db["authorizations"].find({"municipality": municipality, "driver_cpf": cpf}).sort("protocol_date", -1)
    return [_shown(db, municipality, scope, raw) for raw in rows]


@checked
def own_authorization(db: Database, actor: Actor, protocol: str) -> dict:
    """One authorization of the driver by its protocol ("0003/2026"); another's is NotFound."""
    municipality, cpf = _driver(actor)
    if not NUMBER.fullmatch(str(protocol or "").strip()):
        raise NotFound(fees.NOT_FOUND)
    raw = db["authorizations"].find_one({"municipality": municipality, "protocol": str(protocol).strip(),
                                         "driver_cpf": cpf})
    if raw is None:
        raise NotFound(fees.NOT_FOUND)
    return _shown(db, municipality, registry.Scope(db, municipality), raw)


@checked
def renew(db: Database, actor: Actor, protocol: str) -> dict:
    """The driver asks the renewal of their authorization and has its fee DAM issued — the clerk's two
    services, in the order the clerk's screen calls them; returns the authorization as shown after."""
    item = own_authorization(db, actor, protocol)
    municipality = _driver(actor)[0]
    if not item["pending_renewal"]:
        fees.request_renewal(db, actor, municipality, item["id"], clock.today())
    if own_authorization(db, actor, protocol)["fee"] is None:
        fees.issue_fee_dam(db, actor, municipality, item["id"], clock.today())
    return own_authorization(db, actor, protocol)
