"""Shared ride-hailing concepts: the facts the municipal laws are applied to.

These are plain frozen values; a rule set reads them and returns decisions with reasons.
The vocabulary follows both acts in force: Decreto 06/2026 (Chapada dos Guimarães) and
Lei 1.552/2025 (Matupá).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from enum import Enum


class Severity(str, Enum):
    """Gravity of an infraction (municipal catalogue or CTB traffic record)."""

    LEVE = "leve"
    MEDIA = "média"
    GRAVE = "grave"
    GRAVISSIMA = "gravíssima"

    def escalated(self) -> "Severity":
        """The next level up; gravíssima stays gravíssima."""
        order = list(Severity)
        return order[min(order.index(self) + 1, len(order) - 1)]


class Penalty(str, Enum):
    """Penalties (CG art. 27, I; MP art. 23)."""

    MULTA = "multa"
    SUSPENSAO = "suspensão da autorização"
    REVOGACAO = "revogação da autorização"
    DESCADASTRAMENTO_CONDUTOR = "descadastramento do condutor"
    CASSACAO = "cassação da autorização"
    DESCADASTRAMENTO_VEICULO = "descadastramento do veículo"


class Measure(str, Enum):
    """Administrative measures (CG art. 27, II; MP art. 24) and the immediate stop of CG art. 29, II."""

    NOTIFICACAO_REGULARIZACAO = "notificação para regularização"
    RETENCAO_REMOCAO = "retenção ou remoção do veículo"
    APREENSAO_DOCUMENTOS = "apreensão de documentos ou equipamentos"
    APREENSAO_VEICULO = "apreensão do veículo até a regularização"
    IMPEDIMENTO = "impedimento imediato de realizar o serviço"


class Holder(str, Enum):
    """In whose name the vehicle is registered, or how the driver holds it."""

    OWNER = "proprietário"
    FIDUCIANTE = "fiduciante"
    LESSEE = "arrendatário"
    SPOUSE_OR_RELATIVE = "cônjuge, companheiro ou parente"
    RENTAL_COMPANY = "locadora pessoa jurídica"
    INDIVIDUAL_LESSOR = "locador pessoa física"


@dataclass(frozen=True)
class Document:
    """A document handed in at the protocol: ``code`` from the rule set's checklist."""

    code: str
    issued_on: date
    valid_until: date | None = None


@dataclass(frozen=True)
class TrafficInfraction:
    """A traffic infraction on the driver's CNH record (CTB), by date and gravity."""

    committed_on: date
    severity: Severity
    description: str = ""


@dataclass(frozen=True)
class Driver:
    """The applicant: CNH data, declarations and records, and the documents handed in."""

    cpf: str
    name: str
    cnh_category: str
    cnh_first_license: date
    cnh_valid_until: date
    cnh_ear: bool = False
    inss_enrolled: bool = False
    resides_in_municipality: bool = False
    exclusive_platform_declaration: bool = False
    fit_for_duty: bool = True
    disqualifying_criminal_record: bool = False
    ctb_303_306_record: bool = False
    traffic_infractions: tuple[TrafficInfraction, ...] = ()
    documents: tuple[Document, ...] = ()
    training_courses: tuple[date, ...] = ()

    def document(self, code: str) -> Document | None:
        """The most recently issued document of that kind, if any."""
        found = [d for d in self.documents if d.code == code]
        return max(found, key=lambda d: d.issued_on) if found else None


@dataclass(frozen=True)
class Vehicle:
    """The vehicle offered for the service."""

    plate: str
    model_year: int
    doors: int
    seats: int
    air_conditioning: bool
    plated_in_municipality: bool
    holder: Holder
    relative_degree: int = 0
    lessor_vehicle_count: int = 0
    dpvat_paid: bool = False
    licensing_valid: bool = False
    ipva_paid: bool = False
    garage_proof: bool = False
    first_registration: date | None = None


class EventKind(str, Enum):
    """What can happen to an authorization, in the order of the flow."""

    REQUESTED = "requested"
    REFUSED = "refused"
    APPROVED = "approved"
    INSPECTION_PASSED = "inspection_passed"
    INSPECTION_FAILED = "inspection_failed"
    INSPECTION_CALLED = "inspection_called"
    FEE_PAID = "fee_paid"
    RENEWAL_REQUESTED = "renewal_requested"
    RENEWAL_FEE_PAID = "renewal_fee_paid"
    VEHICLE_SUBSTITUTED = "vehicle_substituted"
    SUSPENDED = "suspended"
    REVOKED = "revoked"
    CASSADA = "cassada"
    CANCELLED = "cancelled"  # a protocol entered by mistake, cancelled before any decision
    PENALTY_LIFTED = "penalty_lifted"  # an appeal filed in time, or granted, lifts a penalty event (its ``ref``)


@dataclass(frozen=True)
class AuthorizationEvent:
    """One dated event; ``until`` is the last day of a suspension when the event is one; ``ref`` names
    a penalty event (its auto and sanction) and, on a ``PENALTY_LIFTED`` event, the penalty it lifts."""

    kind: EventKind
    on: date
    until: date | None = None
    note: str = ""
    ref: str = ""


@dataclass(frozen=True)
class Authorization:
    """An authorization (alvará) and its history of events."""

    number: str
    driver_cpf: str
    plate: str
    events: tuple[AuthorizationEvent, ...] = ()


@dataclass(frozen=True)
class OffenceRecord:
    """An infraction already recorded against the same offender (for recurrence)."""

    code: str
    committed_on: date
    final: bool = True


@dataclass(frozen=True)
class InsurancePolicy:
    """APP insurance (Acidentes Pessoais de Passageiros) kept by a platform."""

    insurer: str
    coverage: Decimal
    valid_from: date
    valid_until: date


@dataclass(frozen=True)
class DataRequest:
    """A notification asking a platform for trip data, and its answer."""

    notified_at: datetime
    answered_at: datetime | None = None
    fields: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Platform:
    """A technology platform operating in the municipality."""

    name: str
    cnpj: str
    credentialed_on: date
    insurance: InsurancePolicy | None = None
    lists_submitted: tuple[date, ...] = ()
    issqn_paid_competences: tuple[date, ...] = ()
    data_requests: tuple[DataRequest, ...] = ()
    credentialing: str = "ativo"  # "ativo" (credenciada), "pendente" or "suspenso"


@dataclass(frozen=True)
class InfractionProcess:
    """The administrative process of one auto de infração."""

    auto_on: date
    notified_on: date | None = None
    method: str | None = None
    juntada_on: date | None = None
    decided_on: date | None = None
    defence_on: date | None = None  # the defence filed (in time or late)
