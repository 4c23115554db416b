"""Deadlines of the infraction process: notification, defence from the juntada, decision."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

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
    """An earlier auto's decisions as recurrence reads them: the first one, its appeal term, the appeal."""

    outcome: str | None
    decided_on: date | None
    appeal_deadline: date | None
    appeal_filed_on: date | None = None
    appeal_outcome: str | None = None
    appeal_decided_on: date | None = None


def final_for_recurrence(ruling: Ruling, on: date, reference: str) -> Finding:
    """Whether an earlier auto counts for recurrence on ``on`` (the later auto's lavratura): upheld and
    no longer open to appeal — the appeal decided upholding it, or its term over with no appeal filed.
    An auto annulled on appeal never counts, even annulled after ``on``: the later auto falls with it.

    A decision still inside its appeal term, or under appeal, is not definitive: the acts give the
    offender the appeal before a penalty (CG art. 25 caput "recurso administrativo"; MP art. 25 §4
    "possibilidade de recurso"), and recurrence is a penalty's aggravation (docs/LEITURAS.md, seção 7).
    """
    if ruling.decided_on is None or ruling.decided_on > on:
        return Finding(False, "Auto anterior sem decisão", reference)
    if ruling.appeal_outcome is not None and ruling.appeal_outcome not in UPHELD:  # fallen, whenever it fell
        return Finding(False, f"Auto anterior anulado em recurso em {day(ruling.appeal_decided_on)}", reference)
    if ruling.appeal_filed_on is not None and ruling.appeal_filed_on <= on:
        if ruling.appeal_outcome is None or ruling.appeal_decided_on is None or ruling.appeal_decided_on > on:
            return Finding(False, f"Auto anterior com recurso de {day(ruling.appeal_filed_on)} sem decisão",
                           reference)
        upheld = ruling.appeal_outcome in UPHELD
        return Finding(upheld, f"Recurso decidido em {day(ruling.appeal_decided_on)}: "
                               + ("auto mantido" if upheld else "auto anulado"), reference)
    if ruling.outcome not in UPHELD:
        return Finding(False, f"Auto anterior anulado em {day(ruling.decided_on)}", reference)
    if ruling.appeal_deadline is None or on <= ruling.appeal_deadline:
        until = f" até {day(ruling.appeal_deadline)}" if ruling.appeal_deadline else ""
        return Finding(False, f"Decisão de {day(ruling.decided_on)} ainda sujeita a recurso{until}", reference)
    return Finding(True, f"Decisão de {day(ruling.decided_on)} definitiva: prazo de recurso encerrado em "
                         f"{day(ruling.appeal_deadline)} sem recurso", reference)
