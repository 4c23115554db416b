"""The machinery module's Pendências as they were computed on each render before they were kept as data
(issue 21): every open request and every charge they name read and folded. Kept only as the oracle of
``tests/test_machinery_queue_view.py``."""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules.dam import charges as charge_rules
from rules.fmt import brl, day
from services.machinery import ledger
from services.machinery.booking_requests import OPEN, REQUESTS
from services.machinery.pending import PendingItem
from services.store import decode, parse_date


def _money_item(head: str, row: ledger.ChargeRow, rid: str, on: date) -> PendingItem:
    """What a part still owed awaits: a new DAM (its DAM was cancelled), the difference of a short
    payment, or the payment of the DAM out; overdue from the charge's due date (art. 8 §4)."""
    balance = row.part == ledger.SETTLEMENT
    overdue = row.due_on < on
    what = f"{head}: {row.label}" if not balance else head
    if row.status == charge_rules.SHORT:
        then = "emitir DAM da diferença" if row.issuable else f"DAM {row.dam_number} da diferença a pagar"
        return PendingItem(row.due_on, "Saldo pago a menor" if balance else "Pago a menor",
                           f"{what}, falta {brl(row.open)} — {then}", rid, overdue)
    if row.issuable:
        return PendingItem(row.due_on, "DAM do saldo cancelado — emitir novo DAM" if balance
                           else "DAM cancelado — emitir novo DAM",
                           f"{what}, DAM {row.dam_number} cancelado, {brl(row.open)}", rid, overdue)
    if balance:
        title = "Saldo vencido" if overdue else "Saldo a pagar"
    else:
        title = "Pagamento vencido" if overdue else "Aguardando pagamento"
    dam = f"DAM {row.dam_number}" + (f" (vence {day(row.dam_due)})" if row.dam_due and row.dam_due != row.due_on
                                     else "")
    return PendingItem(row.due_on, title, f"{what}, {dam}, {brl(row.open)}", rid, overdue)


def pending(db: Database, municipality: str, on: date) -> list[PendingItem]:
    """Awaiting visit, social report, quote, payment (a new DAM, a difference), schedule; balances
    due/overdue; credits to return. Two queries (the requests, then their charges), whatever the
    number of requests."""
    items: list[PendingItem] = []
    fields_ = {"protocol": 1, "status": 1, "requested_on": 1, "requester.name": 1, "payment.instalments": 1,
               "settlement": 1, "social_report": 1, "schedule.day": 1}
    query = {"municipality": municipality, "$or": [{"status": {"$in": list(OPEN)}}, {"settlement_open": True}]}
    docs = [decode(raw) for raw in db[REQUESTS].find(query, fields_)]
    stored = ledger.charges_of(db, municipality, docs)
    for doc in docs:
        rid, protocol, name = str(doc["_id"]), doc["protocol"], doc["requester"]["name"]
        requested_on = parse_date(doc["requested_on"])
        status = doc["status"]
        head = f"Pedido {protocol} — {name}"
        owed = [row for row in ledger.rows_of(doc, stored) if row.owing]
        if status == "aguardando_vistoria":
            items.append(PendingItem(requested_on, "Aguardando vistoria técnica", head, rid))
        elif status == "aguardando_parecer":
            asked = parse_date((doc.get("social_report") or {}).get("requested_on")) or requested_on
            items.append(PendingItem(asked, "Aguardando parecer social", f"{head} (pedido à Assistência Social)", rid))
        elif status == "aguardando_orcamento":
            items.append(PendingItem(requested_on, "Aguardando orçamento", head, rid))
        elif status == "aguardando_pagamento" and not (doc.get("payment") or {}).get("instalments"):
            items.append(PendingItem(requested_on, "Aguardando emissão dos DAMs", head, rid))
        elif status == "a_agendar":
            items.append(PendingItem(requested_on, "A agendar", head, rid))
        items += [_money_item(head, row, rid, on) for row in owed]
        settlement = doc.get("settlement") or {}
        if settlement.get("credit_to_return") and not settlement.get("credit_returned_on"):
            items.append(PendingItem(parse_date(settlement["completed_on"]), "Crédito a devolver",
                                     f"{head}: {brl(settlement['credit_to_return'])}", rid))
    return sorted(items, key=lambda i: (i.on, i.title))
