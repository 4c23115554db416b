"""Shapes of what each municipality declares: checklists, infractions, notification methods."""
from __future__ import annotations

from dataclasses import dataclass

from rules.ridehailing.concepts import Measure, Penalty, Severity


@dataclass(frozen=True)
class DocumentRequirement:
    """A document the driver hands in; ``validity_parameter`` names the days a certificate
    without a printed validity is accepted for, counted from its issue."""

    code: str
    label: str
    reference: str
    validity_parameter: str | None = None


@dataclass(frozen=True)
class ChecklistItem:
    """One item of the vehicle inspection (vistoria) checklist."""

    code: str
    text: str
    reference: str


@dataclass(frozen=True)
class NotificationMethod:
    """A lawful way of notifying the offender of an auto de infração."""

    code: str
    label: str
    reference: str


@dataclass(frozen=True)
class RecurrenceEffect:
    """What a repeated infraction of the same kind adds to the penalty."""

    reference: str
    penalties: tuple[Penalty, ...] = ()
    measures: tuple[Measure, ...] = ()
    suspension_days: int | None = None


@dataclass(frozen=True)
class InfractionType:
    """One entry of the catalogue: code, text (pt-BR), article, severity and consequences.

    A suspension lasts ``suspension_days`` or ``suspension_months`` when the article sets a
    period; otherwise the rule set's general period applies (CG art. 27 §ú; MP art. 23 §1).
    ``unregistered`` marks the offence someone outside the register commits (transporte ilegal:
    CG art. 30; MP art. 27): the only one an auto against a person without a register may charge.
    """

    code: str
    text: str
    reference: str
    severity: Severity
    penalties: tuple[Penalty, ...] = (Penalty.MULTA,)
    measures: tuple[Measure, ...] = ()
    suspension_days: int | None = None
    suspension_months: int | None = None
    on_recurrence: RecurrenceEffect | None = None
    offender: str = "condutor"
    unregistered: bool = False


@dataclass(frozen=True)
class TripDataField:
    """A field the platform must include when sharing trip data."""

    code: str
    label: str
    reference: str
