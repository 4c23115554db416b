"""The authorization fee (taxa do CTM): its DAM, its payment, the issue it leads to, and renewal.

The fee DAM is issued once the vistoria is passed (or once a renewal is requested); its payment issues
the authorization (number and validity) or renews it (CG art. 9 §1 and art. 16 §ú; MP art. 3 §ú and
art. 9). A payment below the amount due leaves the authorization awaiting the fee with the shortfall
recorded, and the next DAM is complementary: it charges only the difference. The DAM module
(``services.dam.dams``, issue 6) owns numbering, barcode and payment; its DAM-paid event calls
:func:`fee_paid`.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.fmt import brl
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import store
from services.dam import dams
from services.ridehailing import authorization_records, registry
from services.ridehailing.authorization_records import Change, Unit
from services.shared import clock, entities, events, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.store import decode, parse_date

FEE_PARAMETER = "authorization_fee"  # R$ of the authorization and renewal fee (taxa do CTM)
FEE_DUE_DAYS = 10  # days the fee DAM gives to pay; a convenience of the panel, not a legal term
NUMBER_KIND = "transporte_autorizacao"


def fee_amount(db: Database, municipality: str, on: date) -> Decimal:
    """The fee in force on ``on``; ParameterMissing (never a zero) when the municipality set none."""
    return Decimal(str(parameters.value(db, municipality, FEE_PARAMETER, on)))


def fee_received(fee: dict) -> Decimal:
    """What the payments of the fee DAMs (the first and any complementary one) added up to."""
    return sum((Decimal(str(r["amount"])) for r in fee.get("received", [])), Decimal("0"))


def open_shortfall(doc: dict) -> dict | None:
    """The short payment of the fee still without a complementary DAM (None when there is none).

    ``{"due", "paid", "difference", "dam_number", "paid_on"}``: the fee due, what was paid so far, the
    difference and the DAM paid short. The authorization stays awaiting the fee meanwhile.
    """
    fee = doc.get("fee_dam") or {}
    short = fee.get("short")
    last_paid = any(r["dam_id"] == fee.get("dam_id") for r in fee.get("received", []))
    return short if short and not fee.get("paid") and last_paid else None


@checked
def issue_fee_dam(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> dict:
    """Issue the DAM of the authorization fee (initial, or renewal once requested). After a short
    payment the DAM is complementary: it charges only the difference still due."""
    authorize(actor, "write", municipality)
    doc = authorization_records.load(db, municipality, auth_id)
    scope = registry.Scope(db, municipality)
    state = scope.state(doc, on)
    renewal = state.status is Status.ACTIVE and pending_renewal(doc)
    if not renewal:
        authorization_records.require(state, Status.AWAITING_FEE)
    purpose = "renewal" if renewal else "initial"
    short = open_shortfall(doc)
    if short and (doc.get("fee_dam") or {}).get("purpose") == purpose:
        previous = doc["fee_dam"]
        total, received = Decimal(str(previous["fee_total"])), previous["received"]
        amount = total - fee_received(previous)
        what = f"Complementação (DAM {short['dam_number']} pago a menor) da taxa de "
    else:
        total = amount = fee_amount(db, municipality, on)
        received, short = [], None
        what = "Taxa de "
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    rules = scope.rules
    with store.transaction(db):  # the DAM, its number and the fee record on the authorization
        dam = dams.issue(
            db, actor, municipality,
            taxpayer_name=driver["name"], taxpayer_document=driver["cpf"],
            taxpayer_address=", ".join(x for x in (driver.get("address"), driver.get("district")) if x),
            revenue_kind="taxa_autorizacao",
            description=f"{what}{'renovação' if renewal else 'expedição'} da autorização de transporte por "
                        f"aplicativo — protocolo {doc['protocol']}, placa {fields.show('plate', doc['plate'])}",
            legal_basis=rules.ref("fee"), amount=amount, due=scope.calendar(on).add_days(on, FEE_DUE_DAYS),
            pays={"collection": "authorizations", "id": doc["id"], "label": f"Autorização {doc['protocol']}"},
        )
        fee = {"dam_id": dam["id"], "number": str(dam.get("number", "")), "amount": amount,
               "due": parse_date(dam["due_on"]), "purpose": purpose, "paid": False, "fee_total": total,
               "received": received, "short": short}
        Unit(db, actor, municipality).write(
            doc["id"], lambda fresh, unit: Change("fee_dam", {"fee_dam": fee}, {"fee_dam": fresh.get("fee_dam")}))
    return dam


def pending_renewal(doc: dict) -> bool:
    """Whether a renewal was requested and its fee not yet paid."""
    kinds = [e["kind"] for e in doc.get("events", [])]
    last = next((k for k in reversed(kinds) if k in (EventKind.RENEWAL_REQUESTED.value,
                                                     EventKind.RENEWAL_FEE_PAID.value)), None)
    return last == EventKind.RENEWAL_REQUESTED.value


@checked
def request_renewal(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """Record the renewal request (a late request is kept with the rules' warning)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data do requerimento", on)

    def decide(doc: dict, unit: Unit) -> Change:
        authorization_records.require(unit.scope.state(doc, on), Status.ACTIVE)
        if pending_renewal(doc):
            raise authorization_records.WrongStep("A renovação já foi requerida; emita ou aguarde o pagamento do DAM.")
        return unit.event(doc, EventKind.RENEWAL_REQUESTED, on)

    return Unit(db, actor, municipality).write(auth_id, decide)


def _paid_on(dam: dict) -> date:
    """The payment date the DAM module recorded (``payment.paid_on``)."""
    return parse_date((dam.get("payment") or {}).get("paid_on")) or clock.today()


def _stored_paid_dam(db: Database, dam: dict) -> dict | None:
    """The DAM named by ``dam`` as the store has it, if it is really paid and pays an authorization.

    The handler never trusts the fields of the dict it is given: a forged dict issues nothing."""
    try:
        dam_id = ObjectId(str(dam.get("id") or dam.get("_id") or ""))
    except (InvalidId, TypeError):
        return None
    stored = db[dams.COLLECTION].find_one({"_id": dam_id, "status": dams.PAID})
    if stored is None or (stored.get("pays") or {}).get("collection") != "authorizations":
        return None
    stored = decode(stored)
    stored["id"] = str(stored.pop("_id"))
    return stored


@events.on_dam_paid("authorizations")
def fee_paid(db: Database, dam: dict) -> None:
    """A paid fee DAM issues the authorization (number and validity) or renews it.

    The authorization follows the payment of the fee (CG art. 9 §1 and art. 16 §ú; MP art. 3 §ú and
    art. 9): a payment below the amount due leaves it awaiting the fee with the difference recorded;
    a late payment or one above the amount still issues it and keeps the DAM's alerts visible.

    Idempotent and re-runnable (the DAM-paid outbox may call it again after a crash or on retry): the
    DAM is read from the store and must be paid; a DAM already received changes nothing; the whole
    handler is one unit of work whose write is conditional on the version it read.
    """
    stored = _stored_paid_dam(db, dam)
    if stored is None:
        return
    payment = stored.get("payment") or {}
    receipt = {"dam_id": stored["id"], "number": str(stored.get("number") or ""), "amount": payment.get("amount"),
               "paid_on": _paid_on(stored), "alerts": list(payment.get("notes", []))}
    _settle_fee(db, registry.DAM_ACTOR, stored["municipality"], stored["pays"]["id"], receipt)


@checked
def record_earlier_payment(db: Database, actor: Actor, municipality: str, auth_id: str, paid_on: date,
                           note: str = "") -> None:
    """History loaded into the panel: the fee was paid on ``paid_on`` before the panel, with no DAM in
    it; taken as paid in full and issued as a paid DAM would. Runs once (a second call is refused)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("paid_on", "Data do pagamento", paid_on)
    receipt = {"dam_id": "", "number": note, "amount": None, "paid_on": paid_on, "alerts": []}
    _settle_fee(db, actor, municipality, auth_id, receipt, history=True)


def _settle_fee(db: Database, actor: Actor, municipality: str, auth_id: str, receipt: dict,
                history: bool = False) -> None:
    def decide(doc: dict, unit: Unit) -> Change | None:
        fee = doc.get("fee_dam") or {}
        dam_id = receipt["dam_id"]
        if dam_id and any(r["dam_id"] == dam_id for r in fee.get("received", [])):
            return None  # this DAM was already received: nothing to do
        if not fee and not history:
            return None  # a DAM paying the authorization that is not its fee DAM
        total, amount = fee.get("fee_total", fee.get("amount")), receipt["amount"]
        if amount is None or total is None:  # history loaded without amounts: taken as paid in full
            amount = total = Decimal(str(total or 0))
        received = [*fee.get("received", []), {**receipt, "number": receipt["number"] or fee.get("number", ""),
                                               "amount": Decimal(str(amount))}]
        fee = {**fee, "received": received, "fee_total": Decimal(str(total))}
        number, paid_on = received[-1]["number"], receipt["paid_on"]
        if fee_received(fee) < fee["fee_total"]:
            return _short_payment(doc, fee, number, paid_on)
        renewal = fee.get("purpose") == "renewal"
        extra = {"fee_dam": {**fee, "paid": True, "paid_on": paid_on, "short": None}}
        if not renewal and not doc.get("number"):
            extra["number"] = unit.number(NUMBER_KIND, paid_on.year)
            extra["issued_on"] = paid_on
        kind = EventKind.RENEWAL_FEE_PAID if renewal else EventKind.FEE_PAID
        alerts = [a for r in received for a in r["alerts"]]
        note = f"DAM {number} pago" + (" — alertas do DAM: " + "; ".join(alerts) if alerts else "")
        return unit.event(doc, kind, paid_on, note=note, extra=extra)

    Unit(db, actor, municipality).write(auth_id, decide)


def _short_payment(doc: dict, fee: dict, number: str, paid_on: date) -> Change:
    """Keep the authorization awaiting the fee and record what is still missing."""
    paid = fee_received(fee)
    fee["short"] = {"due": fee["fee_total"], "paid": paid, "difference": fee["fee_total"] - paid,
                    "dam_number": number, "paid_on": paid_on}
    fee["paid"] = False
    return Change("fee_short", {"fee_dam": fee}, {"fee_dam": doc.get("fee_dam")}, note=shortfall_text(fee["short"]))


def shortfall_text(short: dict) -> str:
    """The pt-BR line that explains a short payment of the fee."""
    return (f"DAM {short['dam_number']} da taxa pago a menor em {parse_date(short['paid_on']):%d/%m/%Y}: devido "
            f"{brl(short['due'])}, pago {brl(short['paid'])}, falta {brl(short['difference'])}. "
            "A autorização só é expedida com a taxa integralmente paga; emita o DAM complementar.")

