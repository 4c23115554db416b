"""Service bookings of Nova Lacerda (module "maquinas", Decreto 017/2026; issue 13).

A request (pedido) for municipal machines or vehicles goes: protocol → technical visit (art. 2
§3, art. 5, art. 10 III) → social report when a discount needs it (art. 7) → quote (Anexo I/II)
→ payment plan and DAMs (art. 8) → schedule board and bookings (art. 3, art. 9) → execution →
completion with the balance DAM or the credit to return (art. 8 §2). Rules live in
``rules/machinery``; this module fetches, calls a rule, saves with audit, returns plain values.

Registers (EntitySpecs in ``services/specs/maquinas.py``, lists/forms/CSV by services.entities):
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
    technical_visit {required, status pendente|favoravel|desfavoravel, visited_on, notes,
                     environmental_licence, by} ,
    discount_claims [{criterion (DiscountCriterion name), evidence_kind (EvidenceKind name),
                      evidence_reference, family_income}],
    social_report {requested_on, requested_by, note, answered_on, favourable, reference} | None,
    findings [{ok, message, reference, level}]  (eligibility at protocol, art. 2/5/6/8/10),
    stage (load stage of the schedule, art. 9), urgent, urgency_justification (art. 3 §2),
    quote {on, price_table {version_id, effective, act}, km_reading, km_reading_text, lines [{item,
           description, unit, quantity, unit_price, amount, discount, discount_reason, note, net}],
           gross, discount_total, total, discount {rate, criterion, reference, reason},
           load_findings [...]} | None,
    payment {extension {ground, justification, days_after_completion, instalments,
             prior_authorization} | None, instalments [{key integral|adiantamento|saldo, label,
             amount, due, due_rule, reference, dam_id, dam_number, paid_on, deferred}]} | None,
    schedule {day, bookings [{asset_id, operator_id}]} | None,
    execution {started_on, ended_on, operator_id, meters [{asset_id, start, end}],
               loads_delivered, worked_hours {item: hours}, photos [sha256], notes} | None,
    settlement {executed, advance, amount_due, credit_to_return, due, message, dam_id,
                dam_number, credit_returned_on} | None,
    trip {responsible_name, responsible_document, driver_operator_id, passengers [str], route,
          incidents [{on, kind dano|lotacao|desvio|outro, description, responsible}]} | None,
    refusal {reason, on, by} | None,
    status (see STATUS), version, created_at, created_by, updated_at

Collection ``machinery_bookings``: one document per (asset, operator, day) assignment::

    municipality, request_id, protocol, day (ISO date), asset_id, operator_id, created_at, by

with unique indexes (municipality, asset_id, day) and (municipality, operator_id, day): two
clerks saving at once cannot book one machine or one operator twice on a day; the
DuplicateKeyError becomes :class:`services.errors.Conflict`.

DAMs: ``services.dams.issue`` with revenue_kind "preco_publico" (full) or "parcela" (advance,
balance), pays={"collection": "booking_requests", "id": request id, "label": "Pedido de serviço
0001/2026"}; :func:`dam_paid` (``@events.on_dam_paid``) marks the instalment paid, idempotently.
Art. 8 §4: :func:`create_request` itself refuses a requester (same CPF/CNPJ) with an overdue DAM of
this service (:class:`RequestsSuspended`).

Price table: the versions are the dated parameter ``public_price_table`` (collection
``parameters``; version 1 = Anexo I, seeded by bootstrap with its act). :func:`price_table` reads
the version in force; a quote stores its ``version_id`` (effective date ISO) and act.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.base import Finding
from rules.machinery.prices import PriceIndex, PriceTable
from services.auth import Actor
from services.errors import ServiceError

MODULE = "maquinas"
REQUESTS = "booking_requests"
BOOKINGS = "machinery_bookings"
PROTOCOL_KIND = "maquinas_protocolo"
LOCALITIES = "machinery_localities"

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
    instalments: tuple[str, ...] = ("integral", "adiantamento", "saldo")
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


@dataclass(frozen=True)
class PricePreview:
    """Art. 12: every new price next to the current one, before the version is saved."""

    current: PriceTable
    new_effective: date
    act: str
    rows: tuple[tuple[str, str, Decimal, Decimal], ...]  # (item, machine, current, new)


# ---- registers' helpers ----

def localities(db: Database, municipality: str, on: date) -> list[dict]:
    """Zones and localities in force (TI parameter ``machinery_localities``), in schedule order."""
    raise NotImplementedError


def set_localities(db: Database, actor: Actor, municipality: str, effective: date, entries: list[dict],
                   act: str) -> None:
    """A new version of the zones/localities list (``ti``)."""
    raise NotImplementedError


# ---- price table (art. 12) ----

def price_table(db: Database, municipality: str, on: date) -> PriceTable:
    """The price table in force on ``on`` from the store (version id = its effective date)."""
    raise NotImplementedError


def price_table_versions(db: Database, actor: Actor, municipality: str) -> list[PriceTable]:
    """Every version of the price table, newest first."""
    raise NotImplementedError


def preview_price_update(db: Database, actor: Actor, municipality: str, index: PriceIndex,
                         variation_percent: Decimal, effective: date, act: str) -> PricePreview:
    """The new prices an INPC/IPCA update would set, nothing saved (``ti``)."""
    raise NotImplementedError


def save_price_update(db: Database, actor: Actor, municipality: str, index: PriceIndex,
                      variation_percent: Decimal, effective: date, act: str) -> PriceTable:
    """Save the updated table as a new version in force from ``effective`` (``ti``)."""
    raise NotImplementedError


# ---- requests ----

def requester_block(db: Database, actor: Actor, municipality: str, document: str, on: date) -> list[Finding]:
    """Art. 8 §4: the overdue DAMs of this service of a CPF/CNPJ (empty when none)."""
    raise NotImplementedError


def check(db: Database, actor: Actor, municipality: str, values: RequestInput) -> list[Finding]:
    """Eligibility findings of a request before it is saved (art. 2, 5, 6, 8 §4, 9, 10)."""
    raise NotImplementedError


def create_request(db: Database, actor: Actor, municipality: str, values: RequestInput) -> str:
    """Protocol a request (number per year) and return its id; refused with RequestsSuspended when
    the requester has an overdue DAM of this service (art. 8 §4)."""
    raise NotImplementedError


def get_request(db: Database, actor: Actor, municipality: str, request_id: str) -> dict:
    """One request as plain values (``id``, status label in ``status_label``)."""
    raise NotImplementedError


def list_requests(db: Database, actor: Actor, municipality: str, status: str | None = None,
                  limit: int = 200) -> list[dict]:
    """Requests of the municipality, newest protocol first (summary fields)."""
    raise NotImplementedError


def add_attachment(db: Database, actor: Actor, municipality: str, request_id: str, data: bytes, name: str,
                   kind: str = "") -> str:
    """Keep a file of the request (store.put_file) and return its sha256."""
    raise NotImplementedError


def attachment(db: Database, actor: Actor, municipality: str, request_id: str, sha256: str) -> bytes:
    """The bytes of one attachment of the request."""
    raise NotImplementedError


def record_technical_visit(db: Database, actor: Actor, municipality: str, request_id: str, visited_on: date,
                           viable: bool, notes: str, environmental_licence: str = "") -> dict:
    """The technical visit (art. 2 §3, art. 5): viability and, when natural materials move, the
    environmental licence (art. 10 III). Unviable → refused with the reason."""
    raise NotImplementedError


def request_social_report(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                          note: str = "") -> dict:
    """Ask Social Assistance for the social report (art. 7, second §2-§3)."""
    raise NotImplementedError


def record_social_report(db: Database, actor: Actor, municipality: str, request_id: str, answered_on: date,
                         favourable: bool, reference: str, note: str = "") -> dict:
    """The answer of Social Assistance (art. 7 §4); favourable gives the 70% on item 12."""
    raise NotImplementedError


def refuse_request(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Refuse the request with its reason (any step before execution)."""
    raise NotImplementedError


def mark_urgent(db: Database, actor: Actor, municipality: str, request_id: str, justification: str) -> dict:
    """Art. 3 §2: move ahead of the protocol order, only with a recorded justification."""
    raise NotImplementedError


# ---- quote and payment ----

def make_quote(db: Database, actor: Actor, municipality: str, request_id: str, on: date) -> dict:
    """Price the request (Anexo I/II) with the table in force on ``on`` and save the quote."""
    raise NotImplementedError


def issue_payment(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                  service_start: date | None = None, extension: ExtensionInput | None = None) -> dict:
    """The payment plan (art. 8) and its DAMs: full before (§1), or 50% advance (§2); deferred
    instalments (§3) get no DAM now and the request goes to the schedule."""
    raise NotImplementedError


def dam_paid(db: Database, dam: dict) -> None:
    """A paid DAM of a request: the instalment is marked paid; all upfront paid → to schedule."""
    raise NotImplementedError


# ---- schedule (art. 3, art. 9) ----

def schedule_board(db: Database, actor: Actor, municipality: str, day: date) -> Board:
    """Requests ready to schedule in the order of art. 3, and machines and operators free on ``day``."""
    raise NotImplementedError


def book(db: Database, actor: Actor, municipality: str, request_id: str, day: date,
         assignments: list[tuple[str, str]]) -> dict:
    """Book (asset_id, operator_id) pairs for the request on ``day``. A machine or operator already
    booked that day → Conflict (unique index), even when two clerks save at once."""
    raise NotImplementedError


def cancel_booking(db: Database, actor: Actor, municipality: str, request_id: str, reason: str) -> dict:
    """Free the machines and operators of the request; it goes back to the schedule queue."""
    raise NotImplementedError


def week_schedule(db: Database, actor: Actor, municipality: str, week_start: date) -> list[dict]:
    """The bookings of the 7 days from ``week_start`` (for the printed week view)."""
    raise NotImplementedError


# ---- execution and completion ----

def start_execution(db: Database, actor: Actor, municipality: str, request_id: str, started_on: date) -> dict:
    """The team started the service."""
    raise NotImplementedError


def complete(db: Database, actor: Actor, municipality: str, request_id: str, execution: ExecutionInput) -> dict:
    """Record the execution and complete: the real amount, the balance DAM due 15 days after
    completion (art. 8 §2) or the credit to return."""
    raise NotImplementedError


def record_credit_returned(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                           note: str) -> dict:
    """The credit to return was paid back to the requester."""
    raise NotImplementedError


# ---- bus and van hire (art. 6) ----

def record_trip(db: Database, actor: Actor, municipality: str, request_id: str, responsible_name: str,
                responsible_document: str, driver_operator_id: str, passengers: list[str], route: str) -> dict:
    """The named responsible person, the municipal driver, passengers and route (art. 6)."""
    raise NotImplementedError


def record_incident(db: Database, actor: Actor, municipality: str, request_id: str, on: date, kind: str,
                    description: str) -> dict:
    """An incident (dano, lotação, desvio de rota, outro) recorded against the responsible person."""
    raise NotImplementedError


# ---- pendências ----

def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[PendingItem]:
    """Awaiting visit, social report, payment, schedule; balances due/overdue; credits to return."""
    raise NotImplementedError
