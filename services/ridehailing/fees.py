"""The authorization fee (taxa do CTM): its DAM, its payment, the issue it leads to, and renewal.

The fee DAM is issued once the vistoria is passed (or once a renewal is requested) and opens the fee's
charge (débito, :mod:`services.dam.charges`; the record keeps its ``charge_id``). The charge paid in
full, by any of its DAMs (the first, a 2ª via, the DAM of a difference), issues the authorization
(number and validity) or renews it (CG art. 9 §1 and art. 16 §ú; MP art. 3 §ú and art. 9;
``rules.ridehailing.settlement``). A payment below the amount due leaves the authorization awaiting
the fee with the shortfall recorded, and the next DAM, of the same charge, charges only the
difference. The DAM module owns numbering, barcode and payment; its outbox calls :func:`fee_paid`
with the charge's id.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.fmt import brl
from rules.ridehailing import settlement
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import RENEWABLE, AuthorizationState, Status
from services import store
from services.dam import dams, own_dams, rebill
from services.ridehailing import authorization_records, charge_links, registry, renewal_window
from services.ridehailing.authorization_records import Change, Unit
from services.shared import clock, entities, events, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound
from services.shared.regulated_accounts import DRIVER, authorize_regulated, is_regulated, require_own
from services.store import parse_date

FEE_PARAMETER = "authorization_fee"  # R$ of the authorization and renewal fee (taxa do CTM)
FEE_DUE_DAYS = 10  # days the fee DAM gives to pay; a convenience of the panel, not a legal term
NUMBER_KIND = "transporte_autorizacao"
NOT_FOUND = "Autorização não encontrada."


def _own(db: Database, actor: Actor, municipality: str, auth_id: str) -> dict:
    """The authorization a driver of the portal asks about, when it is theirs (another's is NotFound, the
    same words as for one that does not exist)."""
    authorize_regulated(actor, municipality, DRIVER)
    try:
        doc = authorization_records.load(db, municipality, auth_id)
    except NotFound:
        raise NotFound(NOT_FOUND) from None
    require_own(actor, municipality, DRIVER, doc.get("driver_cpf") or "", NOT_FOUND)
    return doc


def fee_amount(db: Database, municipality: str, on: date) -> Decimal:
    """The fee in force on ``on``; ParameterMissing (never a zero) when the municipality set none."""
    return Decimal(str(parameters.value(db, municipality, FEE_PARAMETER, on)))


def open_shortfall(doc: dict) -> dict | None:
    """The short payment of the fee still without a DAM for the difference (None when there is none).

    ``{"due", "paid", "difference", "dam_number", "paid_on"}``: what the fee's charge owes in all, what
    was paid so far, the difference and the DAM paid short, as the payment handler recorded them from
    the stored charge. The authorization stays awaiting the fee meanwhile.
    """
    fee = doc.get("fee_dam") or {}
    short = fee.get("short")
    last_paid = any(r["dam_id"] == fee.get("dam_id") for r in fee.get("received", []))
    return short if short and not fee.get("paid") and last_paid else None


@dataclass(frozen=True)
class FeeBill:
    """Where the fee of an authorization stands, read from its stored charge (for the screens)."""

    purpose: str  # "initial" or "renewal"
    paid: bool  # the charge is paid in full
    live: dict | None  # the DAM to pay now: id, number, amount, due_on (a 2ª via, a difference DAM)
    short: dict | None  # a payment left a difference: due, paid, difference, dam_number, paid_on
    open: Decimal  # what the fee still owes
    due: date | None  # when the fee fell due (its first DAM's due date; a 2ª via does not move it)


def fee_bill(doc: dict, charge: dict | None) -> FeeBill | None:
    """The fee of ``doc`` as its stored ``charge`` has it (None: no fee DAM issued). A record stored
    before charges (no charge found) is shown from its own fields."""
    fee = doc.get("fee_dam")
    if not fee:
        return None
    due = parse_date(fee.get("due"))  # None only for a fee paid before the panel (no DAM)
    if charge is None:
        short = open_shortfall(doc)
        live = None if fee.get("paid") or short else {"id": fee["dam_id"], "number": fee["number"],
                                                     "amount": fee["amount"], "due_on": due}
        owed = Decimal("0") if fee.get("paid") else Decimal(str(short["difference"] if short else fee["amount"]))
        return FeeBill(fee.get("purpose", "initial"), bool(fee.get("paid")), live, fee.get("short") if live else short,
                       owed, due)
    paid = settlement.fee_settled(charge["status"]) or bool(fee.get("paid"))
    short = None
    if not paid and charge["paid"] > 0:
        last = charge["payments"][-1]
        short = {"due": charge["principal"] + charge["late"], "paid": charge["paid"], "difference": charge["open"],
                 "dam_number": last["dam_number"], "paid_on": last["paid_on"]}
    return FeeBill(fee.get("purpose", "initial"), paid, None if paid else charge_links.live(charge), short,
                   Decimal("0") if paid else charge["open"], parse_date(charge.get("due_on")) or due)


def bill_of(db: Database, doc: dict) -> FeeBill | None:
    """The fee of one authorization, from its stored charge."""
    fee = doc.get("fee_dam")
    return fee_bill(doc, charge_links.of_link(db, fee, "dam_id")) if fee else None


def bills_of(db: Database, docs: list[dict]) -> dict[str, FeeBill]:
    """The fees of many authorizations (one read of their charges), by authorization id."""
    found = charge_links.by_id(db, [(d.get("fee_dam") or {}).get("charge_id") for d in docs])
    bills = {d["id"]: fee_bill(d, found.get((d.get("fee_dam") or {}).get("charge_id"))) for d in docs}
    return {key: bill for key, bill in bills.items() if bill is not None}


@checked
def issue_fee_dam(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> dict:
    """Issue the DAM of the authorization fee (initial, or renewal once requested).

    The fee is one charge: while it is owed and has no DAM to pay (its DAM was cancelled, or paid
    short) the new DAM is of that charge (:func:`services.dam.rebill.issue_open`) and charges only what
    is still open; a fee whose DAM is still to be paid gets no second one. The driver on the portal has
    the DAM of the renewal of their own authorization issued (today, in their name)."""
    if is_regulated(actor):
        doc, on = _own(db, actor, municipality, auth_id), clock.today()
    else:
        authorize(actor, "write", municipality)
        doc = authorization_records.load(db, municipality, auth_id)
    scope = registry.Scope(db, municipality)
    state = scope.state(doc, on)
    renewal = state.status in RENEWABLE and pending_renewal(doc)  # also while suspended (LEITURAS §7)
    if is_regulated(actor) and not renewal:
        raise authorization_records.WrongStep("Peça a renovação antes de emitir o DAM da taxa.")
    if not renewal:
        authorization_records.require(state, Status.AWAITING_FEE)
    purpose = "renewal" if renewal else "initial"
    earlier = doc.get("fee_dam") or {}
    owed = earlier if earlier.get("purpose") == purpose and not earlier.get("paid") else {}
    charge = charge_links.of_link(db, owed, "dam_id") if owed else None
    if charge is not None and is_regulated(actor):  # its DAM cancelled or paid short: the clerk issues the next
        raise authorization_records.WrongStep("O DAM da taxa de renovação foi cancelado ou pago a menor: procure a "
                                              "secretaria para emitir o próximo.")
    due = scope.calendar(on).add_days(on, FEE_DUE_DAYS)
    with store.transaction(db):  # the DAM, its number and the fee record on the authorization
        if charge is not None:
            short = open_shortfall(doc)
            dam = rebill.issue_open(db, actor, municipality, charge["id"], due, instructions=(
                f"Complementação da taxa: o DAM {short['dam_number']} foi pago a menor." if short else ""))
            fee = {**owed, **_dam_fields(dam), "charge_id": charge["id"]}
        else:
            dam = _issue_new(db, actor, municipality, doc, scope, renewal, due, on)
            fee = {**_dam_fields(dam), "purpose": purpose, "paid": False, "fee_total": dam["amount"], "received": [],
                   "short": None, "charge_id": dam["charge_id"]}

        def decide(fresh: dict, unit: Unit) -> Change:
            if (fresh.get("fee_dam") or {}).get("dam_id") != earlier.get("dam_id"):
                raise Conflict("A taxa desta autorização mudou enquanto o DAM era emitido; recarregue.")
            return Change("fee_dam", {"fee_dam": fee}, {"fee_dam": fresh.get("fee_dam")})

        Unit(db, actor, municipality).write(doc["id"], decide)
    return dam


def _dam_fields(dam: dict) -> dict:
    """What the fee record keeps of its latest DAM (the screens show it)."""
    return {"dam_id": dam["id"], "number": str(dam.get("number", "")), "amount": dam["amount"],
            "due": parse_date(dam["due_on"])}


def _issue_new(db: Database, actor: Actor, municipality: str, doc: dict, scope: registry.Scope, renewal: bool,
               due: date, on: date) -> dict:
    """The first DAM of a fee: it opens the fee's charge."""
    driver = registry.driver_record(db, municipality, doc["driver_cpf"])
    issue = own_dams.issue_authorized if is_regulated(actor) else dams.issue  # the person: checked by issue_fee_dam
    return issue(
        db, actor, municipality,
        taxpayer_name=driver["name"], taxpayer_document=driver["cpf"],
        taxpayer_address=", ".join(x for x in (driver.get("address"), driver.get("district")) if x),
        revenue_kind="taxa_autorizacao",
        description=f"Taxa de {'renovação' if renewal else 'expedição'} da autorização de transporte por "
                    f"aplicativo — protocolo {doc['protocol']}, placa {fields.show('plate', doc['plate'])}",
        legal_basis=scope.rules.ref("fee"), amount=fee_amount(db, municipality, on), due=due,
        pays={"collection": "authorizations", "id": doc["id"], "label": f"Autorização {doc['protocol']}"},
    )


def pending_renewal(doc: dict) -> bool:
    """Whether a renewal was requested and its fee not yet paid."""
    kinds = [e["kind"] for e in doc.get("events", [])]
    last = next((k for k in reversed(kinds) if k in (EventKind.RENEWAL_REQUESTED.value,
                                                     EventKind.RENEWAL_FEE_PAID.value)), None)
    return last == EventKind.RENEWAL_REQUESTED.value


@checked
def request_renewal(db: Database, actor: Actor, municipality: str, auth_id: str, on: date) -> AuthorizationState:
    """Record the renewal request (a late request is kept with the rules' warning), of an authorization
    in force or suspended (``rules.ridehailing.lifecycle.RENEWABLE``). The driver on the portal asks for
    their own, today, from the day the window opens (``renewal_window``: refused before, with that day
    and the article)."""
    if is_regulated(actor):
        on = clock.today()
        renewal_window.require_open(db, municipality, _own(db, actor, municipality, auth_id), on)
    else:
        authorize(actor, "write", municipality)
    entities.refuse_future("on", "Data do requerimento", on)

    def decide(doc: dict, unit: Unit) -> Change:
        authorization_records.require(unit.scope.state(doc, on), *RENEWABLE)  # also while suspended
        if pending_renewal(doc):
            raise authorization_records.WrongStep("A renovação já foi requerida; emita ou aguarde o pagamento do DAM.")
        return unit.event(doc, EventKind.RENEWAL_REQUESTED, on,
                          note="Pedida pelo condutor no portal" if is_regulated(actor) else "")

    return Unit(db, actor, municipality).write(auth_id, decide)


@events.on_dam_paid("authorizations")
def fee_paid(db: Database, charge_id: str) -> None:
    """A payment of the fee's charge issues the authorization (number and validity) or renews it,
    once the charge is paid in full (``rules.ridehailing.settlement.fee_settled``): CG art. 9 §1 and
    art. 16 §ú; MP art. 3 §ú and art. 9. A payment short of it leaves the authorization awaiting the
    fee with the difference recorded; a late payment or one above the amount still issues it and keeps
    the DAMs' alerts visible.

    Only the stored charge counts (:func:`services.dam.charges.load`): an unknown id, a charge of
    another record or one not paid changes nothing. Idempotent and re-runnable (the outbox runs it
    after every payment of any DAM of the charge, and again after a crash): a fee already paid, or a
    payment already received, changes nothing; the write is conditional on the version it read.
    """
    charge = charge_links.owned(db, charge_id, "authorizations")
    if charge is None or not charge["payments"]:
        return
    stored = charge_links.dam_payments(db, charge)
    receipts = [{"dam_id": p["dam_id"], "number": p["dam_number"], "amount": p["amount"], "paid_on": p["paid_on"],
                 "alerts": list(stored.get(p["dam_id"], {}).get("notes") or [])} for p in charge["payments"]]

    def decide(doc: dict, unit: Unit) -> Change | None:
        fee = doc.get("fee_dam") or {}
        if fee.get("paid") or not charge_links.names(fee, charge, "dam_id"):
            return None  # paid already (a second payment is a credit), or not this authorization's fee
        ours = {entry["id"] for entry in charge["dams"]}
        received = [r for r in fee.get("received", []) if r["dam_id"] not in ours] + receipts
        settled = settlement.fee_settled(charge["status"])
        if not settled and [r["dam_id"] for r in received] == [r["dam_id"] for r in fee.get("received", [])]:
            return None  # nothing new since the last run
        last = charge_links.settling_payment(charge) if settled else charge["payments"][-1]
        fee = {**fee, **_charge_dam(charge, last["dam_id"]), "received": received, "charge_id": charge["id"],
               "fee_total": charge["principal"] + charge["late"]}
        if not settled:
            return _short_payment(doc, fee, charge, last)
        return _issue_on_payment(doc, unit, fee, charge["paid_on"], last["dam_number"])

    try:
        Unit(db, registry.DAM_ACTOR, charge["municipality"]).write(charge["owner"]["id"], decide)
    except NotFound:
        return  # the charge names no authorization of its municipality


def _charge_dam(charge: dict, dam_id: str) -> dict:
    """The fee record's DAM fields from the charge's entry of DAM ``dam_id``."""
    entry = next(e for e in charge["dams"] if e["id"] == dam_id)  # a payment is always of a DAM of its charge
    return {"dam_id": entry["id"], "number": entry["number"], "amount": entry["amount"],
            "due": parse_date(entry["due_on"])}


@checked
def record_earlier_payment(db: Database, actor: Actor, municipality: str, auth_id: str, paid_on: date,
                           note: str = "") -> None:
    """History loaded into the panel: the fee was paid on ``paid_on`` before the panel, with no DAM in
    it; taken as paid in full and issued as a paid DAM would. Runs once (the rules refuse a second call)."""
    authorize(actor, "write", municipality)
    entities.refuse_future("paid_on", "Data do pagamento", paid_on)

    def decide(doc: dict, unit: Unit) -> Change:
        fee = doc.get("fee_dam") or {}
        total = Decimal(str(fee.get("fee_total", fee.get("amount")) or 0))
        receipt = {"dam_id": "", "number": note or fee.get("number", ""), "amount": total, "paid_on": paid_on,
                   "alerts": []}
        fee = {**fee, "received": [*fee.get("received", []), receipt], "fee_total": total}
        return _issue_on_payment(doc, unit, fee, paid_on, receipt["number"])

    Unit(db, actor, municipality).write(auth_id, decide)


def _issue_on_payment(doc: dict, unit: Unit, fee: dict, paid_on: date, number: str) -> Change:
    """The fee paid in full: the authorization is issued (its number) or renewed, with the alerts of
    the DAMs paid (late, amount differing) in the event's note."""
    renewal = fee.get("purpose") == "renewal"
    extra = {"fee_dam": {**fee, "paid": True, "paid_on": paid_on, "short": None}}
    if not renewal and not doc.get("number"):
        extra["number"] = unit.number(NUMBER_KIND, paid_on.year)
        extra["issued_on"] = paid_on
    kind = EventKind.RENEWAL_FEE_PAID if renewal else EventKind.FEE_PAID
    alerts = [a for r in fee["received"] for a in r["alerts"]]
    note = f"DAM {number} pago" + (" — alertas do DAM: " + "; ".join(alerts) if alerts else "")
    return unit.event(doc, kind, paid_on, note=note, extra=extra)


def _short_payment(doc: dict, fee: dict, charge: dict, last: dict) -> Change:
    """Keep the authorization awaiting the fee and record, from the charge, what is still missing."""
    fee["short"] = {"due": charge["principal"] + charge["late"], "paid": charge["paid"],
                    "difference": charge["open"], "dam_number": last["dam_number"], "paid_on": last["paid_on"]}
    fee["paid"] = False
    return Change("fee_short", {"fee_dam": fee}, {"fee_dam": doc.get("fee_dam")}, note=shortfall_text(fee["short"]))


def shortfall_text(short: dict) -> str:
    """The pt-BR line that explains a short payment of the fee."""
    return (f"DAM {short['dam_number']} da taxa pago a menor em {parse_date(short['paid_on']):%d/%m/%Y}: devido "
            f"{brl(short['due'])}, pago {brl(short['paid'])}, falta {brl(short['difference'])}. "
            "A autorização só é expedida com a taxa integralmente paga; emita o DAM complementar.")

