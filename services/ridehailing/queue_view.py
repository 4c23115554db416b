"""The authorizations' part of Pendências kept as data (issue 21): a read model, not a recomputation.

Folding every authorization with its events through the rule set on each render cost about 1 s at
3.000 authorizations, and every save made the next render pay it again. Now each authorization's
pending items (what :func:`items_of` computes: the request to evaluate, the vistoria to present, the
5-day window, the fee and its DAM, the annual vistoria, the convocation, the renewal, the end of a
suspension) are documents of ``work_queue``, one per item, written by a projection
(``services.shared.views``) in the same unit of work as the change that moves them: the
authorization itself, or the charge or DAM of its fee. A parameter version (deadlines, holidays)
rebuilds the municipality's queue; one only the DAM reads (late charges, bank and PIX identity) does not.

Items also change with time alone (a deadline passes, a validity ends). Each authorization keeps, in
``work_queue_sources``, the day its items must be computed again (``refresh_on``): the day after the
next of its dates (items' due dates, the state's deadline or validity), at most a week ahead. The read
first refreshes the few whose day has come (one indexed query), then reads the items due up to the
horizon with one indexed query, earliest first, whatever the number of authorizations.
"""
from __future__ import annotations

import logging
from datetime import date, timedelta

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.dam import parameters as dam_parameters
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.fmt import brl
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from services import store
from services.ridehailing import authorization_lists, fees, queue_autos, queue_pages, registry
from services.ridehailing.queue_item import ITEMS, SOURCES, Pendencia, from_row, item_row
from services.shared import clock, views
from services.store import decode, ensure_indexes, parse_date

DAM_ONLY = frozenset({FINE_DAILY, FINE_MAX, INTEREST_MONTHLY, dam_parameters.FEBRABAN_CODE,
                      dam_parameters.VALUE_IDENTIFIER, dam_parameters.PIX_ENABLED, dam_parameters.PIX_KEY,
                      dam_parameters.PIX_MERCHANT_NAME, dam_parameters.PIX_MERCHANT_CITY})
EVALUATE = "Avaliar requerimento"  # dated by the protocol: no legal term, never "late"
HORIZONED = {"Vistoria anual", "Vistoria extraordinária", "Renovação"}  # an active authorization's items
MAX_AHEAD = timedelta(days=7)  # an authorization's items are computed again at least once a week
# The counts are data (``queue_pages``); each list order has its index, so a page is the first rows of an
# index whatever the length of the queue (a filter of kinds reads each kind's own, in due order).
INDEXES = {
    ITEMS: [([("municipality", 1), ("kind", 1), ("due_n", 1), ("protocol", 1)], {"name": "i_queue_kind"}),
            ([("municipality", 1), ("due_n", 1), ("protocol", 1)], {"name": "i_queue_due"}),
            ([("municipality", 1), ("plate", 1), ("due_n", 1), ("protocol", 1)], {"name": "i_queue_plate"}),
            ([("municipality", 1), ("protocol", 1), ("due_n", 1)], {"name": "i_queue_protocol"}),
            ([("authorization_id", 1)], {"name": "i_queue_authorization"}),
            ([("auto_id", 1)], {"name": "i_queue_auto"})],
    SOURCES: [([("municipality", 1), ("refresh_on", 1)], {"name": "i_queue_refresh"})],
    queue_pages.COUNTS: [([("municipality", 1), ("month", 1)], {"name": "i_queue_counts"})],
    "authorizations": [([("fee_dam.charge_id", 1)], {"name": "i_authorizations_fee_charge"})],
    "autos": [([("fine_dam.charge_id", 1)], {"name": "i_autos_fine_charge"})],
}
RETIRED = {ITEMS: ("i_queue_shown",)}  # indexes of an older queue (its dates were texts)
log = logging.getLogger(__name__)
PROJECTION = {**authorization_lists.ROW_FIELDS, "fee_dam": 1, "municipality": 1}


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


def items_of(doc: dict, on: date, scope: registry.Scope,
             bill: fees.FeeBill | None) -> tuple[list[tuple[date, str, str, str]], list[date]]:
    """(due, kind, message, reference) of one authorization on ``on``; and the state's own dates
    (deadline, validity), on which its items may change without a write. ``bill``: its fee, from its
    charge. An active authorization's items are listed however far ahead they fall: the queue shows
    them from ``HORIZON_DAYS`` before their due date (:data:`HORIZONED`); the others, always."""
    rules, book, calendar = scope.rules, scope.book, scope.calendar(on)
    state = scope.state(doc, on)
    status = state.status
    dates = [d for d in (state.deadline, state.valid_until) if d]
    # an event dated later (a penalty scheduled for the day its decision is final) moves the items on its day
    dates += [day_ - timedelta(days=1) for day_ in (parse_date(e["on"]) for e in doc.get("events", [])) if day_ > on]
    if status is Status.REQUESTED:
        return [(parse_date(doc["protocol_date"]), EVALUATE, "Requerimento protocolado aguardando análise", "")], dates
    if status is Status.AWAITING_INSPECTION:
        finding = state.findings[-1]
        return [(state.deadline, "Vistoria", finding.message, finding.reference)], dates
    if status is Status.BLOCKED:
        finding = state.findings[-1]
        return [(state.deadline, "Pendências da vistoria", finding.message, finding.reference)], dates
    if status is Status.AWAITING_FEE:
        if bill and not bill.paid:
            return [(bill.due or on, "Taxa", _fee_message(bill, "da taxa"), rules.ref("fee"))], dates
        if bill:  # the charge is paid; the DAM's outbox issues the authorization (at start, or on retry)
            return [(on, "Taxa", "Taxa paga: expedição da autorização pendente, refeita automaticamente",
                     rules.ref("fee"))], dates
        return [(_last(doc, EventKind.INSPECTION_PASSED) or on, "Taxa", "Emitir o DAM da taxa de autorização",
                 rules.ref("fee"))], dates
    if status is Status.SUSPENDED:
        return [(state.deadline, "Suspensão", f"Suspensão termina em {state.deadline:%d/%m/%Y}",
                 rules.ref("suspension"))], dates
    if status is not Status.ACTIVE:
        return [], dates
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
    return items, dates


def _refresh_on(on: date, dates: list[date]) -> date:
    """The day after the next of ``dates`` still to come (today's included), at most a week ahead."""
    ahead = [d for d in dates if d >= on]
    return min(min(ahead) + timedelta(days=1), on + MAX_AHEAD) if ahead else on + MAX_AHEAD


def refresh(db: Database, municipality: str, ids: list[str], on: date) -> None:
    """Compute again the items of the authorizations ``ids`` (ids of removed ones drop theirs)."""
    if not ids:
        return
    scope = registry.Scope(db, municipality)
    docs = []
    for raw in db["authorizations"].find({"_id": {"$in": [ObjectId(i) for i in ids]}}, PROJECTION):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        docs.append(doc)
    bills = fees.bills_of(db, docs)
    rows, sources = [], []
    for doc in docs:
        try:
            found, dates = items_of(doc, on, scope, bills.get(doc["id"]))
        except KeyError as missing:  # a record without what the rule set folds (an old or partial copy)
            log.warning("authorization %s left out of Pendências: no %s", doc["id"], missing)
            continue
        rows += [item_row(municipality, due, kind, message, reference, protocol=doc.get("protocol", ""),
                          plate=doc.get("plate", ""), driver_cpf=doc.get("driver_cpf", ""),
                          horizoned=kind in HORIZONED, late_able=kind != EVALUATE, authorization_id=doc["id"])
                 for due, kind, message, reference in found]
        sources.append((doc["id"], _refresh_on(on, dates + [item[0] for item in found])))
    queue_pages.replace(db, municipality, "authorization_id", ids, rows)
    kept = {doc["id"] for doc in docs}
    db[SOURCES].delete_many({"_id": {"$in": [i for i in ids if i not in kept]}})
    for auth_id, when in sources:
        db[SOURCES].update_one({"_id": auth_id}, {"$set": {"municipality": municipality,
                                                           "refresh_on": when.isoformat()}}, upsert=True)


def _touched(db: Database, municipality: str | None, collection: str, doc_id: str | None) -> None:
    """The authorizations or autos a write moved: the one written, or those whose fee or fine is the
    charge or DAM written."""
    if not municipality or not doc_id:
        return
    if collection == "parameters":
        if _moves_items(db, doc_id):
            rebuild(db, municipality)
        return
    if collection == "autos":
        queue_autos.refresh(db, municipality, [doc_id], clock.today())
        return
    if collection == "authorizations":
        ids = [doc_id]
    else:
        charge_id = doc_id
        if collection == "dams":
            try:
                dam = db["dams"].find_one({"_id": ObjectId(doc_id)}, {"charge_id": 1})
            except (InvalidId, TypeError):  # an id that is not a DAM's moves no authorization
                return
            charge_id = str((dam or {}).get("charge_id") or "")
        if not charge_id:
            return
        ids = [str(a["_id"]) for a in db["authorizations"].find({"fee_dam.charge_id": charge_id}, {"_id": 1})]
        queue_autos.refresh(db, municipality, queue_autos.of_charge(db, charge_id), clock.today())
    refresh(db, municipality, ids, clock.today())


def _moves_items(db: Database, parameter_id: str) -> bool:
    """Whether a parameter version may move the queue's items: any but the DAM's own (its late charges, the
    bank's and PIX's identity, revenue codes), which no item reads (its amounts are the stored bills')."""
    try:
        doc = db["parameters"].find_one({"_id": ObjectId(parameter_id)}, {"name": 1})
    except (InvalidId, TypeError):
        return True
    name = str((doc or {}).get("name") or "")
    return not (name in DAM_ONLY or name.startswith(dam_parameters.REVENUE_CODE_PREFIX))


def rebuild(db: Database, municipality: str) -> None:
    """Every authorization's and auto's items of the municipality, from scratch."""
    ensure_indexes(db, INDEXES)
    held = db[ITEMS].index_information()
    for name in RETIRED[ITEMS]:
        if name in held:
            db[ITEMS].drop_index(name)
    queue_pages.forget(db, municipality)
    db[SOURCES].delete_many({"municipality": municipality})
    ids = [str(a["_id"]) for a in db["authorizations"].find({"municipality": municipality}, {"_id": 1})]
    for start in range(0, len(ids), 500):
        refresh(db, municipality, ids[start:start + 500], clock.today())
    queue_autos.rebuild(db, municipality, clock.today())


# 2: the autos' items too, the days as numbers, and the counts; 3: the counts per due month
views.register(views.View("work_queue", ("authorizations", "autos", "charges", "dams", "parameters"), _touched,
                          rebuild, version=3))


def refresh_due(db: Database, municipality: str, on: date) -> None:
    """Compute again the items of the authorizations and autos whose day has come (one indexed query)."""
    due = [s["_id"] for s in db[SOURCES].find({"municipality": municipality, "refresh_on": {"$lte": on.isoformat()}},
                                              {"_id": 1})]
    if due:
        with store.transaction(db):
            refresh(db, municipality, [i for i in due if not i.startswith(queue_autos.PREFIX)], on)
            queue_autos.refresh(db, municipality, [i[len(queue_autos.PREFIX):] for i in due
                                                   if i.startswith(queue_autos.PREFIX)], on)


def pending(db: Database, municipality: str, on: date, kinds: tuple[str, ...] = ()) -> list[Pendencia]:
    """Every item kept as data shown on ``on`` (earliest first; only those of ``kinds`` when given),
    after computing again those whose day has come. The lists page through ``queue_pages`` instead."""
    refresh_due(db, municipality, on)
    query: dict = {"municipality": municipality, "shown_n": {"$lte": on.toordinal()}}
    if kinds:  # the store leaves the others out: only the items shown are decoded
        query["kind"] = {"$in": list(kinds)}
    return [from_row(decode(raw), on) for raw in db[ITEMS].find(query).sort([("due_n", 1), ("protocol", 1)])]
