"""When the penalties of an auto take effect, as ``rules.ridehailing.process.penalty_effect`` decides, and
the authorization kept in step with it.

A penalty applied to the authorization (suspension, revocation, cassação) is an event dated the day it
takes effect, named by a ``ref`` (``auto <number>:<index in sanctions_applied>``, the number unique in the
municipality). An appeal filed in time
lifts it from its filing; the appeal's decision applies it again from that day or leaves it dropped; a
late appeal granted lifts it from the appeal's decision. Nothing is deleted: the auto keeps every entry
(``lifted_on``, ``lifted_reason``) and the authorization both events (CG Decreto 06/2026 art. 25 caput;
MP Lei 1.552/2025 art. 23 §2 and art. 25 §4; docs/LEITURAS.md, seção 7).
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules.fmt import day
from rules.ridehailing.concepts import EventKind, Penalty
from rules.ridehailing.process import Effect, PenaltyEffect, Ruling, penalty_effect
from rules.ridehailing.sanctions import suspension_last_day
from services.ridehailing import authorizations
from services.ridehailing.enforcement import autos
from services.shared import clock
from services.shared.auth import Actor
from services.store import parse_date

SANCTIONS = {  # what a decided penalty does to the authorization (None: recorded on the auto only)
    Penalty.SUSPENSAO.value: EventKind.SUSPENDED, Penalty.REVOGACAO.value: EventKind.REVOKED,
    Penalty.CASSACAO.value: EventKind.CASSADA, Penalty.DESCADASTRAMENTO_CONDUTOR.value: None,
    Penalty.DESCADASTRAMENTO_VEICULO.value: None,
}


def ruling_of(db: Database, municipality: str, doc: dict, on: date | None = None) -> Ruling:
    """The auto's decisions as the rule reads them on ``on``: the first one with its appeal term (from
    the decision's notification when one was delivered), the appeal."""
    decision, appeal = doc.get("decision") or {}, doc.get("appeal") or {}
    ruled = appeal.get("decision") or {}
    on = on or clock.today()
    return Ruling(decision.get("outcome"), parse_date(decision.get("decided_on")),
                  autos.appeal_deadline(db, municipality, doc, on), parse_date(appeal.get("filed_on")),
                  ruled.get("outcome"), parse_date(ruled.get("decided_on")),
                  tuple(decision.get("penalties") or ()) if decision else None,
                  tuple(ruled.get("penalties") or ()) if ruled else None,
                  awaiting_notice=autos.awaiting_decision_notice(doc, on))


def effect_of(db: Database, municipality: str, doc: dict, on: date, penalty: str | None = None) -> PenaltyEffect:
    """Where the auto's penalties (or ``penalty``) stand on ``on``."""
    return penalty_effect(ruling_of(db, municipality, doc, on), on, autos._rules(municipality).ref("due_process"),
                          penalty)


def active(doc: dict, penalty: str) -> list[tuple[int, dict]]:
    """The entries of ``penalty`` in ``sanctions_applied`` not lifted, with their index."""
    return [(i, s) for i, s in enumerate(doc.get("sanctions_applied") or [])
            if s["penalty"] == penalty and not s.get("lifted_on")]


def _entry(db: Database, actor: Actor, municipality: str, doc: dict, penalty: str, start: date, note: str,
          index: int) -> dict:
    """Apply ``penalty`` from ``start`` on the authorization (when it touches one) and return the entry the
    auto keeps; ``index`` is its place in ``sanctions_applied``. Inside the caller's unit of work."""
    until = None
    if penalty == Penalty.SUSPENSAO.value:
        until = suspension_last_day(start, doc.get("suspension_days"), doc.get("suspension_months"))
    text = f"{penalty.capitalize()} a partir de {day(start)}" + (f" até {day(until)}" if until else "")
    applied = {"penalty": penalty, "start": start, "until": until, "by": actor.username, "note": note.strip(),
               "authorization_id": None, "recorded_at": clock.now_utc(), "ref": f"auto {doc['number']}:{index}"}
    kind = SANCTIONS[penalty]
    if kind is not None:
        auth_id = authorizations.authorization_of(db, actor, municipality, doc.get("driver_cpf", ""),
                                                  doc.get("plate", ""))
        authorizations.apply_penalty(db, actor, municipality, auth_id, kind, start, until,
                                     f"Auto nº {doc['number']}: {text}", applied["ref"])
        applied["authorization_id"] = auth_id
    return applied


def _follow(db: Database, actor: Actor, municipality: str, doc: dict, on: date) -> tuple[list[dict], list[str]]:
    """Keep the penalties applied in step with the rule on ``on`` (an appeal filed, an appeal decided):
    held or dropped, their entries are lifted from ``on``; applied again when the appeal upholds them.
    Returns ``sanctions_applied`` as it now stands and the notes for the auto's history. Inside the
    caller's unit of work; ``doc`` already carries the appeal or its decision."""
    entries = [dict(s) for s in doc.get("sanctions_applied") or []]
    notes = []
    for penalty in dict.fromkeys(s["penalty"] for s in entries):
        effect = effect_of(db, municipality, {**doc, "sanctions_applied": entries}, on, penalty)
        if effect.effect in (Effect.SUSPENDED, Effect.DROPPED):
            for index, applied in active({"sanctions_applied": entries}, penalty):
                if applied.get("authorization_id"):
                    authorizations.lift_penalty(db, actor, municipality, applied["authorization_id"],
                                                applied.get("ref") or "", on,
                                                f"Auto nº {doc['number']}: {effect.finding.message}")
                entries[index] = {**applied, "lifted_on": on, "lifted_reason": effect.finding.message}
                notes.append(f"{penalty.capitalize()} afastada a partir de {day(on)}: {effect.finding.message}")
        elif effect.effect is Effect.APPLIED and not active({"sanctions_applied": entries}, penalty):
            again = _entry(db, actor, municipality, doc, penalty, effect.effective_on or on,
                          "Aplicada com a decisão do recurso", len(entries))
            entries.append(again)
            notes.append(f"{penalty.capitalize()} a partir de {day(again['start'])}: {effect.finding.message}")
    return entries, notes
