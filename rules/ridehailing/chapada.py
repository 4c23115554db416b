"""Ride-hailing in Chapada dos Guimarães: Decreto 06/2026, regulating Lei Municipal 2.103/2025.

Driver: art. 10 I–VIII, §1, §2 and documents of art. 12. Vehicle: art. 2 a) and c), art. 12
§1–§3, art. 14 I–IX and §ú. Authorization: art. 9 §1 (valid to the end of the fiscal year from
the fee payment), §2 (renewal 15 business days before), art. 13, art. 16, art. 17. Infractions:
art. 27–30 with fines in UPFM (art. 28). Process: art. 25. Platforms: art. 5, 11 and 19.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from rules.base import Finding, Level, cents
from rules.calendar import LegalCalendar
from rules.fmt import brl, day
from rules.params import ParameterBook, ParameterVersion
from rules.ridehailing import chapada_catalogue as cat
from rules.ridehailing import eligibility as check
from rules.ridehailing.chapada_catalogue import ACT, art
from rules.ridehailing.common_parameters import common_parameters
from rules.ridehailing.concepts import Driver, Holder, Severity, Vehicle
from rules.ridehailing.errors import InvalidParameter
from rules.ridehailing.platforms import ListPeriod
from rules.ridehailing.ruleset import RideHailingRules
from rules.ridehailing.sanctions import FineAssessment

MAX_VEHICLE_AGE = 10  # art. 2 c) and art. 14 III
RENEWAL_BUSINESS_DAYS = 15  # art. 9 §2
MAX_LESSOR_VEHICLES = 3  # art. 12 §2 IV
MAX_RELATIVE_DEGREE = 2  # art. 12 §2 II
GRAVISSIMA_MONTHS = 12  # art. 10 VII
UPFM_BY_SEVERITY = {  # art. 28 I–IV
    Severity.LEVE: (10, "I"), Severity.MEDIA: (20, "II"),
    Severity.GRAVE: (30, "III"), Severity.GRAVISSIMA: (40, "IV"),
}
ALLOWED_HOLDERS = frozenset(Holder)  # art. 12 §2 I–IV admits every kind, with limits

IN_FORCE = date(2026, 1, 7)
DEFAULT_PARAMETERS: tuple[ParameterVersion, ...] = common_parameters(IN_FORCE, ACT)

DEMO_PARAMETERS: tuple[ParameterVersion, ...] = (
    ParameterVersion("upfm_value", date(2026, 1, 1), Decimal("100.00"),
                     "Valor fictício para demonstração",
                     "Substituir pelo valor da UPFM fixado pelo Município para o exercício"),
)


class ChapadaRules(RideHailingRules):
    municipality = "chapada"
    act = ACT
    refs = {
        "validity": art("art. 9, §1º"), "renewal": art("art. 9, §2º"), "presentation": art("art. 13"),
        "fee": art("art. 14, VIII e art. 16, parágrafo único"), "suspension": art("art. 27, parágrafo único"),
        "failed_inspection": art("art. 17, §2º"), "annual_inspection": art("art. 17"),
        "convocation": art("art. 17, §1º e art. 29, I"), "data_change": art("art. 18, XIX"),
        "notification": art("art. 25, §1º"), "defence": art("art. 25, §2º"),
        "due_process": art("art. 25 e art. 27, caput"), "insurance": art("art. 5º, X"),
        "lists": art("art. 5º, VIII"), "issqn": art("art. 19"), "data_request": art("art. 11, §2º"),
        "registration": art("art. 6º"), "measures": art("art. 27, II, art. 30, parágrafo único e art. 31"),
    }
    documents = cat.DOCUMENTS
    inspection_items = cat.INSPECTION
    fee_item = "VIII"  # art. 14, VIII
    catalogue = cat.CATALOGUE
    notification_methods = cat.NOTIFICATION_METHODS
    trip_data_fields = cat.TRIP_DATA
    list_period = ListPeriod(days=60)  # art. 5º, VIII: a cada 60 dias

    def driver_findings(self, driver: Driver, on: date, params: ParameterBook) -> list[Finding]:
        return [
            check.cnh_category(driver, art("art. 10, I")),
            check.cnh_valid(driver, on, art("art. 10, I")),
            check.fact(driver.exclusive_platform_declaration, "Presta o serviço só por plataforma",
                       "Sem declaração de serviço exclusivo por plataforma", art("art. 10, II"), proof=True),
            check.fact(driver.inss_enrolled, "Inscrito no INSS como contribuinte individual",
                       "Sem inscrição no INSS como contribuinte individual", art("art. 10, III")),
            # the register records the medical certificate's conclusion; without it the aptitude is unproven
            check.fact(driver.fit_for_duty, "Apto para a função",
                       "Aptidão para a função não comprovada (atestado médico)", art("art. 10, IV"), proof=True),
            check.fact(driver.resides_in_municipality, "Reside no Município", "Não reside no Município",
                       art("art. 10, VI")),
            check.no_gravissima(driver, on, GRAVISSIMA_MONTHS, art("art. 10, VII")),
            check.fact(not driver.disqualifying_criminal_record, "Sem condenação ou antecedente impeditivo",
                       "Condenação ou antecedente por crime impeditivo", art("art. 10, VIII")),
            check.fact(not driver.ctb_303_306_record, "Sem crime de trânsito dos arts. 303 e 306 do CTB",
                       "Antecedente ou condenação por crime dos arts. 303 ou 306 do CTB", art("art. 10, §1º")),
            Finding(True, f"Cursos e palestras de qualificação registrados: {len(driver.training_courses)}",
                    art("art. 10, §2º"), Level.INFO),
        ]

    def vehicle_findings(self, vehicle: Vehicle, on: date, params: ParameterBook,
                         other_plates: tuple[str, ...]) -> list[Finding]:
        dpvat = bool(params.get("dpvat_required", on))
        return [
            *check.vehicle_design(vehicle, art("art. 2º, c"), art("art. 14, VI"), art("art. 2º, a")),
            check.vehicle_age(vehicle, on, MAX_VEHICLE_AGE, art("art. 14, III e parágrafo único")),
            check.fact(vehicle.plated_in_municipality, "Emplacado em Chapada dos Guimarães",
                       "Não emplacado em Chapada dos Guimarães", art("art. 14, IX e art. 10, V")),
            self._holder(vehicle),
            check.fact(vehicle.dpvat_paid or not dpvat, "Seguro DPVAT quitado" if dpvat else
                       "Comprovação do DPVAT dispensada por parâmetro", "Seguro DPVAT não quitado",
                       art("art. 14, V")),
            check.one_vehicle(vehicle.plate, other_plates, art("art. 12, §1º")),
        ]

    def inspection_computed(self, vehicle: Vehicle, on: date) -> dict[str, Finding]:
        """Item III of the vistoria (art. 14, III): the age counted from the model year, not ticked;
        item VIII, the fee, as every act's (see the base class)."""
        return {**super().inspection_computed(vehicle, on),
                "III": check.vehicle_age(vehicle, on, MAX_VEHICLE_AGE, art("art. 14, III"))}

    def _holder(self, vehicle: Vehicle) -> Finding:
        if vehicle.holder is Holder.SPOUSE_OR_RELATIVE and not 0 <= vehicle.relative_degree <= MAX_RELATIVE_DEGREE:
            return Finding(False, f"Parente de {vehicle.relative_degree}º grau; admite-se até o 2º grau",
                           art("art. 12, §2º, II"))
        if vehicle.holder is Holder.INDIVIDUAL_LESSOR and not 1 <= vehicle.lessor_vehicle_count <= MAX_LESSOR_VEHICLES:
            return Finding(False, f"Locador pessoa física com {vehicle.lessor_vehicle_count} veículos locados; "
                                  f"o máximo é {MAX_LESSOR_VEHICLES}", art("art. 12, §2º, IV"))
        return check.holder(vehicle, ALLOWED_HOLDERS, art("art. 12, §2º e art. 14, caput"))

    def validity_end(self, start: date) -> date:
        """Valid until the end of the fiscal year of the fee payment (art. 9 §1)."""
        return date(start.year, 12, 31)

    def renewal_deadline(self, expiry: date, params: ParameterBook, calendar: LegalCalendar) -> date:
        """Renewal requested at least 15 business days before expiry (art. 9 §2)."""
        return calendar.subtract_business_days(expiry, RENEWAL_BUSINESS_DAYS)

    def fine_amount(self, code: str, on: date, params: ParameterBook,
                    severity: Severity | None = None) -> FineAssessment:
        """UPFM count of the severity (art. 28) times the UPFM in force on the infraction date."""
        severity = severity or self.infraction(code).severity
        units, item = UPFM_BY_SEVERITY[severity]
        try:
            upfm = Decimal(str(params.get("upfm_value", on)))
        except InvalidOperation:
            raise InvalidParameter("UPFM não numérica", value=params.get("upfm_value", on)) from None
        if not upfm.is_finite() or upfm <= 0:
            raise InvalidParameter("UPFM deve ser positiva", value=upfm)
        amount = cents(units * upfm)
        text = (f"Infração {severity.value}: {units} UPFM × {brl(upfm)} (UPFM em vigor em {day(on)}) "
                f"= {brl(amount)}")
        return FineAssessment(amount, severity, Finding(True, text, art(f"art. 28, {item}")))


RULESET = ChapadaRules()
