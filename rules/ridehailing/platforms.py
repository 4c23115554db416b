"""Platform obligations: periodic lists, APP insurance, trip data in 24 hours, monthly ISSQN."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from rules.base import Decision, Finding
from rules.calendar import LegalCalendar, add_hours, add_months
from rules.fmt import brl, day, moment
from rules.ridehailing.catalogue import TripDataField
from rules.ridehailing.concepts import DataRequest, InsurancePolicy, Platform

DATA_REQUEST_HOURS = 24


@dataclass(frozen=True)
class ListPeriod:
    """How often the platform hands in its list of drivers and vehicles."""

    days: int = 0
    months: int = 0

    def next_due(self, last: date, calendar: LegalCalendar) -> date:
        if self.months:
            return calendar.add_months(last, self.months)
        return calendar.add_days(last, self.days)


CREDENTIALING = {"ativo": "Credenciada", "pendente": "Credenciamento pendente", "suspenso": "Credenciamento suspenso"}


def credentialing_finding(status: str, ref: str) -> Finding:
    """Trips may only be requested through a platform registered and credentialed by the Município."""
    text = CREDENTIALING.get(status, f"Credenciamento em situação desconhecida ({status})")
    if status == "ativo":
        return Finding(True, "Plataforma credenciada no Município", ref)
    return Finding(False, f"{text}: a plataforma não pode operar no Município até ser credenciada", ref)


def insurance_finding(policy: InsurancePolicy | None, on: date, minimum: Decimal | None,
                      ref: str) -> Finding:
    if policy is None:
        return Finding(False, "Sem apólice de seguro APP", ref)
    if not policy.coverage.is_finite():
        return Finding(False, "Cobertura da apólice APP inválida", ref)
    if not policy.valid_from <= on <= policy.valid_until:
        return Finding(False, f"Apólice APP fora da vigência ({day(policy.valid_from)} a "
                              f"{day(policy.valid_until)})", ref)
    if minimum is not None and policy.coverage < minimum:
        return Finding(False, f"Cobertura APP de {brl(policy.coverage)}; o mínimo é {brl(minimum)}", ref)
    return Finding(True, f"Apólice APP de {brl(policy.coverage)} vigente até {day(policy.valid_until)}", ref)


def list_finding(platform: Platform, on: date, period: ListPeriod, calendar: LegalCalendar,
                 ref: str) -> Finding:
    handed_in = [d for d in platform.lists_submitted if d <= on]
    last = max(handed_in, default=platform.credentialed_on)
    due = period.next_due(last, calendar)
    if on <= due:
        return Finding(True, f"Próxima relação de condutores e veículos até {day(due)}", ref)
    return Finding(False, f"Relação de condutores e veículos atrasada desde {day(due)}", ref)


def issqn_finding(platform: Platform, on: date, due_day: int, calendar: LegalCalendar,
                  ref: str) -> Finding:
    """Each month since credentialing whose ISSQN fell due (``due_day`` of the next month) is paid."""
    paid = {(c.year, c.month) for c in platform.issqn_paid_competences}
    missing = []
    competence = date(platform.credentialed_on.year, platform.credentialed_on.month, 1)
    while True:
        following = add_months(competence, 1)
        due = calendar.next_business_day(date(following.year, following.month, min(due_day, 28)))
        if due >= on:
            break
        if (competence.year, competence.month) not in paid:
            missing.append(f"{competence.month:02d}/{competence.year}")
        competence = following
    if missing:
        return Finding(False, f"ISSQN mensal não recolhido: {', '.join(missing)}", ref)
    return Finding(True, "ISSQN mensal em dia", ref)


def data_request_decision(request: DataRequest, now: datetime, fields: tuple[TripDataField, ...],
                          ref: str) -> Decision:
    """Trip data handed over within 24 hours of the notification, with the minimum fields."""
    deadline = add_hours(request.notified_at, DATA_REQUEST_HOURS)
    if request.answered_at is None:
        timely = Finding(now <= deadline, f"Dados da viagem devidos até {moment(deadline)}", ref)
        return Decision((timely,))
    timely = Finding(request.answered_at <= deadline,
                     f"Dados entregues em {moment(request.answered_at)}; prazo {moment(deadline)}", ref)
    absent = [f for f in fields if f.code not in request.fields]
    complete = Finding(not absent, "Dados com todos os campos mínimos" if not absent else
                       "Faltam campos: " + "; ".join(f.label for f in absent),
                       absent[0].reference if absent else ref)
    return Decision((timely, complete))
