"""Service bookings of Nova Lacerda (module "maquinas", Decreto 017/2026; issue 13).

A request (pedido) for municipal machines or vehicles goes: protocol → technical visit (art. 2
§3, art. 5, art. 10 III) → social report when a discount needs it (art. 7) → quote (Anexo I/II)
→ payment plan and DAMs (art. 8) → schedule board and bookings (art. 3, art. 9) → execution →
completion with the balance DAM or the credit to return (art. 8 §2). Rules live in
``rules/machinery``; this module fetches, calls a rule, saves with audit, returns plain values.

Registers (EntitySpecs in ``services/shared/specs/maquinas.py``, lists/forms/CSV by services.shared.entities):
``machinery_assets`` (kind, identifier = plate or asset number, status disponivel/em_servico/
em_manutencao, meter_kind horimetro/odometro, meter_reading), ``machinery_operators`` (municipal
staff: name, cpf, registration, duty operador/motorista, licence_category), ``machinery_requesters``
(kind pf/entidade, name, document CPF/CNPJ, constitution_proof, address, zone, locality, phone,
standing nada_deve/parcelamento_em_dia/em_debito, standing_checked_on). Zones and localities are
the dated parameter ``machinery_localities`` (TI): a list of {"zone", "locality", "area"
(rural/urbana)}; the order of the zones in the list is the regional schedule (art. 3 §1).

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
             label, amount, due, due_rule, reference, dam_id, dam_number, paid_on, deferred}],
             findings} | None   (the "saldo" instalment is the estimate; its DAM is the settlement's),
    schedule {day, bookings [{asset_id, asset, operator_id, operator}]} | None,
    execution {started_on, ended_on, operator_id, operator, meters [{asset_id, start, end}],
               loads_delivered, worked_hours {item: hours}, photos [sha256], notes} | None,
    settlement {executed, advance, amount_due, credit_to_return, due, message, reference,
                completed_on, dam_id, dam_number, paid_on, credit_returned_on, credit_note} | None,
    settlement_open (a balance DAM unpaid or a credit not yet returned: read by pending()),
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

DAMs: ``services.dam.dams.issue`` with revenue_kind "preco_publico" (full) or "parcela" (advance,
balance), pays={"collection": "booking_requests", "id": request id, "label": "Pedido de serviço
0001/2026"}; :func:`dam_paid` (``@events.on_dam_paid``) marks the instalment paid, idempotently.
Art. 8 §4: :func:`create_request` itself refuses a requester (same CPF/CNPJ) with an overdue DAM of
this service (:class:`RequestsSuspended`).

Price table: the versions are the dated parameter ``public_price_table`` (collection
``parameters``, already store-backed; version 1 = Anexo I, seeded by bootstrap with its act), so
no separate ``price_tables`` collection. :func:`price_table` reads the version in force;
:mod:`services.machinery.price_tables` (``ti``) previews and saves a new version; a quote
stores its ``version_id`` (effective date ISO), act and prices. Readings: docs/LEITURAS.md §8.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules.base import Finding, RuleError
from rules.fmt import brl
from rules.fmt import day as show_day
from rules.machinery.discounts import DiscountClaim, DiscountCriterion, DiscountDecision, Evidence, EvidenceKind
from rules.machinery.eligibility import Assessment, DebtStatus, RequesterKind, ServiceRequest, check_request
from rules.machinery.payment import (
    ADVANCE,
    BALANCE,
    FULL,
    DueExtension,
    ExtensionGround,
    Instalment,
    InstalmentStatus,
    PaymentPlan,
    new_requests_allowed,
    payment_plan,
    settle_balance,
)
from rules.machinery.prices import CATALOGUE, DECREE, PRICE_TABLE, PriceTable, price_table_on
from rules.machinery.quote import (
    DumpTruckDay,
    EarthLoads,
    KmReading,
    LowboyTrip,
    MachineHours,
    PassengerTransport,
    Quote,
    QuoteLine,
    quote,
)
from rules.machinery.schedule import LoadRecord, QueuedRequest, loads_allowance, order_of_service
from rules.params import ParameterMissing
from services import store
from services.shared import audit, clock, events, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.store import DuplicateKeyError, decode, encode, insert_one, parse_date

MODULE = "maquinas"
REQUESTS = "booking_requests"
BOOKINGS = "machinery_bookings"
ASSETS = "machinery_assets"
OPERATORS = "machinery_operators"
REQUESTERS = "machinery_requesters"
PROTOCOL_KIND = "maquinas_protocolo"
LOCALITIES = "machinery_localities"
ART_8_4 = f"{DECREE}, art. 8, §4"

INDEXES = {
    REQUESTS: [
        ([("municipality", 1), ("year", 1), ("sequence", 1)], {"unique": True, "name": "u_booking_requests_protocol"}),
        ([("municipality", 1), ("status", 1)], {"name": "i_booking_requests_status"}),
        ([("municipality", 1), ("requester_id", 1)], {"name": "i_booking_requests_requester"}),
    ],
    BOOKINGS: [
        # Issue 13: no machine or operator booked twice for the same day, even with two clerks at once
        ([("municipality", 1), ("asset_id", 1), ("day", 1)], {"unique": True, "name": "u_bookings_asset_day"}),
        ([("municipality", 1), ("operator_id", 1), ("day", 1)], {"unique": True, "name": "u_bookings_operator_day"}),
        ([("municipality", 1), ("request_id", 1)], {"name": "i_bookings_request"}),
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
BALANCE_TERM_DAYS = 15  # art. 8 §2: the balance is paid within 15 days
OPEN = ("aguardando_vistoria", "aguardando_parecer", "aguardando_orcamento", "aguardando_pagamento", "a_agendar",
        "agendado", "em_execucao")
SERVICE_KINDS = {
    "machine_hours": "Horas-máquina", "earth_loads": "Cargas de terra/cascalho", "dump_truck_day": "Caminhão basculante",
    "lowboy_trip": "Caminhão prancha", "passenger_transport": "Ônibus, micro-ônibus ou van",
}
INCIDENT_KINDS = {"dano": "Dano ao veículo", "lotacao": "Excesso de lotação", "desvio": "Desvio de rota não autorizado",
                  "comportamento": "Mau comportamento ou vandalismo", "outro": "Outro"}
STANDING_DEBT = {"nada_deve": DebtStatus.NONE, "parcelamento_em_dia": DebtStatus.REGULAR_PLAN,
                 "em_debito": DebtStatus.OUTSTANDING}
REQUESTER_KIND = {"pf": RequesterKind.PERSON, "entidade": RequesterKind.NON_PROFIT}


class RequestsSuspended(ServiceError):
    """Art. 8 §4: the requester has an overdue DAM of this service; new requests are suspended."""


class WrongStep(ServiceError):
    """The request is not at the step this action belongs to."""


# ---- inputs (plain values from the pages) ----

@dataclass(frozen=True)
class ServiceAsked:
    """One service of the request: kind machine_hours | earth_loads | dump_truck_day | lowboy_trip |
    passenger_transport; item for machine hours (01-04) and passengers (10/11)."""

    kind: str
    item: str = ""
    hours: Decimal | None = None
    loads: int | None = None
    distance_km: Decimal | None = None
    half_day: bool = False


@dataclass(frozen=True)
class ClaimInput:
    """A discount claimed (DiscountCriterion name) with its evidence (EvidenceKind name, reference)."""

    criterion: str
    evidence_kind: str = ""
    evidence_reference: str = ""
    family_income: Decimal | None = None


@dataclass(frozen=True)
class RequestInput:
    """The protocol form (art. 2 §4 I-VI) and the facts staff check."""

    requester_id: str
    requested_on: date
    services: tuple[ServiceAsked, ...]
    justification: str
    identification: str
    residence_proof: str
    agrees_payment_terms: bool
    liability_declaration: bool
    desired_start: date | None = None
    private_property: bool = False
    property_description: str = ""
    property_proof: str = ""
    property_standing: str = "nada_deve"
    property_standing_checked_on: date | None = None
    route: str = ""
    removes_natural_materials: bool = False
    environmental_licence: str = ""
    difficult_access: bool = False
    claims: tuple[ClaimInput, ...] = ()
    trip_responsible: str = ""
    stage: str = ""
    harms_essential_activities: bool = False
    requester_is_public_agent: bool = False


@dataclass(frozen=True)
class ExtensionInput:
    """Art. 8 §3: due date up to 30 days after completion, with express justification."""

    ground: str  # ExtensionGround name
    justification: str
    days_after_completion: int
    instalments: tuple[str, ...] = (FULL, ADVANCE, BALANCE)
    prior_authorization: str = ""


@dataclass(frozen=True)
class ExecutionInput:
    """What the team reports: dates, operator, meters per asset, loads delivered, hours per item."""

    started_on: date
    ended_on: date
    operator_id: str
    meters: tuple[tuple[str, Decimal, Decimal], ...] = ()  # (asset_id, start, end)
    loads_delivered: int | None = None
    worked_hours: tuple[tuple[str, Decimal], ...] = ()  # (item "01".."04", hours)
    photos: tuple[str, ...] = ()  # sha256 from store.put_file
    notes: str = ""


# ---- outputs ----

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


@dataclass(frozen=True)
class PendingItem:
    """One thing awaiting action in the module (pendências)."""

    on: date
    title: str
    detail: str
    record_id: str
    overdue: bool = False


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
                          ("schedule", ("day",)), ("execution", ("started_on", "ended_on")),
                          ("settlement", ("due", "completed_on", "paid_on", "credit_returned_on")),
                          ("refusal", ("on",)), ("quote", ("on",))):
        part = doc.get(section)
        if part:
            for key in keys:
                if key in part:
                    part[key] = parse_date(part[key])
    return doc


def _change(db: Database, actor: Actor, municipality: str, request_id: str, steps: tuple[str, ...] | None,
            build: Callable[[dict], dict], action: str, note: str = "") -> dict:
    """One unit of work on a request: read, check the step, build the $set, write on ``version``, audit."""
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


# ---- conversions between stored values and rule values ----

def _service_doc(service: ServiceAsked) -> dict:
    if service.kind not in SERVICE_KINDS:
        raise ValidationFailed({"services": f"Serviço desconhecido: '{service.kind}'."})
    doc: dict[str, Any] = {"kind": service.kind}
    if service.kind == "machine_hours":
        doc.update(item=service.item, hours=service.hours)
    elif service.kind == "earth_loads":
        doc.update(loads=service.loads)
    elif service.kind == "dump_truck_day":
        doc.update(distance_km=service.distance_km, half_day=bool(service.half_day))
    elif service.kind == "lowboy_trip":
        doc.update(distance_km=service.distance_km)
    else:
        doc.update(item=service.item, distance_km=service.distance_km)
    return doc


def _rule_service(doc: dict) -> Any:
    kind = doc["kind"]
    if kind == "machine_hours":
        return MachineHours(doc["item"], doc["hours"])
    if kind == "earth_loads":
        return EarthLoads(doc["loads"])
    if kind == "dump_truck_day":
        return DumpTruckDay(doc["distance_km"], doc.get("half_day", False))
    if kind == "lowboy_trip":
        return LowboyTrip(doc["distance_km"])
    return PassengerTransport(doc["item"], doc["distance_km"])


def describe_services(services: list[dict]) -> str:
    """The services of a request in one line, as the board and the service order show them."""
    parts = []
    for s in services:
        if s["kind"] == "machine_hours":
            parts.append(f"{CATALOGUE[s['item']].machine if s['item'] in CATALOGUE else s['item']}: {s['hours']} h")
        elif s["kind"] == "earth_loads":
            parts.append(f"{s['loads']} carga(s) de terra/cascalho")
        elif s["kind"] == "dump_truck_day":
            parts.append(f"Caminhão basculante ({'meia diária' if s.get('half_day') else 'diária'}, {s['distance_km']} km)")
        elif s["kind"] == "lowboy_trip":
            parts.append(f"Caminhão prancha ({s['distance_km']} km)")
        else:
            parts.append(f"{'Ônibus' if s.get('item') == '10' else 'Micro-ônibus/van'} ({s['distance_km']} km)")
    return "; ".join(parts)


def _claim_doc(claim: ClaimInput) -> dict:
    errors = {}
    if claim.criterion not in DiscountCriterion.__members__:
        errors["claims"] = f"Critério de desconto desconhecido: '{claim.criterion}'."
    if claim.evidence_kind and claim.evidence_kind not in EvidenceKind.__members__:
        errors["claims"] = f"Tipo de comprovante desconhecido: '{claim.evidence_kind}'."
    if errors:
        raise ValidationFailed(errors)
    return {"criterion": claim.criterion, "evidence_kind": claim.evidence_kind,
            "evidence_reference": claim.evidence_reference.strip(), "family_income": claim.family_income}


def _rule_claims(doc: dict) -> list[DiscountClaim]:
    claims = []
    for c in doc.get("discount_claims", []):
        evidence = (Evidence(EvidenceKind[c["evidence_kind"]], c.get("evidence_reference", ""))
                    if c.get("evidence_kind") else None)
        claims.append(DiscountClaim(DiscountCriterion[c["criterion"]], evidence, c.get("family_income")))
    report = doc.get("social_report") or {}
    if report.get("answered_on") and report.get("favourable"):
        # Art. 7, second §2-§4 and Anexo II, 1st row: the favourable social report gives the 70%
        claims.append(DiscountClaim(DiscountCriterion.SOCIAL_REPORT,
                                    Evidence(EvidenceKind.SOCIAL_REPORT, report.get("reference", ""))))
    return claims


def _assessment(doc: dict) -> Assessment:
    visit = doc.get("technical_visit") or {}
    return {"favoravel": Assessment.APPROVED, "desfavoravel": Assessment.DENIED}.get(visit.get("status"),
                                                                                     Assessment.PENDING)


def _rule_request(doc: dict, requester: dict) -> ServiceRequest:
    prop = doc.get("property") or {}
    visit = doc.get("technical_visit") or {}
    return ServiceRequest(
        requested_on=parse_date(doc["requested_on"]),
        requester_kind=REQUESTER_KIND.get(requester.get("kind"), RequesterKind.COMPANY),
        identification=doc.get("identification", ""), residence_proof=doc.get("residence_proof", ""),
        services_and_justification=doc.get("justification", ""),
        agrees_payment_terms=bool((doc.get("declarations") or {}).get("payment_terms")),
        liability_declaration=bool((doc.get("declarations") or {}).get("liability")),
        requester_debts=STANDING_DEBT.get(requester.get("standing"), DebtStatus.OUTSTANDING),
        property_debts=STANDING_DEBT.get(prop.get("standing"), DebtStatus.OUTSTANDING),
        private_property=bool(prop.get("private")), property_proof=prop.get("proof", ""),
        desired_start=parse_date(doc.get("desired_start")),
        removes_natural_materials=bool(doc.get("removes_natural_materials")),
        environmental_licence=visit.get("environmental_licence") or doc.get("environmental_licence", ""),
        difficult_access=bool(doc.get("difficult_access")), technical_assessment=_assessment(doc),
        harms_essential_activities=bool(doc.get("harms_essential_activities")),
        requester_is_public_agent=bool(doc.get("requester_is_public_agent")),
        trip_responsible=doc.get("trip_responsible", ""),
    )


def _finding_doc(f: Finding) -> dict:
    return {"ok": f.ok, "message": f.message, "reference": f.reference, "level": f.level.value}


def _requester_findings(requester: dict) -> list[Finding]:
    findings = []
    document = fields.digits(requester.get("document", ""))
    if requester.get("kind") == "entidade":
        # Art. 2 caput: "associações e entidades sem fins lucrativos devidamente constituídas"
        proof = (requester.get("constitution_proof") or "").strip()
        findings.append(Finding(bool(proof) and len(document) == 14,
                                f"Entidade: {'constituição comprovada — ' + proof if proof else 'falta a comprovação de constituição'}"
                                f"{'' if len(document) == 14 else '; informe o CNPJ'}", f"{DECREE}, art. 2, caput"))
    elif len(document) != 11:
        findings.append(Finding(False, "Pessoa física: informe o CPF", f"{DECREE}, art. 2, caput"))
    return findings


def _evaluate(doc: dict, requester: dict, book: Any, instalments: list[InstalmentStatus]) -> list[Finding]:
    services = [_rule_service(s) for s in doc["services"]]
    decision = check_request(_rule_request(doc, requester), services, book, instalments)
    return [*_requester_findings(requester), *decision.findings]


def _quote_doc(q: Quote) -> dict:
    return {
        "on": q.on,
        "price_table": {"version_id": q.price_table.effective.isoformat(), "effective": q.price_table.effective,
                        "act": q.price_table.act, "note": q.price_table.note,
                        "prices": {code: price for code, price in q.price_table.prices}},
        "km_reading": q.km_reading.value, "km_reading_text": q.km_reading.text,
        "km_reading_applies": any(line.item in ("07", "09") or
                                  (line.item in ("05", "06", "08") and "primeiros" in line.note) for line in q.lines),
        "lines": [{"item": l.item, "description": l.description, "unit": l.unit, "quantity": l.quantity,
                   "unit_price": l.unit_price, "amount": l.amount, "discount": l.discount,
                   "discount_reason": l.discount_reason, "note": l.note, "net": l.net, "reference": l.reference}
                  for l in q.lines],
        "gross": q.gross, "discount_total": q.discount_total, "total": q.total,
        "discount": {"rate": q.discount.rate, "criterion": q.discount.criterion.name if q.discount.criterion else None,
                     "reference": q.discount.reference, "reason": q.discount.reason,
                     "findings": [_finding_doc(f) for f in q.discount.findings]},
    }


def _quote_of(doc: dict) -> Quote:
    """The stored quote as the rules' Quote, with the price table it was made with."""
    stored = doc["quote"]
    table = stored["price_table"]
    prices = tuple((code, Decimal(str(price))) for code, price in sorted(table["prices"].items()))
    lines = tuple(QuoteLine(l["item"], l["description"], l["unit"], l["quantity"], l["unit_price"], l["amount"],
                            l["discount"], l["discount_reason"], l["note"]) for l in stored["lines"])
    discount = stored["discount"]
    criterion = DiscountCriterion[discount["criterion"]] if discount.get("criterion") else None
    return Quote(parse_date(stored["on"]), PriceTable(parse_date(table["effective"]), table["act"], prices,
                                                      table.get("note", "")),
                 KmReading(stored["km_reading"]), lines, DiscountDecision(discount["rate"], criterion,
                                                                          discount["reference"]))


def _refused(error: RuleError, field_name: str = "services") -> ValidationFailed:
    return ValidationFailed({field_name: f"{error.message} ({error.reference})" if error.reference else error.message})


# ---- registers' helpers ----

def localities(db: Database, municipality: str, on: date) -> list[dict]:
    """Zones and localities in force (TI parameter ``machinery_localities``), in schedule order."""
    try:
        return list(parameters.value(db, municipality, LOCALITIES, on))
    except ParameterMissing:
        return []


def zone_order(entries: list[dict]) -> list[str]:
    """The zones in the order of the list (the regional schedule, art. 3 §1)."""
    return list(dict.fromkeys(e["zone"] for e in entries))


def set_localities(db: Database, actor: Actor, municipality: str, effective: date, entries: list[dict],
                   act: str) -> None:
    """A new version of the zones/localities list (``ti``): [{"zone", "locality", "area" rural|urbana}]."""
    authorize(actor, "admin", municipality)
    clean, errors = [], {}
    for n, entry in enumerate(entries, start=1):
        zone, locality = str(entry.get("zone", "")).strip(), str(entry.get("locality", "")).strip()
        area = entry.get("area")
        if not zone or not locality or area not in ("rural", "urbana"):
            errors[f"linha {n}"] = f"Linha {n}: informe zona, localidade e área (rural ou urbana)."
        clean.append({"zone": zone, "locality": locality, "area": area})
    if not clean:
        errors["entries"] = "Informe ao menos uma localidade."
    if errors:
        raise ValidationFailed(errors)
    parameters.add_version(db, actor, municipality, LOCALITIES, effective, clean, act,
                           "Zonas e localidades do cronograma regionalizado (Decreto 017/2026, art. 3, §1)")


# ---- price table (art. 12) ----

def price_table(db: Database, municipality: str, on: date) -> PriceTable:
    """The price table in force on ``on`` from the store (version id = its effective date)."""
    try:
        return price_table_on(parameters.book(db, municipality), on)
    except ParameterMissing:
        raise ServiceError(f"Não há tabela de preços em vigor em {show_day(on)}; peça à TI para cadastrá-la.") from None


# ---- requests ----

def _overdue_instalments(db: Database, municipality: str, document: str, on: date) -> list[InstalmentStatus]:
    query = {"municipality": municipality, "pays.collection": REQUESTS, "taxpayer_document": fields.digits(document),
             "status": "emitido", "due_on": {"$lt": on.isoformat()}}
    return [InstalmentStatus(f"DAM {d['number']} ({d.get('description', '')[:60]})", d["amount"], parse_date(d["due_on"]))
            for d in (decode(x) for x in db["dams"].find(query, {"number": 1, "amount": 1, "due_on": 1,
                                                                  "description": 1}))]


def requester_block(db: Database, actor: Actor, municipality: str, document: str, on: date) -> list[Finding]:
    """Art. 8 §4: the overdue DAMs of this service of a CPF/CNPJ (empty when none)."""
    authorize(actor, "read", municipality)
    overdue = _overdue_instalments(db, municipality, document, on)
    return list(new_requests_allowed(overdue, on).failures) if overdue else []


def _draft(db: Database, municipality: str, values: RequestInput) -> tuple[dict, dict]:
    """The request document (not yet numbered) and its requester, every input checked."""
    requester = _record(db, REQUESTERS, municipality, values.requester_id, "Solicitante")
    errors: dict[str, str] = {}
    if not values.services:
        errors["services"] = "Informe ao menos um serviço."
    if values.property_standing not in STANDING_DEBT:
        errors["property_standing"] = "Situação do imóvel: escolha nada deve, parcelamento em dia ou em débito."
    if not isinstance(values.requested_on, date) or values.requested_on > clock.today():
        errors["requested_on"] = "Data do pedido: informe uma data até hoje."
    if errors:
        raise ValidationFailed(errors)
    services = [_service_doc(s) for s in values.services]
    claims = [_claim_doc(c) for c in values.claims]
    visit_required = values.private_property or values.difficult_access or values.removes_natural_materials
    doc = {
        "municipality": municipality, "requested_on": values.requested_on, "desired_start": values.desired_start,
        "requester_id": requester["id"],
        "requester": {k: requester.get(k, "") for k in ("name", "document", "kind", "address", "zone", "locality",
                                                        "phone", "standing", "standing_checked_on")},
        "zone": requester.get("zone", ""), "locality": requester.get("locality", ""),
        "services": services, "justification": values.justification.strip(),
        "identification": values.identification.strip(), "residence_proof": values.residence_proof.strip(),
        "property": {"private": values.private_property, "description": values.property_description.strip(),
                     "proof": values.property_proof.strip(), "standing": values.property_standing,
                     "standing_checked_on": values.property_standing_checked_on},
        "route": values.route.strip(),
        "declarations": {"payment_terms": bool(values.agrees_payment_terms),
                         "liability": bool(values.liability_declaration)},
        "removes_natural_materials": values.removes_natural_materials,
        "environmental_licence": values.environmental_licence.strip(), "difficult_access": values.difficult_access,
        "harms_essential_activities": values.harms_essential_activities,
        "requester_is_public_agent": values.requester_is_public_agent,
        "trip_responsible": values.trip_responsible.strip(),
        "attachments": [],
        # Art. 2 §3 and art. 5: private property, hard access or natural materials need the visit first
        "technical_visit": {"required": visit_required, "status": "pendente" if visit_required else "dispensada"},
        "discount_claims": claims, "social_report": None,
        "stage": values.stage.strip() or f"{values.requested_on.year}",
        "urgent": False, "urgency_justification": "",
        "quote": None, "payment": None, "schedule": None, "execution": None, "settlement": None, "trip": None,
        "refusal": None, "settlement_open": False,
    }
    book = parameters.book(db, municipality)
    try:  # the services must be priceable by Anexo I, within the 5-load limit (art. 9 §1)
        quote([_rule_service(s) for s in decode(encode(services))], values.requested_on, book,
              _rule_claims(decode(encode(doc))))
    except RuleError as error:
        raise _refused(error) from None
    return doc, requester


def check(db: Database, actor: Actor, municipality: str, values: RequestInput) -> list[Finding]:
    """Eligibility findings of a request before it is saved (art. 2, 5, 6, 8 §4, 9, 10)."""
    authorize(actor, "read", municipality)
    doc, requester = _draft(db, municipality, values)
    overdue = _overdue_instalments(db, municipality, requester["document"], values.requested_on)
    return _evaluate(decode(encode(doc)), requester, parameters.book(db, municipality), overdue)


def create_request(db: Database, actor: Actor, municipality: str, values: RequestInput) -> str:
    """Protocol a request (number per year) and return its id; refused with RequestsSuspended when
    the requester has an overdue DAM of this service (art. 8 §4)."""
    authorize(actor, "write", municipality)
    prepare(db)
    doc, requester = _draft(db, municipality, values)
    today = clock.today()
    overdue = _overdue_instalments(db, municipality, requester["document"], today)
    if overdue:
        # Art. 8, §4: "o inadimplemento de qualquer parcela suspenderá novas solicitações"
        listed = "; ".join(f"{s.label}, {brl(s.amount)}, vencido em {show_day(s.due)}" for s in overdue)
        raise RequestsSuspended(f"{requester['name']} tem DAM vencido e não pago deste serviço ({listed}). Novas "
                                f"solicitações ficam suspensas até a regularização do pagamento ({ART_8_4}).")
    findings = _evaluate(decode(encode(doc)), requester, parameters.book(db, municipality), overdue)
    now = clock.now_utc()
    with store.transaction(db):
        number = next_number(db, municipality, PROTOCOL_KIND, today.year)
        doc.update(protocol=number.text, year=number.year, sequence=number.sequence, protocolled_at=now,
                   findings=[_finding_doc(f) for f in findings],
                   status="aguardando_vistoria" if doc["technical_visit"]["required"] else "aguardando_orcamento",
                   version=1, created_at=now, created_by=actor.username, updated_at=now)
        inserted = insert_one(db[REQUESTS], encode(doc))
        audit.record(db, actor, municipality, "create", REQUESTS, inserted, {},
                     {k: v for k, v in encode(doc).items() if k not in ("created_at", "updated_at")},
                     note=f"Pedido de serviço {number.text} protocolado")
    return str(inserted)


def get_request(db: Database, actor: Actor, municipality: str, request_id: str) -> dict:
    """One request as plain values (``id``, status label in ``status_label``)."""
    authorize(actor, "read", municipality)
    return get_request_unchecked(db, municipality, request_id)


SUMMARY = {k: 1 for k in ("protocol", "year", "sequence", "requested_on", "requester", "zone", "locality", "status",
                          "services", "urgent", "quote.total", "schedule.day")}


def list_requests(db: Database, actor: Actor, municipality: str, status: str | None = None,
                  limit: int = 200) -> list[dict]:
    """Requests of the municipality, newest protocol first (summary fields)."""
    authorize(actor, "read", municipality)
    query: dict[str, Any] = {"municipality": municipality}
    if status:
        query["status"] = status
    rows = []
    for raw in db[REQUESTS].find(query, SUMMARY).sort([("year", -1), ("sequence", -1)]).limit(limit):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        doc["services_text"] = describe_services(doc.get("services", []))
        rows.append(_plain(doc))
    return rows


def add_attachment(db: Database, actor: Actor, municipality: str, request_id: str, data: bytes, name: str,
                   kind: str = "") -> str:
    """Keep a file of the request (store.put_file) and return its sha256."""
    authorize(actor, "write", municipality)
    if not data:
        raise ValidationFailed({"data": "Arquivo vazio."})
    _load(db, municipality, request_id)
    digest = store.put_file(db, data, name)
    entry = {"sha256": digest, "name": name.strip() or digest[:12], "kind": kind.strip(),
             "added_at": clock.now_utc(), "by": actor.username}
    with store.transaction(db):
        db[REQUESTS].update_one({"_id": ObjectId(request_id)}, {"$push": {"attachments": encode(entry)},
                                                                "$inc": {"version": 1}})
        audit.record(db, actor, municipality, "attach", REQUESTS, request_id, {}, encode(entry))
    return digest


def attachment(db: Database, actor: Actor, municipality: str, request_id: str, sha256: str) -> bytes:
    """The bytes of one attachment of the request."""
    authorize(actor, "read", municipality)
    doc = _load(db, municipality, request_id)
    if sha256 not in [a["sha256"] for a in doc.get("attachments", [])] + \
            list((doc.get("execution") or {}).get("photos", [])):
        raise NotFound("Anexo não encontrado neste pedido.")
    return store.get_file(db, sha256)


def _after_visit_status(doc: dict) -> str:
    report = doc.get("social_report") or {}
    return "aguardando_parecer" if report and not report.get("answered_on") else "aguardando_orcamento"


def record_technical_visit(db: Database, actor: Actor, municipality: str, request_id: str, visited_on: date,
                           viable: bool, notes: str, environmental_licence: str = "") -> dict:
    """The technical visit (art. 2 §3, art. 5): viability and, when natural materials move, the
    environmental licence (art. 10 III). Unviable → refused with the reason."""
    authorize(actor, "write", municipality)
    if not isinstance(visited_on, date) or visited_on > clock.today():
        raise ValidationFailed({"visited_on": "Data da vistoria: informe uma data até hoje."})
    if not notes.strip():
        raise ValidationFailed({"notes": "Descreva a avaliação da equipe técnica."})

    def build(doc: dict) -> dict:
        licence = environmental_licence.strip() or doc.get("environmental_licence", "")
        visit = {"required": True, "status": "favoravel" if viable else "desfavoravel", "visited_on": visited_on,
                 "notes": notes.strip(), "environmental_licence": licence, "by": actor.username}
        changes: dict[str, Any] = {"technical_visit": visit}
        if not viable:
            # Art. 5: "podendo ser negada caso haja risco à segurança, aos equipamentos ou ao meio ambiente"
            changes.update(status="recusado", refusal={"reason": f"Vistoria técnica desfavorável: {notes.strip()} "
                                                                  f"({DECREE}, art. 5)", "on": visited_on,
                                                       "by": actor.username})
        elif doc.get("removes_natural_materials") and not licence:
            # Art. 10, III: no removal of natural materials without legal and environmental licence
            raise ValidationFailed({"environmental_licence": "Retirada de materiais naturais: informe a licença "
                                                             f"ambiental ({DECREE}, art. 10, III)."})
        else:
            changes["status"] = _after_visit_status(doc) if doc["status"] == "aguardando_vistoria" else doc["status"]
        return changes

    return _change(db, actor, municipality, request_id, ("aguardando_vistoria", "aguardando_parecer",
                                                         "aguardando_orcamento"), build, "technical_visit")


def request_social_report(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                          note: str = "") -> dict:
    """Ask Social Assistance for the social report (art. 7, second §2-§3)."""
    authorize(actor, "write", municipality)

    def build(doc: dict) -> dict:
        report = {"requested_on": on, "requested_by": actor.username, "note": note.strip(), "answered_on": None,
                  "favourable": None, "reference": "", "answer_note": ""}
        status = "aguardando_parecer" if doc["status"] == "aguardando_orcamento" else doc["status"]
        return {"social_report": report, "status": status}

    return _change(db, actor, municipality, request_id, ("aguardando_vistoria", "aguardando_orcamento"), build,
                   "social_report_requested")


def record_social_report(db: Database, actor: Actor, municipality: str, request_id: str, answered_on: date,
                         favourable: bool, reference: str, note: str = "") -> dict:
    """The answer of Social Assistance (art. 7 §4); favourable gives the 70% on item 12."""
    authorize(actor, "write", municipality)
    if not reference.strip():
        raise ValidationFailed({"reference": "Informe o número ou a referência do parecer social."})

    def build(doc: dict) -> dict:
        report = dict(doc.get("social_report") or {"requested_on": answered_on, "requested_by": actor.username})
        report.update(answered_on=answered_on, favourable=bool(favourable), reference=reference.strip(),
                      answer_note=note.strip())
        status = "aguardando_orcamento" if doc["status"] == "aguardando_parecer" else doc["status"]
        return {"social_report": report, "status": status}

    return _change(db, actor, municipality, request_id, ("aguardando_vistoria", "aguardando_parecer",
                                                         "aguardando_orcamento"), build, "social_report_answered")


def refuse_request(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Refuse the request with its reason (any step before execution); its bookings are freed."""
    authorize(actor, "write", municipality)
    if not reason.strip():
        raise ValidationFailed({"reason": "Informe o motivo da recusa."})
    with store.transaction(db):
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": str(request_id)})
        return _change(db, actor, municipality, request_id, OPEN[:-1], lambda doc: {
            "status": "recusado", "schedule": None,
            "refusal": {"reason": reason.strip(), "on": clock.today(), "by": actor.username}}, "refuse")


def mark_urgent(db: Database, actor: Actor, municipality: str, request_id: str, justification: str) -> dict:
    """Art. 3 §2: move ahead of the protocol order, only with a recorded justification."""
    authorize(actor, "write", municipality)
    if not justification.strip():
        raise ValidationFailed({"justification": "A antecipação exige justificativa de urgência ou relevância "
                                                 f"pública ({DECREE}, art. 3, §2)."})
    return _change(db, actor, municipality, request_id, OPEN, lambda doc: {
        "urgent": True, "urgency_justification": justification.strip()}, "urgent")


# ---- quote and payment ----

def _property_key(doc: dict) -> str:
    """The destination property for the art. 9 count; without one described, the requester's own."""
    described = ((doc.get("property") or {}).get("description") or "").strip().casefold()
    return described or f"solicitante:{doc['requester_id']}"


def _stage_records(db: Database, municipality: str, doc: dict) -> list[LoadRecord]:
    """Loads already granted in the request's stage to the same requester or property (art. 9 §1)."""
    query = {"municipality": municipality, "stage": doc["stage"], "status": {"$nin": ["recusado"]},
             "quote": {"$ne": None}, "services.kind": "earth_loads"}
    records = []
    for raw in db[REQUESTS].find(query, {"requester_id": 1, "property": 1, "services": 1, "stage": 1}):
        if str(raw["_id"]) == doc["id"]:
            continue
        loads = sum(s.get("loads") or 0 for s in raw.get("services", []) if s["kind"] == "earth_loads")
        records.append(LoadRecord(raw["requester_id"], _property_key(raw), raw["stage"], loads))
    return records


def make_quote(db: Database, actor: Actor, municipality: str, request_id: str, on: date) -> dict:
    """Price the request (Anexo I/II) with the table in force on ``on`` and save the quote; the
    request must meet every condition (findings re-checked with the visit and the payments)."""
    authorize(actor, "write", municipality)
    book = parameters.book(db, municipality)

    def build(doc: dict) -> dict:
        if doc.get("payment"):
            raise WrongStep(f"O pedido {doc['protocol']} já tem DAMs emitidos: o orçamento não muda.")
        requester = _record(db, REQUESTERS, municipality, doc["requester_id"], "Solicitante")
        overdue = _overdue_instalments(db, municipality, requester["document"], clock.today())
        findings = _evaluate(doc, requester, book, overdue)
        services = [_rule_service(s) for s in doc["services"]]
        loads = sum(s.loads for s in services if isinstance(s, EarthLoads))
        if loads:
            allowance = loads_allowance(doc["requester_id"], _property_key(doc), doc["stage"], loads, _stage_records(db, municipality, doc), on, book)
            findings += list(allowance.decision.findings)
        blocking = [f for f in findings if f.blocking]
        if blocking:
            raise ServiceError("O pedido não pode ser orçado: " + "; ".join(f.text() for f in blocking))
        try:
            q = quote(services, on, book, _rule_claims(doc))
        except RuleError as error:
            raise _refused(error) from None
        return {"quote": _quote_doc(q), "findings": [_finding_doc(f) for f in findings],
                "status": "aguardando_pagamento"}

    return _change(db, actor, municipality, request_id, ("aguardando_orcamento", "aguardando_pagamento"), build,
                   "quote")


PAID_UPFRONT = (FULL, ADVANCE)


def _extension(values: ExtensionInput | None) -> DueExtension | None:
    if values is None:
        return None
    if values.ground not in ExtensionGround.__members__:
        raise ValidationFailed({"ground": "Escolha a hipótese da prorrogação (art. 8, §3)."})
    return DueExtension(ExtensionGround[values.ground], values.justification, int(values.days_after_completion),
                        tuple(values.instalments), values.prior_authorization)


def _issue_dam(db: Database, actor: Actor, municipality: str, doc: dict, key: str, label: str, amount: Decimal,
               due: date, reference: str) -> dict:
    from services.dam import dams  # the DAM module owns numbering, barcode and payment

    requester = doc["requester"]
    instructions = ""
    today = clock.today()
    if due < today:
        # Art. 8 §2 gives the requester 15 days to pay; a completion reported after them must not
        # put him in arrears for the administration's delay: the term runs from the issue
        # (docs/LEITURAS.md §8).
        legal = due
        due = today + timedelta(days=BALANCE_TERM_DAYS)
        instructions = (f"Prazo de pagamento contado da emissão: o vencimento pelo {reference} seria "
                        f"{show_day(legal)}, já passado quando a conclusão foi registrada.")
    return dams.issue(
        db, actor, municipality, taxpayer_name=requester["name"], taxpayer_document=requester["document"],
        taxpayer_address=", ".join(x for x in (requester.get("address"), requester.get("locality")) if x),
        revenue_kind="preco_publico" if key == FULL else "parcela",
        description=f"{label} — pedido de serviço {doc['protocol']}: {describe_services(doc['services'])}"[:500],
        legal_basis=f"{reference}; Anexo I", amount=amount, due=due,
        pays={"collection": REQUESTS, "id": doc["id"], "label": f"Pedido de serviço {doc['protocol']}"},
        instructions=instructions,
    )


def _instalment_doc(i: Instalment, dam: dict | None, deferred: bool) -> dict:
    return {"key": i.key, "label": i.label, "amount": i.amount, "due": dam["due_on"] if dam else i.due,
            "due_rule": i.due_rule, "reference": i.reference, "dam_id": dam["id"] if dam else None,
            "dam_number": dam["number"] if dam else None, "paid_on": None, "deferred": deferred}


def issue_payment(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                  service_start: date | None = None, extension: ExtensionInput | None = None) -> dict:
    """The payment plan (art. 8) and its DAMs: full before (§1), or 50% advance (§2); deferred
    instalments (§3) get no DAM now and the request goes to the schedule."""
    authorize(actor, "write", municipality)
    book = parameters.book(db, municipality)
    calendar = parameters.calendar(db, municipality, on)
    due_extension = _extension(extension)

    def build(doc: dict) -> dict:
        if not doc.get("quote"):
            raise WrongStep(f"O pedido {doc['protocol']} ainda não tem orçamento.")
        if doc.get("payment"):
            raise WrongStep(f"Os DAMs do pedido {doc['protocol']} já foram emitidos.")
        try:
            plan = payment_plan(_quote_of(doc), on, calendar, book, service_start=service_start,
                                extension=due_extension)
        except RuleError as error:
            raise _refused(error, "extension") from None
        instalments = []
        for inst in plan.instalments:
            deferred = bool(due_extension and inst.key in due_extension.instalments)
            dam = None
            if inst.key in PAID_UPFRONT and not deferred and inst.amount > 0:
                dam = _issue_dam(db, actor, municipality, doc, inst.key, inst.label, inst.amount, inst.due,
                                 inst.reference)
            instalments.append(_instalment_doc(inst, dam, deferred))
        ext = None if due_extension is None else {
            "ground": due_extension.ground.name, "ground_label": due_extension.ground.value,
            "justification": due_extension.justification.strip(),
            "days_after_completion": due_extension.days_after_completion,
            "instalments": list(due_extension.instalments), "prior_authorization": due_extension.prior_authorization}
        upfront_due = [i for i in instalments if i["key"] in PAID_UPFRONT and i["dam_id"]]
        return {"payment": {"issued_on": on, "extension": ext, "instalments": instalments,
                            "findings": [_finding_doc(f) for f in plan.findings]},
                "status": "aguardando_pagamento" if upfront_due else "a_agendar"}

    return _change(db, actor, municipality, request_id, ("aguardando_pagamento",), build, "payment_plan")


DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))


@events.on_dam_paid(REQUESTS)
def dam_paid(db: Database, dam: dict) -> None:
    """A paid DAM of a request: the instalment (or balance) is marked paid; when every upfront DAM
    is paid the request goes to the schedule (art. 8 §1-§2). Idempotent: the DAM is read from the
    store, and an instalment already paid changes nothing."""
    from services.dam import dams

    try:
        stored = db[dams.COLLECTION].find_one({"_id": ObjectId(str(dam.get("id") or dam.get("_id") or "")),
                                               "status": dams.PAID})
    except (InvalidId, TypeError):
        return
    if stored is None or (stored.get("pays") or {}).get("collection") != REQUESTS:
        return
    stored = dams.plain(stored)
    paid_on = (stored.get("payment") or {}).get("paid_on") or clock.today()

    def build(doc: dict) -> dict:
        changes: dict[str, Any] = {}
        payment = doc.get("payment") or {}
        instalments = payment.get("instalments", [])
        for inst in instalments:
            if inst.get("dam_id") == stored["id"] and not inst.get("paid_on"):
                inst["paid_on"] = paid_on
                changes["payment"] = payment
        settlement = doc.get("settlement") or {}
        if settlement.get("dam_id") == stored["id"] and not settlement.get("paid_on"):
            settlement["paid_on"] = paid_on
            changes["settlement"] = settlement
            changes["settlement_open"] = False
        upfront = [i for i in instalments if i["key"] in PAID_UPFRONT and i.get("dam_id")]
        if doc["status"] == "aguardando_pagamento" and changes.get("payment") and all(i.get("paid_on") for i in upfront):
            changes["status"] = "a_agendar"
        return changes

    municipality = stored["municipality"]
    doc = _load(db, municipality, stored["pays"]["id"])
    before = build(_load(db, municipality, doc["id"]))
    if before:
        _change(db, DAM_ACTOR, municipality, doc["id"], None, build, "dam_paid", note=f"DAM {stored['number']} pago")


# ---- schedule (art. 3, art. 9) ----

def _names(db: Database, collection: str, municipality: str, query: dict, fields_: dict) -> list[dict]:
    rows = []
    for raw in db[collection].find({"municipality": municipality, **query}, fields_):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        rows.append(doc)
    return rows


def schedule_board(db: Database, actor: Actor, municipality: str, day: date) -> Board:
    """Requests ready to schedule (paid or authorized deferral) in the order of art. 3, what is booked
    on ``day``, and the machines and operators free on ``day``."""
    authorize(actor, "read", municipality)
    ready = {}
    for raw in db[REQUESTS].find({"municipality": municipality, "status": "a_agendar"},
                                 {"protocol": 1, "protocolled_at": 1, "zone": 1, "locality": 1, "urgent": 1,
                                  "urgency_justification": 1, "requester.name": 1, "services": 1, "status": 1}):
        ready[raw["protocol"]] = decode(raw)
    queued = [QueuedRequest(r["protocol"], r["protocolled_at"], r.get("zone", ""), r.get("locality", ""),
                            bool(r.get("urgent")), r.get("urgency_justification", "")) for r in ready.values()]
    order = order_of_service(queued, zone_order(localities(db, municipality, day)))
    queue = tuple(QueueEntry(e.position, str(ready[e.request.protocol]["_id"]), e.request.protocol,
                             ready[e.request.protocol]["requester"]["name"], e.request.zone, e.request.locality,
                             describe_services(ready[e.request.protocol]["services"]), e.reason, e.reference,
                             e.request.urgent, ready[e.request.protocol]["status"]) for e in order.sequence)
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


def book(db: Database, actor: Actor, municipality: str, request_id: str, day: date,
         assignments: list[tuple[str, str]]) -> dict:
    """Book (asset_id, operator_id) pairs for the request on ``day``. A machine or operator already
    booked that day → Conflict (unique index), even when two clerks save at once."""
    authorize(actor, "write", municipality)
    if not assignments:
        raise ValidationFailed({"assignments": "Escolha ao menos uma máquina ou veículo com o seu operador."})
    if not isinstance(day, date) or day < clock.today():
        raise ValidationFailed({"day": "Data do agendamento: informe hoje ou uma data futura."})
    prepare(db)
    pairs = []
    for asset_id, operator_id in assignments:
        asset = _record(db, ASSETS, municipality, asset_id, "Máquina ou veículo")
        operator = _record(db, OPERATORS, municipality, operator_id, "Operador ou motorista")
        if asset.get("status") == "em_manutencao":
            raise ValidationFailed({"assignments": f"{asset['identifier']} está em manutenção."})
        if not operator.get("active"):
            raise ValidationFailed({"assignments": f"{operator['name']} não está em atividade."})
        pairs.append((asset, operator))

    def build(doc: dict) -> dict:
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

    return _change(db, actor, municipality, request_id, ("a_agendar",), build, "book")


def cancel_booking(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Free the machines and operators of the request; it goes back to the schedule queue."""
    authorize(actor, "write", municipality)
    if not reason.strip():
        raise ValidationFailed({"reason": "Informe o motivo do cancelamento do agendamento."})
    with store.transaction(db):
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": str(request_id)})
        return _change(db, actor, municipality, request_id, ("agendado",),
                       lambda doc: {"status": "a_agendar", "schedule": None}, "cancel_booking", note=reason.strip())


def week_schedule(db: Database, actor: Actor, municipality: str, week_start: date) -> list[dict]:
    """The bookings of the 7 days from ``week_start`` (for the printed week view), by day and machine."""
    authorize(actor, "read", municipality)
    days = {"$gte": week_start.isoformat(), "$lte": (week_start + timedelta(days=6)).isoformat()}
    rows = _names(db, BOOKINGS, municipality, {"day": days},
                  {"day": 1, "protocol": 1, "request_id": 1, "asset": 1, "operator": 1, "zone": 1, "locality": 1})
    for row in rows:
        row["day"] = parse_date(row["day"])
    return sorted(rows, key=lambda r: (r["day"], r["asset"]))


# ---- execution and completion ----

def _set_assets_status(db: Database, municipality: str, doc: dict, status: str, current: str) -> None:
    """The booked machines' register status follows the service (disponível ↔ em serviço)."""
    for booking in (doc.get("schedule") or {}).get("bookings", []):
        db[ASSETS].update_one({"_id": _oid(booking["asset_id"]), "municipality": municipality, "status": current},
                              {"$set": {"status": status}})


def start_execution(db: Database, actor: Actor, municipality: str, request_id: str, started_on: date) -> dict:
    """The team started the service: the booked machines are 'em serviço'."""
    authorize(actor, "write", municipality)

    def build(doc: dict) -> dict:
        if not isinstance(started_on, date) or started_on > clock.today():
            raise ValidationFailed({"started_on": "Início: informe uma data até hoje."})
        _set_assets_status(db, municipality, doc, "em_servico", "disponivel")
        return {"status": "em_execucao", "execution": {"started_on": started_on}}

    with store.transaction(db):
        return _change(db, actor, municipality, request_id, ("agendado",), build, "start")


def _execution_doc(db: Database, municipality: str, doc: dict, execution: ExecutionInput) -> dict:
    errors = {}
    today = clock.today()
    if execution.ended_on < execution.started_on:
        errors["ended_on"] = "A data de conclusão não pode ser anterior à de início."
    if execution.ended_on > today:
        errors["ended_on"] = "A data de conclusão não pode ser posterior a hoje."
    meters = []
    for asset_id, start, end in execution.meters:
        if Decimal(end) < Decimal(start):
            errors["meters"] = "A leitura final do horímetro/odômetro não pode ser menor que a inicial."
        meters.append({"asset_id": asset_id, "start": Decimal(start), "end": Decimal(end)})
    quoted_loads = sum(s.get("loads") or 0 for s in doc["services"] if s["kind"] == "earth_loads")
    if execution.loads_delivered is not None and not 0 <= execution.loads_delivered <= quoted_loads:
        errors["loads_delivered"] = f"Cargas entregues: de 0 a {quoted_loads} (as pedidas e pagas)."
    if errors:
        raise ValidationFailed(errors)
    operator = _record(db, OPERATORS, municipality, execution.operator_id, "Operador ou motorista")
    return {"started_on": execution.started_on, "ended_on": execution.ended_on, "operator_id": operator["id"],
            "operator": operator["name"], "meters": meters, "loads_delivered": execution.loads_delivered,
            "worked_hours": {item: Decimal(hours) for item, hours in execution.worked_hours},
            "photos": list(execution.photos), "notes": execution.notes.strip()}


def complete(db: Database, actor: Actor, municipality: str, request_id: str, execution: ExecutionInput) -> dict:
    """Record the execution and complete: the real amount, the balance DAM due 15 days after
    completion (art. 8 §2) or the credit to return; instalments deferred by art. 8 §3 get their DAM."""
    authorize(actor, "write", municipality)
    book_ = parameters.book(db, municipality)
    completion = execution.ended_on
    calendar = parameters.calendar(db, municipality, completion)

    def build(doc: dict) -> dict:
        record = _execution_doc(db, municipality, doc, execution)
        payment = doc.get("payment") or {}
        ext = _extension(ExtensionInput(**{k: v for k, v in payment["extension"].items()
                                           if k in ExtensionInput.__dataclass_fields__})) \
            if payment.get("extension") else None
        quote_ = _quote_of(doc)
        instalments = payment.get("instalments", [])
        plan = PaymentPlan(quote_, tuple(Instalment(i["key"], i["label"], i["amount"], parse_date(i["due"]),
                                                    i["due_rule"], i["reference"]) for i in instalments))
        for inst in instalments:  # art. 8, §3: deferred full payment or advance, due after completion
            if inst["key"] in PAID_UPFRONT and inst.get("deferred") and not inst.get("dam_id") and inst["amount"] > 0:
                due = calendar.add_days(completion, ext.days_after_completion)
                dam = _issue_dam(db, actor, municipality, doc, inst["key"], inst["label"], inst["amount"], due,
                                 f"{DECREE}, art. 8, §3")
                inst.update(dam_id=dam["id"], dam_number=dam["number"], due=dam["due_on"])
        settlement = None
        if quote_.machine_hours_total > 0:
            try:
                result = settle_balance(plan, record["worked_hours"], completion, calendar, book_, ext)
            except RuleError as error:
                raise _refused(error, "worked_hours") from None
            settlement = {"executed": result.executed, "advance": result.advance, "amount_due": result.amount_due,
                          "credit_to_return": result.credit_to_return, "due": result.due, "message": result.message,
                          "reference": result.reference, "completed_on": completion, "dam_id": None,
                          "dam_number": None, "paid_on": None, "credit_returned_on": None}
            if result.amount_due > 0:
                dam = _issue_dam(db, actor, municipality, doc, BALANCE, "Saldo das horas-máquina executadas",
                                 result.amount_due, result.due, result.reference)
                settlement.update(dam_id=dam["id"], dam_number=dam["number"], due=dam["due_on"])
        _set_assets_status(db, municipality, doc, "disponivel", "em_servico")
        for meter in record["meters"]:
            db[ASSETS].update_one({"_id": _oid(meter["asset_id"]), "municipality": municipality},
                                  {"$set": {"meter_reading": int(meter["end"])}})
        db[BOOKINGS].delete_many({"municipality": municipality, "request_id": doc["id"],
                                  "day": {"$gt": completion.isoformat()}})
        money_open = bool(settlement and (settlement["dam_id"] or settlement["credit_to_return"] > 0))
        return {"status": "concluido", "execution": record, "settlement": settlement, "settlement_open": money_open,
                "payment": {**payment, "instalments": instalments} if payment else None}

    with store.transaction(db):
        return _change(db, actor, municipality, request_id, ("agendado", "em_execucao"), build, "complete")


def record_credit_returned(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                           note: str) -> dict:
    """The credit to return was paid back to the requester."""
    authorize(actor, "write", municipality)

    def build(doc: dict) -> dict:
        settlement = doc.get("settlement") or {}
        if not settlement.get("credit_to_return"):
            raise WrongStep(f"O pedido {doc['protocol']} não tem crédito a devolver.")
        return {"settlement": {**settlement, "credit_returned_on": on, "credit_note": note.strip()},
                "settlement_open": False}

    return _change(db, actor, municipality, request_id, ("concluido",), build, "credit_returned")


# ---- bus and van hire (art. 6) ----

def record_trip(db: Database, actor: Actor, municipality: str, request_id: str, responsible_name: str,
                responsible_document: str, driver_operator_id: str, passengers: list[str], route: str) -> dict:
    """The named responsible person, the municipal driver, passengers and route (art. 6)."""
    authorize(actor, "write", municipality)
    errors = {}
    if not responsible_name.strip():
        errors["responsible_name"] = f"Indique o responsável pela viagem ({DECREE}, art. 6)."
    try:
        document = fields.parse("cpf", responsible_document)
    except ValueError as exc:
        errors["responsible_document"] = f"CPF do responsável: {exc}."
        document = ""
    if not route.strip():
        errors["route"] = "Informe o roteiro da viagem."
    if errors:
        raise ValidationFailed(errors)
    driver = _record(db, OPERATORS, municipality, driver_operator_id, "Motorista")
    if driver.get("duty") != "motorista":
        # Art. 6, parágrafo único: the driver belongs to the municipal staff
        raise ValidationFailed({"driver_operator_id": f"{driver['name']} não está cadastrado(a) como motorista."})

    def build(doc: dict) -> dict:
        if not any(s["kind"] == "passenger_transport" for s in doc["services"]):
            raise WrongStep(f"O pedido {doc['protocol']} não é de locação de ônibus, micro-ônibus ou van.")
        trip = doc.get("trip") or {"incidents": []}
        trip.update(responsible_name=responsible_name.strip(), responsible_document=document,
                    driver_operator_id=driver["id"], driver=driver["name"],
                    passengers=[p.strip() for p in passengers if p.strip()], route=route.strip())
        return {"trip": trip}

    return _change(db, actor, municipality, request_id, OPEN + ("concluido",), build, "trip")


def record_incident(db: Database, actor: Actor, municipality: str, request_id: str, on: date, kind: str,
                    description: str) -> dict:
    """An incident (dano, lotação, desvio de rota, ...) recorded against the responsible person (art. 6)."""
    authorize(actor, "write", municipality)
    if kind not in INCIDENT_KINDS:
        raise ValidationFailed({"kind": "Escolha o tipo de ocorrência."})
    if not description.strip():
        raise ValidationFailed({"description": "Descreva a ocorrência."})

    prepare(db)
    with store.transaction(db):  # an incident is appended ($push): two clerks recording at once both land
        doc = _load(db, municipality, request_id)
        if doc["status"] not in OPEN + ("concluido",):
            raise WrongStep(f"O pedido {doc['protocol']} está '{STATUS.get(doc['status'], doc['status'])}': "
                            "esta ação não cabe nesta etapa.")
        trip = doc.get("trip")
        if not trip:
            raise WrongStep("Registre antes o responsável pela viagem (art. 6).")
        incident = {"on": on, "kind": kind, "kind_label": INCIDENT_KINDS[kind], "description": description.strip(),
                    "responsible": trip["responsible_name"], "by": actor.username}
        db[REQUESTS].update_one({"_id": ObjectId(doc["id"]), "trip": {"$exists": True}},
                                {"$push": {"trip.incidents": encode(incident)}, "$inc": {"version": 1},
                                 "$set": {"updated_at": encode(clock.now_utc())}})
        audit.record(db, actor, municipality, "incident", REQUESTS, doc["id"], {}, encode(incident),
                     note=f"{doc['protocol']}: {INCIDENT_KINDS[kind]}")
    return get_request_unchecked(db, municipality, request_id)


# ---- pendências ----

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
