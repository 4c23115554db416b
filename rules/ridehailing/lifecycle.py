"""The life of an authorization: its status on any date follows from its dated events.

Flow (CG arts. 9, 13, 14, 16, 17; MP arts. 3, 8, 9, 15): requested → approved (awaiting the
vehicle at inspection within 5 days) → inspection passed (awaiting the fee) → fee paid (active,
valid until the law's end) → renewal, annual inspection, failed inspection (blocked 5 days to fix),
vehicle substitution (new inspection) → suspension, revocation, cassação, expiry.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import Protocol

from rules.base import Finding, Level
from rules.calendar import LegalCalendar
from rules.fmt import day
from rules.params import ParameterBook
from rules.ridehailing.concepts import Authorization, AuthorizationEvent, EventKind
from rules.ridehailing.errors import InvalidEventSequence


class Status(str, Enum):
    REQUESTED = "requested"
    REFUSED = "refused"
    AWAITING_INSPECTION = "awaiting_inspection"
    AWAITING_FEE = "awaiting_fee"
    ACTIVE = "active"
    BLOCKED = "blocked"
    SUSPENDED = "suspended"
    REVOKED = "revoked"
    CASSADA = "cassada"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


# Where the renewal may be protocolled and its fee paid: in force, and also while suspended. Neither act
# forbids it (CG art. 9 §2 asks only for the request 15 business days before the expiry; MP art. 3 §ú
# sets 12 months of validity): the suspension keeps the driver off the road (CG art. 27 §ú; MP art. 23
# §1) but does not end the authorization, and a suspension running past the expiry would otherwise
# end in "vencida" — a penalty the decision did not give (docs/LEITURAS.md, seção 7). The renewal
# changes the validity only; the suspension still runs to its last day.
RENEWABLE = frozenset({Status.ACTIVE, Status.SUSPENDED})


LABELS = {
    Status.REQUESTED: "Requerida",
    Status.REFUSED: "Indeferida",
    Status.AWAITING_INSPECTION: "Aguardando vistoria",
    Status.AWAITING_FEE: "Aguardando pagamento da taxa",
    Status.ACTIVE: "Ativa",
    Status.BLOCKED: "Bloqueada",
    Status.SUSPENDED: "Suspensa",
    Status.REVOKED: "Revogada",
    Status.CASSADA: "Cassada",
    Status.EXPIRED: "Vencida",
    Status.CANCELLED: "Cancelada (protocolo lançado por engano)",
}


class LifecycleRules(Protocol):
    """What the fold needs from a rule set."""

    def ref(self, key: str) -> str: ...
    def validity_end(self, start: date) -> date: ...
    def renewed_validity_end(self, expiry: date) -> date: ...
    def presentation_deadline(self, approved_on: date, calendar: LegalCalendar) -> date: ...
    def fix_deadline(self, failed_on: date, calendar: LegalCalendar) -> date: ...
    def next_inspection_due(self, passed_on: date, calendar: LegalCalendar) -> date: ...
    def convocation_deadline(self, called_on: date, params: ParameterBook, calendar: LegalCalendar) -> date: ...
    def renewal_deadline(self, expiry: date, params: ParameterBook, calendar: LegalCalendar) -> date: ...


@dataclass(frozen=True)
class AuthorizationState:
    """Status on a date, with the date that matters for it and the reasons."""

    status: Status
    valid_until: date | None = None
    deadline: date | None = None
    findings: tuple[Finding, ...] = ()

    @property
    def label(self) -> str:
        base = LABELS[self.status]
        if self.status is Status.SUSPENDED and self.deadline:
            return f"{base} até {day(self.deadline)}"
        if self.status is Status.ACTIVE and self.valid_until:
            return f"{base} até {day(self.valid_until)}"
        return base

    @property
    def can_operate(self) -> bool:
        return self.status is Status.ACTIVE


@dataclass
class _Life:
    status: Status = Status.REQUESTED
    approved_on: date | None = None
    inspected: bool = False
    failed_on: date | None = None
    substituted_on: date | None = None
    called_on: date | None = None
    last_passed: date | None = None
    valid_until: date | None = None
    renewal_requested: date | None = None
    suspended_until: date | None = None
    ended: tuple[Status, date] | None = None
    notes: list[Finding] = field(default_factory=list)


def _refuse(event: AuthorizationEvent, why: str) -> InvalidEventSequence:
    return InvalidEventSequence(
        f"Evento '{event.kind.value}' de {day(event.on)} inválido: {why}", value=event
    )


def _apply(life: _Life, event: AuthorizationEvent, rules: LifecycleRules,
           params: ParameterBook, calendar: LegalCalendar) -> None:
    kind = event.kind
    if life.ended is not None:
        raise _refuse(event, "a autorização já foi encerrada")
    if kind is EventKind.REQUESTED:
        raise _refuse(event, "o pedido já foi protocolado")
    if kind is EventKind.CANCELLED:
        # an administrative correction, not a decision: only a request not yet decided is cancelled
        if life.approved_on is not None:
            raise _refuse(event, "só um requerimento ainda não decidido pode ser cancelado")
        life.ended = (Status.CANCELLED, event.on)
        return
    if kind in (EventKind.APPROVED, EventKind.REFUSED):
        if life.approved_on is not None:
            raise _refuse(event, "o pedido já foi decidido")
        if kind is EventKind.REFUSED:
            life.ended = (Status.REFUSED, event.on)
        else:
            life.approved_on = event.on
        return
    if life.approved_on is None:
        raise _refuse(event, "o pedido ainda não foi aprovado")
    if kind is EventKind.INSPECTION_PASSED:
        life.inspected, life.failed_on, life.substituted_on, life.called_on = True, None, None, None
        life.last_passed = event.on
    elif kind is EventKind.INSPECTION_FAILED:
        life.failed_on, life.called_on = event.on, None
    elif kind is EventKind.INSPECTION_CALLED:
        life.called_on = event.on
    elif kind is EventKind.FEE_PAID:
        if life.valid_until is not None:
            raise _refuse(event, "a taxa inicial já foi paga; use a renovação")
        life.valid_until = rules.validity_end(event.on)
    elif kind in (EventKind.RENEWAL_REQUESTED, EventKind.RENEWAL_FEE_PAID,
                  EventKind.VEHICLE_SUBSTITUTED, EventKind.SUSPENDED):
        _apply_to_issued(life, event, rules, params, calendar)
    elif kind in (EventKind.REVOKED, EventKind.CASSADA):
        life.ended = (Status.REVOKED if kind is EventKind.REVOKED else Status.CASSADA, event.on)


def _apply_to_issued(life: _Life, event: AuthorizationEvent, rules: LifecycleRules,
                     params: ParameterBook, calendar: LegalCalendar) -> None:
    if life.valid_until is None:
        raise _refuse(event, "a autorização ainda não foi expedida")
    kind = event.kind
    if kind is EventKind.RENEWAL_REQUESTED:
        life.renewal_requested = event.on
        deadline = rules.renewal_deadline(life.valid_until, params, calendar)
        if event.on > deadline:
            life.notes.append(Finding(
                False, f"Renovação requerida em {day(event.on)}, após o prazo de {day(deadline)}",
                rules.ref("renewal"), Level.WARNING))
    elif kind is EventKind.RENEWAL_FEE_PAID:
        # Renewal paid before expiry continues the current period; paid later starts anew.
        if event.on <= life.valid_until:
            life.valid_until = rules.renewed_validity_end(life.valid_until)
        else:
            life.valid_until = rules.validity_end(event.on)
        life.renewal_requested = None
    elif kind is EventKind.VEHICLE_SUBSTITUTED:
        life.substituted_on = event.on
    elif kind is EventKind.SUSPENDED:
        if event.until is None or event.until < event.on:
            raise _refuse(event, "a suspensão precisa do último dia, não anterior ao início")
        life.suspended_until = event.until


def authorization_state(authorization: Authorization, on: date, rules: LifecycleRules,
                        params: ParameterBook, calendar: LegalCalendar) -> AuthorizationState:
    """The status of ``authorization`` on ``on``; events after ``on`` are not yet known. A penalty
    lifted by ``on`` (an appeal filed in time holds it, one granted drops it: ``process.penalty_effect``)
    is left out as if never applied; both events stay in the history."""
    events = sorted(authorization.events, key=lambda e: e.on)
    if not events or events[0].kind is not EventKind.REQUESTED:
        raise InvalidEventSequence("A autorização começa pelo requerimento protocolado",
                                   value=authorization.number)
    lifted = {e.ref: e.on for e in events if e.kind is EventKind.PENALTY_LIFTED and e.ref and e.on <= on}
    life = _Life()
    for event in events[1:]:
        if event.on <= on and event.kind is not EventKind.PENALTY_LIFTED and not (event.ref and event.ref in lifted):
            _apply(life, event, rules, params, calendar)
    return _state_on(life, on, rules, params, calendar)


def _state_on(life: _Life, on: date, rules: LifecycleRules,
              params: ParameterBook, calendar: LegalCalendar) -> AuthorizationState:
    notes = tuple(life.notes)
    if life.ended is not None:
        status, since = life.ended
        return AuthorizationState(status, life.valid_until, since, notes)
    if life.approved_on is None:
        return AuthorizationState(Status.REQUESTED, findings=notes)
    if life.suspended_until is not None and on <= life.suspended_until:
        return AuthorizationState(Status.SUSPENDED, life.valid_until, life.suspended_until, notes + (
            Finding(False, f"Autorização suspensa até {day(life.suspended_until)}",
                    rules.ref("suspension")),))
    if life.valid_until is not None and on > life.valid_until:
        return AuthorizationState(Status.EXPIRED, life.valid_until, life.valid_until, notes + (
            Finding(False, f"Autorização vencida em {day(life.valid_until)}", rules.ref("validity")),))
    if life.failed_on is not None:
        return _blocked(life, on, rules, calendar, notes)
    if not life.inspected or life.substituted_on is not None:
        start = life.substituted_on or life.approved_on
        deadline = rules.presentation_deadline(start, calendar)
        late = on > deadline
        return AuthorizationState(Status.AWAITING_INSPECTION, life.valid_until, deadline, notes + (
            Finding(not late, f"Apresentar o veículo para vistoria até {day(deadline)}",
                    rules.ref("presentation"), Level.WARNING),))
    if life.valid_until is None:
        return AuthorizationState(Status.AWAITING_FEE, findings=notes + (
            Finding(False, "Serviço só após o recolhimento da taxa", rules.ref("fee")),))
    return AuthorizationState(Status.ACTIVE, life.valid_until, life.valid_until,
                              notes + _active_notes(life, on, rules, params, calendar))


def _blocked(life: _Life, on: date, rules: LifecycleRules, calendar: LegalCalendar,
             notes: tuple[Finding, ...]) -> AuthorizationState:
    deadline = rules.fix_deadline(life.failed_on, calendar)
    text = (f"Veículo reprovado em vistoria em {day(life.failed_on)}; pendências a sanar até "
            f"{day(deadline)}, sem realizar serviços")
    if on > deadline:
        text = f"Prazo para sanar as pendências da vistoria encerrado em {day(deadline)}"
    status = Status.BLOCKED if life.valid_until is not None else Status.AWAITING_INSPECTION
    return AuthorizationState(status, life.valid_until, deadline,
                              notes + (Finding(False, text, rules.ref("failed_inspection")),))


def _active_notes(life: _Life, on: date, rules: LifecycleRules,
                  params: ParameterBook, calendar: LegalCalendar) -> tuple[Finding, ...]:
    notes = []
    due = rules.next_inspection_due(life.last_passed, calendar)
    notes.append(Finding(on <= due, f"Vistoria anual até {day(due)}", rules.ref("annual_inspection"),
                         Level.WARNING))
    if life.called_on is not None:
        deadline = rules.convocation_deadline(life.called_on, params, calendar)
        notes.append(Finding(on <= deadline, f"Convocação para vistoria: comparecer até {day(deadline)}",
                             rules.ref("convocation"), Level.WARNING))
    renewal = rules.renewal_deadline(life.valid_until, params, calendar)
    if life.renewal_requested is None:
        notes.append(Finding(on <= renewal, f"Renovação a requerer até {day(renewal)}",
                             rules.ref("renewal"), Level.WARNING))
    return tuple(notes)
