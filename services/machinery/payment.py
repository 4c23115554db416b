"""Payment of a service request by DAM (Decreto 017/2026, Nova Lacerda, art. 8): full before the
service (§1) or the 50% advance of the machine hours (§2), due dates deferred until after completion
with express justification (§3, :class:`ExtensionInput`).

DAMs: ``services.dam.dams.issue`` with revenue_kind "preco_publico" (full) or "parcela" (advance,
balance), pays={"collection": "booking_requests", "id": request id, "label": "Pedido de serviço
0001/2026"}; :func:`dam_paid` (``@events.on_dam_paid``) marks the instalment or the balance paid,
idempotently, and sends the request to the schedule when every upfront DAM is paid. The balance DAM
itself is issued at completion (:mod:`.execution`).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.base import RuleError
from rules.fmt import day as show_day
from rules.machinery.payment import (
    ADVANCE,
    BALANCE,
    FULL,
    DueExtension,
    ExtensionGround,
    Instalment,
    payment_plan,
)
from services.dam import dams
from services.machinery import booking_requests, protocol, quotes
from services.machinery.booking_requests import REQUESTS, WrongStep
from services.shared import clock, events, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed

BALANCE_TERM_DAYS = 15  # art. 8 §2: the balance is paid within 15 days


@dataclass(frozen=True)
class ExtensionInput:
    """Art. 8 §3: due date up to 30 days after completion, with express justification."""

    ground: str  # ExtensionGround name
    justification: str
    days_after_completion: int
    instalments: tuple[str, ...] = (FULL, ADVANCE, BALANCE)
    prior_authorization: str = ""


PAID_UPFRONT = (FULL, ADVANCE)


def _extension(values: ExtensionInput | None) -> DueExtension | None:
    if values is None:
        return None
    if values.ground not in ExtensionGround.__members__:
        raise ValidationFailed({"ground": "Escolha a hipótese da prorrogação (art. 8, §3)."})
    return DueExtension(ExtensionGround[values.ground], values.justification, int(values.days_after_completion),
                        tuple(values.instalments), values.prior_authorization)


def _issue_dam(db: Database, actor: Actor, municipality: str, doc: dict, key: str, label: str, amount: Decimal,
               due: date, reference: str) -> dict:
    requester = doc["requester"]
    instructions = ""
    today = clock.today()
    if due < today:
        # Art. 8 §2 gives the requester 15 days to pay; a completion reported after them must not
        # put him in arrears for the administration's delay: the term runs from the issue
        # (docs/LEITURAS.md §8).
        legal = due
        due = today + timedelta(days=BALANCE_TERM_DAYS)
        instructions = (f"Prazo de pagamento contado da emissão: o vencimento pelo {reference} seria "
                        f"{show_day(legal)}, já passado quando a conclusão foi registrada.")
    return dams.issue(
        db, actor, municipality, taxpayer_name=requester["name"], taxpayer_document=requester["document"],
        taxpayer_address=", ".join(x for x in (requester.get("address"), requester.get("locality")) if x),
        revenue_kind="preco_publico" if key == FULL else "parcela",
        description=(f"{label} — pedido de serviço {doc['protocol']}: "
                     f"{booking_requests.describe_services(doc['services'])}")[:500],
        legal_basis=f"{reference}; Anexo I", amount=amount, due=due,
        pays={"collection": REQUESTS, "id": doc["id"], "label": f"Pedido de serviço {doc['protocol']}"},
        instructions=instructions,
    )


def _instalment_doc(i: Instalment, dam: dict | None, deferred: bool) -> dict:
    return {"key": i.key, "label": i.label, "amount": i.amount, "due": dam["due_on"] if dam else i.due,
            "due_rule": i.due_rule, "reference": i.reference, "dam_id": dam["id"] if dam else None,
            "dam_number": dam["number"] if dam else None, "paid_on": None, "deferred": deferred}


@checked
def issue_payment(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                  service_start: date | None = None, extension: ExtensionInput | None = None) -> dict:
    """The payment plan (art. 8) and its DAMs: full before (§1), or 50% advance (§2); deferred
    instalments (§3) get no DAM now and the request goes to the schedule."""
    authorize(actor, "write", municipality)
    book = parameters.book(db, municipality)
    calendar = parameters.calendar(db, municipality, on)
    due_extension = _extension(extension)

    def build(doc: dict) -> dict:
        if not doc.get("quote"):
            raise WrongStep(f"O pedido {doc['protocol']} ainda não tem orçamento.")
        if doc.get("payment"):
            raise WrongStep(f"Os DAMs do pedido {doc['protocol']} já foram emitidos.")
        try:
            plan = payment_plan(quotes._quote_of(doc), on, calendar, book, service_start=service_start,
                                extension=due_extension)
        except RuleError as error:
            raise protocol._refused(error, "extension") from None
        instalments = []
        for inst in plan.instalments:
            deferred = bool(due_extension and inst.key in due_extension.instalments)
            dam = None
            if inst.key in PAID_UPFRONT and not deferred and inst.amount > 0:
                dam = _issue_dam(db, actor, municipality, doc, inst.key, inst.label, inst.amount, inst.due,
                                 inst.reference)
            instalments.append(_instalment_doc(inst, dam, deferred))
        ext = None if due_extension is None else {
            "ground": due_extension.ground.name, "ground_label": due_extension.ground.value,
            "justification": due_extension.justification.strip(),
            "days_after_completion": due_extension.days_after_completion,
            "instalments": list(due_extension.instalments), "prior_authorization": due_extension.prior_authorization}
        upfront_due = [i for i in instalments if i["key"] in PAID_UPFRONT and i["dam_id"]]
        return {"payment": {"issued_on": on, "extension": ext, "instalments": instalments,
                            "findings": [protocol._finding_doc(f) for f in plan.findings]},
                "status": "aguardando_pagamento" if upfront_due else "a_agendar"}

    return booking_requests._change(db, actor, municipality, request_id, ("aguardando_pagamento",), build,
                                    "payment_plan")


DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))


@events.on_dam_paid(REQUESTS)
def dam_paid(db: Database, dam: dict) -> None:
    """A paid DAM of a request: the instalment (or balance) is marked paid; when every upfront DAM
    is paid the request goes to the schedule (art. 8 §1-§2). Idempotent: the DAM is read from the
    store, and an instalment already paid changes nothing."""
    try:
        stored = db[dams.COLLECTION].find_one({"_id": ObjectId(str(dam.get("id") or dam.get("_id") or "")),
                                               "status": dams.PAID})
    except (InvalidId, TypeError):
        return
    if stored is None or (stored.get("pays") or {}).get("collection") != REQUESTS:
        return
    stored = dams.plain(stored)
    paid_on = (stored.get("payment") or {}).get("paid_on") or clock.today()

    def build(doc: dict) -> dict:
        changes: dict[str, Any] = {}
        payment = doc.get("payment") or {}
        instalments = payment.get("instalments", [])
        for inst in instalments:
            if inst.get("dam_id") == stored["id"] and not inst.get("paid_on"):
                inst["paid_on"] = paid_on
                changes["payment"] = payment
        settlement = doc.get("settlement") or {}
        if settlement.get("dam_id") == stored["id"] and not settlement.get("paid_on"):
            settlement["paid_on"] = paid_on
            changes["settlement"] = settlement
            changes["settlement_open"] = False
        upfront = [i for i in instalments if i["key"] in PAID_UPFRONT and i.get("dam_id")]
        if doc["status"] == "aguardando_pagamento" and changes.get("payment") and all(i.get("paid_on") for i in upfront):
            changes["status"] = "a_agendar"
        return changes

    municipality = stored["municipality"]
    doc = booking_requests._load(db, municipality, stored["pays"]["id"])
    before = build(booking_requests._load(db, municipality, doc["id"]))
    if before:
        booking_requests._change(db, DAM_ACTOR, municipality, doc["id"], None, build, "dam_paid",
                                 note=f"DAM {stored['number']} pago")
