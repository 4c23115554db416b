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
        """Last day of the suspension starting on ``start`` (start excluded, end included)."""
        if Penalty.SUSPENSAO not in self.penalties:
            return None
        if self.suspension_days is not None:
            return start + timedelta(days=self.suspension_days)
        return add_months(start, self.suspension_months or 0)


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
