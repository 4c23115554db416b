"""Ride-hailing in Matupá: Lei Municipal 1.552/2025.

Vehicle: art. 2 caput, §1 and the transition of §2, art. 8 I–III, art. 14 and §1. Driver: art. 11
I–VIII and §1, with the CNH's EAR (art. 12 II). Authorization: art. 3 §ú (12 months), art. 8 §1,
art. 9, art. 15. Infractions: arts. 23–27, fines capped in R$ (art. 25 §1) and escalated on
recurrence within 12 months (art. 25 II–IV). Process: art. 21 (notification within 90 days of
the auto; period from the juntada). Platforms: art. 4, 5 and 10.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from rules.base import Finding, Level, cents
from rules.calendar import LegalCalendar, add_months
from rules.fmt import brl, day
from rules.params import ParameterBook, ParameterVersion
from rules.ridehailing import eligibility as check
from rules.ridehailing import matupa_catalogue as cat
from rules.ridehailing.catalogue import InfractionType
from rules.ridehailing.common_parameters import common_parameters
from rules.ridehailing.concepts import (
    Driver,
    Holder,
    Measure,
    OffenceRecord,
    Severity,
    Vehicle,
)
from rules.ridehailing.errors import FineAboveCap, InvalidParameter
from rules.ridehailing.matupa_catalogue import ACT, art
from rules.ridehailing.platforms import ListPeriod
from rules.ridehailing.ruleset import RideHailingRules
from rules.ridehailing.sanctions import (
    FineAssessment,
    prior_offences,
    recurrence_finding,
)

MAX_VEHICLE_AGE = 10  # art. 2 §1
CNH_YEARS = 2  # art. 11 I
VALIDITY_MONTHS = 12  # art. 3 §ú
APP_MINIMUM = Decimal("50000.00")  # art. 5 XI
NOTIFICATION_LIMIT_DAYS = 90  # art. 21 §1
GRAVISSIMA_MONTHS = 12  # art. 11 VII
KEYS = {Severity.LEVE: ("leve", "a"), Severity.MEDIA: ("media", "b"),
        Severity.GRAVE: ("grave", "c"), Severity.GRAVISSIMA: ("gravissima", "d")}
ESCALATION = {Severity.MEDIA: "II", Severity.GRAVE: "III", Severity.GRAVISSIMA: "IV"}  # art. 25
HOLDERS = frozenset({Holder.OWNER, Holder.FIDUCIANTE, Holder.LESSEE, Holder.RENTAL_COMPANY,
                     Holder.INDIVIDUAL_LESSOR})  # art. 14 caput and art. 8 I
RECURRENCE_BASES = ("same_severity", "same_infraction")

IN_FORCE = date(2025, 8, 28)
CAP_ACT = f"{ACT}, art. 25, §1º"


def _money(name: str, value: str, act: str, note: str) -> ParameterVersion:
    return ParameterVersion(name, IN_FORCE, Decimal(value), act, note)


DEFAULT_PARAMETERS: tuple[ParameterVersion, ...] = common_parameters(IN_FORCE, ACT) + (
    *(_money(f"fine_cap_{key}", cap, CAP_ACT, "Teto da multa; atualizável anualmente (art. 25, §3º)")
      for key, cap in (("leve", "200.00"), ("media", "500.00"), ("grave", "1000.00"), ("gravissima", "2000.00"))),
    *(_money(f"fine_{key}", cap, CAP_ACT, "Valor aplicado até o decreto de gradação (art. 25, §2º); "
             "leitura: o teto") for key, cap in
      (("leve", "200.00"), ("media", "500.00"), ("grave", "1000.00"), ("gravissima", "2000.00"))),
    ParameterVersion("vehicle_transition_until", IN_FORCE, add_months(IN_FORCE, 12), f"{ACT}, art. 2º, §2º",
                     "Último dia da regra de transição (1 ano após a vigência)"),
    ParameterVersion("vehicle_transition_max_use_years", IN_FORCE, 10, f"{ACT}, art. 2º, §2º",
                     "Anos de uso, desde o primeiro licenciamento, admitidos na transição"),
    ParameterVersion("renewal_lead_business_days", IN_FORCE, 0, ACT,
                     "Dias úteis de antecedência para pedir a renovação — omisso na Lei"),
    ParameterVersion("relative_registration_allowed", IN_FORCE, False, f"{ACT}, art. 14",
                     "Admitir veículo em nome de cônjuge ou parente — omisso na Lei"),
    ParameterVersion("recurrence_basis", IN_FORCE, "same_severity", f"{ACT}, art. 25, II a IV",
                     "same_severity: qualquer infração da mesma gravidade; same_infraction: a mesma"),
)


class MatupaRules(RideHailingRules):
    municipality = "matupa"
    act = ACT
    refs = {
        "validity": art("art. 3º, parágrafo único"), "renewal": art("art. 3º, parágrafo único"),
        "presentation": art("art. 8º, §1º e art. 26, II"), "fee": art("art. 9º e art. 14, §1º, VII"),
        "suspension": art("art. 23, §1º"), "failed_inspection": art("art. 15, §2º e art. 14, §1º, VI"),
        "annual_inspection": art("art. 15"), "convocation": art("art. 15, §1º e art. 26, I"),
        "data_change": art("art. 12, XX"), "notification": art("art. 21, §1º"),
        "defence": art("art. 21, §2º e art. 25, §4º"), "due_process": art("art. 23, §2º e art. 25, §4º"),
        "insurance": art("art. 5º, XI"), "lists": art("art. 5º, IX e art. 10"), "issqn": art("art. 10"),
        "registration": art("art. 6º"),
        "measures": art("art. 24, art. 26, §2º, art. 27, parágrafo único e art. 28"),
        "data_request": art("art. 4º, §2º"),
    }
    documents = cat.DOCUMENTS
    inspection_items = cat.INSPECTION
    fee_item = "VII"  # art. 14, §1º, VII
    catalogue = cat.CATALOGUE
    notification_methods = cat.NOTIFICATION_METHODS
    trip_data_fields = cat.TRIP_DATA
    list_period = ListPeriod(months=1)  # art. 5º, IX: mensalmente
    notification_limit_days = NOTIFICATION_LIMIT_DAYS

    def driver_findings(self, driver: Driver, on: date, params: ParameterBook) -> list[Finding]:
        return [
            check.cnh_category(driver, art("art. 11, I")),
            check.cnh_seniority(driver, on, CNH_YEARS, art("art. 11, I")),
            check.cnh_valid(driver, on, art("art. 12, II")),
            check.fact(driver.cnh_ear, "CNH com a observação EAR", "CNH sem a observação EAR", art("art. 12, II")),
            check.fact(driver.exclusive_platform_declaration, "Compromisso de serviço exclusivo por plataforma",
                       "Sem compromisso formal de serviço exclusivo por plataforma", art("art. 11, II"), proof=True),
            check.fact(driver.inss_enrolled, "Inscrito no INSS como contribuinte individual",
                       "Sem inscrição no INSS como contribuinte individual", art("art. 11, III")),
            check.fact(driver.fit_for_duty, "Apto física e mentalmente",
                       "Aptidão física e mental não comprovada (atestado médico)", art("art. 11, V"), proof=True),
            check.fact(driver.resides_in_municipality, "Reside no Município", "Não reside no Município",
                       art("art. 11, VI")),
            check.no_gravissima(driver, on, GRAVISSIMA_MONTHS, art("art. 11, VII")),
            check.fact(not driver.disqualifying_criminal_record, "Sem condenação ou antecedente impeditivo",
                       "Condenação ou antecedente por crime impeditivo", art("art. 11, VIII")),
            check.fact(not driver.ctb_303_306_record, "Sem condenação pelos arts. 303 ou 306 do CTB",
                       "Condenação por infração dos arts. 303 ou 306 do CTB", art("art. 11, §1º")),
        ]

    def vehicle_findings(self, vehicle: Vehicle, on: date, params: ParameterBook,
                         other_plates: tuple[str, ...]) -> list[Finding]:
        dpvat = bool(params.get("dpvat_required", on))
        relatives = bool(params.get("relative_registration_allowed", on))
        allowed = HOLDERS | {Holder.SPOUSE_OR_RELATIVE} if relatives else HOLDERS
        return [
            *check.vehicle_design(vehicle, art("art. 2º, §1º"), art("art. 2º, §1º e art. 14, §1º, V"),
                                  art("art. 2º, caput")),
            self._age(vehicle, on, params),
            check.fact(vehicle.plated_in_municipality, "Emplacado em Matupá", "Não emplacado em Matupá",
                       art("art. 14, §1º, VIII e art. 8º, I")),
            check.holder(vehicle, allowed, art("art. 14, caput e art. 8º, I")),
            check.fact(vehicle.dpvat_paid or not dpvat, "Seguro DPVAT regular" if dpvat else
                       "Comprovação do DPVAT dispensada por parâmetro", "Seguro DPVAT irregular",
                       art("art. 14, §1º, IV")),
            check.fact(vehicle.licensing_valid, "Licenciamento regular", "Licenciamento irregular",
                       art("art. 14, §1º, IV")),
            check.fact(vehicle.ipva_paid, "IPVA regular", "IPVA irregular", art("art. 14, §1º, IV")),
            check.fact(vehicle.garage_proof, "Local de guarda comprovado", "Sem comprovação de local de guarda "
                       "(vedada a via pública)", art("art. 8º, III"), proof=True),
            check.one_vehicle(vehicle.plate, other_plates, art("art. 8º, caput")),
        ]

    def _age(self, vehicle: Vehicle, on: date, params: ParameterBook) -> Finding:
        strict = check.vehicle_age(vehicle, on, MAX_VEHICLE_AGE, art("art. 2º, §1º"))
        until = params.get("vehicle_transition_until", on)
        if strict.ok or on > until or vehicle.first_registration is None:
            return strict
        # art. 2 §2: during one year after the law, years of use since first registration count.
        limit = int(params.get("vehicle_transition_max_use_years", on))
        if on <= add_months(vehicle.first_registration, 12 * limit):
            return Finding(True, f"{strict.message}; admitido pela regra de transição até {day(until)} "
                                 f"(primeiro licenciamento em {day(vehicle.first_registration)})",
                           art("art. 2º, §2º"), Level.INFO)
        return strict

    def validity_end(self, start: date) -> date:
        """Valid for 12 months, date to date from the fee payment (art. 3 §ú)."""
        return add_months(start, VALIDITY_MONTHS)

    def renewed_validity_end(self, expiry: date) -> date:
        """A renewal runs 12 more months from the current expiry (art. 3 §ú)."""
        return add_months(expiry, VALIDITY_MONTHS)

    def renewal_deadline(self, expiry: date, params: ParameterBook, calendar: LegalCalendar) -> date:
        lead = int(params.get("renewal_lead_business_days", expiry))
        return calendar.subtract_business_days(expiry, lead) if lead > 0 else expiry

    def app_minimum(self, on: date, params: ParameterBook) -> Decimal | None:
        return APP_MINIMUM

    def fine_amount(self, code: str, on: date, params: ParameterBook,
                    severity: Severity | None = None) -> FineAssessment:
        """The fine in force for the severity, never above the cap in force (art. 25 §1–§3)."""
        severity = severity or self.infraction(code).severity
        key, item = KEYS[severity]
        value, cap = (_decimal(params, name, on) for name in (f"fine_{key}", f"fine_cap_{key}"))
        if value > cap:
            raise FineAboveCap(f"Multa {severity.value} de {brl(value)} acima do teto de {brl(cap)}",
                               value=value, reference=art(f"art. 25, §1º, {item}"))
        amount = cents(value)
        return FineAssessment(amount, severity, Finding(
            True, f"Infração {severity.value}: multa de {brl(amount)}, dentro do teto de {brl(cap)}",
            art(f"art. 25, §1º, {item} e §2º")))

    def severity_recurrence(self, infraction: InfractionType, committed_on: date,
                            history: tuple[OffenceRecord, ...], window: int,
                            params: ParameterBook) -> tuple[Severity, tuple[Measure, ...], list[Finding]]:
        """Art. 25 II–IV: recurrence within 12 months raises the severity one level; art. 26 §2:
        a recurring gravíssima adds the seizure of the vehicle."""
        basis = params.get("recurrence_basis", committed_on)
        if basis not in RECURRENCE_BASES:
            raise InvalidParameter("Critério de reincidência desconhecido", value=basis)
        code, base = infraction.code, infraction.severity
        priors = prior_offences(history, committed_on, window, lambda r: r.code == code
                                if basis == "same_infraction" else self.infraction(r.code).severity is base)
        if not priors:
            return base, (), []
        if base is Severity.GRAVISSIMA:
            return base, (Measure.APREENSAO_VEICULO,), [
                recurrence_finding(priors, "infração gravíssima; multa e apreensão do veículo", art("art. 26, §2º"))]
        raised = base.escalated()
        return raised, (), [recurrence_finding(
            priors, f"infração {base.value} reincidente passa a {raised.value}",
            art(f"art. 25, {ESCALATION[raised]}"))]


def _decimal(params: ParameterBook, name: str, on: date) -> Decimal:
    raw = params.get(name, on)
    try:
        value = Decimal(str(raw))
    except InvalidOperation:
        raise InvalidParameter(f"Parâmetro '{name}' não numérico", value=raw) from None
    if not value.is_finite() or value < 0:
        raise InvalidParameter(f"Parâmetro '{name}' deve ser um valor não negativo", value=value)
    return value


RULESET = MatupaRules()
