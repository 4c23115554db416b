"""Who may request public machinery services and when a request is refused (Decreto 017/2026,
Nova Lacerda: art. 2, 5, 6, 8 §4 and 10).

- art. 2 caput: natural persons, or associations and non-profit entities duly constituted; at
  least 30 days of notice is preferred ("preferencialmente"): a warning, never a refusal;
- art. 2 §1: the requester owes nothing to the municipality and the destination property has no
  tax debt, unless in a regular instalment plan with instalments paid;
- art. 2 §4, I-VI: the minimum fields of the protocol form, with the two declarations;
- art. 2 §2 and art. 10, III: removal of natural materials needs legal and environmental licence;
- art. 5: private property or hard access depends on a prior technical assessment;
- art. 6: bus, minibus or van hire needs a named person responsible for the trip;
- art. 8 §4: an unpaid instalment suspends new requests;
- art. 9 §1-§2: at most 5 loads of earth or gravel at once; more needs a new request (next stage);
- art. 10, I-II: services harming essential activities are refused; improper benefit to public
  agents is refused, and a public agent who meets the same requirements goes to review.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import Enum

from rules.base import Decision, Finding, Level
from rules.fmt import count
from rules.machinery.payment import InstalmentStatus, new_requests_allowed
from rules.machinery.prices import DECREE
from rules.machinery.quote import EarthLoads, PassengerTransport, Service
from rules.params import ParameterBook


class RequesterKind(str, Enum):
    PERSON = "Pessoa física"
    NON_PROFIT = "Associação ou entidade sem fins lucrativos"
    COMPANY = "Pessoa jurídica com fins lucrativos"


class DebtStatus(str, Enum):
    NONE = "Sem pendências"
    REGULAR_PLAN = "Parcelamento regular com parcelas em dia"
    PLAN_IN_ARREARS = "Parcelamento com parcelas em atraso"
    OUTSTANDING = "Débito em aberto"
    TO_CHECK = "Situação fiscal a verificar pela Secretaria"


class Assessment(str, Enum):
    PENDING = "Pendente"
    APPROVED = "Favorável"
    DENIED = "Desfavorável"


@dataclass(frozen=True)
class ServiceRequest:
    """The protocol form (art. 2, §4) and the facts the Secretaria checks before accepting it."""

    requested_on: date
    requester_kind: RequesterKind
    identification: str
    residence_proof: str
    services_and_justification: str
    agrees_payment_terms: bool
    liability_declaration: bool
    requester_debts: DebtStatus
    property_debts: DebtStatus
    private_property: bool = False
    property_proof: str = ""
    desired_start: date | None = None
    removes_natural_materials: bool = False
    environmental_licence: str = ""
    difficult_access: bool = False
    technical_assessment: Assessment = Assessment.PENDING
    harms_essential_activities: bool = False
    requester_is_public_agent: bool = False
    improper_benefit: bool = False
    trip_responsible: str = ""


def _art(text: str) -> str:
    return f"{DECREE}, {text}"


def _form(request: ServiceRequest) -> list[Finding]:
    fields = [
        ("I", "Identificação do interessado", request.identification.strip()),
        ("II", "Comprovante de residência ou sede no Município", request.residence_proof.strip()),
        ("IV", "Serviços desejados e justificativa", request.services_and_justification.strip()),
        ("V", "Declaração de concordância com os critérios de pagamento", request.agrees_payment_terms),
        ("VI", "Declaração de responsabilidade por danos ao meio ambiente, à via pública ou a terceiros",
         request.liability_declaration),
    ]
    if request.private_property:
        # Art. 2, §4, III: only when the service is on private property
        fields.insert(2, ("III", "Comprovação de propriedade ou autorização do proprietário",
                          request.property_proof.strip()))
    return [Finding(bool(value), f"{label}: {'apresentado' if value else 'ausente no formulário'}",
                    _art(f"art. 2, §4, {numeral}")) for numeral, label, value in fields]


def _debts(request: ServiceRequest) -> list[Finding]:
    # Art. 2, §1: no debt, unless a regular instalment plan with instalments paid; "cabendo à Secretaria
    # competente realizar a verificação prévia": a request made on the portal waits for that check (a warning)
    allowed = (DebtStatus.NONE, DebtStatus.REGULAR_PLAN)
    return [Finding(status in allowed, f"{who}: {status.value}", _art("art. 2, §1"),
                    Level.WARNING if status is DebtStatus.TO_CHECK else Level.ERROR)
            for who, status in (("Interessado", request.requester_debts), ("Imóvel de destino", request.property_debts))]


def _notice(request: ServiceRequest, book: ParameterBook) -> list[Finding]:
    if request.desired_start is None:
        return []
    preferred = int(book.get("preferred_notice_days", request.requested_on))
    notice = (request.desired_start - request.requested_on).days
    # Art. 2 caput: "preferencialmente com antecedência mínima de 30 dias" — a warning only
    return [Finding(notice >= preferred, f"Antecedência de {notice} dias (preferencial: {preferred} dias)",
                    _art("art. 2, caput"), Level.WARNING)]


def _environment(request: ServiceRequest, services: Sequence[Service]) -> list[Finding]:
    licence = request.environmental_licence.strip()
    if request.removes_natural_materials:
        # Art. 10, III: no removal of natural materials without legal and environmental licence
        return [Finding(bool(licence), f"Licença ambiental: {licence or 'não apresentada'}",
                        _art("art. 2, §2; art. 10, III"))]
    if any(isinstance(s, EarthLoads) for s in services) and not licence:
        # Art. 2, §2: licences "poderão ser exigidos" when natural materials are moved
        return [Finding(False, "Carga de terra/cascalho: confirmar a autorização ambiental da origem do material",
                        _art("art. 2, §2"), Level.WARNING)]
    return []


def _assessment(request: ServiceRequest) -> list[Finding]:
    if not (request.private_property or request.difficult_access):
        return []
    reference = _art("art. 5")
    if request.technical_assessment is Assessment.DENIED:
        return [Finding(False, "Avaliação técnica desfavorável: risco aos operadores, aos equipamentos "
                               "ou ao meio ambiente", reference)]
    if request.technical_assessment is Assessment.PENDING:
        return [Finding(False, "Execução depende de avaliação técnica prévia", reference, Level.WARNING)]
    return [Finding(True, "Avaliação técnica favorável", reference, Level.INFO)]


def _prohibitions(request: ServiceRequest) -> list[Finding]:
    findings = [Finding(not request.harms_essential_activities,
                        "Serviço prejudica atividades essenciais do Município" if request.harms_essential_activities
                        else "Não compromete atividades essenciais", _art("art. 10, I"))]
    if request.requester_is_public_agent and request.improper_benefit:
        findings.append(Finding(False, "Uso indevido por agente público, com benefício exclusivo",
                                _art("art. 10, II")))
    elif request.requester_is_public_agent:
        findings.append(Finding(False, "Interessado é agente público: encaminhar para análise; admitido se "
                                       "cumprir os mesmos requisitos dos demais", _art("art. 10, II"),
                                Level.WARNING))
    return findings


def _loads(services: Sequence[Service], request: ServiceRequest, book: ParameterBook) -> list[Finding]:
    asked = [s.loads for s in services if isinstance(s, EarthLoads)]
    if not asked:
        return []
    limit = int(book.get("loads_per_stage_limit", request.requested_on))
    total = sum(n for n in asked if isinstance(n, int) and not isinstance(n, bool))
    if total <= limit:
        return [Finding(True, f"{count(total, 'carga', 'cargas')} de terra/cascalho (limite de {limit} por vez)",
                        _art("art. 9, §1"), Level.INFO)]
    # Art. 9, §1: "limitado a até 5 (cinco) por vez"; §2: the rest waits for a new request
    return [Finding(False, f"{total} cargas de terra/cascalho pedidas: o limite é de {limit} por vez para cada "
                           f"propriedade/solicitante; reduza para até {limit} e apresente nova solicitação para "
                           "as demais, atendida na próxima etapa do cronograma", _art("art. 9, §1 e §2"))]


def check_request(
    request: ServiceRequest, services: Sequence[Service], book: ParameterBook,
    instalments: Iterable[InstalmentStatus] = (),
) -> Decision:
    """Every condition for accepting a request, each finding citing its article."""
    findings = [Finding(request.requester_kind is not RequesterKind.COMPANY,
                        f"Interessado: {request.requester_kind.value}", _art("art. 2, caput"))]
    findings += _form(request) + _debts(request) + _notice(request, book)
    findings += _environment(request, services) + _assessment(request) + _prohibitions(request)
    if any(isinstance(s, PassengerTransport) for s in services):
        responsible = request.trip_responsible.strip()
        # Art. 6: bus, minibus or van hire names the person responsible for the trip
        findings.append(Finding(bool(responsible), f"Responsável pela viagem: {responsible or 'não indicado'}",
                                _art("art. 6")))
    findings += _loads(services, request, book)
    findings += new_requests_allowed(instalments, request.requested_on).findings
    return Decision(tuple(findings))
