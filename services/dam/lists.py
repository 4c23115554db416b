"""The DAM list: filters, one page counted in the store, every DAM of a filter, and its CSV and XLSX.

``vencido`` is not stored (:mod:`services.dam.dams`): the filter asks for an issued DAM whose due
date has passed. A page reads only the fields the list shows, in index order (the list's filters
followed by :data:`SORT`, ``services.dam.dams.INDEXES``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from pymongo.database import Database

from services.dam import dams, payments
from services.shared import clock, exports, fields, list_counts
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.schema import Page


@dataclass(frozen=True)
class DamQuery:
    """Filters of the DAM list. ``status`` is a key of ``dams.SITUATIONS``; the period applies to
    ``date_field`` (``issued_on`` or ``due_on``), both ends included."""

    search: str = ""
    status: str = ""
    revenue_kind: str = ""
    start: date | None = None
    end: date | None = None
    date_field: str = "issued_on"
    page: int = 1
    per_page: int = 25


def _mongo_query(municipality: str, query: DamQuery, today: date) -> dict:
    mongo: dict[str, Any] = {"municipality": municipality}
    ranges: dict[str, dict[str, str]] = {}
    if query.status == dams.OVERDUE:
        mongo["status"] = dams.ISSUED
        ranges.setdefault("due_on", {})["$lt"] = today.isoformat()
    elif query.status == dams.ISSUED:
        mongo["status"] = dams.ISSUED
        ranges.setdefault("due_on", {})["$gte"] = today.isoformat()
    elif query.status:
        mongo["status"] = query.status
    if query.revenue_kind:
        mongo["revenue_kind"] = query.revenue_kind
    field = query.date_field if query.date_field in ("issued_on", "due_on") else "issued_on"
    if query.start:
        earliest = ranges.setdefault(field, {}).get("$gte", "")
        ranges[field]["$gte"] = max(query.start.isoformat(), earliest)  # "a vencer" and a period on due_on: later start
    if query.end:
        ranges.setdefault(field, {})["$lte"] = query.end.isoformat()
    mongo.update(ranges)
    term = query.search.strip()
    if term:
        ors: list[dict] = [{name: {"$regex": re.escape(term), "$options": "i"}} for name in ("taxpayer_name", "number")]
        digits = fields.digits(term)
        if digits:
            ors.append({"taxpayer_document": {"$regex": re.escape(digits)}})
        mongo["$or"] = ors
    return mongo


SORT = [("year", -1), ("sequence", -1)]
# What the list shows (table, labels, batch choice): read nothing else from the store.
LIST_FIELDS = {name: 1 for name in ("number", "taxpayer_name", "taxpayer_document", "revenue_kind", "amount",
                                    "issued_on", "due_on", "status", "payment")}
EXPORT_FIELDS = {**LIST_FIELDS, "description": 1, "line": 1}


@checked
def list_page(db: Database, actor: Actor, municipality: str, query: DamQuery) -> Page:
    """One page of DAMs matching the filters, newest number first, paged and counted in the store,
    with only the fields the list shows (``dams.get`` reads a whole DAM)."""
    authorize(actor, "read", municipality)
    mongo = _mongo_query(municipality, query, clock.today())
    total = list_counts.counted(db[dams.COLLECTION], mongo)
    page = max(1, min(query.page, list_counts.pages(total, query.per_page)))
    cursor = (db[dams.COLLECTION].find(mongo, LIST_FIELDS).sort(SORT)
              .skip((page - 1) * query.per_page).limit(query.per_page))
    return Page([dams.plain(d) for d in cursor], total, page, query.per_page)


@checked
def list_all(db: Database, actor: Actor, municipality: str, query: DamQuery,
             fields_shown: dict[str, int] | None = None) -> list[dict]:
    """Every DAM matching the filters (export, batch print), in the list's order, with the list's
    fields (or ``fields_shown``)."""
    authorize(actor, "read", municipality)
    cursor = db[dams.COLLECTION].find(_mongo_query(municipality, query, clock.today()),
                                      fields_shown or LIST_FIELDS)
    return [dams.plain(d) for d in cursor.sort(SORT)]


@checked
def ids_to_print(db: Database, actor: Actor, municipality: str, query: DamQuery) -> list[str]:
    """The ids of the DAMs of the filter that can be printed (not cancelled), in the list's order."""
    authorize(actor, "read", municipality)
    mongo = {**_mongo_query(municipality, query, clock.today())}
    if mongo.get("status") == dams.CANCELLED:
        return []
    mongo.setdefault("status", {"$ne": dams.CANCELLED})
    return [str(d["_id"]) for d in db[dams.COLLECTION].find(mongo, {"_id": 1}).sort(SORT)]


EXPORT_COLUMNS = ("Número", "Contribuinte", "CPF/CNPJ", "Receita", "Descrição", "Valor", "Emissão", "Vencimento",
                  "Situação", "Pago em", "Valor pago", "Alertas do pagamento", "Linha digitável")


def _export_rows(db: Database, actor: Actor, municipality: str, query: DamQuery) -> list[dict[str, Any]]:
    """Exactly the DAMs the filter shows, one typed row each (pt-BR headers; dates, money as Decimal)."""
    rows = []
    for dam in list_all(db, actor, municipality, query, EXPORT_FIELDS):
        payment = dam.get("payment") or {}
        rows.append(dict(zip(EXPORT_COLUMNS, (
            dam["number"], dam["taxpayer_name"], fields.show("cpf_cnpj", dam["taxpayer_document"]),
            dams.REVENUE_KINDS.get(dam["revenue_kind"], dam["revenue_kind"]), dam["description"],
            dam["amount"], dam["issued_on"], dam["due_on"], dams.SITUATIONS[dam["situation"]],
            payment.get("paid_on"), payment.get("amount"), payments.flag_text(payment), dam["line"],
        ))))
    return rows


@checked
def export_csv(db: Database, actor: Actor, municipality: str, query: DamQuery) -> bytes:
    """Exactly the DAMs the filter shows, pt-BR formats, ';' separated, UTF-8 with BOM."""
    return exports.to_csv(_export_rows(db, actor, municipality, query), EXPORT_COLUMNS)


@checked
def export_xlsx(db: Database, actor: Actor, municipality: str, query: DamQuery) -> bytes:
    """The rows of :func:`export_csv` as an XLSX sheet (dates as dates, amounts in R$)."""
    return exports.to_xlsx(_export_rows(db, actor, municipality, query), EXPORT_COLUMNS, sheet="DAMs")

