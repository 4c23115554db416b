"""Fines, recurrence and the penalties that follow from an infraction and the offender's history."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from rules.base import Finding
from rules.calendar import add_months
from rules.fmt import day
from rules.ridehailing.catalogue import InfractionType
from rules.ridehailing.concepts import Measure, OffenceRecord, Penalty, Severity
from rules.ridehailing.eligibility import within_months
from rules.ridehailing.errors import InvalidPenaltyPeriod


@dataclass(frozen=True)
class FineAssessment:
    """The fine for one infraction on its date, with the reason and article."""

    amount: Decimal
    severity: Severity
    finding: Finding


@dataclass(frozen=True)
class Sanction:
    """Everything that follows from one infraction: severity after recurrence, fine, penalties."""

    infraction: InfractionType
    severity: Severity
    fine: FineAssessment
    penalties: tuple[Penalty, ...]
    measures: tuple[Measure, ...]
    suspension_days: int | None
    suspension_months: int | None
    recurrent: bool
    findings: tuple[Finding, ...]

    def suspension_until(self, start: date) -> date | None:
        """Last day of the suspension starting on ``start``, or None without a suspension."""
        if Penalty.SUSPENSAO not in self.penalties:
            return None
        return suspension_last_day(start, self.suspension_days, self.suspension_months)


def suspension_last_day(start: date, days: int | None, months: int | None) -> date:
    """Last day off the road of a suspension of ``days`` or ``months`` that starts on ``start``.

    The driver is off from the start day itself, so the start day counts: N days end on the
    (N-1)th day after it, and the driver serves again on day N+1 (CG art. 27 §ú and art. 29 §1;
    MP art. 23 §1 and art. 26 IV–V: "afastamento ... por N dias/meses"). N months end the day
    before the same date N months later, date to date (Lei 9.784/1999 art. 66 §3, a missing day
    being the month's last): 12 months from 01/07/2026 end on 30/06/2027. Not moved to a business
    day: it is a period of effect, not a deadline to act (docs/LEITURAS.md, seção 7).
    """
    if days is not None:
        if days < 1:
            raise InvalidPenaltyPeriod("A suspensão dura ao menos um dia", value=days)
        return start + timedelta(days=days - 1)
    if not months or months < 1:
        raise InvalidPenaltyPeriod("A suspensão dura ao menos um mês", value=months)
    return add_months(start, months) - timedelta(days=1)


def prior_offences(history: Iterable[OffenceRecord], committed_on: date, months: int,
                   matches) -> list[OffenceRecord]:
    """Final decisions on earlier infractions matching ``matches`` within ``months`` before."""
    return sorted(
        (r for r in history
         if r.final and matches(r) and within_months(r.committed_on, committed_on, months)),
        key=lambda r: r.committed_on,
    )


def recurrence_finding(priors: list[OffenceRecord], text: str, reference: str) -> Finding:
    last = priors[-1]
    return Finding(True, f"Reincidência: {text} (infração anterior {last.code} de "
                         f"{day(last.committed_on)})", reference)


def merge(first: tuple, extra: tuple) -> tuple:
    return first + tuple(item for item in extra if item not in first)


def unregistered_offender_finding(infraction: InfractionType) -> Finding:
    """Whether an auto against someone outside the drivers register may charge ``infraction``.

    Only transporte ilegal (CG art. 30; MP art. 27) is the offence of the unregistered: the other
    infractions are the authorized driver's (CG art. 23 "condutores autorizados"; MP art. 12 "deveres
    dos condutores autorizados") and need a register to be charged (docs/LEITURAS.md, seção 7).
    """
    if infraction.unregistered:
        return Finding(True, "Transporte ilegal: cabe contra quem não tem cadastro", infraction.reference)
    return Finding(False, f"{infraction.code} é dever do condutor autorizado; contra quem não tem cadastro "
                          "cabe só o transporte ilegal", infraction.reference)


# Measures that last until the offender regularizes and so have an end: the vehicle retained or
# removed and its estada (CG art. 27 II b and art. 31; MP art. 24 II and art. 28), documents or
# equipment seized (CG art. 27 II c; MP art. 24 III), the vehicle seized "até a sua regularização"
# (CG art. 30 §ú; MP art. 26 §2º and art. 27 §ú) and the immediate stop of CG art. 29 II. The
# notification to regularize (CG art. 27 II a; MP art. 24 I) is a single act with nothing to release.
LASTING_MEASURES = frozenset({Measure.RETENCAO_REMOCAO, Measure.APREENSAO_DOCUMENTOS, Measure.APREENSAO_VEICULO,
                              Measure.IMPEDIMENTO})


def measure_release_finding(measure: Measure, taken_on: date, released_on: date, reference: str) -> Finding:
    """Whether a measure taken on ``taken_on`` may be recorded as ended (released, regularized) on
    ``released_on``: only a lasting measure, and never before it was taken."""
    if measure not in LASTING_MEASURES:
        return Finding(False, f"{measure.value.capitalize()} é ato único: não tem liberação", reference)
    if released_on < taken_on:
        return Finding(False, f"Liberação em {day(released_on)}, antes da medida de {day(taken_on)}", reference)
    return Finding(True, f"{measure.value.capitalize()} de {day(taken_on)} encerrada em {day(released_on)}",
                   reference)
