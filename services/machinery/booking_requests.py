"""The request of a service booking of Nova Lacerda (module "maquinas", Decreto 017/2026; issue 13):
its collection, its statuses and the one unit of work every stage writes through.

A request (pedido) goes: protocol (:mod:`.protocol`) → technical visit (art. 2 §3, art. 5, art. 10
III) → social report when a discount needs it (art. 7) → quote (Anexo I/II; :mod:`.quotes`) → payment
plan and DAMs (art. 8; :mod:`.payment`) → schedule board and bookings (art. 3, art. 9; :mod:`.schedule`)
→ execution → completion with the balance DAM or the credit to return (art. 8 §2; :mod:`.execution`).
Bus and van hire (art. 6) is :mod:`.trips`, files of a request :mod:`.attachments`, what awaits action
:mod:`.pending`. Rules live in ``rules/machinery``; the services fetch, call a rule, save with audit,
return plain values. This module holds what every stage reads and writes: the collection names, the
statuses, the indexes, :func:`_change` (read, check the step, write on ``version``, audit), the reads
(:func:`get_request`, :func:`list_requests`) and the refusal at any step before execution.

Registers (EntitySpecs in ``services/shared/specs/maquinas.py``, lists/forms/CSV by services.shared.entities):
``machinery_assets`` (kind, identifier = plate or asset number, status disponivel/em_servico/
em_manutencao, meter_kind horimetro/odometro, meter_reading), ``machinery_operators`` (municipal
staff: name, cpf, registration, duty operador/motorista, licence_category), ``machinery_requesters``
(kind pf/entidade, name, document CPF/CNPJ, constitution_proof, address, zone, locality, phone,
standing nada_deve/parcelamento_em_dia/em_debito/a_verificar, standing_checked_on). Zones and localities are
the dated parameter ``machinery_localities`` (TI; :mod:`.localities`).

Collection ``booking_requests`` (one document per request; every write is conditional on
``version`` and goes with its audit entry in one ``store.transaction``)::

    municipality, protocol "0001/2026" (numbers kind "maquinas_protocolo"), year, sequence,
    protocolled_at (UTC), requested_on (date), desired_start (date|None),
    requester_id, requester {name, document, kind, address, zone, locality}, zone, locality,
    services [{kind: "machine_hours", item "01".."04", hours} | {kind: "earth_loads", loads}
              | {kind: "dump_truck_day", distance_km, half_day} | {kind: "lowboy_trip", distance_km}
              | {kind: "passenger_transport", item "10"|"11", distance_km}],
    justification (art. 2 §4 IV), identification (I), residence_proof (II),
    property {private, description, proof (III), standing, standing_checked_on} , route,
    declarations {payment_terms (V), liability (VI)},
    removes_natural_materials, environmental_licence, difficult_access,
    attachments [{sha256, name, kind, added_at, by}],
    technical_visit {required, status dispensada|pendente|favoravel|desfavoravel, visited_on,
                     notes, environmental_licence, by},
    discount_claims [{criterion (DiscountCriterion name), evidence_kind (EvidenceKind name),
                      evidence_reference, family_income}],
    social_report {requested_on, requested_by, note, answered_on, favourable, reference,
                   answer_note} | None,
    findings [{ok, message, reference, level}]  (eligibility at protocol, art. 2/5/6/8/10),
    stage (load stage of the schedule, art. 9; default the year "2026"), urgent,
    urgency_justification (art. 3 §2),
    quote {on, price_table {version_id, effective, act}, km_reading, km_reading_text, lines [{item,
           description, unit, quantity, unit_price, amount, discount, discount_reason, note, net}],
           gross, discount_total, total, discount {rate, criterion, reference, reason, findings},
           km_reading_applies (the km reading changed an amount)} | None,
    payment {issued_on, extension {ground, ground_label, justification, days_after_completion,
             instalments, prior_authorization} | None, instalments [{key integral|adiantamento|saldo,
             label, amount, due, due_rule, reference, dam_id, dam_number, charge_id, paid_on, deferred}],
             findings} | None   (the "saldo" instalment is the estimate, no charge; its DAM is the
             settlement's. ``charge_id`` names the charge (débito, services.dam.charges) the part's
             DAMs collect; dam_id/dam_number the latest DAM; paid_on the day the charge was paid in full),
    schedule {day (the first), until (the last), days [date], bookings [{asset_id, asset, operator_id,
              operator}]} | None   (rebuilt from ``machinery_bookings`` by :mod:`.schedule`),
    execution {started_on, ended_on, operator_id, operator, meters [{asset_id, start, end}],
               loads_delivered, worked_hours {item: hours}, photos [sha256], notes} | None,
    settlement {executed, advance, amount_due, credit_to_return, due, message, reference,
                completed_on, dam_id, dam_number, charge_id, paid_on, credit_returned_on, credit_note} | None,
    settlement_open (after completion: a charge of the request still owed — the balance, an
                     instalment deferred by art. 8 §3 — or a credit not yet returned: read by :mod:`.pending`),
    trip {responsible_name, responsible_document, driver_operator_id, driver, passengers [str],
          route, incidents [{on, kind (INCIDENT_KINDS), kind_label, description, responsible,
          by}]} | None,
    refusal {reason, on, by} | None,
    status (see STATUS), version, created_at, created_by, updated_at

Collection ``machinery_bookings``: one document per (asset, operator, day) assignment::

    municipality, request_id, protocol, day (ISO date), asset_id, asset, operator_id, operator,
    zone, locality, created_at, by

with unique indexes (municipality, asset_id, day) and (municipality, operator_id, day): two
clerks saving at once cannot book one machine or one operator twice on a day; the
DuplicateKeyError becomes :class:`services.shared.errors.Conflict`.
"""
from __future__ import annotations

import functools
import inspect
import re
import weakref
from collections.abc import Callable
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules import fmt
from rules.fmt import day as show_day
from rules.machinery.prices import CATALOGUE
from rules.registry import MACHINERY
from services import store
from services.shared import audit, clock, fields, municipalities, regulated_accounts
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.store import decode, encode, parse_date

REQUESTS = "booking_requests"
BOOKINGS = "machinery_bookings"
ASSETS = "machinery_assets"
OPERATORS = "machinery_operators"
REQUESTERS = "machinery_requesters"

INDEXES = {
    REQUESTS: [
        ([("municipality", 1), ("year", 1), ("sequence", 1)], {"unique": True, "name": "u_booking_requests_protocol"}),
        # a list by status, newest protocol first, reads only its page (Execução, Solicitações)
        ([("municipality", 1), ("status", 1), ("year", 1), ("sequence", 1)],
         {"name": "i_booking_requests_status_protocol"}),
        ([("municipality", 1), ("requester_id", 1)], {"name": "i_booking_requests_requester"}),
    ],
    BOOKINGS: [
        # Issue 13: no machine or operator booked twice for the same day, even with two clerks at once
        ([("municipality", 1), ("asset_id", 1), ("day", 1)], {"unique": True, "name": "u_bookings_asset_day"}),
        ([("municipality", 1), ("operator_id", 1), ("day", 1)], {"unique": True, "name": "u_bookings_operator_day"}),
        ([("municipality", 1), ("request_id", 1)], {"name": "i_bookings_request"}),
        # the Agenda's bookings of a day, by machine, a page at a time (and who is busy that day)
        ([("municipality", 1), ("day", 1), ("asset", 1)], {"name": "i_bookings_day"}),
    ],
}

# Stored statuses of a request, with the pt-BR label the screens show.
STATUS = {
    "aguardando_vistoria": "Aguardando vistoria técnica",
    "aguardando_parecer": "Aguardando parecer social",
    "aguardando_orcamento": "Aguardando orçamento",
    "aguardando_pagamento": "Aguardando pagamento",
    "a_agendar": "Pago ou autorizado: a agendar",
    "agendado": "Agendado",
    "em_execucao": "Em execução",
    "concluido": "Concluído",
    "recusado": "Recusado",
}
OPEN = ("aguardando_vistoria", "aguardando_parecer", "aguardando_orcamento", "aguardando_pagamento", "a_agendar",
        "agendado", "em_execucao")
SERVICE_KINDS = {
    "machine_hours": "Horas-máquina", "earth_loads": "Cargas de terra/cascalho", "dump_truck_day": "Caminhão basculante",
    "lowboy_trip": "Caminhão prancha", "passenger_transport": "Ônibus, micro-ônibus ou van",
}
# the Auditoria names the codes a request stores by these words (issue 22 item 9)
name_codes("status", STATUS)
name_codes("kind", SERVICE_KINDS)


MODULE_OFF = "O módulo de serviços de máquinas não está habilitado neste município."


class WrongStep(ServiceError):
    """The request is not at the step this action belongs to."""


class ModuleOff(ServiceError):
    """The municipality does not run the machinery bookings module."""


def runs_module(db: Database, municipality: str) -> bool:
    """Whether the municipality runs the machinery bookings module."""
    try:
        return MACHINERY in municipalities.get(db, municipality).modules
    except LookupError:
        return False


def require_module(db: Database, municipality: str) -> None:
    """Refuse a bookings service in a municipality without the module (as the pages' guard does)."""
    if not runs_module(db, municipality):
        raise ModuleOff(MODULE_OFF)


def requester_document(actor: Actor) -> str | None:
    """The CPF/CNPJ of the resident or entity a portal actor is (a regulated account of kind
    ``requerente``), or None for anyone else: staff, a driver, a platform."""
    whose = regulated_accounts.addressee(actor)
    return whose[2] if whose and whose[1] == regulated_accounts.REQUESTER else None


def _requester_of(db: Database, municipality: str, reach: str, value: Any) -> str:
    """The document of the requester behind ``value`` (a request id, a register entry id, a CPF/CNPJ)."""
    if reach == "document":
        return fields.digits(str(value or ""))
    if reach == "doc":  # a request as read by get_request: the stored one behind its id
        reach, value = "request_id", (value or {}).get("id") if isinstance(value, dict) else None
    if reach == "request_id":
        raw = db[REQUESTS].find_one({"_id": _oid(value), "municipality": municipality}, {"requester.document": 1})
        return fields.digits(((raw or {}).get("requester") or {}).get("document", ""))
    raw = db[REQUESTERS].find_one({"_id": _oid(getattr(value, "requester_id", ""), "Solicitante"),
                                   "municipality": municipality}, {"document": 1})
    return fields.digits((raw or {}).get("document", ""))


def module_service(permission: str, reach: str | None = None) -> Callable[[Callable], Callable]:
    """The one guard of every public service of the module (issue 35 item 3), on a function whose first
    parameters are ``db, actor, municipality``: its arguments checked (:func:`boundary.checked`), the
    actor authorized for ``permission`` in the municipality, then the municipality must run the
    module, before the body reads or writes anything. ``tests/test_bookings_module_guard.py`` calls
    every function of the package that takes an actor on Chapada and Matupá.

    ``reach`` opens the service to a resident or entity on the public portal (issue 38 item 3): the
    parameter naming what they ask about — ``request_id``, ``doc`` (a request as read), ``values`` (a form
    whose ``requester_id`` is the register entry) or ``document`` — must be theirs (the requester's CPF/CNPJ is the account's),
    else NotFound, as for a record that does not exist; ``"own"``: the body itself keeps to their records
    (:func:`requester_document`)."""
    def guard(fn: Callable) -> Callable:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def guarded(db: Database, actor: Actor, municipality: str, *args, **kwargs):
            document = requester_document(actor) if reach else None
            if document is None:
                authorize(actor, permission, municipality)
            elif municipality not in actor.municipalities:
                raise NotFound("Pedido não encontrado.")
            require_module(db, municipality)
            if document is not None and reach != "own":
                value = signature.bind(db, actor, municipality, *args, **kwargs).arguments.get(reach)
                if _requester_of(db, municipality, reach, value) != document:
                    raise NotFound("Solicitante não encontrado." if reach == "values" else "Pedido não encontrado.")
            return fn(db, actor, municipality, *args, **kwargs)
        wrapped = checked(guarded)
        wrapped.machinery_guard = permission  # type: ignore[attr-defined]
        wrapped.requester_reach = reach  # type: ignore[attr-defined]
        return wrapped
    return guard


# ---- store plumbing ----

_prepared: weakref.WeakSet = weakref.WeakSet()


def prepare(db: Database) -> None:
    """Create the indexes of requests and bookings (idempotent), once per database handle."""
    if db in _prepared:
        return
    store.ensure_indexes(db, INDEXES)
    _prepared.add(db)


def _oid(record_id: str, what: str = "Pedido") -> ObjectId:
    try:
        return ObjectId(str(record_id))
    except (InvalidId, TypeError):
        raise NotFound(f"{what} não encontrado.") from None


def _record(db: Database, collection: str, municipality: str, record_id: str, what: str) -> dict:
    doc = db[collection].find_one({"_id": _oid(record_id, what)})
    if doc is None or doc.get("municipality") != municipality:
        raise NotFound(f"{what} não encontrado.")
    doc = decode(doc)
    doc["id"] = str(doc.pop("_id"))
    return doc


def _load(db: Database, municipality: str, request_id: str) -> dict:
    return _record(db, REQUESTS, municipality, request_id, "Pedido")


_DATES = ("requested_on", "desired_start")


def _plain(doc: dict) -> dict:
    """A stored request with dates as ``date`` and the status label (for pages and PDFs)."""
    for key in _DATES:
        doc[key] = parse_date(doc.get(key))
    doc["status_label"] = STATUS.get(doc.get("status"), doc.get("status"))
    for inst in (doc.get("payment") or {}).get("instalments", []):
        inst["due"], inst["paid_on"] = parse_date(inst.get("due")), parse_date(inst.get("paid_on"))
    for section, keys in (("technical_visit", ("visited_on",)), ("social_report", ("requested_on", "answered_on")),
                          ("schedule", ("day", "until")), ("execution", ("started_on", "ended_on")),
                          ("settlement", ("due", "completed_on", "paid_on", "credit_returned_on")),
                          ("refusal", ("on", "credit_returned_on")), ("quote", ("on",))):
        part = doc.get(section)
        if part:
            for key in keys:
                if key in part:
                    part[key] = parse_date(part[key])
    if doc.get("schedule"):
        doc["schedule"]["days"] = [parse_date(d) for d in doc["schedule"].get("days") or []]
    return doc


def _change(db: Database, actor: Actor, municipality: str, request_id: str, steps: tuple[str, ...] | None,
            build: Callable[[dict], dict], action: str, note: str = "") -> dict:
    """One unit of work on a request: read, check the step, build the $set, write on ``version``, audit."""
    require_module(db, municipality)
    prepare(db)
    with store.transaction(db):
        doc = _load(db, municipality, request_id)
        if steps is not None and doc["status"] not in steps:
            raise WrongStep(f"O pedido {doc['protocol']} está '{STATUS.get(doc['status'], doc['status'])}': "
                            "esta ação não cabe nesta etapa.")
        changes = build(doc)
        changes["updated_at"] = clock.now_utc()
        result = db[REQUESTS].update_one({"_id": ObjectId(doc["id"]), "version": doc["version"]},
                                         {"$set": encode(changes), "$inc": {"version": 1}})
        if result.matched_count != 1:
            raise Conflict("O pedido foi alterado por outra pessoa enquanto você salvava; abra-o de novo e repita.")
        audit.record(db, actor, municipality, action, REQUESTS, doc["id"],
                     {k: encode(doc.get(k)) for k in changes if k != "updated_at"},
                     {k: v for k, v in encode(changes).items() if k != "updated_at"}, note=note or doc["protocol"])
    return get_request_unchecked(db, municipality, request_id)


def get_request_unchecked(db: Database, municipality: str, request_id: str) -> dict:
    """A request as plain values, for a service that already authorized the caller."""
    return _plain(_load(db, municipality, request_id))


def describe_period(schedule: dict | None) -> str:
    """The days a request is booked for, as the screens and the service order say them: one day, or
    the first to the last with how many days ("06/04/2026 a 10/04/2026 (5 dias)")."""
    if not schedule or not schedule.get("day"):
        return ""
    days = [parse_date(d) for d in schedule.get("days") or [schedule["day"]]]
    if len(days) == 1:
        return show_day(days[0])
    return f"{show_day(days[0])} a {show_day(days[-1])} ({fmt.count(len(days), 'dia', 'dias')})"


def describe_services(services: list[dict]) -> str:
    """The services of a request in one line, as the board and the service order show them."""
    parts = []
    for s in services:
        if s["kind"] == "machine_hours":
            parts.append(f"{CATALOGUE[s['item']].machine if s['item'] in CATALOGUE else s['item']}: {s['hours']} h")
        elif s["kind"] == "earth_loads":
            parts.append(f"{fmt.count(s['loads'], 'carga', 'cargas')} de terra/cascalho")
        elif s["kind"] == "dump_truck_day":
            parts.append(f"Caminhão basculante ({'meia diária' if s.get('half_day') else 'diária'}, {s['distance_km']} km)")
        elif s["kind"] == "lowboy_trip":
            parts.append(f"Caminhão prancha ({s['distance_km']} km)")
        else:
            parts.append(f"{'Ônibus' if s.get('item') == '10' else 'Micro-ônibus/van'} ({s['distance_km']} km)")
    return "; ".join(parts)


@module_service("read", reach="request_id")
def get_request(db: Database, actor: Actor, municipality: str, request_id: str) -> dict:
    """One request as plain values (``id``, status label in ``status_label``)."""
    return get_request_unchecked(db, municipality, request_id)


SUMMARY = {k: 1 for k in ("protocol", "year", "sequence", "requested_on", "requester", "zone", "locality", "status",
                          "services", "urgent", "quote.total", "schedule.day")}


@module_service("read", reach="own")
def list_requests(db: Database, actor: Actor, municipality: str, status: str | None = None,
                  limit: int = 200, search: str = "") -> list[dict]:
    """Requests of the municipality, newest protocol first (summary fields); ``search`` matches the
    protocol, the requester's name or CPF/CNPJ and the locality. A resident or entity on the portal
    reads only their own (the register entries of their CPF/CNPJ, by the requester index)."""
    query: dict[str, Any] = {"municipality": municipality}
    own = requester_document(actor)
    if own is not None:
        query["requester_id"] = {"$in": [str(r["_id"]) for r in db[REQUESTERS].find(
            {"municipality": municipality, "document": own}, {"_id": 1})]}
    if status:
        query["status"] = status
    term = "".join(ch for ch in str(search or "") if ch.isprintable()).strip()[:200]
    if term:
        plain = {"$regex": re.escape(term), "$options": "i"}
        ors: list[dict] = [{"protocol": plain}, {"requester.name": plain}, {"locality": plain}]
        if fields.digits(term):
            ors.append({"requester.document": {"$regex": re.escape(fields.digits(term))}})
        query["$or"] = ors
    rows = []
    for raw in db[REQUESTS].find(query, SUMMARY).sort([("year", -1), ("sequence", -1)]).limit(limit):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        doc["services_text"] = describe_services(doc.get("services", []))
        rows.append(_plain(doc))
    return rows


@module_service("write")
def mark_refused(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """The request refused with its reason (any step before execution), its bookings freed: the
    request's part of :func:`services.machinery.payment.refuse_request`, which also settles its
    charges in the same unit of work (never called alone)."""
    if not reason.strip():
        raise ValidationFailed({"reason": "Informe o motivo da recusa."})
    with store.transaction(db):
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": str(request_id)})
        return _change(db, actor, municipality, request_id, OPEN[:-1], lambda doc: {
            "status": "recusado", "schedule": None,
            "refusal": {"reason": reason.strip(), "on": clock.today(), "by": actor.username}}, "refuse")
