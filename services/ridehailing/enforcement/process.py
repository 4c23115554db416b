"""The process of an auto de infração once lavrado: notification, defence, decision, appeal and its
decision, and whether the process allows a penalty yet (due process).

The notification is by a lawful method (CG Decreto 06/2026 art. 25 §1 I–IV; MP Lei 1.552/2025 art. 21
§1), the defence period running from the juntada (CG art. 25 §2; MP art. 21 §2); in Matupá a
notification delivered after 90 days of the auto is refused and the auto is void (``nulo``, MP art. 21
§1). Upholding the auto needs the process in order (CG art. 25; MP art. 23 §2, 25 §4); the appeal's
decision replaces the first one.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from pymongo.database import Database

from rules.base import Finding, cents
from rules.fmt import brl, day
from rules.ridehailing.concepts import InfractionProcess, Penalty
from rules.ridehailing.process import Effect
from services import store
from services.ridehailing.enforcement import autos, effects, own_autos
from services.shared import clock, parameters, uploads
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, ServiceError, ValidationFailed
from services.shared.regulated_accounts import DRIVER, authorize_regulated, is_regulated
from services.store import parse_date

DOMICILE = "domicile"  # the electronic domicile's method (CG art. 25 §1 IV; MP art. 21 §1): enforcement.electronic
Attachments = Sequence[tuple[str, bytes]]  # (file name, content) of each document filed


class DeadlineMissed(ServiceError):
    """A step of the process came after the legal deadline; carries the article."""

    def __init__(self, message: str, reference: str, field: str | None = None) -> None:
        super().__init__(f"{message} ({reference})", field)
        self.reference = reference


# ---- whether the process allows a penalty ----

def process_of(doc: dict) -> InfractionProcess:
    """The auto's process as the rules see it (the notification counts from its receipt)."""
    notice = doc.get("notification") or {}
    decided = (doc.get("decision") or {}).get("decided_on")
    return InfractionProcess(parse_date(doc["auto_on"]), parse_date(notice.get("received_on")),
                             notice.get("method"), parse_date(notice.get("juntada_on")), parse_date(decided),
                             parse_date((doc.get("defence") or {}).get("filed_on")))


@checked
def process_status(db: Database, actor: Actor, municipality: str, auto_id: str, on: date) -> dict:
    """Whether a penalty may be applied on ``on``, why (findings with articles) and until when."""
    authorize(actor, "read", municipality)
    doc = autos._load(db, municipality, auto_id)
    return _penalty_state(db, municipality, doc, on)


def _penalty_state(db: Database, municipality: str, doc: dict, on: date, upholding: bool = False) -> dict:
    """The process on ``on`` and whether a penalty is in effect then (``effects``: the day the decision
    becomes final, held by an appeal filed in time); ``upholding``: only whether the auto may be upheld."""
    rules, book = autos._rules(municipality), parameters.book(db, municipality)
    state = rules.process_status(process_of(autos.as_of(doc, on)), on, book, parameters.calendar_from(book, on))
    findings = list(state.decision.findings)
    outcome = autos._final_outcome(doc)
    effect = effects.effect_of(db, municipality, doc, on)
    if not upholding and outcome != "anulado" and effect.effect is not Effect.PENDING:
        findings.append(effect.finding)
    if outcome == "anulado":
        findings.append(Finding(False, "Auto anulado na decisão", rules.ref("due_process")))
    review = doc.get("recurrence_review") or {}
    if review.get("open"):
        findings.append(Finding(False, f"Reincidência a rever: {review['reason']}", rules.ref("due_process")))
    if doc.get("status") == "nulo":
        findings.append(Finding(False, "Auto nulo: notificação fora do prazo", rules.ref("notification")))
    ok = not any(f.blocking for f in findings)
    return {"may_apply": ok, "findings": findings, "reasons": [f.text() for f in findings if not f.ok],
            "notification_deadline": state.notification_deadline, "defence_deadline": state.defence_deadline,
            "decision_opens": state.decision_opens, "effect": effect, "effective_on": effect.effective_on,
            "appeal_deadline": autos.appeal_deadline(db, municipality, doc, on),
            "awaiting_decision_notice": autos.awaiting_decision_notice(doc, on)}


def _lavrado(db: Database, municipality: str, auto_id: str) -> dict:
    doc = autos._load(db, municipality, auto_id)
    if doc["status"] == "rascunho":
        raise ServiceError("O auto ainda é rascunho: lavre-o primeiro ou descarte o rascunho.")
    if doc["status"] == "descartado":
        raise ServiceError("Rascunho descartado: não há processo.")
    if doc["status"] == "nulo":
        raise ServiceError(f"O auto nº {doc['number']} é nulo: a notificação foi entregue fora do prazo.")
    return doc


# ---- notification ----

@checked
def notify(db: Database, actor: Actor, municipality: str, auto_id: str, *, method: str, sent_on: date,
           received_on: date | None = None, juntada_on: date | None = None, recipient: str = "infrator") -> dict:
    """Record the notification (sent, received, juntada) to the offender, or to the platform
    (``recipient="plataforma"``, CG art. 25 caput). Method from the act's list (CG art. 25 §1 I–IV;
    MP art. 21 §1). In Matupá a notification delivered after 90 days of the auto is refused with its
    article and the auto becomes void (MP art. 21 §1). Returns the dates the rules compute. The
    electronic domicile is not typed here: ``enforcement.electronic.notify_by_domicile``."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    rules = autos._rules(municipality)
    methods = {m.code: m for m in rules.notification_methods}
    if method == DOMICILE:
        raise ValidationFailed({"method": "Domicílio eletrônico: o painel entrega a notificação e a data de ciência "
                                          "vem da abertura ou da ciência tácita; não é digitada."})
    if method not in methods:
        raise ValidationFailed({"method": "Forma de notificação: escolha uma das previstas em "
                                          f"{rules.ref('notification')}."})
    autos._not_future("sent_on", "Enviada em", sent_on)
    auto_on = parse_date(doc["auto_on"])
    errors = {}
    if sent_on < auto_on:
        errors["sent_on"] = "Enviada em: não pode ser anterior ao auto."
    if received_on is not None:
        autos._not_future("received_on", "Recebida em", received_on)
        if received_on < sent_on:
            errors["received_on"] = "Recebida em: não pode ser anterior ao envio."
    if juntada_on is not None:
        autos._not_future("juntada_on", "Juntada em", juntada_on)
        if received_on is None or juntada_on < received_on:
            errors["juntada_on"] = "Juntada em: só depois do recebimento da notificação."
    if errors:
        raise ValidationFailed(errors)
    notice = {"method": method, "method_label": methods[method].label, "method_reference": methods[method].reference,
              "sent_on": sent_on, "received_on": received_on, "juntada_on": juntada_on}
    if recipient != "plataforma" and doc.get("decision"):
        raise ServiceError("O auto já foi decidido: a notificação do infrator não pode mais ser alterada.")
    if recipient == "plataforma":
        with store.transaction(db):
            autos._save(db, actor, municipality, doc, {"platform_notification": notice}, "notify_platform",
                        f"Notificação à plataforma por {notice['method_label']}")
        return notice
    book = parameters.book(db, municipality)
    limit = _refuse_late(db, actor, municipality, doc, notice, received_on or sent_on,
                        "received_on" if received_on else "sent_on")
    process = InfractionProcess(auto_on, received_on, method, juntada_on)
    state = rules.process_status(process, max(clock.today(), juntada_on or auto_on), book,
                                 parameters.calendar_from(book, auto_on))
    notice.update(limit=limit, defence_deadline=state.defence_deadline)
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, {"notification": notice}, "notify",
                    f"Notificação por {notice['method_label']}" + (
                        f"; prazo de defesa até {day(state.defence_deadline)}" if state.defence_deadline else ""),
                    kept_attempt(doc))
    return notice


def kept_attempt(doc: dict) -> dict | None:
    """The ``push`` that keeps the offender's notice a new one replaces when it did not reach them (an AR
    returned undelivered), so the case still lists it (``enforcement.channels``)."""
    earlier = doc.get("notification") or {}
    return {"notice_attempts": earlier} if earlier.get("returned_on") and not earlier.get("received_on") else None


def _refuse_late(db: Database, actor: Actor, municipality: str, doc: dict, notice: dict, delivered: date,
                field: str) -> date | None:
    """Matupá: a notification delivered after the limit (MP art. 21 §1) voids the auto and is refused
    with its article, whatever the channel; returns the limit (None where the act has none)."""
    rules = autos._rules(municipality)
    if not rules.notification_limit_days:
        return None
    auto_on = parse_date(doc["auto_on"])
    limit = parameters.calendar(db, municipality, auto_on).add_days(auto_on, rules.notification_limit_days)
    if delivered > limit:
        note = (f"Notificação de {day(delivered)} após o prazo máximo de {rules.notification_limit_days} dias da "
                f"lavratura ({day(auto_on)} → {day(limit)}): auto nulo")
        with store.transaction(db):
            autos._save(db, actor, municipality, doc, {"status": "nulo", "void_reason": note,
                                                       "void_reference": rules.ref("notification"),
                                                       "late_notification": notice}, "void", note)
        raise DeadlineMissed(note, rules.ref("notification"), field)
    return limit


# ---- defence, decision, appeal ----

def _files(db: Database, attachments: Attachments) -> list[dict]:
    """Attachments ``[(name, bytes), …]`` kept with store.put_file; the auto keeps only the hashes."""
    attachments = list(attachments or ())
    for name, data in attachments:  # every file checked before any is kept
        uploads.check("evidence", bytes(data or b""), str(name), field="attachments")
    kept = []
    for name, data in attachments:
        kept.append({"name": str(name), "sha256": store.put_file(db, bytes(data), str(name))})
    return kept


def _filer(db: Database, actor: Actor, municipality: str, auto_id: str, kind: str) -> dict:
    """The auto a filing is joined to, once the actor may file it: the clerk with ``write``, or the driver
    on the portal on their own auto (``own_autos.owned``; another's is NotFound) and only inside the term
    the case shows — after it, refused with the day it ended (the clerk still records a late one, flagged)."""
    if not is_regulated(actor):
        authorize(actor, "write", municipality)
        return _lavrado(db, municipality, auto_id)
    authorize_regulated(actor, municipality, DRIVER)
    doc = own_autos.owned(autos._load(db, municipality, auto_id), actor, municipality)
    term = own_autos.term_for(db, municipality, doc, clock.today())
    if term.kind != kind:
        raise ServiceError({"defesa": "Este auto não admite defesa agora.",
                            "recurso": "Este auto não admite recurso agora."}[kind])
    if not term.open:
        raise DeadlineMissed(own_autos.closed_text(term), term.reference, "summary")
    return _lavrado(db, municipality, auto_id)


def _filing(db: Database, actor: Actor, filed_on: date, by: str, summary: str, attachments: Attachments) -> dict:
    """The filing as the case keeps it: when it was joined (``filed_at``, the moment recorded) and through
    which channel (the portal, or the clerk at the counter)."""
    autos._not_future("filed_on", "Apresentada em", filed_on)
    errors = {}
    if not (by or "").strip():
        errors["by"] = "Apresentada por: obrigatório."
    if not (summary or "").strip():
        errors["summary"] = "Resumo: obrigatório."
    if errors:
        raise ValidationFailed(errors)
    return {"filed_on": filed_on, "by": by.strip(), "summary": summary.strip(), "attachments": _files(db, attachments),
            "filed_at": clock.now_utc(), "via": "portal" if is_regulated(actor) else "balcao"}


@checked
def file_defence(db: Database, actor: Actor, municipality: str, auto_id: str, *, filed_on: date, by: str,
                 summary: str, attachments: Attachments = ()) -> dict:
    """Record the defence (filed on, by whom, summary, attachments); a late one is kept and flagged. The
    driver files their own on the portal (today, in their name, only inside the term: :func:`_filer`)."""
    doc = _filer(db, actor, municipality, auto_id, "defesa")
    if is_regulated(actor):
        filed_on, by = clock.today(), actor.name
    if doc.get("decision"):
        raise ServiceError("O auto já foi decidido; apresente recurso.")
    defence = _filing(db, actor, filed_on, by, summary, attachments)
    if filed_on < parse_date(doc["auto_on"]):
        raise ValidationFailed({"filed_on": "Apresentada em: não pode ser anterior ao auto."})
    deadline = parse_date((autos.as_of(doc, filed_on).get("notification") or {}).get("defence_deadline"))
    defence["late"] = bool(deadline and filed_on > deadline)
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, {"defence": defence}, "defence",
                    "Defesa apresentada" + (" fora do prazo" if defence["late"] else ""))
    return defence


def _ruling(outcome: str, reasons: str, authority: str, decided_on: date) -> dict:
    autos._not_future("decided_on", "Decidido em", decided_on)
    errors = {}
    if outcome not in autos.OUTCOMES:
        errors["outcome"] = "Resultado: escolha mantido, mantido em parte ou anulado."
    if not (reasons or "").strip():
        errors["reasons"] = "Fundamentação: obrigatória."
    if not (authority or "").strip():
        errors["authority"] = "Autoridade: obrigatória."
    if errors:
        raise ValidationFailed(errors)
    return {"outcome": outcome, "reasons": reasons.strip(), "authority": authority.strip(), "decided_on": decided_on}


@checked
def decide(db: Database, actor: Actor, municipality: str, auto_id: str, *, outcome: str, reasons: str,
           authority: str, decided_on: date, fine_amount: Decimal | None = None,
           penalties: list[str] | None = None) -> dict:
    """The first-instance decision. Upholding (in whole or in part) needs the process in order: notified
    in time, juntada, and the defence period over (CG art. 25; MP art. 23 §2, 25 §4). In part: a
    lower fine and/or fewer penalties than the auto's."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    if doc.get("decision"):
        raise Conflict("O auto já tem decisão; registre o recurso.")
    ruling = _ruling(outcome, reasons, authority, decided_on)
    if decided_on < parse_date(doc["auto_on"]):
        raise ValidationFailed({"decided_on": "Decidido em: não pode ser anterior ao auto."})
    if outcome != "anulado":
        state = _penalty_state(db, municipality, {**doc, "decision": ruling}, decided_on, upholding=True)
        if not state["may_apply"]:
            raise ServiceError("Não é possível manter o auto nesta data: " + "; ".join(state["reasons"]),
                               field="decided_on")
    ruling["fine_amount"], ruling["penalties"] = _ruled_penalties(doc, outcome, fine_amount, penalties)
    with store.transaction(db):
        autos._save(db, actor, municipality, doc, {"decision": ruling}, "decide",
                    f"Decisão: {autos.OUTCOMES[outcome]} por {ruling['authority']}")
    return ruling


def _ruled_penalties(doc: dict, outcome: str, amount: Decimal | None, penalties: list[str] | None
                     ) -> tuple[Decimal, list[str]]:
    original = Decimal(str(doc["fine_amount"]))
    if outcome == "anulado":
        return Decimal("0.00"), []
    if outcome == "mantido":
        return original, list(doc["penalties"])
    kept = list(doc["penalties"]) if penalties is None else [p for p in doc["penalties"] if p in penalties]
    amount = original if amount is None else cents(Decimal(str(amount)))
    if amount < 0 or amount > original:
        raise ValidationFailed({"fine_amount": f"Multa mantida: entre R$ 0,00 e {brl(original)}."})
    if Penalty.MULTA.value in kept and amount == 0:
        kept.remove(Penalty.MULTA.value)
    return amount, kept


@checked
def file_appeal(db: Database, actor: Actor, municipality: str, auto_id: str, *, filed_on: date, by: str,
                summary: str, attachments: Attachments = ()) -> dict:
    """An appeal against the decision (CG art. 25 caput "recurso administrativo"; MP art. 25 §4). Filed
    within the term it holds the penalties already scheduled or applied (``effects._follow``). The driver
    files their own on the portal (today, in their name, only inside the term: :func:`_filer`)."""
    doc = _filer(db, actor, municipality, auto_id, "recurso")
    if is_regulated(actor):
        filed_on, by = clock.today(), actor.name
    decision = doc.get("decision")
    if not decision:
        raise ServiceError("Só cabe recurso depois da decisão.")
    if doc.get("appeal"):
        raise Conflict("O recurso já foi registrado.")
    appeal = _filing(db, actor, filed_on, by, summary, attachments)
    if filed_on < parse_date(decision["decided_on"]):
        raise ValidationFailed({"filed_on": "Apresentado em: não pode ser anterior à decisão."})
    deadline = autos.appeal_deadline(db, municipality, doc, filed_on)
    appeal["late"] = bool(deadline and filed_on > deadline)
    appeal["decision"] = None
    with store.transaction(db):
        entries, notes = effects._follow(db, actor, municipality, {**doc, "appeal": appeal}, filed_on)
        autos._save(db, actor, municipality, doc, {"appeal": appeal, "sanctions_applied": entries}, "appeal",
                    "; ".join(["Recurso apresentado" + (" fora do prazo" if appeal["late"] else ""), *notes]))
    return appeal


@checked
def decide_appeal(db: Database, actor: Actor, municipality: str, auto_id: str, *, outcome: str, reasons: str,
                  authority: str, decided_on: date, fine_amount: Decimal | None = None,
                  penalties: list[str] | None = None) -> dict:
    """The appeal's decision; it replaces the first decision's outcome, fine and penalties: the penalties
    an appeal held are applied again from this day or stay dropped (``effects._follow``)."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    appeal = doc.get("appeal")
    if not appeal or appeal.get("decision"):
        raise ServiceError("Não há recurso aguardando decisão.")
    ruling = _ruling(outcome, reasons, authority, decided_on)
    if decided_on < parse_date(appeal["filed_on"]):
        raise ValidationFailed({"decided_on": "Decidido em: não pode ser anterior ao recurso."})
    ruling["fine_amount"], ruling["penalties"] = _ruled_penalties(doc, outcome, fine_amount, penalties)
    with store.transaction(db):
        decided = {**appeal, "decision": ruling}
        entries, notes = effects._follow(db, actor, municipality, {**doc, "appeal": decided}, decided_on)
        autos._save(db, actor, municipality, doc, {"appeal": decided, "sanctions_applied": entries}, "decide_appeal",
                    "; ".join([f"Recurso: {autos.OUTCOMES[outcome]} por {ruling['authority']}", *notes]))
        if outcome == "anulado":
            _flag_reliants(db, actor, municipality, doc, decided_on)
    return ruling


def _flag_reliants(db: Database, actor: Actor, municipality: str, fallen: dict, on: date) -> int:
    """Every later auto whose recurrence this annulled auto made is flagged for review: its severity,
    fine and penalties are recalculated before a penalty is applied (LEITURAS §7); returns how many."""
    flagged = 0
    query = {"municipality": municipality, "status": "lavrado", "recurrence_of.id": fallen["id"]}
    for raw in db[autos.COLLECTION].find(query, {"_id": 1}):
        later = autos._load(db, municipality, str(raw["_id"]))
        review = {"open": True, "prior_id": fallen["id"], "prior_number": fallen["number"], "flagged_on": on,
                  "reason": f"O auto nº {fallen['number']}, que fazia a reincidência, foi anulado em recurso em "
                            f"{day(on)}"}
        autos._save(db, actor, municipality, later, {"recurrence_review": review}, "recurrence_review",
                    review["reason"] + ": rever gravidade, multa e penalidades")
        flagged += 1
    return flagged


