"""Lists of authorizations: rows with their status on a date, a searched and sorted page, its
exports (XLSX, CSV), and the mark a page caches them under.

Search, count, sort and pagination run in the store; only the rows shown are folded by the rule set,
with one parameter load for all of them (issue 9).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from pymongo.database import Database

from rules.ridehailing.lifecycle import AuthorizationState, Status
from services.ridehailing import registry
from services.shared import exports, fields, list_counts, schema
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.store import decode, parse_date

VERSIONED = ("authorizations", "drivers", "data_changes")  # what the lists and the queue are made of


@dataclass(frozen=True)
class AuthorizationRow:
    id: str
    protocol: str
    protocol_date: date
    number: str
    driver_cpf: str
    driver_name: str
    plate: str
    state: AuthorizationState


ROW_FIELDS = {"protocol": 1, "protocol_date": 1, "number": 1, "driver_cpf": 1, "plate": 1, "events": 1}


def driver_names(db: Database, municipality: str, cpfs: Any) -> dict[str, str]:
    """Names of the drivers of ``cpfs``, in one query."""
    rows = db["drivers"].find({"municipality": municipality, "cpf": {"$in": sorted(set(cpfs))}}, {"cpf": 1, "name": 1})
    return {d["cpf"]: d["name"] for d in rows}


@checked
def authorization_rows(db: Database, actor: Actor, municipality: str, on: date, search: str = "",
                       scope: registry.Scope | None = None) -> list[AuthorizationRow]:
    """Every authorization with its status on ``on`` (newest protocol first): one query for the
    authorizations, one for their drivers' names, one parameter load for every status."""
    authorize(actor, "read", municipality)
    return matching(_all_rows(db, municipality, on, scope or registry.Scope(db, municipality)), search)


def matching(rows: list[AuthorizationRow], search: str) -> list[AuthorizationRow]:
    """The rows whose protocol, number, plate, CPF or driver's name contain ``search``."""
    term = search.strip().upper().replace("-", "")
    if not term:
        return rows
    return [r for r in rows if term in " ".join((r.protocol, r.number, r.plate, r.driver_cpf, r.driver_name.upper()))
            .replace("-", "")]


# One page of the authorization list (rows are AuthorizationRow) and how many match in all.
RowsPage = schema.Page


ROW_SORT = [("protocol_date", -1), ("protocol", -1)]
ROW_SORTS = {"protocol_date": "Data do protocolo", "protocol": "Protocolo", "number": "Nº da autorização",
             "plate": "Placa", "valid_until": "Validade"}
IN_FORCE_STORED = [s.value for s in registry.IN_FORCE]


def _status_query(status: str | None, on: date) -> dict:
    """The store filter of a status on ``on``: the stored status, or the next one once its day has come
    (``status_next_on``: a penalty scheduled for the day its decision is final, a suspension's end), with
    expiry (no event) by the validity."""
    if not status:
        return {}
    today = on.isoformat()
    stored = {"$or": [{"status_next_on": None}, {"status_next_on": {"$gt": today}}]}
    arrived = {"status_next_on": {"$lte": today}}

    def is_(values: Any) -> dict:
        return {"$or": [{"status": values, **stored}, {"status_next": values, **arrived}]}

    if status == Status.EXPIRED.value:
        return {"$or": [is_(status), {"$and": [is_({"$in": IN_FORCE_STORED}), {"valid_until": {"$lt": today}}]}]}
    if status in IN_FORCE_STORED:
        return {"$and": [is_(status), {"$or": [{"valid_until": None}, {"valid_until": {"$gte": today}}]}]}
    return is_(status)


def _list_query(db: Database, municipality: str, on: date, search: str, status: str | None) -> dict:
    if status and status not in {s.value for s in Status}:
        raise ValidationFailed({"status": "Situação inválida: escolha uma da lista."})
    clauses: list[dict] = [{"municipality": municipality}]
    term = search.replace("\x00", "").strip().replace("-", "")
    if term:
        pattern = {"$regex": re.escape(term), "$options": "i"}
        named = db["drivers"].find({"municipality": municipality, "name": pattern}, {"cpf": 1})
        ors = [{name: pattern} for name in ("protocol", "number", "plate", "driver_cpf")]
        ors.append({"driver_cpf": {"$in": sorted({d["cpf"] for d in named})}})
        clauses.append({"$or": ors})
    if status:
        clauses.append(_status_query(status, on))
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _row_sort(sort: str | None, descending: bool) -> list[tuple[str, int]]:
    if sort in (None, "", "protocol_date") and descending:
        return ROW_SORT
    if sort not in ROW_SORTS:
        raise ValidationFailed({"sort": "Ordenação inválida: escolha uma coluna da lista."})
    return [(sort, -1 if descending else 1), ("_id", 1)]


@checked
def authorization_page(db: Database, actor: Actor, municipality: str, on: date, search: str = "", page: int = 1,
                       per_page: int = 25, status: str | None = None, sort: str | None = None,
                       descending: bool = True) -> RowsPage:
    """A page of the authorizations matching ``search`` in the protocol, the number, the plate, the
    CPF or the driver's name, and ``status`` on ``on``; newest protocol first unless ``sort`` says
    otherwise. Search, count, sort and pagination run in the store; only the rows shown are folded
    (four queries whatever the size of the register)."""
    authorize(actor, "read", municipality)
    query = _list_query(db, municipality, on, search, status)
    total = list_counts.counted(db["authorizations"], query)
    per_page = max(1, int(per_page))
    page = min(max(1, int(page)), list_counts.pages(total, per_page))
    raws = db["authorizations"].find(query, ROW_FIELDS).sort(_row_sort(sort, descending)) \
        .skip((page - 1) * per_page).limit(per_page)
    docs = [decode(raw) for raw in raws]
    return RowsPage(_rows_of(db, municipality, docs, on, registry.Scope(db, municipality)), total, page, per_page)


ROW_COLUMNS = ["Protocolo", "Data do protocolo", "Nº", "Condutor", "CPF", "Placa", "Situação", "Validade"]


def row_cells(row: AuthorizationRow) -> dict[str, Any]:
    """An authorization row as the list and its exports show it (pt-BR headers, typed cells)."""
    return {"Protocolo": row.protocol, "Data do protocolo": row.protocol_date, "Nº": row.number or "",
            "Condutor": row.driver_name, "CPF": fields.show("cpf", row.driver_cpf),
            "Placa": fields.show("plate", row.plate), "Situação": row.state.label,
            "Validade": row.state.valid_until}


@checked
def export_authorizations(db: Database, actor: Actor, municipality: str, on: date, search: str = "",
                          status: str | None = None, sort: str | None = None, descending: bool = True,
                          kind: str = "xlsx") -> bytes:
    """Exactly the authorizations the list's filter shows, every page, as XLSX or CSV."""
    authorize(actor, "read", municipality)
    query = _list_query(db, municipality, on, search, status)
    docs = [decode(raw) for raw in db["authorizations"].find(query, ROW_FIELDS).sort(_row_sort(sort, descending))]
    rows = [row_cells(r) for r in _rows_of(db, municipality, docs, on, registry.Scope(db, municipality))]
    if kind == "csv":
        return exports.to_csv(rows, ROW_COLUMNS)
    return exports.to_xlsx(rows, ROW_COLUMNS, sheet="Autorizações")


@checked
def data_version(db: Database, actor: Actor, municipality: str) -> str:
    """A mark that changes whenever the authorizations, their drivers or the data changes change:
    the key under which a page may cache what it built from them (one small query per collection)."""
    authorize(actor, "read", municipality)
    marks = []
    for collection in VERSIONED:
        newest = list(db[collection].find({"municipality": municipality}, {"updated_at": 1})
                      .sort("updated_at", -1).limit(1))
        marks.append(str(newest[0].get("updated_at")) if newest else "-")
    return "|".join(marks)


def _all_rows(db: Database, municipality: str, on: date, scope: registry.Scope) -> list[AuthorizationRow]:
    docs = [decode(raw) for raw in db["authorizations"].find({"municipality": municipality}, ROW_FIELDS)
            .sort(ROW_SORT)]
    return _rows_of(db, municipality, docs, on, scope)


def _rows_of(db: Database, municipality: str, docs: list[dict], on: date,
             scope: registry.Scope) -> list[AuthorizationRow]:
    names = driver_names(db, municipality, (d["driver_cpf"] for d in docs))
    rows = []
    for doc in docs:
        name = names.get(doc["driver_cpf"], "")
        rows.append(AuthorizationRow(str(doc["_id"]), doc["protocol"], parse_date(doc["protocol_date"]),
                                     doc.get("number") or "", doc["driver_cpf"], name, doc["plate"],
                                     scope.state(doc, on)))
    return rows
