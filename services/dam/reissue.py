"""The 2ª via of an overdue DAM: a new DAM of the same charge, with multa and juros de mora.

An overdue DAM is reissued as a 2ª via (:func:`reissue`): principal plus multa and juros de mora of
the municipality's Código Tributário (``rules/dam/late.py``) up to a new due date moved to a
business day (CTN art. 210, parágrafo único), linked to the original (``replaces`` /
``replaced_by`` / ``chain_root``), which is cancelled in the same unit of work. Both are DAMs of one
charge (:mod:`services.dam.charges`), whose live DAM is now the 2ª via; the date the charge fell due
does not move, so the taxpayer stays in arrears until it is paid (NL art. 8 §4). Paying either DAM
pays the charge; a second payment is a credit owed back (docs/LEITURAS.md, seções 9 e 19).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules import fmt
from rules.dam.dates import due_date
from rules.dam.late import LateCharges, late_charges, late_rates
from rules.params import ParameterMissing
from services import store
from services.dam import dams
from services.shared import audit, clock, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.store import parse_date


class DamNotReissuable(ServiceError):
    """Only an overdue, unpaid DAM is reissued as a 2ª via."""


def _late_charges_of(db: Database, dam: dict, on: date) -> LateCharges:
    """Multa and juros the DAM owes if paid on ``on``, from its chain's original due date (a 2ª via of a
    2ª via still counts from the first one) and the rates of the Código Tributário in force on ``on``."""
    original = dam.get("replaces") or {}
    principal = dam.get("principal", dam["amount"]) - (dam.get("discount") or Decimal("0")) if not original \
        else original["principal"]
    calendar = parameters.calendar(db, dam["municipality"], on)
    # CTN art. 210, parágrafo único: the period ends on the first business day
    limit = due_date(parse_date(original.get("due_on")) if original else dam["due_on"], calendar)
    try:
        rates = late_rates(parameters.book(db, dam["municipality"]), on)
    except ParameterMissing:
        raise dams.DamParametersMissing(
            "A multa e os juros de mora do Código Tributário Municipal não estão cadastrados para este município; "
            "peça à TI para cadastrá-los (Implantação → Parâmetros) antes de emitir a 2ª via.") from None
    return late_charges(principal, limit, on, rates)


@dataclass(frozen=True)
class ReissueQuote:
    """What the 2ª via of a DAM would charge with a new due date."""

    due_on: date
    principal: Decimal
    fine: Decimal
    interest: Decimal
    total: Decimal
    reasons: tuple[str, ...]


@checked
def quote_reissue(db: Database, actor: Actor, municipality: str, dam_id: str, due: date) -> ReissueQuote:
    """The updated amount of the 2ª via for the new due date ``due`` (moved to a business day), with
    the reasons of the multa and juros; nothing is written."""
    authorize(actor, "read", municipality)
    dam = dams._load(db, municipality, dam_id)
    due_on = due_date(due, parameters.calendar(db, municipality, clock.today()))
    charges = _late_charges_of(db, dam, due_on)
    return ReissueQuote(due_on, charges.principal, charges.fine, charges.interest, charges.total,
                        tuple(f"{f.message} ({f.reference})" for f in charges.findings))


@checked
def reissue(db: Database, actor: Actor, municipality: str, dam_id: str, due: date) -> dict:
    """Issue the 2ª via of an overdue DAM: the principal with multa and juros de mora up to the new due
    date, linked to the original, which is cancelled in the same unit of work. The record the DAM pays
    is now paid by the 2ª via; if the taxpayer still pays the original, the bank return pays the
    original and cancels the 2ª via (one payment per chain)."""
    authorize(actor, "write", municipality)
    return _reissue(db, actor, dams._load(db, municipality, dam_id), due)


def _reissue(db: Database, actor: Actor, dam: dict, due: date) -> dict:
    """:func:`reissue` of a DAM already read, for a service that has checked its actor may (the clerk's
    ``write``, or the taxpayer's own DAM on the portal: ``services.dam.own_dams``)."""
    municipality = dam["municipality"]
    today = clock.today()
    if dam["status"] != dams.ISSUED:
        raise DamNotReissuable(f"O DAM {dam['number']} está {dams.SITUATIONS[dam['situation']].lower()}: "
                               "só um DAM vencido e não pago tem 2ª via.")
    calendar = parameters.calendar(db, municipality, today)
    if not today > due_date(dam["due_on"], calendar):
        raise DamNotReissuable(f"O DAM {dam['number']} ainda não venceu (vencimento {fmt.day(dam['due_on'])}): "
                               "pague-o como está.")
    if not isinstance(due, date):
        raise ValidationFailed({"due": "Novo vencimento: informe a data."})
    if due < today:
        raise ValidationFailed({"due": f"Novo vencimento: não pode ser anterior a hoje ({fmt.day(today)})."})
    new_due = due_date(due, calendar)
    charges = _late_charges_of(db, dam, new_due)
    original = dam.get("replaces") or {}
    root = dam.get("chain_root") or dam["id"]
    via = int(original.get("via", 1)) + 1
    replaces = {"id": dam["id"], "number": dam["number"], "via": via, "chain_root": root,
                "due_on": original.get("due_on") or dam["due_on"], "principal": charges.principal}
    clean = {key: dam[key] for key in ("taxpayer_name", "taxpayer_document", "taxpayer_address", "revenue_kind",
                                       "description", "legal_basis", "pays")}
    clean.update(amount=charges.principal, discount=Decimal("0"), due=due)
    standard = (dams.STANDARD_INSTRUCTION, dams.PIX_INSTRUCTION)
    typed = "\n".join(line for line in dam.get("instructions", []) if line not in standard
                      and not re.match(r"(Referente a:|\d+ª via|Vencimento em)", line))
    note = (f"{via}ª via do DAM {dam['number']} (vencido em {fmt.day(parse_date(replaces['due_on']))}): "
            + "; ".join(f.message for f in charges.findings) + ".")
    with store.transaction(db):  # the 2ª via, the original's cancellation and both audit entries
        new = dams._issue(db, actor, municipality, clean, today, "\n".join(filter(None, (note, typed))),
                          reference=dam.get("reference") or str(dam["year"]),
                          late={"fine": charges.fine, "interest": charges.interest}, replaces=replaces,
                          charge_id=dam.get("charge_id"), role="2a_via")
        reason = f"Substituído pela {via}ª via, DAM {new['number']}"
        entry = {"at": clock.now_utc(), "status": dams.CANCELLED, "by": actor.username, "note": reason}
        changes = {"status": dams.CANCELLED, "cancel_reason": reason, "chain_root": root,
                   "replaced_by": {"id": new["id"], "number": new["number"]}}
        if not dams._transition(db, dam, {"status": dams.ISSUED}, changes, entry):
            raise DamNotReissuable(f"O DAM {dam['number']} mudou de situação enquanto a 2ª via era emitida; confira.")
        audit.record(db, actor, municipality, "cancel", dams.COLLECTION, dam["id"], {"status": dams.ISSUED},
                     {"status": dams.CANCELLED, "cancel_reason": reason},
                     note=f"DAM {dam['number']} cancelado: {reason}")
    return dams._load(db, municipality, new["id"])

