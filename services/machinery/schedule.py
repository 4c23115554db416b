"""The schedule of the service requests (Decreto 017/2026, Nova Lacerda, art. 3 and 9): the board
of a day with the queue in the order of art. 3 (regional schedule by zone, protocol order, urgency
only with a justification, §2), booking machines and operators, cancelling, the week view.

Collection ``machinery_bookings`` (see :mod:`.booking_requests`): one document per (asset, operator,
day), with unique indexes so that two clerks saving at once cannot book one machine or one operator
twice on a day; the DuplicateKeyError becomes :class:`services.shared.errors.Conflict`.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from pymongo.database import Database

from rules.fmt import day as show_day
from rules.machinery.prices import DECREE
from rules.machinery.schedule import QueuedRequest, assets_fit, order_of_service
from services import store
from services.machinery import booking_requests, localities
from services.machinery.booking_requests import (
    ASSETS,
    BOOKINGS,
    OPEN,
    OPERATORS,
    REQUESTS,
)
from services.shared import clock
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, ValidationFailed
from services.store import DuplicateKeyError, decode, encode, insert_one, parse_date


@dataclass(frozen=True)
class QueueEntry:
    """A request on the schedule board, in the order of art. 3."""

    position: int
    request_id: str
    protocol: str
    requester: str
    zone: str
    locality: str
    services: str
    reason: str
    reference: str
    urgent: bool
    status: str


@dataclass(frozen=True)
class Board:
    """The schedule board of a day: the queue, what is booked, and the machines and operators free."""

    day: date
    queue: tuple[QueueEntry, ...]
    booked: tuple[dict, ...]
    free_assets: tuple[dict, ...]
    free_operators: tuple[dict, ...]


def _names(db: Database, collection: str, municipality: str, query: dict, fields_: dict) -> list[dict]:
    rows = []
    for raw in db[collection].find({"municipality": municipality, **query}, fields_):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        rows.append(doc)
    return rows


@checked
def schedule_board(db: Database, actor: Actor, municipality: str, day: date) -> Board:
    """Requests ready to schedule (paid or authorized deferral) in the order of art. 3, what is booked
    on ``day``, and the machines and operators free on ``day``."""
    authorize(actor, "read", municipality)
    booking_requests.require_module(db, municipality)
    ready = {}
    for raw in db[REQUESTS].find({"municipality": municipality, "status": "a_agendar"},
                                 {"protocol": 1, "protocolled_at": 1, "zone": 1, "locality": 1, "urgent": 1,
                                  "urgency_justification": 1, "requester.name": 1, "services": 1, "status": 1}):
        ready[raw["protocol"]] = decode(raw)
    queued = [QueuedRequest(r["protocol"], r["protocolled_at"], r.get("zone", ""), r.get("locality", ""),
                            bool(r.get("urgent")), r.get("urgency_justification", "")) for r in ready.values()]
    order = order_of_service(queued, localities.zone_order(localities.localities(db, municipality, day)))
    queue = tuple(QueueEntry(e.position, str(ready[e.request.protocol]["_id"]), e.request.protocol,
                             ready[e.request.protocol]["requester"]["name"], e.request.zone, e.request.locality,
                             booking_requests.describe_services(ready[e.request.protocol]["services"]), e.reason,
                             e.reference, e.request.urgent, ready[e.request.protocol]["status"])
                  for e in order.sequence)
    booked = _names(db, BOOKINGS, municipality, {"day": day.isoformat()},
                    {"request_id": 1, "protocol": 1, "asset_id": 1, "operator_id": 1, "asset": 1, "operator": 1,
                     "zone": 1, "locality": 1})
    busy_assets = {b["asset_id"] for b in booked}
    busy_operators = {b["operator_id"] for b in booked}
    assets = _names(db, ASSETS, municipality, {"status": {"$ne": "em_manutencao"}},
                    {"identifier": 1, "kind": 1, "description": 1, "status": 1})
    operators = _names(db, OPERATORS, municipality, {"active": True},
                       {"name": 1, "duty": 1, "licence_category": 1})
    return Board(day, queue, tuple(booked),
                 tuple(sorted((a for a in assets if a["id"] not in busy_assets), key=lambda a: a["identifier"])),
                 tuple(sorted((o for o in operators if o["id"] not in busy_operators), key=lambda o: o["name"])))


@checked
def book(db: Database, actor: Actor, municipality: str, request_id: str, day: date,
         assignments: list[tuple[str, str]]) -> dict:
    """Book (asset_id, operator_id) pairs for the request on ``day``; each machine must serve one of
    the request's quoted items (Anexo I). A machine or operator already booked that day → Conflict
    (unique index), even when two clerks save at once."""
    authorize(actor, "write", municipality)
    booking_requests.require_module(db, municipality)
    if not assignments:
        raise ValidationFailed({"assignments": "Escolha ao menos uma máquina ou veículo com o seu operador."})
    if not isinstance(day, date) or day < clock.today():
        raise ValidationFailed({"day": "Data do agendamento: informe hoje ou uma data futura."})
    booking_requests.prepare(db)
    pairs = []
    for asset_id, operator_id in assignments:
        asset = booking_requests._record(db, ASSETS, municipality, asset_id, "Máquina ou veículo")
        operator = booking_requests._record(db, OPERATORS, municipality, operator_id, "Operador ou motorista")
        if asset.get("status") == "em_manutencao":
            raise ValidationFailed({"assignments": f"{asset['identifier']} está em manutenção."})
        if not operator.get("active"):
            raise ValidationFailed({"assignments": f"{operator['name']} não está em atividade."})
        pairs.append((asset, operator))

    def build(doc: dict) -> dict:
        items = [line["item"] for line in (doc.get("quote") or {}).get("lines", [])]
        fit = assets_fit(items, [(asset["identifier"], asset.get("kind", "")) for asset, _ in pairs])
        if not fit.ok:  # Anexo I: the machine of the item quoted
            raise ValidationFailed({"assignments": "; ".join(fit.reasons())})
        now = clock.now_utc()
        for asset, operator in pairs:
            entry = {"municipality": municipality, "request_id": doc["id"], "protocol": doc["protocol"],
                     "day": day.isoformat(), "asset_id": asset["id"], "operator_id": operator["id"],
                     "asset": asset["identifier"], "operator": operator["name"], "zone": doc.get("zone", ""),
                     "locality": doc.get("locality", ""), "created_at": now, "by": actor.username}
            try:
                insert_one(db[BOOKINGS], encode(entry))
            except DuplicateKeyError:
                raise Conflict(f"{asset['identifier']} ou {operator['name']} já está agendado(a) em {show_day(day)}; "
                               "escolha outra máquina, outro operador ou outro dia.") from None
        return {"status": "agendado", "schedule": {"day": day, "bookings": [
            {"asset_id": a["id"], "asset": a["identifier"], "operator_id": o["id"], "operator": o["name"]}
            for a, o in pairs]}}

    return booking_requests._change(db, actor, municipality, request_id, ("a_agendar",), build, "book")


@checked
def cancel_booking(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Free the machines and operators of the request; it goes back to the schedule queue."""
    authorize(actor, "write", municipality)
    booking_requests.require_module(db, municipality)
    if not reason.strip():
        raise ValidationFailed({"reason": "Informe o motivo do cancelamento do agendamento."})
    with store.transaction(db):
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": str(request_id)})
        return booking_requests._change(db, actor, municipality, request_id, ("agendado",),
                                        lambda doc: {"status": "a_agendar", "schedule": None}, "cancel_booking",
                                        note=reason.strip())


@checked
def week_schedule(db: Database, actor: Actor, municipality: str, week_start: date) -> list[dict]:
    """The bookings of the 7 days from ``week_start`` (for the printed week view), by day and machine."""
    authorize(actor, "read", municipality)
    booking_requests.require_module(db, municipality)
    days = {"$gte": week_start.isoformat(), "$lte": (week_start + timedelta(days=6)).isoformat()}
    rows = _names(db, BOOKINGS, municipality, {"day": days},
                  {"day": 1, "protocol": 1, "request_id": 1, "asset": 1, "operator": 1, "zone": 1, "locality": 1})
    for row in rows:
        row["day"] = parse_date(row["day"])
    return sorted(rows, key=lambda r: (r["day"], r["asset"]))


@checked
def mark_urgent(db: Database, actor: Actor, municipality: str, request_id: str, justification: str) -> dict:
    """Art. 3 §2: move ahead of the protocol order, only with a recorded justification."""
    authorize(actor, "write", municipality)
    if not justification.strip():
        raise ValidationFailed({"justification": "A antecipação exige justificativa de urgência ou relevância "
                                                 f"pública ({DECREE}, art. 3, §2)."})
    return booking_requests._change(db, actor, municipality, request_id, OPEN, lambda doc: {
        "urgent": True, "urgency_justification": justification.strip()}, "urgent")
