"""What awaits action in the machinery module (pendências, Decreto 017/2026, Nova Lacerda): requests
awaiting visit, social report, quote, payment or schedule; balances due or overdue (art. 8 §2);
credits to return. One query over ``booking_requests``, whatever their number."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules.fmt import brl
from services.machinery.booking_requests import OPEN, REQUESTS
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.store import decode, parse_date


@dataclass(frozen=True)
class PendingItem:
    """One thing awaiting action in the module (pendências)."""

    on: date
    title: str
    detail: str
    record_id: str
    overdue: bool = False


@checked
def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[PendingItem]:
    """Awaiting visit, social report, quote, payment, schedule; balances due/overdue; credits to
    return. One query, whatever the number of requests."""
    authorize(actor, "read", municipality)
    items: list[PendingItem] = []
    fields_ = {"protocol": 1, "status": 1, "requested_on": 1, "requester.name": 1, "payment.instalments": 1,
               "settlement": 1, "social_report": 1, "schedule.day": 1}
    query = {"municipality": municipality, "$or": [{"status": {"$in": list(OPEN)}}, {"settlement_open": True}]}
    for raw in db[REQUESTS].find(query, fields_):
        doc = decode(raw)
        rid, protocol, name = str(doc["_id"]), doc["protocol"], doc["requester"]["name"]
        requested_on = parse_date(doc["requested_on"])
        status = doc["status"]
        head = f"Pedido {protocol} — {name}"
        if status == "aguardando_vistoria":
            items.append(PendingItem(requested_on, "Aguardando vistoria técnica", head, rid))
        elif status == "aguardando_parecer":
            asked = parse_date((doc.get("social_report") or {}).get("requested_on")) or requested_on
            items.append(PendingItem(asked, "Aguardando parecer social", f"{head} (pedido à Assistência Social)", rid))
        elif status == "aguardando_orcamento":
            items.append(PendingItem(requested_on, "Aguardando orçamento", head, rid))
        elif status == "aguardando_pagamento":
            unpaid = [i for i in (doc.get("payment") or {}).get("instalments", [])
                      if i.get("dam_id") and not i.get("paid_on")]
            if not unpaid:
                items.append(PendingItem(requested_on, "Aguardando emissão dos DAMs", head, rid))
            for inst in unpaid:
                due = parse_date(inst["due"])
                items.append(PendingItem(due, "Pagamento vencido" if due < on else "Aguardando pagamento",
                                         f"{head}: {inst['label']}, DAM {inst['dam_number']}, {brl(inst['amount'])}",
                                         rid, due < on))
        elif status == "a_agendar":
            items.append(PendingItem(requested_on, "A agendar", head, rid))
        settlement = doc.get("settlement") or {}
        if settlement.get("dam_id") and not settlement.get("paid_on"):
            due = parse_date(settlement["due"]) or on
            items.append(PendingItem(due, "Saldo vencido" if due < on else "Saldo a pagar",
                                     f"{head}: DAM {settlement['dam_number']}, {brl(settlement['amount_due'])}", rid,
                                     due < on))
        if settlement.get("credit_to_return") and not settlement.get("credit_returned_on"):
            items.append(PendingItem(parse_date(settlement["completed_on"]), "Crédito a devolver",
                                     f"{head}: {brl(settlement['credit_to_return'])}", rid))
    return sorted(items, key=lambda i: (i.on, i.title))
