"""Deadlines of the infraction process: notification, defence from the juntada, decision."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from enum import Enum

from rules.base import Decision, Finding
from rules.calendar import LegalCalendar
from rules.fmt import day
from rules.ridehailing.catalogue import NotificationMethod
from rules.ridehailing.concepts import InfractionProcess


@dataclass(frozen=True)
class ProcessState:
    """Where an auto de infração stands on a date, and whether a penalty may be applied."""

    notification_deadline: date | None
    defence_deadline: date | None
    decision: Decision
    decision_opens: date | None = None  # first day the auto may be upheld (see decision_opens)

    @property
    def may_apply_penalty(self) -> bool:
        return self.decision.ok


def process_state(process: InfractionProcess, on: date, methods: tuple[NotificationMethod, ...],
                  notification_days: int | None, defence_days: int, refs: dict[str, str],
                  calendar: LegalCalendar) -> ProcessState:
    """Check the steps of the process up to ``on``; a penalty needs all of them (due process)."""
    findings: list[Finding] = []
    limit = calendar.add_days(process.auto_on, notification_days) if notification_days else None
    if process.notified_on is None:
        late = limit is not None and on > limit
        findings.append(Finding(False, "Infrator ainda não notificado" + (
            f"; o prazo para notificar terminou em {day(limit)}" if late else ""), refs["notification"]))
    else:
        if limit is not None:
            findings.append(Finding(process.notified_on <= limit,
                                    f"Notificação em {day(process.notified_on)}; prazo máximo {day(limit)}",
                                    refs["notification"]))
        known = {m.code: m for m in methods}
        method = known.get(process.method or "")
        findings.append(Finding(method is not None,
                                f"Notificação por {method.label}" if method
                                else f"Forma de notificação não prevista: {process.method or '—'}",
                                refs["notification"]))
    deadline = None
    if process.juntada_on is None:
        findings.append(Finding(False, "Notificação ainda não juntada aos autos; o prazo de defesa "
                                       "não começou", refs["defence"]))
    else:
        deadline = calendar.add_days(process.juntada_on, defence_days)
        if process.notified_on is not None and process.juntada_on < process.notified_on:
            findings.append(Finding(False, "Juntada anterior à notificação", refs["defence"]))
        term = (f"Prazo de defesa de {defence_days} dias contado da juntada em {day(process.juntada_on)}: "
                f"até {day(deadline)}")
        heard = _heard(process, on)
        findings.append(Finding(True, f"{term}; defesa apresentada em {day(process.defence_on)}", refs["defence"])
                        if heard else Finding(on > deadline, term, refs["defence"]))
    findings.append(_decision(process, on, deadline, refs["due_process"]))
    return ProcessState(limit, deadline, Decision(tuple(findings)), decision_opens(process, deadline))


def _heard(process: InfractionProcess, on: date) -> bool:
    """The defence is in the file by ``on`` (after the juntada): the term served its purpose, the
    offender was heard, and the authority may decide before the term ends (LEITURAS §1, item 33)."""
    return (process.defence_on is not None and process.juntada_on is not None
            and process.defence_on <= on)


def decision_opens(process: InfractionProcess, defence_deadline: date | None) -> date | None:
    """The first day a decision upholding the auto may be taken: the day after the defence period,
    or the day the defence was filed if it came first; None before the juntada."""
    if defence_deadline is None:
        return None
    after_term = defence_deadline + timedelta(days=1)
    if process.defence_on is not None and process.juntada_on is not None:
        return min(after_term, max(process.defence_on, process.juntada_on))
    return after_term


def _decision(process: InfractionProcess, on: date, defence_deadline: date | None,
              reference: str) -> Finding:
    decided = process.decided_on
    if decided is None or decided > on:
        return Finding(False, "Sem decisão no processo administrativo", reference)
    if process.defence_on is not None and process.juntada_on is not None and decided >= process.defence_on:
        return Finding(True, f"Decisão em {day(decided)}, depois da defesa apresentada em "
                             f"{day(process.defence_on)}", reference)
    if defence_deadline is not None and decided <= defence_deadline:
        return Finding(False, f"Decisão em {day(decided)}, antes do fim do prazo de defesa "
                              f"({day(defence_deadline)})", reference)
    return Finding(True, f"Decisão em {day(decided)}", reference)


UPHELD = ("mantido", "parcialmente")  # a decision that keeps the auto, in whole or in part


@dataclass(frozen=True)
class Ruling:
    """An auto's decisions as the effect of its penalties reads them: the first one, its appeal term
    (its last day), the appeal; and, when known, the penalties each decision keeps."""

    outcome: str | None
    decided_on: date | None
    appeal_deadline: date | None
    appeal_filed_on: date | None = None
    appeal_outcome: str | None = None
    appeal_decided_on: date | None = None
    penalties: tuple[str, ...] | None = None  # kept by the first decision (None: not asked)
    appeal_penalties: tuple[str, ...] | None = None  # kept by the appeal's decision
    awaiting_notice: bool = False  # the decision's notification delivered, not yet received: no term yet


def appeal_deadline(decided_on: date | None, days: int, calendar: LegalCalendar, *, notice_delivered: bool = False,
                    notice_received_on: date | None = None) -> date | None:
    """Last day of the appeal against the first decision (docs/LEITURAS.md, seção 7, leituras 12 e 28).

    The acts set no appeal term: the defence's ``days`` are used. It runs from the notification of the
    decision when one was delivered: CG art. 25 §1 ("considera-se o infrator notificado ..., iniciando-se
    o prazo para reconsideração ou recurso") and §2 (from its juntada); MP art. 21 §2 and art. 25 §4
    ("notificação, prazo para defesa e possibilidade de recurso"). Received (opened, or tacitly) on a day,
    it is joined that day and the term counts from it, its end moved to a business day; delivered and
    not yet received, the term has not started (None). With no notification of the decision delivered,
    it counts from the decision, as before (leitura 12)."""
    if decided_on is None:
        return None
    if notice_delivered:
        if notice_received_on is None:
            return None
        return calendar.add_days(max(notice_received_on, decided_on), days)
    return calendar.add_days(decided_on, days)


class Effect(str, Enum):
    """Where a decided penalty stands on a date."""

    PENDING = "pending"  # no decision yet
    SCHEDULED = "scheduled"  # upheld, still open to appeal: takes effect the day the decision is final
    SUSPENDED = "suspended"  # an appeal filed in time holds it until the appeal is decided
    APPLIED = "applied"  # in effect since ``effective_on``
    DROPPED = "dropped"  # annulled, or left out by the decision in force: never takes effect


# "Efeito das penalidades: ..." as the screen says it
EFFECT_LABELS = {Effect.PENDING: "sem decisão", Effect.SCHEDULED: "agendado", Effect.SUSPENDED: "suspenso pelo recurso",
                 Effect.APPLIED: "em vigor", Effect.DROPPED: "afastado"}


@dataclass(frozen=True)
class PenaltyEffect:
    """When a penalty of an auto takes effect, as of a date: ``effective_on`` is the day it does (or
    will, if nothing changes); None while it is held by an appeal, undecided or dropped."""

    effect: Effect
    effective_on: date | None
    finding: Finding

    @property
    def in_effect(self) -> bool:
        return self.effect is Effect.APPLIED

    @property
    def label(self) -> str:
        return EFFECT_LABELS[self.effect]


def penalty_effect(ruling: Ruling, on: date, reference: str, penalty: str | None = None) -> PenaltyEffect:
    """When a penalty of the decided auto takes effect, as known on ``on`` (docs/LEITURAS.md, seção 7).

    A penalty is applied only after the appeal the acts give (CG art. 25 caput "respeitado o exercício
    da defesa prévia ou recurso administrativo"; MP art. 23 §2 and art. 25 §4 "possibilidade de
    recurso"): upheld, it is *scheduled* for the day after the appeal term (the day the decision becomes
    final); an appeal filed within the term *suspends* it until the appeal's decision, which *applies*
    it from that day (nothing further to appeal) or *drops* it (annulled, or the penalty left out). An
    appeal filed after the term does not suspend: the decision was already final; granted, the penalty
    falls from the appeal's decision. ``penalty`` (a ``Penalty`` value) is checked against the
    decision in force when the ruling carries its penalties. Administrative measures are no penalties:
    they have their own rule (``sanctions.measure_release_finding``).
    """
    decided = ruling.decided_on
    if decided is None or decided > on:
        return PenaltyEffect(Effect.PENDING, None, Finding(False, "Sem decisão no processo", reference))
    filed = ruling.appeal_filed_on if ruling.appeal_filed_on is not None and ruling.appeal_filed_on <= on else None
    ruled_on = ruling.appeal_decided_on
    appeal_ruled = (filed is not None and ruling.appeal_outcome is not None and ruled_on is not None
                    and ruled_on <= on)
    if appeal_ruled and ruling.appeal_outcome not in UPHELD:
        return PenaltyEffect(Effect.DROPPED, None, Finding(False, f"Auto anulado em recurso em {day(ruled_on)}",
                                                           reference))
    if ruling.outcome not in UPHELD:
        return PenaltyEffect(Effect.DROPPED, None, Finding(False, f"Auto anulado em {day(decided)}", reference))
    kept = ruling.appeal_penalties if appeal_ruled else ruling.penalties
    if penalty is not None and kept is not None and penalty not in kept:
        by = f"o recurso decidido em {day(ruled_on)}" if appeal_ruled else f"a decisão de {day(decided)}"
        return PenaltyEffect(Effect.DROPPED, None, Finding(False, f"{penalty.capitalize()} não mantida por {by}",
                                                           reference))
    term = ruling.appeal_deadline
    in_time = filed is not None and (term is None or filed <= term)
    if term is None and ruling.awaiting_notice and not in_time:
        return PenaltyEffect(Effect.SCHEDULED, None, Finding(
            False, f"Decisão de {day(decided)} aguardando a ciência do infrator: o prazo de recurso ainda não "
                   "começou", reference))
    if in_time and not appeal_ruled:
        return PenaltyEffect(Effect.SUSPENDED, None, Finding(
            False, f"Recurso apresentado em {day(filed)}, no prazo: a penalidade fica suspensa até a decisão "
                   "do recurso", reference))
    if in_time:
        return PenaltyEffect(Effect.APPLIED, ruled_on, Finding(
            True, f"Recurso decidido em {day(ruled_on)} mantendo o auto: penalidade a partir de {day(ruled_on)}",
            reference))
    final_on = (term or decided) + timedelta(days=1)
    if on < final_on:
        until = f" até {day(term)}" if term else ""
        return PenaltyEffect(Effect.SCHEDULED, final_on, Finding(
            False, f"Decisão de {day(decided)} ainda sujeita a recurso{until}: penalidade a partir de "
                   f"{day(final_on)}, se não houver recurso no prazo", reference))
    return PenaltyEffect(Effect.APPLIED, final_on, Finding(
        True, f"Decisão de {day(decided)} definitiva em {day(final_on)}: prazo de recurso encerrado"
              + (f" em {day(term)}" if term else "") + " sem recurso no prazo", reference))


def final_for_recurrence(ruling: Ruling, on: date, reference: str) -> Finding:
    """Whether an earlier auto counts for recurrence on ``on`` (the later auto's lavratura): when its
    penalties are in effect (:func:`penalty_effect`) — upheld and no longer open to appeal. An auto
    annulled on appeal never counts, even annulled after ``on``: the later auto falls with it.

    Recurrence is a penalty's aggravation, so it follows the penalties' rule (CG art. 25 caput; MP art.
    25 §4; docs/LEITURAS.md, seção 7).
    """
    if ruling.appeal_outcome is not None and ruling.appeal_outcome not in UPHELD:  # fallen, whenever it fell
        return Finding(False, f"Auto anterior anulado em recurso em {day(ruling.appeal_decided_on)}", reference)
    effect = penalty_effect(ruling, on, reference)
    if effect.effect is Effect.PENDING:
        return Finding(False, "Auto anterior sem decisão", reference)
    return Finding(effect.in_effect, effect.finding.message, reference)
