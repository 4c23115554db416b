"""The interface every municipal ride-hailing rule set offers, with what the laws share.

A municipality's module subclasses :class:`RideHailingRules`, declares its act, articles,
checklists and catalogue, and overrides the few rules where its law differs (driver and
vehicle requirements, validity of the authorization, fines, recurrence). Screens call these
methods without knowing which law applies.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal

from rules.base import Decision, Finding
from rules.calendar import LegalCalendar
from rules.fmt import day
from rules.params import ParameterBook
from rules.ridehailing import eligibility, platforms
from rules.ridehailing.catalogue import (
    ChecklistItem,
    DocumentRequirement,
    InfractionType,
    NotificationMethod,
    TripDataField,
)
from rules.ridehailing.concepts import (
    Authorization,
    DataRequest,
    Driver,
    InfractionProcess,
    Measure,
    OffenceRecord,
    Penalty,
    Platform,
    Severity,
    Vehicle,
)
from rules.ridehailing.errors import InvalidParameter, UnknownInfraction
from rules.ridehailing.guard import check_dates
from rules.ridehailing.lifecycle import AuthorizationState, authorization_state
from rules.ridehailing.process import ProcessState, process_state
from rules.ridehailing.sanctions import (
    FineAssessment,
    Sanction,
    merge,
    prior_offences,
    recurrence_finding,
)

PRESENTATION_DAYS = 5  # CG art. 13; MP art. 8 §1
FIX_DAYS = 5  # CG art. 17 §2; MP art. 15 §2
DATA_CHANGE_DAYS = 7  # CG art. 18 XIX; MP art. 12 XX
# The acts set only the LAST day to ask the renewal (CG art. 9 §2; MP art. 3 §ú), never a first one: the
# panel opens it this many days before that last day, the day the renewal reminder goes to the domicile
# (docs/LEITURAS.md, "Portal do condutor", leitura 1)
RENEWAL_WINDOW_DAYS = 30
INSPECTION_MONTHS = 12  # CG art. 17; MP art. 15 (vistoria anual)
GENERAL_SUSPENSION_MONTHS = 12  # CG art. 27 §ú; MP art. 23 §1 (unless the article sets a period)


class RideHailingRules:
    """Base of the municipal rule sets; subclasses fill the class attributes below."""

    municipality: str = ""
    act: str = ""
    refs: Mapping[str, str] = {}
    documents: tuple[DocumentRequirement, ...] = ()
    inspection_items: tuple[ChecklistItem, ...] = ()
    fee_item: str | None = None  # the checklist's "taxa recolhida": the fee comes after the vistoria
    catalogue: tuple[InfractionType, ...] = ()
    notification_methods: tuple[NotificationMethod, ...] = ()
    trip_data_fields: tuple[TripDataField, ...] = ()
    list_period: platforms.ListPeriod = platforms.ListPeriod(days=60)
    notification_limit_days: int | None = None

    def ref(self, key: str) -> str:
        """The citation of a provision, e.g. ``ref("validity")``."""
        return self.refs[key]

    # Eligibility ------------------------------------------------------------------------------

    def driver_eligibility(self, driver: Driver, protocol_date: date, params: ParameterBook,
                           calendar: LegalCalendar) -> Decision:
        """Whether the driver meets the law on the protocol date, document by document."""
        check_dates(driver, protocol_date)
        findings = self.driver_findings(driver, protocol_date, params)
        findings += eligibility.documents(driver, self.documents, protocol_date, params)
        return Decision(tuple(findings))

    def driver_findings(self, driver: Driver, on: date, params: ParameterBook) -> list[Finding]:
        raise NotImplementedError

    def vehicle_eligibility(self, vehicle: Vehicle, on: date, params: ParameterBook,
                            other_authorized_plates: Iterable[str] = ()) -> Decision:
        """Whether the vehicle may serve on ``on``; ``other_authorized_plates`` are the driver's
        other vehicles with an authorization in force (one vehicle per driver)."""
        check_dates(vehicle, on)
        return Decision(tuple(self.vehicle_findings(vehicle, on, params, tuple(other_authorized_plates))))

    def vehicle_findings(self, vehicle: Vehicle, on: date, params: ParameterBook,
                         other_plates: tuple[str, ...]) -> list[Finding]:
        raise NotImplementedError

    def inspection_computed(self, vehicle: Vehicle, on: date) -> dict[str, Finding]:
        """Checklist items the panel answers by itself (by code), not the inspector. The fee item: the
        acts put the fee after the vistoria (CG art. 16 §ú; MP art. 14 §1 VII with art. 9), so the
        inspector cannot tick it on a first vistoria; the panel checks it where it belongs, issuing the
        authorization only with the fee DAM paid (LEITURAS §2 item 3)."""
        if self.fee_item is None:
            return {}
        item = next(i for i in self.inspection_items if i.code == self.fee_item)
        return {self.fee_item: Finding(True, "conferida pelo painel na expedição: o DAM da taxa é emitido depois "
                                             "da vistoria aprovada e a autorização só é expedida com ele pago",
                                       item.reference)}

    def evaluate_inspection(self, answers: Mapping[str, bool]) -> Decision:
        """The vistoria result: every checklist item must be answered and pass."""
        findings = []
        for item in self.inspection_items:
            answer = answers.get(item.code)
            text = item.text if answer else f"Pendência: {item.text}" if answer is False \
                else f"Item não verificado: {item.text}"
            findings.append(Finding(bool(answer), text, item.reference))
        return Decision(tuple(findings))

    # Authorization life -----------------------------------------------------------------------

    def authorization_status(self, authorization: Authorization, on: date, params: ParameterBook,
                             calendar: LegalCalendar) -> AuthorizationState:
        """Status on ``on`` (requested … active, blocked, suspended until, revoked, cassada, expired)."""
        check_dates(authorization)
        return self.status_of_checked(authorization, on, params, calendar)

    def status_of_checked(self, authorization: Authorization, on: date, params: ParameterBook,
                          calendar: LegalCalendar) -> AuthorizationState:
        """:meth:`authorization_status` of an authorization whose dates were checked once (``check_dates``):
        a timeline asks the status of one authorization on a hundred days."""
        check_dates(on)
        return authorization_state(authorization, on, self, params, calendar)

    def validity_end(self, start: date) -> date:
        raise NotImplementedError

    def renewed_validity_end(self, expiry: date) -> date:
        """End of the period that a renewal paid before ``expiry`` adds after it."""
        return self.validity_end(expiry + timedelta(days=1))

    def renewal_deadline(self, expiry: date, params: ParameterBook, calendar: LegalCalendar) -> date:
        raise NotImplementedError

    def renewal_window(self, expiry: date, params: ParameterBook, calendar: LegalCalendar) -> tuple[date, date]:
        """(first day the driver may ask the renewal, last day to ask it in time): the last day is the act's
        (:meth:`renewal_deadline`); the first, :data:`RENEWAL_WINDOW_DAYS` before it (the acts set none)."""
        last = self.renewal_deadline(expiry, params, calendar)
        return last - timedelta(days=RENEWAL_WINDOW_DAYS), last

    def presentation_deadline(self, approved_on: date, calendar: LegalCalendar) -> date:
        """Last day to show the vehicle for inspection after approval (5 days)."""
        return calendar.add_days(approved_on, PRESENTATION_DAYS)

    def fix_deadline(self, failed_on: date, calendar: LegalCalendar) -> date:
        """Last day to fix what a failed inspection found (5 days, service blocked meanwhile)."""
        return calendar.add_days(failed_on, FIX_DAYS)

    def next_inspection_due(self, passed_on: date, calendar: LegalCalendar) -> date:
        """The annual inspection falls due a year after the last one passed."""
        return calendar.add_months(passed_on, INSPECTION_MONTHS)

    def convocation_deadline(self, called_on: date, params: ParameterBook,
                             calendar: LegalCalendar) -> date:
        """Last day to attend an extraordinary inspection call (days are a parameter)."""
        return calendar.add_days(called_on, int(params.get("inspection_call_days", called_on)))

    def data_change_deadline(self, changed_on: date, calendar: LegalCalendar) -> date:
        """Last day to report a change of registration data (7 days)."""
        return calendar.add_days(changed_on, DATA_CHANGE_DAYS)

    def data_change_check(self, changed_on: date, reported_on: date | None, today: date,
                          calendar: LegalCalendar) -> Finding:
        check_dates(changed_on, reported_on, today)
        deadline = self.data_change_deadline(changed_on, calendar)
        when = reported_on or today
        text = (f"Alteração de {day(changed_on)} comunicada em {day(reported_on)}" if reported_on
                else f"Alteração de {day(changed_on)} ainda não comunicada")
        return Finding(when <= deadline, f"{text}; prazo até {day(deadline)}", self.ref("data_change"))

    # Infractions and penalties ----------------------------------------------------------------

    def infraction(self, code: str) -> InfractionType:
        for entry in self.catalogue:
            if entry.code == code:
                return entry
        raise UnknownInfraction(f"Infração '{code}' não prevista em {self.act}", value=code)

    def fine_amount(self, code: str, on: date, params: ParameterBook,
                    severity: Severity | None = None) -> FineAssessment:
        raise NotImplementedError

    def sanction(self, code: str, committed_on: date, history: Iterable[OffenceRecord],
                 params: ParameterBook) -> Sanction:
        """Severity, fine, penalties and measures of an infraction given the offender's history:
        the article's own recurrence effect (same infraction within the window) plus the rule
        set's severity-based recurrence."""
        history = tuple(history)
        check_dates(committed_on, history)
        infraction = self.infraction(code)
        window = int(params.get("recurrence_window_months", committed_on))
        penalties, measures = infraction.penalties, infraction.measures
        days, months = infraction.suspension_days, infraction.suspension_months
        findings = [Finding(True, f"Infração {infraction.severity.value}: {infraction.text}",
                            infraction.reference)]
        effect = infraction.on_recurrence
        same = prior_offences(history, committed_on, window, lambda r: r.code == code)
        if effect is not None and same:
            penalties, measures = merge(penalties, effect.penalties), merge(measures, effect.measures)
            if effect.suspension_days is not None:
                days, months = effect.suspension_days, None
            findings.append(recurrence_finding(same, infraction.text, effect.reference))
        severity, more_measures, more = self.severity_recurrence(infraction, committed_on, history,
                                                                 window, params)
        measures = merge(measures, more_measures)
        findings += more
        if Penalty.CASSACAO in penalties:
            penalties = tuple(p for p in penalties if p is not Penalty.SUSPENSAO)
            days = months = None
        elif Penalty.SUSPENSAO in penalties and days is None and months is None:
            months = GENERAL_SUSPENSION_MONTHS
            findings.append(Finding(True, f"Suspensão pelo período geral de {months} meses",
                                    self.ref("suspension")))
        fine = self.fine_amount(code, committed_on, params, severity)
        return Sanction(infraction, severity, fine, penalties, measures, days, months,
                        bool(effect and same) or bool(more),
                        tuple(findings) + (fine.finding,))

    def severity_recurrence(self, infraction: InfractionType, committed_on: date,
                            history: tuple[OffenceRecord, ...], window: int,
                            params: ParameterBook) -> tuple[Severity, tuple[Measure, ...], list[Finding]]:
        """Recurrence by severity, where the law has it; none by default."""
        return infraction.severity, (), []

    def process_status(self, process: InfractionProcess, on: date, params: ParameterBook,
                       calendar: LegalCalendar) -> ProcessState:
        """Notification, defence counted from the juntada and decision, up to ``on``."""
        check_dates(process, on)
        defence = int(params.get("defence_period_days", process.auto_on))
        if defence < 0:
            raise InvalidParameter("Prazo de defesa negativo", value=defence)
        return process_state(process, on, self.notification_methods, self.notification_limit_days,
                             defence, dict(self.refs), calendar)

    # Platforms --------------------------------------------------------------------------------

    def app_minimum(self, on: date, params: ParameterBook) -> Decimal | None:
        return None

    def platform_compliance(self, platform: Platform, on: date, params: ParameterBook,
                            calendar: LegalCalendar) -> Decision:
        """Insurance, periodic lists and monthly ISSQN of a platform on ``on``."""
        check_dates(platform, on)
        due_day = int(params.get("issqn_due_day", on))
        if not 1 <= due_day <= 28:
            raise InvalidParameter("Dia de vencimento do ISSQN fora de 1 a 28", value=due_day)
        return Decision((
            platforms.credentialing_finding(platform.credentialing, self.ref("registration")),
            platforms.insurance_finding(platform.insurance, on, self.app_minimum(on, params),
                                        self.ref("insurance")),
            platforms.list_finding(platform, on, self.list_period, calendar, self.ref("lists")),
            platforms.issqn_finding(platform, on, due_day, calendar, self.ref("issqn")),
        ))

    def data_request_check(self, request: DataRequest, now: datetime) -> Decision:
        """Trip data handed over within 24 hours of the notification, with the minimum fields."""
        check_dates(request, now)
        return platforms.data_request_decision(request, now, self.trip_data_fields,
                                               self.ref("data_request"))
