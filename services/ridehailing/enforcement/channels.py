"""Per notice of an auto, the channel the law allows and each notice as the case shows it (CG Decreto
06/2026 art. 25 §1–§2; MP Lei 1.552/2025 art. 21 §1–§2; ``rules/edital.py``).

The screen proposes the channel in the law's order — the electronic domicile when the addressee has an
active one (``enforcement.electronic``), post with AR at the known address (``process.notify``), and the
edital when the addressee cannot be reached (``enforcement.editais``): no known address, or an AR the
Correios returned undelivered, recorded here (:func:`record_ar_returned`) with its reason as a state of
the postal notice. A notice that did not reach the addressee is kept on the auto (``notice_attempts``,
``process.kept_attempt``) when the next one replaces it, so the case lists every notice (``notices``).
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules import edital as edital_rules
from rules.fmt import day
from services import store
from services.ridehailing.enforcement import autos, electronic, process
from services.shared import domicile
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.store import parse_date

name_codes("return_reason", edital_rules.RETURN_REASONS)


def address_known(doc: dict) -> bool:
    """Whether the offender has an address the post can reach (someone outside the register may not)."""
    return autos.offender_address(doc) != autos.UNKNOWN_ADDRESS


def returned(notice: dict) -> bool:
    """A postal notice whose AR came back undelivered (and nothing received since)."""
    return bool(notice.get("returned_on")) and not notice.get("received_on")


@checked
def propose(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """The channel the law allows for the offender's notice now, why, and the article: ``channel``
    (``rules.edital.CHANNELS``), ``label``, ``reason``, ``method`` (the act's method) and ``reference``."""
    authorize(actor, "read", municipality)
    doc = autos._load(db, municipality, auto_id)
    notice = doc.get("notification") or {}
    has = domicile.active(db, municipality, *electronic.addressee(db, municipality, doc, "infrator"))
    reason = notice.get("return_reason", "") if returned(notice) else ""
    proposal = edital_rules.propose(has, address_known(doc), reason, bool(notice.get("bounced_on")))
    methods = {m.code: m for m in autos._rules(municipality).notification_methods}
    return {"channel": proposal.channel, "label": proposal.label, "reason": proposal.reason, "method": proposal.method,
            "reference": methods[proposal.method].reference}


@checked
def record_ar_returned(db: Database, actor: Actor, municipality: str, auto_id: str, *, returned_on: date,
                       reason: str) -> dict:
    """The AR of the postal notice came back undelivered on ``returned_on`` for ``reason``
    (``rules.edital.RETURN_REASONS``): the notice did not reach the offender, no term starts, and the
    auto becomes a candidate for the edital (CG art. 25 §1 II; MP art. 21 §1). Returns the notice."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    if doc.get("decision"):
        raise ServiceError("O auto já foi decidido: a notificação do infrator não pode mais ser alterada.")
    notice = doc.get("notification") or {}
    if notice.get("method") != "post" or notice.get("received_on"):
        raise ServiceError("Só a notificação por via postal enviada e ainda sem recebimento pode ter o AR "
                           "devolvido.")
    if notice.get("returned_on"):
        raise ServiceError(f"O AR já foi registrado como devolvido em {day(parse_date(notice['returned_on']))}.")
    autos._not_future("returned_on", "Devolvido em", returned_on)
    errors = {}
    if returned_on < parse_date(notice["sent_on"]):
        errors["returned_on"] = "Devolvido em: não pode ser anterior ao envio."
    if reason not in edital_rules.RETURN_REASONS:
        errors["reason"] = "Motivo da devolução: escolha um dos motivos do AR."
    if errors:
        raise ValidationFailed(errors)
    label = edital_rules.RETURN_REASONS[reason]
    changed = {**notice, "returned_on": returned_on, "return_reason": reason, "return_reason_label": label}
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, {"notification": changed}, "ar_returned",
                    f"AR devolvido em {day(returned_on)} ({label}): notificar por edital")
    return changed
