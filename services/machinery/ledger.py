"""The charges (débitos) of a service request, as its screens, pendências and documents read them.

Each upfront instalment (art. 8 §1-§2), each instalment deferred by §3 once its DAM is out, and the
balance of the hours worked (§2, the settlement) names its charge (``charge_id``, kept by
:mod:`.payment` and :mod:`.execution`); what is charged, paid, open or owed back, the DAM to pay now
and whether a new DAM may be issued come from the stored charge (:mod:`services.dam.charges`),
never from the request's own copy. The "saldo" instalment of the plan is an estimate and no charge.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.dam import charges as charge_rules
from rules.fmt import day
from rules.machinery.payment import ADVANCE, ChargeState, charge_situation
from rules.machinery.statement import ChargeFigures, settlement_line
from services import store
from services.dam import charges, rebill
from services.machinery.booking_requests import REQUESTS, module_service
from services.shared import audit
from services.shared.auth import Actor

SETTLEMENT = "saldo_executado"
SETTLEMENT_LABEL = "Saldo das horas executadas"


@dataclass(frozen=True)
class PaymentRow:
    dam_number: str
    paid_on: date
    amount: Decimal


@dataclass(frozen=True)
class ChargeRow:
    """One charge of the request: the part of the plan it pays and where it stands."""

    part: str  # "integral" | "adiantamento" (instalments) | SETTLEMENT (the balance DAM)
    label: str
    reference: str
    charge_id: str
    charged: Decimal  # what its DAMs charged: the principal plus the late charges of the DAMs paid (an
    # abatement by the settlement of the hours worked is the settlement's line, not a smaller charge)
    paid: Decimal
    open: Decimal
    credit: Decimal
    status: str
    due_on: date  # the charge's due date (its first DAM's); a 2ª via does not move it
    dam_number: str  # the DAM to pay now, else the last one issued
    dam_due: date | None  # the due date of the DAM to pay now (None: no DAM out)
    paid_on: date | None
    deferred: bool
    issuable: bool  # owed with no DAM out: a new DAM may be issued (rebill.issue_open)
    situation: str
    payments: tuple[PaymentRow, ...]
    live_dam_id: str | None = None  # the DAM out now, to print for the requester

    @property
    def settled(self) -> bool:
        return charge_rules.settled(self.status)

    @property
    def owing(self) -> bool:
        """Something is still owed on it (open, paid short, inscribed)."""
        return self.status in charge_rules.OWING

    def state(self) -> ChargeState:
        return ChargeState(self.label, self.reference, self.status, self.open, self.credit, self.paid_on,
                           self.dam_due is not None)

    def figures(self) -> ChargeFigures:
        return ChargeFigures(self.charged, self.paid, self.open, self.credit)


def parts(doc: dict) -> list[tuple[str, str, str, str, bool]]:
    """(part, label, reference, charge id, deferred) of every part of the request that has a charge."""
    found = [(i["key"], i["label"], i.get("reference", ""), i["charge_id"], bool(i.get("deferred")))
             for i in (doc.get("payment") or {}).get("instalments", []) if i.get("charge_id")]
    settlement = doc.get("settlement") or {}
    if settlement.get("charge_id"):
        found.append((SETTLEMENT, SETTLEMENT_LABEL, settlement.get("reference", ""), settlement["charge_id"], False))
    return found


def _row(part: tuple[str, str, str, str, bool], charge: dict) -> ChargeRow:
    key, label, reference, charge_id, deferred = part
    live = charge.get("live_dam")
    entries = {entry["id"]: entry for entry in charge.get("dams", [])}
    shown = live or (charge["dams"][-1] if charge.get("dams") else {"number": ""})
    payments = tuple(PaymentRow(p["dam_number"], p["paid_on"], p["amount"]) for p in charge.get("payments", []))
    row = ChargeRow(key, label, reference, charge_id, charge["principal"] + charge["late"], charge["paid"],
                    charge["open"], charge["credit"], charge["status"], charge["due_on"], shown["number"],
                    entries[live["id"]]["due_on"] if live and live["id"] in entries else None,
                    charge.get("paid_on"), deferred, rebill.issuable(charge), "", payments,
                    live["id"] if live else None)
    return replace(row, situation=charge_situation(row.state()))


def rows_of(doc: dict, stored: dict[str, dict]) -> list[ChargeRow]:
    """The rows of one request from its charges already read (``stored``: charge id → charge)."""
    return [_row(part, stored[part[3]]) for part in parts(doc) if part[3] in stored]


def request_rows(db: Database, municipality: str, doc: dict) -> list[ChargeRow]:
    """The charges of one request (one indexed query)."""
    stored = {c["id"]: c for c in charges.of_owner(db, municipality, REQUESTS, doc["id"])}
    return rows_of(doc, stored)


@module_service("read", reach="doc")
def request_charges(db: Database, actor: Actor, municipality: str, doc: dict) -> list[ChargeRow]:
    """The charges of one request read for a screen."""
    return request_rows(db, municipality, doc)


def credit_owed(settlement: dict) -> Decimal:
    """The advance beyond the hours worked still to return to the requester (art. 8, §2)."""
    if settlement.get("credit_returned_on"):
        return Decimal("0.00")
    return Decimal(settlement.get("credit_to_return") or 0)


def credit_beside_charges(settlement: dict) -> Decimal:
    """The credit still to return that no charge holds: a request completed before the settlement
    abated the advance's charge (art. 8, §2). Otherwise the charge's own credit says it."""
    return Decimal("0.00") if settlement.get("credit_on_charge") else credit_owed(settlement)


def settlement_text(settlement: dict, rows: list[ChargeRow]) -> str:
    """The settlement of the hours worked as it stands now, on its own line (art. 8, §2): value executed,
    advance paid (its charge's payments), balance with its DAM or credit to return."""
    if not settlement:
        return ""
    advance = next((r for r in rows if r.part == ADVANCE), None)
    credit = Decimal(settlement.get("credit_to_return") or 0)
    line = settlement_line(Decimal(settlement["executed"]), Decimal(settlement["advance"]),
                           advance.paid if advance else Decimal("0.00"), Decimal(settlement.get("amount_due") or 0),
                           credit)
    if credit > 0:
        returned = settlement.get("credit_returned_on")
        return line + (f", devolvido em {day(returned)}" if returned else "") + "."
    balance = next((r for r in rows if r.part == SETTLEMENT), None)
    if balance is None:
        return line + "."
    return f"{line}, DAM {balance.dam_number}, vencimento {day(balance.due_on)} — {balance.situation}."


def charges_of(db: Database, municipality: str, docs: list[dict]) -> dict[str, dict]:
    """The charges the parts of many requests name, in one query by id (charge id → charge)."""
    ids = []
    for doc in docs:
        for part in parts(doc):
            try:
                ids.append(ObjectId(part[3]))
            except (InvalidId, TypeError):
                continue
    if not ids:
        return {}
    found = (charges.plain(raw) for raw in db[charges.COLLECTION].find({"_id": {"$in": ids}}))
    return {c["id"]: c for c in found if c.get("municipality") == municipality}


def refund(db: Database, actor: Actor, municipality: str, charge_id: str, amount: Decimal, on: date,
           document: str, why: str, before: dict | None = None) -> None:
    """Pay ``amount`` of a charge's credit back to the requester (``charges.record_refund``, the one money
    loop) with its audit entry: the credit and what was paid before (``before``: the charge as the caller
    loaded it, ahead of an abatement of its own) and after."""
    before = before or charges.load(db, charge_id, municipality)
    after = charges.record_refund(db, charge_id, amount, on, document, actor.username)
    audit.record(db, actor, municipality, "refund", charges.COLLECTION, charge_id,
                 {"credit": store.encode(before["credit"]), "paid": store.encode(before["paid"])},
                 {"credit": store.encode(after["credit"]), "paid": store.encode(after["paid"])}, note=why)
