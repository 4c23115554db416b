"""Débitos: the charges a municipality is still owed, by how long they are overdue ("vencido há"),
their totals per age bucket and revenue, one charge, and the list's CSV and XLSX.

Owed means a status of ``rules.dam.charges.OWING`` (em aberto, pago a menor, inscrito em dívida
ativa). A page of the list is read by the index (municipality, status, due_on)
(``services.dam.charges.INDEXES``): the age bucket is a range of due dates, the oldest due first,
counted and paged in the store, with only the fields the list shows. The totals read the same
filter once, four fields of each charge (the store offers no aggregation pipeline,
docs/DESENVOLVIMENTO.md): one query whatever the number of charges. The dívida ativa is in
:mod:`services.dam.active_debt`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.dam import charges as rules
from services.dam import aging_view, charges
from services.dam.dams import REVENUE_KINDS
from services.shared import clock, exports, fields, list_counts
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.schema import Page
from services.store import decode, encode, parse_date

ZERO = Decimal("0.00")
SORT = [("due_on", 1), ("_id", 1)]  # the oldest debt first
# What the list shows (table, labels, the detail's choice): read nothing else from the store.
LIST_FIELDS = {name: 1 for name in ("taxpayer", "owner", "revenue_kind", "revenue_code", "description",
                                    "reference", "principal", "late", "paid", "open", "credit", "status",
                                    "issued_on", "due_on", "live_dam", "inscription")}
# What the totals read of each charge.
AGING_FIELDS = {"_id": 0, "due_on": 1, "revenue_code": 1, "revenue_kind": 1, "open": 1}


@dataclass(frozen=True)
class DebtQuery:
    """Filters of the Débitos list. ``bucket`` is a key of ``rules.dam.charges.BUCKETS``; ``status``
    one of ``rules.dam.charges.OWING`` ("" = every owed one); ``search`` a taxpayer's name, CPF/CNPJ or
    the record the charge belongs to ("Auto nº 12")."""

    search: str = ""
    bucket: str = ""
    revenue_kind: str = ""
    status: str = ""
    page: int = 1
    per_page: int = 25


def kind_label(kind: str | None) -> str:
    """The revenue kind as the DAM names it ("Taxa de autorização")."""
    return REVENUE_KINDS.get(kind or "", kind or "Outras receitas")


def revenue_label(code: str | None, kind: str | None) -> str:
    """The revenue of a charge: its code in the chart of revenues and its kind ("1121.01.01 — Multa")."""
    return f"{code} — {kind_label(kind)}" if code else kind_label(kind)


def due_range(bucket: str, today: date) -> dict[str, str]:
    """The due dates of the charges in ``bucket`` on ``today`` (a range on ``due_on``)."""
    for key, _label, low, high in rules.BUCKETS:
        if key != bucket:
            continue
        if low is None:  # a vencer: due today or later
            return {"$gte": encode(today)}
        found = {"$lte": encode(today - timedelta(days=low))}
        if high is not None:
            found["$gte"] = encode(today - timedelta(days=high))
        return found
    return {}


def mongo_query(municipality: str, query: DebtQuery, today: date) -> dict:
    """The store's filter of ``query``: every owed status, or the one chosen, of the municipality."""
    mongo: dict[str, Any] = {"municipality": municipality,
                             "status": query.status if query.status in rules.OWING else {"$in": list(rules.OWING)}}
    if query.bucket:
        mongo["due_on"] = due_range(query.bucket, today)
    if query.revenue_kind:
        mongo["revenue_kind"] = query.revenue_kind
    term = query.search.strip()
    if term:
        ors: list[dict] = [{name: {"$regex": re.escape(term), "$options": "i"}}
                           for name in ("taxpayer.name", "owner.label")]
        digits = fields.digits(term)
        if digits:
            ors.append({"taxpayer.document": {"$regex": re.escape(digits)}})
        mongo["$or"] = ors
    return mongo


def _row(doc: dict, today: date) -> dict:
    """A stored charge as the list shows it: plain values, days overdue and age bucket."""
    charge = charges.plain(doc)
    charge["days_overdue"] = max(rules.days_overdue(charge["due_on"], today), 0)
    charge["bucket"] = rules.bucket(charge["due_on"], today)
    return charge


@checked
def list_page(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> Page:
    """One page of the owed charges matching the filters, the oldest due first, counted and paged in
    the store, with only the fields the list shows."""
    authorize(actor, "read", municipality)
    charges.prepare(db)
    today = clock.today()
    mongo = mongo_query(municipality, query, today)
    total = list_counts.counted(db[charges.COLLECTION], mongo)
    page = max(1, min(query.page, list_counts.pages(total, query.per_page)))
    cursor = (db[charges.COLLECTION].find(mongo, LIST_FIELDS).sort(SORT)
              .skip((page - 1) * query.per_page).limit(query.per_page))
    return Page([_row(doc, today) for doc in cursor], total, page, query.per_page)


@checked
def list_all(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> list[dict]:
    """Every owed charge matching the filters (the export), in the list's order."""
    authorize(actor, "read", municipality)
    charges.prepare(db)
    today = clock.today()
    cursor = db[charges.COLLECTION].find(mongo_query(municipality, query, today), LIST_FIELDS).sort(SORT)
    return [_row(doc, today) for doc in cursor]


@checked
def get(db: Database, actor: Actor, municipality: str, charge_id: str) -> dict:
    """One charge of the municipality as stored, with its DAMs and payments, days overdue and bucket."""
    authorize(actor, "read", municipality)
    charge = charges.load(db, charge_id, municipality)
    today = clock.today()
    charge["days_overdue"] = max(rules.days_overdue(charge["due_on"], today), 0)
    charge["bucket"] = rules.bucket(charge["due_on"], today)
    return charge


# ---- aging: totals per bucket and revenue ----

AGING_COLUMNS = ("Código da receita", "Receita", *(f"{label} (R$)" for _key, label, *_r in rules.BUCKETS),
                 "Total (R$)", "Débitos (qtd.)")

@dataclass(frozen=True)
class AgingCell:
    """How many owed charges and how much they still owe."""

    count: int = 0
    amount: Decimal = ZERO

    def __add__(self, other: AgingCell) -> AgingCell:
        return AgingCell(self.count + other.count, self.amount + other.amount)


@dataclass(frozen=True)
class Aging:
    """What is still owed on ``on``, per revenue (code, kind) and age bucket."""

    on: date
    lines: dict[tuple[str, str], dict[str, AgingCell]] = field(default_factory=dict)

    def by_bucket(self) -> dict[str, AgingCell]:
        """Every bucket, in the order of ``rules.dam.charges.BUCKETS``, summed over the revenues."""
        out = {key: AgingCell() for key, *_rest in rules.BUCKETS}
        for cells in self.lines.values():
            for key, cell in cells.items():
                out[key] = out[key] + cell
        return out

    def total(self) -> AgingCell:
        return sum(self.by_bucket().values(), AgingCell())

    def rows(self) -> list[dict[str, Any]]:
        """The totals table: one row per revenue and a last row of totals (amounts in R$)."""
        def row(code: str, kind: str, cells: dict[str, AgingCell]) -> dict[str, Any]:
            every = sum(cells.values(), AgingCell())
            values = (code, kind, *(cells.get(key, AgingCell()).amount for key, *_r in rules.BUCKETS),
                      every.amount, every.count)
            return dict(zip(AGING_COLUMNS, values))

        out = [row(code or "—", kind_label(kind), cells) for (code, kind), cells in sorted(self.lines.items())]
        if out:
            out.append(row("", "Total", self.by_bucket()))
        return out


def fold(docs: Iterable[dict], today: date) -> Aging:
    """The aging on ``today`` of owed charges read with :data:`AGING_FIELDS` (decoded)."""
    lines: dict[tuple[str, str], dict[str, AgingCell]] = {}
    for doc in docs:
        due = parse_date(doc["due_on"])
        cells = lines.setdefault((doc.get("revenue_code") or "", doc.get("revenue_kind") or ""), {})
        key = rules.bucket(due, today)
        cells[key] = cells.get(key, AgingCell()) + AgingCell(1, doc["open"])
    return Aging(today, lines)


def owed_figures(db: Database, mongo: dict) -> list[dict]:
    """The fields the totals read of every charge matching ``mongo`` (one query). Internal: the callers
    authorize (the list for the secretaria, the summary for the gabinete)."""
    charges.prepare(db)
    return [decode(doc) for doc in db[charges.COLLECTION].find(mongo, AGING_FIELDS)]


@checked
def aging(db: Database, actor: Actor, municipality: str, query: DebtQuery | None = None) -> Aging:
    """The totals per age bucket and revenue of the owed charges of the filter (all, without one)."""
    authorize(actor, "read", municipality)
    today = clock.today()
    query = query or DebtQuery()
    if query.search.strip():  # a name or document typed: the charges it finds, folded
        return fold(owed_figures(db, mongo_query(municipality, query, today)), today)
    statuses = [query.status] if query.status in rules.OWING else list(rules.OWING)
    kept = aging_view.cells(db, municipality, statuses, query.revenue_kind or None, today,
                            {query.bucket} if query.bucket else None)
    return Aging(today, {line: {key: AgingCell(n, amount) for key, (n, amount) in by_bucket.items()}
                         for line, by_bucket in kept.items()})


# ---- exports ----

EXPORT_COLUMNS = ("Contribuinte", "CPF/CNPJ", "Referente a", "Código da receita", "Receita", "Descrição",
                  "Exercício", "Emissão", "Vencimento", "Dias de atraso", "Vencido há", "Principal",
                  "Multa e juros", "Pago", "Em aberto", "Situação", "DAM em aberto")


def _export_rows(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> list[dict[str, Any]]:
    rows = []
    for charge in list_all(db, actor, municipality, query):
        taxpayer, owner = charge.get("taxpayer") or {}, charge.get("owner") or {}
        rows.append(dict(zip(EXPORT_COLUMNS, (
            taxpayer.get("name", ""), fields.show("cpf_cnpj", taxpayer.get("document", "")), owner.get("label", ""),
            charge.get("revenue_code") or "", kind_label(charge.get("revenue_kind")), charge.get("description", ""),
            charge.get("reference", ""), charge.get("issued_on"), charge["due_on"], charge["days_overdue"],
            rules.BUCKET_LABELS[charge["bucket"]], charge["principal"], charge["late"], charge["paid"], charge["open"],
            rules.STATUSES.get(charge["status"], charge["status"]), (charge.get("live_dam") or {}).get("number", ""),
        ))))
    return rows


@checked
def export_csv(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> bytes:
    """Exactly the charges the filter shows, pt-BR formats, ';' separated, UTF-8 with BOM."""
    return exports.to_csv(_export_rows(db, actor, municipality, query), EXPORT_COLUMNS)


@checked
def export_xlsx(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> bytes:
    """The rows of :func:`export_csv` as an XLSX sheet (dates as dates, amounts in R$)."""
    return exports.to_xlsx(_export_rows(db, actor, municipality, query), EXPORT_COLUMNS, sheet="Débitos")


@checked
def aging_csv(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> bytes:
    """The totals per bucket and revenue of the filter as CSV."""
    return exports.to_csv(aging(db, actor, municipality, query).rows(), AGING_COLUMNS)


@checked
def aging_xlsx(db: Database, actor: Actor, municipality: str, query: DebtQuery) -> bytes:
    """The totals per bucket and revenue of the filter as XLSX."""
    return exports.to_xlsx(aging(db, actor, municipality, query).rows(), AGING_COLUMNS, sheet="Débitos por faixa")
