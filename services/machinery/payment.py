"""Payment of a service request by DAM (Decreto 017/2026, Nova Lacerda, art. 8): full before the
service (§1) or the 50% advance of the machine hours (§2), due dates deferred until after completion
with express justification (§3, :class:`ExtensionInput`).

DAMs: ``services.dam.dams.issue`` with revenue_kind "preco_publico" (full) or "parcela" (advance,
balance), pays={"collection": "booking_requests", "id": request id, "label": "Pedido de serviço
0001/2026"}; each opens a charge (débito), whose id the instalment keeps (``charge_id``) beside its
latest DAM. :func:`dam_paid` (``@events.on_dam_paid``, given the charge's id) re-reads the request's
stored charges: a part is paid only when its charge is paid in full — by the original, a 2ª via or
a DAM for what stayed open — and the request goes to the schedule when every upfront charge is
(``rules.machinery.payment.service_may_start``, art. 8 §1-§2). A cancelled DAM, or a short payment,
leaves the charge owed: :func:`issue_new_dam` issues its new DAM and the request keeps its place.
The balance DAM itself is issued at completion (:mod:`.execution`).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.base import Decision, RuleError
from rules.dam import charges as charge_rules
from rules.fmt import day as show_day
from rules.machinery.payment import (
    ADVANCE,
    BALANCE,
    FULL,
    DueExtension,
    ExtensionGround,
    Instalment,
    payment_plan,
    service_may_start,
)
from rules.machinery.prices import DECREE
from rules.machinery.statement import instalment_description
from services import store
from services.dam import charges, dams, rebill
from services.machinery import booking_requests, ledger, protocol, quotes
from services.machinery.booking_requests import REQUESTS, WrongStep
from services.shared import clock, events, parameters
from services.shared.auth import Actor
from services.shared.errors import NotFound, ValidationFailed

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


def _issue_dam(db: Database, actor: Actor, municipality: str, doc: dict, key: str, description: str,
               amount: Decimal, due: date, reference: str) -> dict:
    """The DAM of one part of the request (its charge opens with it); ``description`` says only what
    it charges (``rules.machinery.statement``)."""
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
        revenue_kind="preco_publico" if key == FULL else "parcela", description=description[:500],
        legal_basis=f"{reference}; Anexo I", amount=amount, due=due,
        pays={"collection": REQUESTS, "id": doc["id"], "label": f"Pedido de serviço {doc['protocol']}"},
        instructions=instructions,
    )


def _instalment_doc(i: Instalment, dam: dict | None, deferred: bool) -> dict:
    return {"key": i.key, "label": i.label, "amount": i.amount, "due": dam["due_on"] if dam else i.due,
            "due_rule": i.due_rule, "reference": i.reference, "dam_id": dam["id"] if dam else None,
            "dam_number": dam["number"] if dam else None, "charge_id": dam["charge_id"] if dam else None,
            "paid_on": None, "deferred": deferred}


@booking_requests.module_service("write")
def issue_payment(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                  service_start: date | None = None, extension: ExtensionInput | None = None) -> dict:
    """The payment plan (art. 8) and its DAMs: full before (§1), or 50% advance (§2); deferred
    instalments (§3) get no DAM now and the request goes to the schedule."""
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
                dam = _issue_dam(db, actor, municipality, doc, inst.key,
                                 instalment_description(inst.key, inst.label, doc["protocol"], plan.quote),
                                 inst.amount, inst.due, inst.reference)
            instalments.append(_instalment_doc(inst, dam, deferred))
        ext = None if due_extension is None else {
            "ground": due_extension.ground.name, "ground_label": due_extension.ground.value,
            "justification": due_extension.justification.strip(),
            "days_after_completion": due_extension.days_after_completion,
            "instalments": list(due_extension.instalments), "prior_authorization": due_extension.prior_authorization}
        upfront_due = [i for i in instalments if i["key"] in PAID_UPFRONT and i["charge_id"]]
        return {"payment": {"issued_on": on, "extension": ext, "instalments": instalments,
                            "findings": [protocol._finding_doc(f) for f in plan.findings]},
                "status": "aguardando_pagamento" if upfront_due else "a_agendar"}

    return booking_requests._change(db, actor, municipality, request_id, ("aguardando_pagamento",), build,
                                    "payment_plan")


DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))


def upfront_decision(rows: list[ledger.ChargeRow]) -> Decision:
    """Whether the service may start, from the charges of the upfront instalments (art. 8 §1-§2)."""
    return service_may_start(row.state() for row in rows if row.part in PAID_UPFRONT and not row.deferred)


def _link(part: dict, stored: dict[str, dict]) -> str | None:
    """The charge of a part: its ``charge_id``, or (a record from before charges) the charge that
    holds its DAM."""
    if part.get("charge_id"):
        return part["charge_id"]
    return next((c["id"] for c in stored.values() if part.get("dam_id")
                 and any(d["id"] == part["dam_id"] for d in c.get("dams", []))), None)


def _paid_part(part: dict, charge: dict) -> bool:
    """Mark ``part`` paid from its charge when the charge is paid in full; whether it changed."""
    changed = False
    if part.get("charge_id") != charge["id"]:
        part["charge_id"], changed = charge["id"], True
    if charge_rules.settled(charge["status"]) and not part.get("paid_on"):
        last = charge["payments"][-1] if charge.get("payments") else {}
        part.update(paid_on=charge.get("paid_on"), dam_id=last.get("dam_id", part.get("dam_id")),
                    dam_number=last.get("dam_number", part.get("dam_number")))
        changed = True
    return changed


def _reconcile(doc: dict, stored: dict[str, dict]) -> dict:
    """The changes that bring a request in line with its stored charges: a part is paid only when
    its charge is paid in full; the request goes to the schedule when every upfront charge is
    (art. 8 §1-§2); after completion the money stays open while a charge is owed or a credit is
    not returned. Empty when nothing changes (the handler is idempotent)."""
    changes: dict[str, Any] = {}
    payment_doc = doc.get("payment") or {}
    for inst in payment_doc.get("instalments", []):
        charge_id = _link(inst, stored)
        if charge_id in stored and _paid_part(inst, stored[charge_id]):
            changes["payment"] = payment_doc
    settlement = doc.get("settlement") or {}
    charge_id = _link(settlement, stored) if settlement else None
    if charge_id in stored and _paid_part(settlement, stored[charge_id]):
        changes["settlement"] = settlement
    rows = ledger.rows_of(doc, stored)
    upfront = [r for r in rows if r.part in PAID_UPFRONT and not r.deferred]
    if doc["status"] == "aguardando_pagamento" and upfront and upfront_decision(rows).ok:
        changes["status"] = "a_agendar"
    if doc["status"] == "concluido":
        credit = bool(settlement.get("credit_to_return")) and not settlement.get("credit_returned_on")
        money_open = credit or any(r.owing for r in rows)
        if money_open != bool(doc.get("settlement_open")):
            changes["settlement_open"] = money_open
    return changes


@events.on_dam_paid(REQUESTS)
def dam_paid(db: Database, charge_id: str) -> None:
    """A payment of a DAM of a request's charge: the stored charges of the request are re-read; a
    part (instalment, balance) is marked paid only when its charge is paid in full, and the request
    goes to the schedule when every upfront charge is (art. 8 §1-§2). A short payment, a retry or a
    second run changes nothing."""
    try:
        charge = charges.load(db, charge_id)
    except NotFound:
        return
    owner = charge.get("owner") or {}
    if owner.get("collection") != REQUESTS:
        return
    municipality = charge["municipality"]
    stored = {c["id"]: c for c in charges.of_owner(db, municipality, REQUESTS, owner["id"])}
    if _reconcile(booking_requests._load(db, municipality, owner["id"]), stored):
        booking_requests._change(db, DAM_ACTOR, municipality, owner["id"], None,
                                 lambda doc: _reconcile(doc, stored), "dam_paid",
                                 note=f"Débito {charge['description'][:80]}: {charge_rules.STATUSES[charge['status']]}")


def reconcile_all(db: Database, municipality: str) -> int:
    """Bring every request with a payment plan in line with its stored charges — after the charges of
    DAMs issued before them were created (the move to charges): each part is linked to the charge
    holding its DAM, and marked paid when that charge is paid in full. Idempotent; returns how many
    requests changed."""
    changed = 0
    for raw in db[REQUESTS].find({"municipality": municipality, "payment": {"$ne": None}}, {"_id": 1}):
        request_id = str(raw["_id"])
        stored = {c["id"]: c for c in charges.of_owner(db, municipality, REQUESTS, request_id)}
        if stored and _reconcile(booking_requests._load(db, municipality, request_id), stored):
            booking_requests._change(db, DAM_ACTOR, municipality, request_id, None,
                                     lambda doc, stored=stored: _reconcile(doc, stored), "charges_linked",
                                     note="Parcelas ligadas aos débitos")
            changed += 1
    return changed


@booking_requests.module_service("write")
def issue_new_dam(db: Database, actor: Actor, municipality: str, request_id: str, charge_id: str,
                  due: date) -> dict:
    """A new DAM for a part of the request whose charge waits for one (its DAM was cancelled, or it
    was paid short): the request keeps its protocol and its place (art. 3 II); the part's
    dam_id/dam_number name the new DAM. Returns the request."""
    doc = booking_requests._load(db, municipality, request_id)
    if doc["status"] == "recusado":
        raise WrongStep(f"O pedido {doc['protocol']} foi recusado: não recebe novo DAM.")
    if charge_id not in [part[3] for part in ledger.parts(doc)]:
        raise NotFound("Débito não encontrado neste pedido.")
    with store.transaction(db):
        dam = rebill.issue_open(db, actor, municipality, charge_id, due,
                                instructions=f"Pedido de serviço {doc['protocol']} ({DECREE}, art. 8).")

        def build(fresh: dict) -> dict:
            changes: dict[str, Any] = {}
            payment_doc = fresh.get("payment") or {}
            for inst in payment_doc.get("instalments", []):
                if inst.get("charge_id") == charge_id:
                    inst.update(dam_id=dam["id"], dam_number=dam["number"])
                    changes["payment"] = payment_doc
            settlement = fresh.get("settlement") or {}
            if settlement.get("charge_id") == charge_id:
                changes["settlement"] = {**settlement, "dam_id": dam["id"], "dam_number": dam["number"]}
            return changes

        return booking_requests._change(db, actor, municipality, request_id, None, build, "new_dam",
                                        note=f"Novo DAM {dam['number']} do pedido {doc['protocol']}")


@booking_requests.module_service("write")
def refuse_request(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Refuse the request with its reason (any step before execution): its bookings are freed and the
    price of a service the municipality will not provide is owed no more (art. 7; docs/LEITURAS.md,
    Nova Lacerda 8): each DAM still out is cancelled with the refusal's reason, a charge that waits
    for one is withdrawn, and what was already paid becomes a credit to return (restituição). So a
    refused request's DAM falling due never suspends the requester (art. 8 §4)."""
    with store.transaction(db):
        doc = booking_requests.mark_refused(db, actor, municipality, request_id, reason)
        note = f"Pedido {doc['protocol']} recusado: {reason.strip()}"
        for row in ledger.request_rows(db, municipality, doc):
            charge = charges.load(db, row.charge_id) if row.charge_id else None
            if charge is None or charge["status"] == charge_rules.CANCELLED:
                continue
            owing = charge["status"] in charge_rules.OWING
            if owing and row.live_dam_id:
                dams.cancel(db, actor, municipality, row.live_dam_id, note, withdraw=not charge["payments"])
            elif owing and not charge["payments"]:
                charges.withdraw(db, row.charge_id, "")
            if charge["payments"] and charges.principal_owed(charge) > 0:
                charges.abate(db, row.charge_id, charges.principal_owed(charge), note, actor.username)
    return booking_requests.get_request(db, actor, municipality, request_id)


@booking_requests.module_service("write")
def record_refusal_refund(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                          note: str) -> dict:
    """What a refused request had paid was returned to the requester (restituição; LEITURAS, Nova
    Lacerda 8): a refund of each of its charges that holds a credit (the one money loop), recorded on
    the refusal with the day and the document, in one unit of work."""
    if not note.strip():
        raise ValidationFailed({"note": "Informe o documento da devolução (ordem de pagamento ou "
                                        "restituição nº)."})

    def build(doc: dict) -> dict:
        refusal = doc.get("refusal") or {}
        if refusal.get("credit_returned_on"):
            raise WrongStep(f"O crédito do pedido {doc['protocol']} já foi devolvido em "
                            f"{show_day(store.parse_date(refusal['credit_returned_on']))}.")
        refused = store.parse_date(refusal.get("on"))
        if not isinstance(on, date) or on > clock.today() or (refused and on < refused):
            raise ValidationFailed({"on": "Data da devolução: da recusa até hoje."})
        held = [row for row in ledger.request_rows(db, municipality, doc) if row.charge_id and row.credit > 0]
        if not held:
            raise WrongStep(f"O pedido {doc['protocol']} não tem crédito a devolver.")
        total = Decimal("0.00")
        for row in held:
            ledger.refund(db, actor, municipality, row.charge_id, row.credit, on, note.strip(),
                          f"Pedido {doc['protocol']} recusado: crédito devolvido ({note.strip()})")
            total += row.credit
        return {"refusal": {**refusal, "credit_returned_on": on, "credit_returned": total,
                            "credit_note": note.strip()}}

    return booking_requests._change(db, actor, municipality, request_id, ("recusado",), build, "credit_returned")


def refusal_credit(rows: list[ledger.ChargeRow], doc: dict) -> Decimal:
    """What a refused request still owes back to the requester (what it had paid, now credit)."""
    if doc.get("status") != "recusado" or (doc.get("refusal") or {}).get("credit_returned_on"):
        return Decimal("0.00")
    return sum((row.credit for row in rows), Decimal("0.00"))
