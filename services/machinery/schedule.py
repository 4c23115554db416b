"""The schedule of the service requests (Decreto 017/2026, Nova Lacerda, art. 3 and 9): the board
of a day with the queue in the order of art. 3 (regional schedule by zone, protocol order, urgency
only with a justification, §2), booking machines and operators for a period of days (the machine
must serve the quoted item, Anexo I), rescheduling, cancelling, the week views.

Collection ``machinery_bookings`` (see :mod:`.booking_requests`): one document per (asset, operator,
day) — a period is one per day —, with unique indexes so that two clerks saving at once cannot book
one machine or one operator twice on a day; the DuplicateKeyError becomes
:class:`services.shared.errors.Conflict`. The request's ``schedule`` (first and last day, the days,
the pairs) is rebuilt from these documents in the unit of work that changes them.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from pymongo.database import Database

from rules.base import RuleError
from rules.calendar import LegalCalendar
from rules.fmt import day as show_day
from rules.machinery.prices import DECREE
from rules.machinery.schedule import SkippedDay, assets_fit, booking_days, skipped_days
from services import store
from services.machinery import booking_requests, schedule_view
from services.machinery.booking_requests import ASSETS, BOOKINGS, OPEN, OPERATORS
from services.machinery.schedule_view import QueueEntry, QueuePage, ZonePlace
from services.shared import clock, entities, entity_lists, list_counts, parameters, views
from services.shared.auth import Actor
from services.shared.errors import Conflict, ValidationFailed
from services.shared.schema import ListQuery, Page
from services.store import DuplicateKeyError, decode, encode, insert_one, parse_date


def _row(raw: dict) -> dict:
    """A stored document as a row: decoded, its ``_id`` as the text ``id``."""
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    return doc


def _names(db: Database, collection: str, municipality: str, query: dict, fields_: dict) -> list[dict]:
    return [_row(raw) for raw in db[collection].find({"municipality": municipality, **query}, fields_)]


@booking_requests.module_service("read")
def queue_page(db: Database, actor: Actor, municipality: str, day: date, page: int = 1, per_page: int = 25,
               search: str = "") -> QueuePage:
    """A page of the requests ready to schedule (paid or authorized deferral) in the order of art. 3
    on ``day``; ``search`` (protocol or requester) narrows it, each row keeping its place in the queue."""
    return schedule_view.queue_page(db, municipality, day, page, entity_lists.per_page_checked(per_page), search)


@booking_requests.module_service("read")
def queue_rows(db: Database, actor: Actor, municipality: str, day: date, search: str = "") -> list[QueueEntry]:
    """The whole queue of ``day`` in the order of art. 3 (or its rows matching ``search``): the export."""
    return schedule_view.queue_rows(db, municipality, day, search)


@booking_requests.module_service("read", reach="request_id")
def queue_place(db: Database, actor: Actor, municipality: str, request_id: str, day: date) -> ZonePlace | None:
    """Where a request paid or authorized stands in its zone's queue on ``day`` (art. 3), with the
    justifications of those moved ahead of it (§2); None when it is not waiting to be scheduled."""
    return schedule_view.zone_place(db, municipality, request_id, day)


@booking_requests.module_service("read")
def booked_page(db: Database, actor: Actor, municipality: str, day: date, page: int = 1,
                per_page: int = 25) -> Page:
    """The bookings of ``day``, by machine, a page at a time."""
    booking_requests.prepare(db)
    query = {"municipality": municipality, "day": day.isoformat()}
    total = list_counts.counted(db[BOOKINGS], query)
    page = max(1, min(page, list_counts.pages(total, entity_lists.per_page_checked(per_page))))
    cursor = db[BOOKINGS].find(query, {"request_id": 1, "protocol": 1, "asset_id": 1, "operator_id": 1, "asset": 1,
                                       "operator": 1, "zone": 1, "locality": 1}).sort([("asset", 1), ("_id", 1)])
    return Page([_row(raw) for raw in cursor.skip((page - 1) * per_page).limit(per_page)], total, page, per_page)


def _busy(db: Database, municipality: str, day: date, field: str) -> list:
    """The ids of the machines (``asset_id``) or operators (``operator_id``) booked on ``day``."""
    taken = {raw[field] for raw in db[BOOKINGS].find({"municipality": municipality, "day": day.isoformat()},
                                                      {field: 1, "_id": 0})}
    return [views.source_key(record_id) for record_id in taken]


@booking_requests.module_service("read")
def free_assets(db: Database, actor: Actor, municipality: str, day: date, search: str = "", page: int = 1,
                per_page: int = 25) -> Page:
    """The machines and vehicles free on ``day`` (not booked, not in maintenance), by identifier, a page
    at a time; ``search`` matches the identifier or the make and model."""
    spec = entities.authorize_entity(db, actor, "read", ASSETS, municipality)
    where = {"status": {"$ne": "em_manutencao"}, "_id": {"$nin": _busy(db, municipality, day, "asset_id")}}
    return entity_lists.page_where(db, spec, municipality, ListQuery(search=search, page=page, per_page=per_page),
                                   where)


@booking_requests.module_service("read")
def free_operators(db: Database, actor: Actor, municipality: str, day: date, search: str = "", page: int = 1,
                   per_page: int = 25) -> Page:
    """The operators and drivers in activity and free on ``day``, by name, a page at a time."""
    spec = entities.authorize_entity(db, actor, "read", OPERATORS, municipality)
    where = {"active": True, "_id": {"$nin": _busy(db, municipality, day, "operator_id")}}
    return entity_lists.page_where(db, spec, municipality, ListQuery(search=search, page=page, per_page=per_page),
                                   where)


def _pairs(db: Database, municipality: str, assignments: list[tuple[str, str]]) -> list[tuple[dict, dict]]:
    """The (machine, operator) records of the assignments: registered, not in maintenance, in activity."""
    if not assignments:
        raise ValidationFailed({"assignments": "Escolha ao menos uma máquina ou veículo com o seu operador."})
    pairs = []
    for asset_id, operator_id in assignments:
        asset = booking_requests._record(db, ASSETS, municipality, asset_id, "Máquina ou veículo")
        operator = booking_requests._record(db, OPERATORS, municipality, operator_id, "Operador ou motorista")
        if asset.get("status") == "em_manutencao":
            raise ValidationFailed({"assignments": f"{asset['identifier']} está em manutenção."})
        if not operator.get("active"):
            raise ValidationFailed({"assignments": f"{operator['name']} não está em atividade."})
        pairs.append((asset, operator))
    return pairs


def _days(db: Database, municipality: str, day: date, until: date | None,
          calendar: LegalCalendar | None = None) -> tuple[date, ...]:
    """The days of a booking from ``day`` to ``until`` (business days after the first, as the rule says)."""
    if not isinstance(day, date) or day < clock.today():
        raise ValidationFailed({"day": "Data do agendamento: informe hoje ou uma data futura."})
    try:
        return booking_days(day, until or day, calendar or parameters.calendar(db, municipality, day))
    except RuleError as error:
        raise ValidationFailed({"until": f"{error.message} ({error.reference})"}) from None


@dataclass(frozen=True)
class PeriodPreview:
    """What a booking over a period takes, shown before it is saved (issue 35 item 6)."""

    days: tuple[date, ...]
    skipped: tuple[SkippedDay, ...]


@booking_requests.module_service("read")
def period_preview(db: Database, actor: Actor, municipality: str, day: date,
                   until: date | None = None) -> PeriodPreview:
    """The days a booking from ``day`` to ``until`` would take and those it skips with why — weekends,
    national and municipal holidays (the parameters' ``municipal_holidays``), art. 3, III — refused as
    :func:`book` refuses the period; nothing is written."""
    calendar = parameters.calendar(db, municipality, day)
    days = _days(db, municipality, day, until, calendar)
    return PeriodPreview(days, skipped_days(day, until or day, calendar))


def _insert(db: Database, actor: Actor, municipality: str, doc: dict, pairs: list[tuple[dict, dict]],
            days: tuple[date, ...]) -> None:
    """One booking per machine, operator and day; a machine or operator taken that day → Conflict."""
    now = clock.now_utc()
    for day in days:
        for asset, operator in pairs:
            entry = {"municipality": municipality, "request_id": doc["id"], "protocol": doc["protocol"],
                     "day": day.isoformat(), "asset_id": asset["id"], "operator_id": operator["id"],
                     "asset": asset["identifier"], "operator": operator["name"], "zone": doc.get("zone", ""),
                     "locality": doc.get("locality", ""), "created_at": now, "by": actor.username}
            try:
                insert_one(db[BOOKINGS], encode(entry))
            except DuplicateKeyError:
                raise Conflict(f"{asset['identifier']} ou {operator['name']} já tem agendamento em {show_day(day)}; "
                               "escolha outra máquina, outro operador ou outro período.") from None


def _schedule_of(db: Database, municipality: str, request_id: str) -> dict:
    """The request's schedule as its bookings now stand: first and last day, the days, the pairs."""
    rows = sorted(db[BOOKINGS].find({"municipality": municipality, "request_id": request_id}),
                  key=lambda r: (r["day"], r["asset"]))
    days = sorted({parse_date(r["day"]) for r in rows})
    pairs = {(r["asset_id"], r["operator_id"]): {"asset_id": r["asset_id"], "asset": r["asset"],
                                                 "operator_id": r["operator_id"], "operator": r["operator"]}
             for r in rows}
    return {"day": days[0], "until": days[-1], "days": days, "bookings": list(pairs.values())}


@booking_requests.module_service("write")
def book(db: Database, actor: Actor, municipality: str, request_id: str, day: date,
         assignments: list[tuple[str, str]], until: date | None = None) -> dict:
    """Book (asset_id, operator_id) pairs for the request from ``day`` to ``until`` (one day when
    absent; the business days after the first); each machine must serve one of the request's quoted
    items (Anexo I). A scheduled request gets more days (a job longer than planned). A machine or
    operator already booked on one of the days → Conflict (unique index), even when two clerks save
    at once, and nothing of the period is booked."""
    booking_requests.prepare(db)
    pairs = _pairs(db, municipality, assignments)
    days = _days(db, municipality, day, until)

    def build(doc: dict) -> dict:
        items = [line["item"] for line in (doc.get("quote") or {}).get("lines", [])]
        fit = assets_fit(items, [(asset["identifier"], asset.get("kind", "")) for asset, _ in pairs])
        if not fit.ok:  # Anexo I: the machine of the item quoted
            raise ValidationFailed({"assignments": "; ".join(fit.reasons())})
        _insert(db, actor, municipality, doc, pairs, days)
        status = "agendado" if doc["status"] == "a_agendar" else doc["status"]
        return {"status": status, "schedule": _schedule_of(db, municipality, doc["id"])}

    return booking_requests._change(db, actor, municipality, request_id, ("a_agendar", "agendado", "em_execucao"),
                                    build, "book")


@booking_requests.module_service("write")
def reschedule(db: Database, actor: Actor, municipality: str, request_id: str, day: date, reason: str,
               until: date | None = None) -> dict:
    """Move a scheduled request to ``day``..``until`` with the same machines and operators, with the
    reason; the old days are freed in the same unit of work (a taken day → Conflict, nothing moves)."""
    if not reason.strip():
        raise ValidationFailed({"reason": "Informe o motivo da remarcação."})
    booking_requests.prepare(db)
    days = _days(db, municipality, day, until)

    def build(doc: dict) -> dict:
        kept = (doc.get("schedule") or {}).get("bookings", [])
        pairs = _pairs(db, municipality, [(b["asset_id"], b["operator_id"]) for b in kept])
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": doc["id"]})
        _insert(db, actor, municipality, doc, pairs, days)
        return {"schedule": _schedule_of(db, municipality, doc["id"])}

    return booking_requests._change(db, actor, municipality, request_id, ("agendado",), build, "reschedule",
                                    note=reason.strip())


@booking_requests.module_service("write")
def cancel_booking(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Free the machines and operators of the request; it goes back to the schedule queue."""
    if not reason.strip():
        raise ValidationFailed({"reason": "Informe o motivo do cancelamento do agendamento."})
    with store.transaction(db):
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": str(request_id)})
        return booking_requests._change(db, actor, municipality, request_id, ("agendado",),
                                        lambda doc: {"status": "a_agendar", "schedule": None}, "cancel_booking",
                                        note=reason.strip())


@booking_requests.module_service("read")
def week_schedule(db: Database, actor: Actor, municipality: str, week_start: date) -> list[dict]:
    """The bookings of the 7 days from ``week_start`` (for the printed week view), by day and machine."""
    days = {"$gte": week_start.isoformat(), "$lte": (week_start + timedelta(days=6)).isoformat()}
    rows = _names(db, BOOKINGS, municipality, {"day": days},
                  {"day": 1, "protocol": 1, "request_id": 1, "asset": 1, "operator": 1, "zone": 1, "locality": 1})
    for row in rows:
        row["day"] = parse_date(row["day"])
    return sorted(rows, key=lambda r: (r["day"], r["asset"]))


@dataclass(frozen=True)
class MachineWeek:
    """One machine over a week: per day the booking that takes it ("" when free)."""

    asset_id: str
    identifier: str
    kind: str
    status: str
    taken: tuple[str, ...]


@dataclass(frozen=True)
class WeekBoard:
    """The week board per machine: the 7 days and, for a page of the machines, their free and taken
    days (``total`` machines in the register, ``page`` of ``pages``)."""

    days: tuple[date, ...]
    machines: tuple[MachineWeek, ...]
    total: int = 0
    page: int = 1
    pages: int = 1


@booking_requests.module_service("read")
def week_board(db: Database, actor: Actor, municipality: str, week_start: date, page: int = 1,
               per_page: int = 25) -> WeekBoard:
    """The machines of the register, a page at a time by identifier, over the 7 days from
    ``week_start``: which request and operator take each one each day, and the days it is free."""
    spec = entities.authorize_entity(db, actor, "read", ASSETS, municipality)
    days = tuple(week_start + timedelta(days=n) for n in range(7))
    assets = entity_lists.page_where(db, spec, municipality, ListQuery(page=page, per_page=per_page))  # checks per_page
    taken: dict[tuple[str, str], str] = {}
    for raw in db[BOOKINGS].find({"municipality": municipality, "asset_id": {"$in": [a["id"] for a in assets.rows]},
                                  "day": {"$gte": days[0].isoformat(), "$lte": days[-1].isoformat()}},
                                 {"asset_id": 1, "day": 1, "protocol": 1, "operator": 1}):
        taken[(raw["asset_id"], raw["day"])] = f"{raw['protocol']} · {raw['operator']}"
    return WeekBoard(days, tuple(
        MachineWeek(a["id"], a["identifier"], a.get("kind") or "", a.get("status") or "",
                    tuple(taken.get((a["id"], d.isoformat()), "") for d in days)) for a in assets.rows),
        assets.total, assets.page, assets.pages)


@booking_requests.module_service("write")
def mark_urgent(db: Database, actor: Actor, municipality: str, request_id: str, justification: str) -> dict:
    """Art. 3 §2: move ahead of the protocol order, only with a recorded justification."""
    if not justification.strip():
        raise ValidationFailed({"justification": "A antecipação exige justificativa de urgência ou relevância "
                                                 f"pública ({DECREE}, art. 3, §2)."})
    return booking_requests._change(db, actor, municipality, request_id, OPEN, lambda doc: {
        "urgent": True, "urgency_justification": justification.strip()}, "urgent")
