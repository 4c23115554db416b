"""The protocol of a service request (Decreto 017/2026, Nova Lacerda, art. 2 §4 I-VI) and its
eligibility (art. 2, 5, 6, 8 §4, 9, 10; ``rules.machinery.eligibility``).

The form's values (:class:`RequestInput`, :class:`ServiceAsked`, :class:`ClaimInput`) are checked once
here and become the stored request; :func:`check` shows the findings before saving, :func:`create_request`
numbers the protocol per year. Art. 8 §4: :func:`create_request` itself refuses a requester (same
CPF/CNPJ) with an overdue charge (débito) of this service (:class:`RequestsSuspended`);
:func:`requester_block` lists those charges. The conversions between stored values and the rules' values used by the later
stages (services, discount claims, findings) live here, the first stage that needs them.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.base import Finding, RuleError
from rules.fmt import brl
from rules.fmt import day as show_day
from rules.machinery.discounts import (
    DiscountClaim,
    DiscountCriterion,
    Evidence,
    EvidenceKind,
)
from rules.machinery.eligibility import (
    Assessment,
    DebtStatus,
    RequesterKind,
    ServiceRequest,
    check_request,
)
from rules.machinery.payment import InstalmentStatus, new_requests_allowed
from rules.machinery.prices import DECREE
from rules.machinery.quote import (
    DumpTruckDay,
    EarthLoads,
    LowboyTrip,
    MachineHours,
    PassengerTransport,
    quote,
)
from services import store
from services.dam import charges
from services.machinery import booking_requests, localities, requesters
from services.machinery.booking_requests import REQUESTERS, REQUESTS, SERVICE_KINDS
from services.shared import audit, clock, fields, parameters
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.store import decode, encode, insert_one, parse_date

PROTOCOL_KIND = "maquinas_protocolo"
ART_8_4 = f"{DECREE}, art. 8, §4"

STANDING_DEBT = {"nada_deve": DebtStatus.NONE, "parcelamento_em_dia": DebtStatus.REGULAR_PLAN,
                 "em_debito": DebtStatus.OUTSTANDING, "a_verificar": DebtStatus.TO_CHECK}
REQUESTER_KIND = {"pf": RequesterKind.PERSON, "entidade": RequesterKind.NON_PROFIT}


class RequestsSuspended(ServiceError):
    """Art. 8 §4: the requester has an overdue DAM of this service; new requests are suspended."""


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


def _refused(error: RuleError, field_name: str = "services") -> ValidationFailed:
    return ValidationFailed({field_name: f"{error.message} ({error.reference})" if error.reference else error.message})


# ---- requests ----

def _overdue_instalments(db: Database, municipality: str, document: str, on: date) -> list[InstalmentStatus]:
    """Art. 8 §4: the requester's charges of this service still owed past their due date, read by index
    (``services.dam.charges.overdue_of``). A charge's due date is its first DAM's: a 2ª via does not
    move it, so only a payment in full lifts the block ("até a regularização")."""
    overdue = [c for c in charges.overdue_of(db, municipality, fields.digits(document), on)
               if (c.get("owner") or {}).get("collection") == REQUESTS]
    return [InstalmentStatus(f"DAM {(c.get('live_dam') or (c['dams'][-1] if c.get('dams') else {})).get('number', '')} "
                             f"({c.get('description', '').split(':')[0][:80]})", c["open"], c["due_on"])
            for c in sorted(overdue, key=lambda c: (c["due_on"], c["id"]))]


@booking_requests.module_service("read", reach="document")
def requester_block(db: Database, actor: Actor, municipality: str, document: str, on: date) -> list[Finding]:
    """Art. 8 §4: the overdue charges of this service of a CPF/CNPJ (empty when none)."""
    overdue = _overdue_instalments(db, municipality, document, on)
    return list(new_requests_allowed(overdue, on).failures) if overdue else []


def _registered_place(db: Database, municipality: str, requester: dict, on: date) -> bool:
    """The requester's zone and locality are in the list in force (art. 3, §1), when TI keeps one."""
    entries = localities.localities(db, municipality, on)
    place = (requester.get("zone", ""), requester.get("locality", ""))
    return not entries or place in {(e["zone"], e["locality"]) for e in entries}


def _draft(db: Database, municipality: str, values: RequestInput) -> tuple[dict, dict]:
    """The request document (not yet numbered) and its requester, every input checked."""
    requester = booking_requests._record(db, REQUESTERS, municipality, values.requester_id, "Solicitante")
    errors: dict[str, str] = {}
    if not values.services:
        errors["services"] = "Informe ao menos um serviço."
    if values.property_standing not in STANDING_DEBT:
        errors["property_standing"] = "Situação do imóvel: escolha nada deve, parcelamento em dia ou em débito."
    if not isinstance(values.requested_on, date) or values.requested_on > clock.today():
        errors["requested_on"] = "Data do pedido: informe uma data até hoje."
    elif values.desired_start is not None and values.desired_start < values.requested_on:
        # Art. 2 caput counts the notice from the request: a start before it is a typing error
        errors["desired_start"] = (f"Início desejado: informe uma data a partir da data do pedido "
                                   f"({show_day(values.requested_on)}).")
    elif not _registered_place(db, municipality, requester, values.requested_on):
        # Art. 3, §1: the schedule runs by the registered zones; the request takes the requester's
        errors["requester_id"] = (f"A zona e a localidade do solicitante ({requester.get('zone') or '—'}, "
                                  f"{requester.get('locality') or '—'}) não estão entre as cadastradas em vigor: "
                                  "atualize o cadastro do solicitante.")
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


# Art. 2, §4: the item of the form each of its findings is about (the field the portal shows it under)
FORM_FIELDS = {"I": "identification", "II": "residence_proof", "III": "property_proof", "IV": "justification",
               "V": "agrees_payment_terms", "VI": "liability_declaration"}


def _form_gaps(values: RequestInput, book: Any) -> dict[str, str]:
    """Asked by the requester on the portal, with no clerk to complete it: the items of the form of art. 2
    §4 missing, each under its field (the clerk protocols such a request and the finding stays)."""
    day = values.requested_on if isinstance(values.requested_on, date) else clock.today()
    form = ServiceRequest(day, RequesterKind.PERSON, values.identification, values.residence_proof,
                          values.justification, values.agrees_payment_terms, values.liability_declaration,
                          DebtStatus.NONE, DebtStatus.NONE, values.private_property, values.property_proof)
    return {FORM_FIELDS[f.reference.rsplit(", ", 1)[-1]]: f"{f.message} ({f.reference})"
            for f in check_request(form, [], book).findings
            if not f.ok and ", art. 2, §4, " in f.reference and f.reference.rsplit(", ", 1)[-1] in FORM_FIELDS}


@booking_requests.module_service("read", reach="values")
def check(db: Database, actor: Actor, municipality: str, values: RequestInput) -> list[Finding]:
    """Eligibility findings of a request before it is saved (art. 2, 5, 6, 8 §4, 9, 10)."""
    doc, requester = _draft(db, municipality, values)
    overdue = _overdue_instalments(db, municipality, requester["document"], values.requested_on)
    return _evaluate(decode(encode(doc)), requester, parameters.book(db, municipality), overdue)


@booking_requests.module_service("write", reach="values")
def create_request(db: Database, actor: Actor, municipality: str, values: RequestInput) -> str:
    """Protocol a request (number per year) and return its id; refused with RequestsSuspended when
    the requester has an overdue DAM of this service (art. 8 §4) — and, asked on the portal by the
    requester, with any block of :func:`requesters.blockers` (art. 2 §1, the Secretaria's prior check)."""
    booking_requests.prepare(db)
    own = booking_requests.requester_document(actor) is not None
    gaps = _form_gaps(values, parameters.book(db, municipality)) if own else {}
    try:
        doc, requester = _draft(db, municipality, values)
    except ValidationFailed as refused:  # every field's answer at once
        raise ValidationFailed({**gaps, **refused.errors}) from None
    if gaps:
        raise ValidationFailed(gaps)
    today = clock.today()
    if own:
        blocks = requesters.blockers(db, municipality, requester["document"], requester.get("standing"), today)
        if blocks:
            raise RequestsSuspended(f"Não é possível protocolar agora. {requesters.describe(blocks)}")
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
