"""A new DAM for what a charge still owes: after its DAM was cancelled, or paid short.

Cancelling a DAM leaves its charge owed and without a live DAM; a payment short of the DAM's amount
leaves the difference open (:mod:`services.dam.charges`). :func:`issue_open` issues the DAM for the
amount open now, with the charge's taxpayer, revenue and the record it belongs to, so the record
keeps its place (a booking its protocol order, NL art. 3 II) and the next payment settles the
charge. A charge already paid, cancelled, or with a DAM still open gets none.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules import fmt
from rules.dam import charges as charge_rules
from services import store
from services.dam import charges, dams
from services.shared import clock
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed


class NothingToIssue(ServiceError):
    """The charge owes nothing, or already has a DAM to pay."""


def issuable(charge: dict) -> bool:
    """Whether the charge waits for a new DAM (owed, no live DAM)."""
    return charge["status"] in charge_rules.OWING and charge["open"] > 0 and not charge.get("live_dam")


@checked
def issue_open(db: Database, actor: Actor, municipality: str, charge_id: str, due: date,
               instructions: str = "") -> dict:
    """Issue the DAM of what the charge owes now, due on ``due`` (moved to a business day); returns it."""
    authorize(actor, "write", municipality)
    charge = charges.load(db, charge_id, municipality)
    if charge["status"] not in charge_rules.OWING or charge["open"] <= 0:
        raise NothingToIssue(f"O débito está {charge_rules.STATUSES[charge['status']].lower()}: não há valor a cobrar.")
    live = charge.get("live_dam")
    if live:
        raise NothingToIssue(f"O débito já tem o DAM {live['number']} em aberto: pague-o, ou cancele-o antes "
                             "de emitir outro.")
    today = clock.today()
    if not isinstance(due, date):
        raise ValidationFailed({"due": "Vencimento: informe a data."})
    if due < today:
        raise ValidationFailed({"due": f"Vencimento: não pode ser anterior a hoje ({fmt.day(today)})."})
    difference = charge["paid"] > 0
    taxpayer = charge["taxpayer"]
    clean = {
        "taxpayer_name": taxpayer["name"], "taxpayer_document": taxpayer["document"],
        "taxpayer_address": taxpayer.get("address") or "", "revenue_kind": charge["revenue_kind"],
        "description": (("Diferença — " if difference else "") + charge["description"])[:500],
        "legal_basis": charge["legal_basis"], "pays": charge.get("owner"), "amount": charge["open"],
        "discount": Decimal("0"), "due": due,
    }
    lines = [f"Débito de {fmt.brl(charge['principal'] + charge['late'])}, pago {fmt.brl(charge['paid'])}: "
             f"este DAM cobra o restante." if difference else "Novo DAM do débito cujo DAM anterior foi cancelado."]
    if instructions.strip():
        lines.append(instructions.strip())
    with store.transaction(db):
        return dams._issue(db, actor, municipality, clean, today, "\n".join(lines), reference=charge["reference"],
                           charge_id=charge["id"], role="diferenca" if difference else "reemissao")
