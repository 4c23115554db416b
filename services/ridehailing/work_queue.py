"""Pendências: one work queue of what is due or late in the ride-hailing registry, with dates.

Each item comes from an authorization's status on the day (the rule set folds its events) and
from the deadlines the rule set computes: requests to evaluate, vehicles to present for
vistoria, 5-day windows after a failed vistoria, fees to charge or unpaid fee DAMs, annual
vistorias and renewals inside the horizon, convocations and suspensions ending, and changes of
drivers' and vehicles' data reported late or not reported. The platforms' lists and trip data
requests (``platform_lists``, ``trip_data``) and the autos de infração (``enforcement.autos``) add
their own items.
"""
from __future__ import annotations

from datetime import date, timedelta

from pymongo.database import Database

from rules.fmt import brl
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from services.ridehailing import (
    authorization_lists,
    changes,
    fees,
    platform_lists,
    registry,
    trip_data,
)
from services.ridehailing.enforcement import lists as auto_lists
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import fields
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.store import decode, parse_date

EVALUATE = "Avaliar requerimento"  # dated by the protocol: no legal term, never "late"
DATA_CHANGE = "Alteração de dados"


def _last(doc: dict, kind: EventKind) -> date | None:
    dates = [parse_date(e["on"]) for e in doc.get("events", []) if e["kind"] == kind.value]
    return max(dates) if dates else None


def _fee_message(bill: fees.FeeBill, what: str) -> str:
    """What the fee waits for, from its charge: the DAM to pay (the first, a 2ª via, the DAM of the
    difference of a short payment), a difference without its DAM yet, or a new DAM after a cancelled one."""
    live, short = bill.live, bill.short
    if live and short:
        return (f"DAM complementar {live['number']} {what} ({brl(live['amount'])}) aguardando pagamento; o DAM "
                f"{short['dam_number']} foi pago a menor")
    if live:
        return f"DAM {live['number']} {what} aguardando pagamento"
    if short:
        return fees.shortfall_text(short)
    return f"DAM {what} cancelado: emitir novo DAM ({brl(bill.open)} em aberto)"


def _items(doc: dict, on: date, scope: registry.Scope,
           bill: fees.FeeBill | None) -> list[tuple[date, str, str, str]]:
    """(due, kind, message, reference) of one authorization on ``on``; ``bill``: its fee, from its charge."""
    rules, book, calendar = scope.rules, scope.book, scope.calendar(on)
    state = scope.state(doc, on)
    status = state.status
    if status is Status.REQUESTED:
        return [(parse_date(doc["protocol_date"]), EVALUATE, "Requerimento protocolado aguardando análise",
                 "")]
    if status is Status.AWAITING_INSPECTION:
        finding = state.findings[-1]
        return [(state.deadline, "Vistoria", finding.message, finding.reference)]
    if status is Status.BLOCKED:
        finding = state.findings[-1]
        return [(state.deadline, "Pendências da vistoria", finding.message, finding.reference)]
    if status is Status.AWAITING_FEE:
        if bill and not bill.paid:
            return [(bill.due or on, "Taxa", _fee_message(bill, "da taxa"), rules.ref("fee"))]
        if bill:  # the charge is paid; the DAM's outbox issues the authorization (at start, or on retry)
            return [(on, "Taxa", "Taxa paga: expedição da autorização pendente, refeita automaticamente",
                     rules.ref("fee"))]
        return [(_last(doc, EventKind.INSPECTION_PASSED) or on, "Taxa", "Emitir o DAM da taxa de autorização",
                 rules.ref("fee"))]
    if status is Status.SUSPENDED:
        return [(state.deadline, "Suspensão", f"Suspensão termina em {state.deadline:%d/%m/%Y}", rules.ref("suspension"))]
    if status is not Status.ACTIVE:
        return []
    items = []
    annual = rules.next_inspection_due(_last(doc, EventKind.INSPECTION_PASSED), calendar)
    items.append((annual, "Vistoria anual", f"Vistoria anual até {annual:%d/%m/%Y}", rules.ref("annual_inspection")))
    called = _last(doc, EventKind.INSPECTION_CALLED)
    if called and called > (_last(doc, EventKind.INSPECTION_PASSED) or called):
        deadline = rules.convocation_deadline(called, book, calendar)
        items.append((deadline, "Vistoria extraordinária", f"Comparecer à vistoria convocada até {deadline:%d/%m/%Y}",
                      rules.ref("convocation")))
    if fees.pending_renewal(doc):
        unpaid = bill is not None and bill.purpose == "renewal" and not bill.paid
        items.append(((bill.due or on) if unpaid else on, "Renovação",
                      _fee_message(bill, "da renovação") if unpaid
                      else "Emitir o DAM da renovação requerida", rules.ref("renewal")))
    else:
        deadline = rules.renewal_deadline(state.valid_until, book, calendar)
        items.append((deadline, "Renovação", f"Requerer a renovação até {deadline:%d/%m/%Y} (vence em "
                      f"{state.valid_until:%d/%m/%Y})", rules.ref("renewal")))
    return [item for item in items if item[0] <= on + timedelta(days=HORIZON_DAYS)]


def _data_changes(db: Database, actor: Actor, municipality: str, on: date,
                  scope: registry.Scope) -> list[Pendencia]:
    """Changes of data reported late or not reported (CG art. 18 XIX; MP art. 12 XX)."""
    items = []
    for change in changes.open_irregular(db, actor, municipality, on, scope.calendar(on)):
        whose = (f"Veículo {fields.show('plate', change.subject)}" if change.collection == "vehicles"
                 else f"Condutor CPF {fields.show('cpf', change.subject)}")
        items.append(Pendencia(change.deadline, DATA_CHANGE, "", change.subject if change.collection == "vehicles"
                               else "", change.driver_cpf, f"{whose} — {change.finding.message} ({change.fields_text})",
                               change.finding.reference, not change.finding.ok, ""))
    return items


@checked
def pendencias(db: Database, actor: Actor, municipality: str, on: date) -> list[Pendencia]:
    """Everything due up to ``HORIZON_DAYS`` ahead or already late on ``on``, earliest first."""
    authorize(actor, "read", municipality)
    scope = registry.Scope(db, municipality)
    queue = _data_changes(db, actor, municipality, on, scope)
    queue += platform_lists.pending(db, actor, municipality, on)
    queue += trip_data.pending(db, actor, municipality, on)
    projection = {**authorization_lists.ROW_FIELDS, "fee_dam": 1}
    docs = []
    for raw in db["authorizations"].find({"municipality": municipality}, projection):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        docs.append(doc)
    bills = fees.bills_of(db, docs)  # the fees' charges, read at once
    for doc in docs:
        for due, kind, message, reference in _items(doc, on, scope, bills.get(doc["id"])):
            queue.append(Pendencia(due, kind, doc["protocol"], doc["plate"], doc["driver_cpf"], message, reference,
                                   due < on and kind != EVALUATE, doc["id"]))
    queue += auto_lists.pending(db, actor, municipality, on)  # the autos de infração's deadlines
    return sorted(queue, key=lambda p: (p.due, p.protocol))
