"""Penalties of a decided auto de infração, applied only when the process allows them (due process):
the fine as a DAM ("multa de transporte") of the fine's charge (débito: paying it in full closes the
fine), suspension, revocation, cassação and deregistration on the authorization (CG Decreto 06/2026
art. 27 §ú, 29 §1; MP Lei 1.552/2025 art. 23 §1, 26 IV–V), and the administrative measures taken
(CG art. 27 II; MP art. 24).
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.fmt import day
from rules.params import ParameterMissing
from rules.ridehailing import settlement
from rules.ridehailing.concepts import Measure, Penalty
from rules.ridehailing.sanctions import LASTING_MEASURES, measure_release_finding
from services import store
from services.dam import dams, rebill
from services.ridehailing import charge_links
from services.ridehailing.enforcement import autos, effects, process
from services.shared import clock, events, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import parse_date

REVENUE_KIND = "multa"  # services.dam.dams.REVENUE_KINDS: "Multa (auto de infração)"
FINE_DUE_PARAMETER = "fine_due_days"
DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))
SANCTIONS = effects.SANCTIONS  # what a decided penalty does to the authorization


class PenaltyNotYet(ServiceError):
    """The process does not yet allow the penalty (due process): the reasons say why."""


def _may_apply(db: Database, municipality: str, doc: dict, on: date) -> None:
    state = process._penalty_state(db, municipality, doc, on)
    if not state["may_apply"]:
        raise PenaltyNotYet("A penalidade ainda não pode ser aplicada: " + "; ".join(state["reasons"]))


def fine_due_date(db: Database, municipality: str, on: date) -> date:
    """Due date of the fine DAM: ``fine_due_days`` (a dated parameter; the acts only say "no prazo")
    after its issue; the DAM service moves it to a business day."""
    try:
        days = int(parameters.value(db, municipality, FINE_DUE_PARAMETER, on))
    except ParameterMissing:
        raise ServiceError("Parâmetro 'fine_due_days' (dias para pagar a multa) sem valor em vigor: "
                           "peça à TI para defini-lo.") from None
    return on + timedelta(days=days)


@checked
def issue_fine_dam(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """The decided fine as a DAM ("multa de transporte"), which opens the fine's charge (débito);
    paying the charge in full closes the fine. When the fine's DAM was cancelled, or paid short, the
    new DAM is of that charge and charges what is still open; otherwise a second DAM is refused."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    today = clock.today()
    _may_apply(db, municipality, doc, today)
    ruled = autos._ruled(doc)
    if Penalty.MULTA.value not in ruled.get("penalties", []) or not ruled.get("fine_amount"):
        raise ServiceError("A decisão não mantém multa neste auto.")
    earlier = doc.get("fine_dam") or {}
    charge = charge_links.of_link(db, earlier, "id") if earlier.get("id") else None
    if earlier.get("id") and not charge_links.reissuable(charge):
        raise Conflict(f"O DAM da multa já foi emitido ({earlier['number']}).")
    due = fine_due_date(db, municipality, today)
    with store.transaction(db):
        if charge is not None:
            dam = rebill.issue_open(db, actor, municipality, charge["id"], due)
        else:
            dam = dams.issue(db, actor, municipality, taxpayer_name=doc["offender_name"],
                             taxpayer_document=doc["offender_document"],
                             taxpayer_address=autos.offender_address(doc), revenue_kind=REVENUE_KIND,
                             description=f"Multa do auto de infração nº {doc['number']} ({doc['infraction_code']})",
                             legal_basis=doc["infraction_reference"], amount=Decimal(str(ruled["fine_amount"])),
                             due=due, pays={"collection": autos.COLLECTION, "id": doc["id"],
                                            "label": f"Auto nº {doc['number']}"})
        fine = {**earlier, "id": dam["id"], "number": dam["number"], "amount": dam["amount"], "due_on": dam["due_on"],
                "issued_on": dam["issued_on"], "paid": False, "paid_on": None, "charge_id": dam["charge_id"]}
        autos._save(db, actor, municipality, doc, {"fine_dam": fine}, "fine_dam",
                    f"DAM {dam['number']} da multa emitido" + (" (valor em aberto do débito)" if charge else ""))
    return dam


def fine_standing(db: Database, doc: dict) -> tuple[str, bool]:
    """What the fine of ``doc`` (an auto read by :func:`autos.get`) stands at, from its stored charge:
    the pt-BR line (paid on, the DAM to pay, paid short, a cancelled DAM) and whether a new DAM may be
    issued for what is still open."""
    fine = doc.get("fine_dam") or {}
    charge = charge_links.of_link(db, fine, "id") if fine.get("id") else None
    if charge is None or settlement.fine_settled(charge["status"]):
        paid_on = charge["paid_on"] if charge else parse_date(fine.get("paid_on"))
        return (f"pago em {day(paid_on)}" if charge or fine.get("paid") else "em aberto"), False
    return charge_links.standing_text(charge), charge_links.reissuable(charge)


def fine_to_pay(db: Database, doc: dict) -> dict | None:
    """The DAM the fine of ``doc`` is paid with now (``{"id", "number"}``: its charge's live DAM, a 2ª via
    or the DAM of a difference included), or None when it is settled, cancelled or not issued."""
    fine = doc.get("fine_dam") or {}
    charge = charge_links.of_link(db, fine, "id") if fine.get("id") else None
    if charge is None or settlement.fine_settled(charge["status"]):
        return None
    return charge.get("live_dam")


@events.on_dam_paid(autos.COLLECTION)
def fine_paid(db: Database, charge_id: str) -> None:
    """The fine's charge paid in full closes the fine of its auto (``rules.ridehailing.settlement.
    fine_settled``; CG art. 18 XXII, MP art. 12 XXIII), with the date and amount the stored charge
    has, whichever of its DAMs was paid (the original, a 2ª via, the DAM of a difference).

    Only the stored charge counts (:func:`services.dam.charges.load`), never a dict from the caller:
    an unknown id, a charge of another record or one not paid in full (its DAM still "emitido", or
    paid short) changes nothing. Idempotent: a fine already closed changes nothing (a later payment
    is a credit on the charge)."""
    charge = charge_links.owned(db, charge_id, autos.COLLECTION)
    if charge is None or not settlement.fine_settled(charge["status"]):
        return
    try:
        doc = autos._load(db, charge["municipality"], charge["owner"]["id"])
    except NotFound:
        return
    fine = doc.get("fine_dam") or {}
    if fine.get("paid") or not charge_links.names(fine, charge, "id"):
        return
    settling = charge_links.settling_payment(charge)
    flags = [flag for payment in charge_links.dam_payments(db, charge).values() for flag in payment.get("flags") or []]
    closed = {**fine, "id": settling["dam_id"], "number": settling["dam_number"], "charge_id": charge["id"],
              "paid": True, "paid_on": charge["paid_on"], "paid_amount": charge["paid"], "credit": charge["credit"],
              "flags": flags}
    autos._save(db, DAM_ACTOR, charge["municipality"], doc, {"fine_dam": closed}, "fine_paid",
                f"DAM {settling['dam_number']} pago: multa do auto nº {doc['number']} quitada")


@checked
def apply_sanction(db: Database, actor: Actor, municipality: str, auto_id: str, *, penalty: str,
                   start: date | None = None, note: str = "") -> dict:
    """Apply one decided penalty other than the fine: a suspension ends after exactly its days or months
    (CG art. 27 §ú, 29 §1; MP art. 23 §1, 26 IV–V); revocation and cassação end the authorization;
    deregistrations are recorded. It takes effect on ``start``, by default the day the rule gives
    (``effects``: the day the decision becomes final, or the appeal's decision), never before: it may be
    scheduled while the decision is still open to appeal, and an appeal filed in time lifts it."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    if penalty not in SANCTIONS:
        raise ValidationFailed({"penalty": "Penalidade: escolha uma das previstas."})
    if penalty not in autos._ruled(doc).get("penalties", []):
        raise ServiceError(f"A decisão não aplica {penalty} neste auto.")
    if effects.active(doc, penalty):
        raise Conflict(f"{penalty.capitalize()} já aplicada.")
    if start is not None and not isinstance(start, date):
        raise ValidationFailed({"start": "Início: informe a data."})
    if start is None:  # the rule's day; one already past: from today
        effective_on = effects.effect_of(db, municipality, doc, clock.today(), penalty).effective_on
        start = max(effective_on or clock.today(), clock.today())
    _may_apply(db, municipality, doc, start)  # the effect on ``start`` included: scheduled, held, dropped
    with store.transaction(db):
        applied = effects._entry(db, actor, municipality, doc, penalty, start, note,
                                len(doc.get("sanctions_applied") or []))
        text = f"{penalty.capitalize()} a partir de {day(start)}" + (
            f" até {day(applied['until'])}" if applied["until"] else "")
        autos._save(db, actor, municipality, doc, {}, "sanction", text, push={"sanctions_applied": applied})
    return applied


@checked
def record_measure(db: Database, actor: Actor, municipality: str, auto_id: str, *, measure: str, on: date,
                   by: str, note: str = "") -> dict:
    """An administrative measure taken (retention, removal, seizure of documents or of the vehicle),
    with who took it and when (CG art. 27 II; MP art. 24)."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    known = {m.value for m in Measure}
    if measure not in known:
        raise ValidationFailed({"measure": "Medida: escolha uma das previstas."})
    autos._not_future("on", "Data da medida", on)
    if not (by or "").strip():
        raise ValidationFailed({"by": "Responsável: obrigatório."})
    item = {"measure": measure, "on": on, "by": by.strip(), "note": (note or "").strip(), "recorded_by": actor.username}
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, {}, "measure",
                    f"{measure.capitalize()} em {day(on)} por {by}", push={"measures_applied": item})
    return item




@checked
def release_measure(db: Database, actor: Actor, municipality: str, auto_id: str, *, measure_index: int,
                    released_on: date, by: str, note: str = "") -> dict:
    """The end of a measure that lasts "até a regularização" (vehicle retained, removed or seized,
    documents seized, service stopped): the day it was released and who released it (CG art. 27 II,
    art. 30 §ú and art. 31; MP art. 24, art. 27 §ú and art. 28). ``measure_index`` is the measure's
    place in ``measures_applied``; each measure is released once; kept beside it (``$push``)."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    taken = doc.get("measures_applied", [])
    if not 0 <= measure_index < len(taken):
        raise ValidationFailed({"measure_index": "Medida: escolha uma das registradas neste auto."})
    if any(r["measure_index"] == measure_index for r in doc.get("measures_released", [])):
        raise Conflict("Esta medida já foi encerrada.")
    autos._not_future("released_on", "Liberada em", released_on)
    if not (by or "").strip():
        raise ValidationFailed({"by": "Responsável: obrigatório."})
    measure = taken[measure_index]
    kind = Measure(measure["measure"])
    finding = measure_release_finding(kind, parse_date(measure["on"]), released_on,
                                      autos._rules(municipality).ref("measures"))
    if not finding.ok:
        field = "released_on" if kind in LASTING_MEASURES else "measure_index"
        raise ValidationFailed({field: f"{finding.message} ({finding.reference})."})
    item = {"measure_index": measure_index, "measure": measure["measure"], "on": released_on, "by": by.strip(),
            "note": (note or "").strip(), "recorded_by": actor.username}
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, {}, "measure_released", finding.message + f" por {item['by']}",
                    push={"measures_released": item})
    return item

