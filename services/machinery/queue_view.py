"""The machinery module's Pendências kept as data (issue 21): a read model, not a recomputation.

Reading every open request of Nova Lacerda and every charge they name on each render cost about
330 ms at benchmark scale 10 (1.100 requests, 700 charges) and grew with the data. Now each request's
pending items (what :func:`items_of` computes: the visit, the social report, the quote, the DAMs to
issue, the schedule; each part still owed — a new DAM after a cancelled one, the difference of a short
payment, the DAM to pay, art. 8 §2-§4 —; the credit to return) are documents of ``machinery_queue``,
one per item, written by a projection (``services.shared.views``) in the same unit of work as the
change that moves them: the request itself (audited), or one of its charges (``services.dam.charges``
touches the charge; its ``owner`` names the request). A DAM write moves no item on its own: what a
row shows of a DAM (number, due date, live or not) is copied into its charge, which is written with it.

Only whether a part still owed is overdue changes with time alone: each money item keeps its due
date (``due``) and both titles (``title``, ``late_title``), and the read decides on the day asked.
"""
from __future__ import annotations

import weakref
from datetime import date

from pymongo.database import Database

from rules.dam import charges as charge_rules
from rules.fmt import brl, day
from services.machinery import booking_requests, ledger
from services.machinery.booking_requests import OPEN, REQUESTS
from services.shared import views
from services.store import decode, encode, ensure_indexes, parse_date

ITEMS = "machinery_queue"
# Days also as numbers (``on_n``; ``due_n``, NEVER for an item never overdue): the page reads the first
# rows of the first index and counts from the second alone (a range on a text also reads the document).
NEVER = date.max.toordinal()
INDEXES = {ITEMS: [([("municipality", 1), ("on_n", 1), ("title", 1)], {"name": "i_machinery_queue_page"}),
                   ([("municipality", 1), ("due_n", 1), ("on_n", 1)], {"name": "i_machinery_queue_due"}),
                   ([("request_id", 1)], {"name": "i_machinery_queue_request"})]}
RETIRED = ("i_machinery_queue_on",)  # the first queue's (its days were texts)
FIELDS = {"municipality": 1, "protocol": 1, "status": 1, "requested_on": 1, "requester.name": 1,
          "payment.instalments": 1, "settlement": 1, "social_report": 1, "settlement_open": 1}
BATCH = 500
_prepared: weakref.WeakSet = weakref.WeakSet()


def prepare(db: Database) -> None:
    """Create the items' indexes (idempotent), once per database handle."""
    if db not in _prepared:
        ensure_indexes(db, INDEXES)
        _prepared.add(db)


def _item(on, title: str, detail: str, rid: str, due=None, late_title: str | None = None) -> dict:
    """One item as stored: its date, title, detail and request; ``due`` (a part still owed) the day
    after which it is overdue, with ``late_title`` the title it then takes."""
    return {"on": on, "title": title, "late_title": late_title or title, "detail": detail, "request_id": rid,
            "due": due, "on_n": on.toordinal() if on else 0, "due_n": due.toordinal() if due else NEVER}


def _money_item(head: str, row: ledger.ChargeRow, rid: str) -> dict:
    """What a part still owed awaits: a new DAM (its DAM was cancelled), the difference of a short
    payment, or the payment of the DAM out; overdue from the charge's due date (art. 8 §4)."""
    balance = row.part == ledger.SETTLEMENT
    what = f"{head}: {row.label}" if not balance else head
    if row.status == charge_rules.SHORT:
        then = "emitir DAM da diferença" if row.issuable else f"DAM {row.dam_number} da diferença a pagar"
        return _item(row.due_on, "Saldo pago a menor" if balance else "Pago a menor",
                     f"{what}, falta {brl(row.open)} — {then}", rid, row.due_on)
    if row.issuable:
        return _item(row.due_on, "DAM do saldo cancelado — emitir novo DAM" if balance
                     else "DAM cancelado — emitir novo DAM",
                     f"{what}, DAM {row.dam_number} cancelado, {brl(row.open)}", rid, row.due_on)
    title, late = ("Saldo a pagar", "Saldo vencido") if balance else ("Aguardando pagamento", "Pagamento vencido")
    dam = f"DAM {row.dam_number}" + (f" (vence {day(row.dam_due)})" if row.dam_due and row.dam_due != row.due_on
                                     else "")
    return _item(row.due_on, title, f"{what}, {dam}, {brl(row.open)}", rid, row.due_on, late)


def pending_now(doc: dict) -> bool:
    """Whether a stored request can await action: open, or completed with something still to settle."""
    return doc.get("status") in OPEN or bool(doc.get("settlement_open"))


def items_of(doc: dict, stored: dict[str, dict]) -> list[dict]:
    """The pending items of one request (``doc`` as stored, decoded; ``stored``: its charges by id)."""
    if not pending_now(doc):
        return []
    items: list[dict] = []
    rid, protocol, name = str(doc["_id"]), doc["protocol"], doc["requester"]["name"]
    requested_on = parse_date(doc["requested_on"])
    status = doc["status"]
    head = f"Pedido {protocol} — {name}"
    owed = [row for row in ledger.rows_of(doc, stored) if row.owing]
    if status == "aguardando_vistoria":
        items.append(_item(requested_on, "Aguardando vistoria técnica", head, rid))
    elif status == "aguardando_parecer":
        asked = parse_date((doc.get("social_report") or {}).get("requested_on")) or requested_on
        items.append(_item(asked, "Aguardando parecer social", f"{head} (pedido à Assistência Social)", rid))
    elif status == "aguardando_orcamento":
        items.append(_item(requested_on, "Aguardando orçamento", head, rid))
    elif status == "aguardando_pagamento" and not (doc.get("payment") or {}).get("instalments"):
        items.append(_item(requested_on, "Aguardando emissão dos DAMs", head, rid))
    elif status == "a_agendar":
        items.append(_item(requested_on, "A agendar", head, rid))
    items += [_money_item(head, row, rid) for row in owed]
    settlement = doc.get("settlement") or {}
    if settlement.get("credit_to_return") and not settlement.get("credit_returned_on"):
        items.append(_item(parse_date(settlement["completed_on"]), "Crédito a devolver",
                           f"{head}: {brl(settlement['credit_to_return'])}", rid))
    return items


def refresh(db: Database, municipality: str, ids: list[str]) -> None:
    """Replace the items of the requests ``ids`` of ``municipality`` (a request gone drops its items)."""
    oids = [views.source_key(rid) for rid in ids]
    docs = [decode(raw) for raw in db[REQUESTS].find({"_id": {"$in": oids}, "municipality": municipality}, FIELDS)]
    docs = [doc for doc in docs if pending_now(doc)]
    prepare(db)
    stored = ledger.charges_of(db, municipality, docs)
    rows = [{"municipality": municipality, **item} for doc in docs for item in items_of(doc, stored)]
    db[ITEMS].delete_many({"request_id": {"$in": [str(o) for o in oids]}})
    if rows:
        db[ITEMS].insert_many([encode(row) for row in rows])


def _request_of_charge(db: Database, charge_id: str) -> str | None:
    """The request a charge belongs to (its ``owner``), or None for a charge of another record."""
    charge = db["charges"].find_one({"_id": views.source_key(charge_id)}, {"owner": 1})
    owner = (charge or {}).get("owner") or {}
    return str(owner["id"]) if owner.get("collection") == REQUESTS and owner.get("id") else None


def project(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """Follow one write: the request written, or the request whose charge was written."""
    if not municipality or not doc_id:
        return
    rid = str(doc_id) if collection == REQUESTS else _request_of_charge(db, doc_id)
    if rid:
        refresh(db, municipality, [rid])


def rebuild(db: Database, municipality: str) -> None:
    """Every request's items of the municipality, from scratch (nothing where the module is off)."""
    if not booking_requests.runs_module(db, municipality):
        return
    ensure_indexes(db, INDEXES)
    _prepared.add(db)
    held = db[ITEMS].index_information()
    for name in RETIRED:
        if name in held:
            db[ITEMS].drop_index(name)
    db[ITEMS].delete_many({"municipality": municipality})
    query = {"municipality": municipality, "$or": [{"status": {"$in": list(OPEN)}}, {"settlement_open": True}]}
    ids = [str(d["_id"]) for d in db[REQUESTS].find(query, {"_id": 1})]
    for start in range(0, len(ids), BATCH):
        refresh(db, municipality, ids[start:start + BATCH])


views.register(views.View("machinery_queue", (REQUESTS, "charges"), project, rebuild, version=2))  # 2: days as numbers


def _decoded(raw: dict) -> dict:
    row = decode(raw)
    row["on"], row["due"] = parse_date(row.get("on")), parse_date(row.get("due"))
    return row


def stored_items(db: Database, municipality: str) -> list[dict]:
    """The municipality's items as stored, earliest first: one query by the index."""
    return [_decoded(raw) for raw in db[ITEMS].find({"municipality": municipality}).sort([("on_n", 1), ("title", 1)])]


def query(municipality: str, on: date, overdue: bool | None = None, until: date | None = None) -> dict:
    """The items overdue on ``on`` (``overdue`` True), the others (False) or all; dated up to ``until``."""
    found: dict = {"municipality": municipality}
    if overdue is not None:
        found["due_n"] = {"$lt": on.toordinal()} if overdue else {"$gte": on.toordinal()}
    if until is not None:
        found["on_n"] = {"$lte": until.toordinal()}
    return found


def count(db: Database, municipality: str, on: date, overdue: bool | None = None, until: date | None = None) -> int:
    """How many items pass: one count on an index."""
    return db[ITEMS].count_documents(query(municipality, on, overdue, until))


def first(db: Database, municipality: str, on: date, limit: int, skip: int = 0, overdue: bool | None = None,
          until: date | None = None) -> list[dict]:
    """The first items that pass, earliest first (``skip`` of them left out): the first rows of an index."""
    if limit <= 0:  # a limit of 0 is no limit to the store
        return []
    cursor = db[ITEMS].find(query(municipality, on, overdue, until)).sort([("on_n", 1), ("title", 1)])
    return [_decoded(raw) for raw in cursor.skip(skip).limit(limit)]
