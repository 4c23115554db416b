"""Autos de infração of ride-hailing: from the draft to the paid fine and the penalties applied.

Stages (CG Decreto 06/2026 arts. 22–30; MP Lei 1.552/2025 arts. 18–27): a draft (``rascunho``, no
number, e.g. from a platform list's reconciliation) is *lavrado*: numbered per municipality and year,
with severity after recurrence, fine and penalties computed by the rule set (``sanction``) and the
findings that say why; notified by a lawful method (CG art. 25 §1 I–IV; MP art. 21 §1), the defence
period running from the juntada (CG art. 25 §2; MP art. 21 §2); in Matupá a notification delivered
after 90 days of the auto is refused and the auto is void (``nulo``, MP art. 21 §1); defence,
decision, appeal and its decision; then, only when ``process_status`` allows, the fine becomes a DAM
(paying it closes the fine) and suspension, revocation, cassação and measures are applied to the
authorization. Every write is one unit of work (document, number, audit entry), conditional on the
auto's ``version``; events are appended with ``$push``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules.base import Finding, cents
from rules.fmt import brl, day
from rules.params import ParameterMissing
from rules.ridehailing.concepts import EventKind, InfractionProcess, Measure, OffenceRecord, Penalty
from rules.ridehailing.errors import UnknownInfraction
from rules.ridehailing.sanctions import suspension_last_day
from services import store
from services.dam import dams
from services.ridehailing import authorizations, registry
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import audit, clock, entities, events, exports, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.errors import Conflict, NotFound, ServiceError, ValidationFailed
from services.shared.numbers import next_number
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

COLLECTION = "autos"
NUMBER_KIND = "auto"
REVENUE_KIND = "multa"  # services.dam.dams.REVENUE_KINDS: "Multa (auto de infração)"
FINE_DUE_PARAMETER = "fine_due_days"
DECIDE = "Decidir auto"  # dated by the end of the defence: the acts set no term to decide, never "late"
DAM_ACTOR = Actor("sistema.dam", "Baixa de DAM (automática)", "ti", ("*",))
INDEXES = {
    COLLECTION: [
        ([("municipality", 1), ("year", 1), ("sequence", 1)], {"name": "i_autos_number"}),
        ([("municipality", 1), ("stage", 1), ("committed_on", -1)], {"name": "i_autos_stage"}),
        ([("municipality", 1), ("driver_cpf", 1), ("committed_on", 1)], {"name": "i_autos_driver"}),
        ([("municipality", 1), ("plate", 1), ("committed_on", 1)], {"name": "i_autos_plate"}),
        ([("municipality", 1), ("platform_id", 1), ("committed_on", 1)], {"name": "i_autos_platform"}),
        ([("municipality", 1), ("committed_on", -1), ("_id", 1)], {"name": "i_autos_list"}),
    ]
}
TARGETS = {"driver": "Condutor", "vehicle": "Veículo", "platform": "Plataforma"}
OUTCOMES = {"mantido": "Mantido", "parcialmente": "Mantido em parte", "anulado": "Anulado"}
SANCTIONS = {  # what a decided penalty does to the authorization (None: recorded on the auto only)
    Penalty.SUSPENSAO.value: EventKind.SUSPENDED, Penalty.REVOGACAO.value: EventKind.REVOKED,
    Penalty.CASSACAO.value: EventKind.CASSADA, Penalty.DESCADASTRAMENTO_CONDUTOR.value: None,
    Penalty.DESCADASTRAMENTO_VEICULO.value: None,
}
STAGES = {
    "rascunho": "Rascunho", "aguardando_notificacao": "Aguardando notificação", "notificado": "Notificado",
    "prazo_defesa": "Prazo de defesa", "defesa": "Defesa apresentada", "decidido": "Decidido",
    "recurso": "Recurso em análise", "penalidade": "Penalidade aplicada", "multa_paga": "Multa paga",
    "anulado": "Anulado", "nulo": "Nulo (notificação fora do prazo)",
}


class DeadlineMissed(ServiceError):
    """A step of the process came after the legal deadline; carries the article."""

    def __init__(self, message: str, reference: str, field: str | None = None) -> None:
        super().__init__(f"{message} ({reference})", field)
        self.reference = reference


class PenaltyNotYet(ServiceError):
    """The process does not yet allow the penalty (due process): the reasons say why."""


def prepare(db: Database) -> None:
    """Indexes of the autos (idempotent; called at start by ``services.setup.bootstrap``)."""
    ensure_indexes(db, INDEXES)


def _rules(municipality: str) -> Any:
    return registry.rules_of(municipality)


def catalogue(municipality: str) -> list[dict]:
    """The municipality's infractions as the clerk picks them: code, article, inciso, text, severity."""
    rows = []
    for item in _rules(municipality).catalogue:
        article = item.reference.split(", ", 1)[1] if ", " in item.reference else item.reference
        rows.append({"code": item.code, "text": item.text, "reference": item.reference, "article": article,
                     "inciso": item.code.split("-", 2)[-1] if item.code.count("-") >= 2 else "",
                     "severity": item.severity.value, "offender": item.offender,
                     "label": f"{article} — {item.text} ({item.severity.value})"})
    return rows


# ---- reading ----

def _oid(auto_id: str) -> ObjectId:
    return entities._object_id(auto_id)


def _load(db: Database, municipality: str, auto_id: str) -> dict:
    raw = db[COLLECTION].find_one({"_id": _oid(auto_id), "municipality": municipality})
    if raw is None:
        raise NotFound("Auto de infração não encontrado.")
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    return doc


def get(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """The auto as stored, with its stage label and the process status today."""
    authorize(actor, "read", municipality)
    doc = _dated(_load(db, municipality, auto_id))
    return {**doc, "stage_label": STAGES.get(doc["stage"], doc["stage"])}


DATE_KEYS = {"on", "start", "until"}


def _dated(value: Any, key: str = "") -> Any:
    """The auto with its legal dates as ``date`` (the store keeps them as ISO text)."""
    if isinstance(value, dict):
        return {k: _dated(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_dated(v) for v in value]
    if isinstance(value, str) and (key in DATE_KEYS or key.endswith("_on") or key == "limit"):
        return parse_date(value)
    return value


def stage_of(doc: dict) -> str:
    """The stage code that the auto's recorded facts put it in."""
    if doc.get("status") == "rascunho":
        return "rascunho"
    if doc.get("status") == "nulo":
        return "nulo"
    decision, appeal = doc.get("decision") or {}, doc.get("appeal") or {}
    final = (appeal.get("decision") or {}).get("outcome") or decision.get("outcome")
    if final == "anulado":
        return "anulado"
    fine = doc.get("fine_dam") or {}
    if fine.get("paid"):
        return "multa_paga"
    if fine or doc.get("sanctions_applied"):
        return "penalidade"
    if appeal and not appeal.get("decision"):
        return "recurso"
    if decision:
        return "decidido"
    if doc.get("defence"):
        return "defesa"
    notice = doc.get("notification") or {}
    if notice.get("juntada_on"):
        return "prazo_defesa"
    if notice.get("received_on"):
        return "notificado"
    return "aguardando_notificacao"


def process_of(doc: dict) -> InfractionProcess:
    """The auto's process as the rules see it (the notification counts from its receipt)."""
    notice = doc.get("notification") or {}
    decided = (doc.get("decision") or {}).get("decided_on")
    return InfractionProcess(parse_date(doc["auto_on"]), parse_date(notice.get("received_on")),
                             notice.get("method"), parse_date(notice.get("juntada_on")), parse_date(decided))


def process_status(db: Database, actor: Actor, municipality: str, auto_id: str, on: date) -> dict:
    """Whether a penalty may be applied on ``on``, why (findings with articles) and until when."""
    authorize(actor, "read", municipality)
    doc = _load(db, municipality, auto_id)
    return _penalty_state(db, municipality, doc, on)


def _penalty_state(db: Database, municipality: str, doc: dict, on: date) -> dict:
    book = parameters.book(db, municipality)
    state = _rules(municipality).process_status(process_of(doc), on, book, parameters.calendar_from(book, on))
    findings = list(state.decision.findings)
    outcome = _final_outcome(doc)
    appeal = doc.get("appeal") or {}
    if appeal and not appeal.get("decision"):
        findings.append(Finding(False, f"Recurso apresentado em {day(parse_date(appeal['filed_on']))} aguardando "
                                       "decisão", _rules(municipality).ref("due_process")))
    if outcome == "anulado":
        findings.append(Finding(False, "Auto anulado na decisão", _rules(municipality).ref("due_process")))
    if doc.get("status") == "nulo":
        findings.append(Finding(False, "Auto nulo: notificação fora do prazo", _rules(municipality).ref("notification")))
    ok = not any(f.blocking for f in findings)
    return {"may_apply": ok, "findings": findings, "reasons": [f.text() for f in findings if not f.ok],
            "notification_deadline": state.notification_deadline, "defence_deadline": state.defence_deadline,
            "appeal_deadline": _appeal_deadline(db, municipality, doc)}


def _final_outcome(doc: dict) -> str | None:
    appeal = doc.get("appeal") or {}
    return (appeal.get("decision") or {}).get("outcome") or (doc.get("decision") or {}).get("outcome")


def _appeal_deadline(db: Database, municipality: str, doc: dict) -> date | None:
    decided = parse_date((doc.get("decision") or {}).get("decided_on"))
    if decided is None:
        return None
    days = int(parameters.value(db, municipality, "defence_period_days", decided))
    return parameters.calendar(db, municipality, decided).add_days(decided, days)


# ---- writing ----

def _audit_doc(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in ("events", "created_at", "updated_at", "id", "_id")}


def _save(db: Database, actor: Actor, municipality: str, doc: dict, changes: dict, action: str, note: str,
          push: dict | None = None) -> dict:
    """Write ``changes`` only if the auto is still at the version read, with its event and audit entry."""
    after = {**doc, **changes}
    if push:
        for name, item in push.items():
            after[name] = [*doc.get(name, []), item]
    changes = {**changes, "stage": stage_of(after), "updated_at": clock.now_utc()}
    event = {"at": clock.now_utc(), "by": actor.username, "action": action, "note": note}
    update: dict[str, Any] = {"$set": encode(changes), "$inc": {"version": 1},
                              "$push": {"events": encode(event), **{k: encode(v) for k, v in (push or {}).items()}}}
    result = db[COLLECTION].update_one({"_id": _oid(doc["id"]), "municipality": municipality,
                                        "version": doc["version"]}, update)
    if result.matched_count != 1:
        raise Conflict("O auto foi alterado por outra pessoa ao mesmo tempo; recarregue e tente de novo.")
    audit.record(db, actor, municipality, action, COLLECTION, doc["id"],
                 {k: doc.get(k) for k in (*changes, *(push or {}))},
                 {k: after.get(k, changes.get(k)) for k in (*changes, *(push or {}))}, note)
    return {**after, **changes, "version": doc["version"] + 1}


def _not_future(name: str, label: str, value: Any) -> date:
    if not isinstance(value, date):
        raise ValidationFailed({name: f"{label}: informe a data."})
    entities.refuse_future(name, label, value)
    return value


def _files(db: Database, attachments: Any) -> list[dict]:
    """Attachments ``[(name, bytes), …]`` kept with store.put_file; the auto keeps only the hashes."""
    kept = []
    for name, data in attachments or ():
        kept.append({"name": str(name), "sha256": store.put_file(db, bytes(data), str(name))})
    return kept


def _offender(db: Database, municipality: str, target_kind: str, driver_cpf: str, plate: str,
              platform_id: str) -> dict:
    """Who the auto is against, from the register: the name and document printed on it and the DAM."""
    errors = {}
    found: dict[str, Any] = {"driver_cpf": driver_cpf or "", "plate": plate or "", "platform_id": platform_id or ""}
    if target_kind not in TARGETS:
        raise ValidationFailed({"target_kind": "Autuado: escolha condutor, veículo ou plataforma."})
    if driver_cpf:
        doc = db["drivers"].find_one({"municipality": municipality, "cpf": driver_cpf}, {"name": 1, "address": 1})
        if doc is None:
            errors["driver_cpf"] = "Condutor: não cadastrado neste município."
        else:
            found.update(driver_name=doc["name"], driver_address=doc.get("address") or "")
    if plate:
        doc = db["vehicles"].find_one({"municipality": municipality, "plate": plate}, {"driver_cpf": 1})
        if doc is None:
            errors["plate"] = "Veículo: não cadastrado neste município."
        elif not driver_cpf and doc.get("driver_cpf"):  # the vehicle's driver answers for it
            owner = db["drivers"].find_one({"municipality": municipality, "cpf": doc["driver_cpf"]},
                                           {"name": 1, "address": 1, "cpf": 1})
            if owner:
                found.update(vehicle_driver_cpf=owner["cpf"], vehicle_driver_name=owner["name"],
                             driver_address=owner.get("address") or "")
    if platform_id:
        doc = db["platforms"].find_one({"municipality": municipality, "_id": entities._object_id(platform_id)},
                                       {"name": 1, "cnpj": 1})
        if doc is None:
            errors["platform_id"] = "Plataforma: não cadastrada neste município."
        else:
            found.update(platform_name=doc["name"], platform_cnpj=doc["cnpj"])
    needed = {"driver": "driver_cpf", "vehicle": "plate", "platform": "platform_id"}[target_kind]
    if not found[needed] and needed not in errors:
        errors[needed] = f"{TARGETS[target_kind]}: escolha no cadastro."
    if errors:
        raise ValidationFailed(errors)
    if target_kind == "platform":
        found.update(offender_name=found["platform_name"], offender_document=found["platform_cnpj"])
    elif driver_cpf:
        found.update(offender_name=found["driver_name"], offender_document=driver_cpf)
    elif found.get("vehicle_driver_cpf"):
        found.update(offender_name=found["vehicle_driver_name"], offender_document=found["vehicle_driver_cpf"])
    else:
        found.update(offender_name=f"Veículo {fields.show('plate', plate)}", offender_document="")
    return found


def draft_auto(db: Database, actor: Actor, municipality: str, *, target_kind: str, driver_cpf: str = "",
               plate: str = "", platform_id: str = "", infraction_code: str, facts: str, origin: str = "",
               committed_on: date | None = None) -> str:
    """A draft auto (``rascunho``, no number) for a clerk to review and lavrar; returns its id.

    Used by the platform-list reconciliation (``origin`` says where it came from)."""
    authorize(actor, "write", municipality)
    try:
        _rules(municipality).infraction(infraction_code)
    except UnknownInfraction as exc:
        raise ValidationFailed({"infraction_code": f"Infração: {exc.message}."}) from None
    if not (facts or "").strip():
        raise ValidationFailed({"facts": "Fatos: descreva o que foi constatado."})
    who = _offender(db, municipality, target_kind, driver_cpf, plate, platform_id)
    now = clock.now_utc()
    doc = {"municipality": municipality, "status": "rascunho", "stage": "rascunho", "number": "", "year": None,
           "sequence": None, "target_kind": target_kind, **who, "infraction_code": infraction_code,
           "facts": facts.strip(), "origin": origin, "committed_on": committed_on, "evidence": [],
           "events": [{"at": now, "by": actor.username, "action": "draft", "note": origin or "Rascunho"}],
           "measures_applied": [], "sanctions_applied": [], "version": 1, "created_at": now,
           "created_by": actor.username, "updated_at": now}
    with store.transaction(db):
        prepare(db)
        inserted = insert_one(db[COLLECTION], encode(doc))
        audit.record(db, actor, municipality, "draft", COLLECTION, inserted, {}, _audit_doc(doc),
                     note=f"Rascunho de auto ({origin or 'manual'})")
    return str(inserted)


def _history(db: Database, municipality: str, doc: dict, committed_on: date) -> list[dict]:
    """Earlier autos of the same offender (same CPF, plate or platform) that could count as recurrence."""
    key = {"driver": "driver_cpf", "vehicle": "plate", "platform": "platform_id"}[doc["target_kind"]]
    query = {"municipality": municipality, key: doc[key], "status": "lavrado",
             "committed_on": {"$lt": encode(committed_on)}}
    fields_ = {"number": 1, "infraction_code": 1, "committed_on": 1, "decision": 1, "appeal": 1, "status": 1}
    return [decode(r) for r in db[COLLECTION].find(query, fields_).sort("committed_on", 1)]


def _records(earlier: list[dict]) -> list[tuple[OffenceRecord, dict]]:
    """Earlier autos as the rules count them: final only when decided and not annulled, with no appeal
    pending (CG art. 25 and art. 27; MP art. 23 §2 and art. 25 §4)."""
    out = []
    for prior in earlier:
        outcome = _final_outcome(prior)
        appeal = prior.get("appeal") or {}
        final = outcome in ("mantido", "parcialmente") and not (appeal and not appeal.get("decision"))
        out.append((OffenceRecord(prior["infraction_code"], parse_date(prior["committed_on"]), final), prior))
    return out


def assess(db: Database, actor: Actor, municipality: str, *, target_kind: str, driver_cpf: str = "",
           plate: str = "", platform_id: str = "", infraction_code: str, committed_on: date) -> dict:
    """What the rules make of an infraction given the offender's earlier autos (shown before lavrar):
    severity after recurrence, fine, penalties, measures, the findings and the earlier auto counted."""
    authorize(actor, "read", municipality)
    return _assess(db, municipality, {"target_kind": target_kind, "driver_cpf": driver_cpf, "plate": plate,
                                      "platform_id": platform_id}, infraction_code, committed_on)


def _assess(db: Database, municipality: str, who: dict, code: str, committed_on: date) -> dict:
    rules, book = _rules(municipality), parameters.book(db, municipality)
    try:
        rules.infraction(code)
    except UnknownInfraction as exc:
        raise ValidationFailed({"infraction_code": f"Infração: {exc.message}."}) from None
    records = _records(_history(db, municipality, who, committed_on))
    history = [r for r, _ in records]
    try:
        sanction = rules.sanction(code, committed_on, history, book)
    except ParameterMissing as exc:
        raise ServiceError(f"Parâmetro ausente para calcular a multa: {exc}") from None
    counted = None
    if sanction.recurrent:  # the most recent earlier auto that alone makes the recurrence
        for record, prior in reversed(records):
            if record.final and rules.sanction(code, committed_on, [record], book).recurrent:
                counted = {"id": str(prior["_id"]), "number": prior["number"], "code": prior["infraction_code"],
                           "committed_on": parse_date(prior["committed_on"])}
                break
    return {
        "infraction_text": sanction.infraction.text, "infraction_reference": sanction.infraction.reference,
        "base_severity": sanction.infraction.severity.value, "severity": sanction.severity.value,
        "fine_amount": sanction.fine.amount, "penalties": [p.value for p in sanction.penalties],
        "measures": [m.value for m in sanction.measures], "suspension_days": sanction.suspension_days,
        "suspension_months": sanction.suspension_months, "recurrent": sanction.recurrent, "recurrence_of": counted,
        "findings": [{"ok": f.ok, "message": f.message, "reference": f.reference} for f in sanction.findings],
    }


def lavrar(db: Database, actor: Actor, municipality: str, auto_id: str = "", *, target_kind: str = "driver",
           driver_cpf: str = "", plate: str = "", platform_id: str = "", infraction_code: str = "",
           facts: str = "", committed_on: date | None = None, time: str = "", place: str = "",
           agent_registration: str = "", agent_name: str = "", auto_on: date | None = None,
           evidence: Any = (), origin: str = "") -> str:
    """Lavrar an auto: a draft (``auto_id``) completed with the values given, or a new one. Numbers it
    per municipality and year of the auto and stores the rules' assessment (CG art. 22 and 25; MP art.
    18 and 21); ``evidence`` is ``[(description, file name, bytes or None), …]``. Returns the id."""
    authorize(actor, "write", municipality)
    with store.transaction(db):  # a new auto refused at lavratura leaves no draft behind
        if not auto_id:
            auto_id = draft_auto(db, actor, municipality, target_kind=target_kind, driver_cpf=driver_cpf, plate=plate,
                                 platform_id=platform_id, infraction_code=infraction_code, facts=facts,
                                 origin=origin or "Lavratura direta", committed_on=committed_on)
        _lavrar(db, actor, municipality, auto_id, committed_on, time, place, agent_registration, agent_name, auto_on,
                evidence)
    return auto_id


def _lavrar(db: Database, actor: Actor, municipality: str, auto_id: str, committed_on: date | None, time: str,
            place: str, agent_registration: str, agent_name: str, auto_on: date | None, evidence: Any) -> None:
    doc = _load(db, municipality, auto_id)
    if doc["status"] != "rascunho":
        raise Conflict(f"O auto nº {doc['number']} já foi lavrado.")
    committed_on = committed_on or doc.get("committed_on")
    auto_on = auto_on or clock.today()
    errors = {}
    if not isinstance(committed_on, date):
        errors["committed_on"] = "Data da infração: informe a data."
    for name, label, value in (("time", "Hora", time), ("place", "Local", place),
                               ("agent_registration", "Matrícula do agente", agent_registration)):
        if not str(value or "").strip():
            errors[name] = f"{label}: obrigatório."
    if time and not _is_time(time):
        errors["time"] = "Hora: use HH:MM."
    if errors:
        raise ValidationFailed(errors)
    _not_future("committed_on", "Data da infração", committed_on)
    _not_future("auto_on", "Data do auto", auto_on)
    if auto_on < committed_on:
        raise ValidationFailed({"auto_on": "Data do auto: não pode ser anterior à infração."})
    assessment = _assess(db, municipality, doc, doc["infraction_code"], committed_on)
    kept = []
    for description, name, data in evidence or ():
        item = {"description": str(description), "name": str(name or "")}
        if data:
            item["sha256"] = store.put_file(db, bytes(data), str(name or description))
        kept.append(item)
    with store.transaction(db):
        number = next_number(db, municipality, NUMBER_KIND, auto_on.year)
        changes = {"status": "lavrado", "number": number.text, "year": number.year, "sequence": number.sequence,
                   "committed_on": committed_on, "auto_on": auto_on, "time": time.strip(), "place": place.strip(),
                   "agent_registration": agent_registration.strip(), "agent_name": agent_name.strip(),
                   "evidence": kept, **assessment}
        _save(db, actor, municipality, doc, changes, "lavrar",
              f"Auto nº {number.text} lavrado: {assessment['severity']}, {brl(assessment['fine_amount'])}")


def _is_time(text: str) -> bool:
    hours, _, minutes = text.strip().partition(":")
    return hours.isdigit() and minutes.isdigit() and int(hours) < 24 and int(minutes) < 60 and len(minutes) == 2


def _lavrado(db: Database, municipality: str, auto_id: str) -> dict:
    doc = _load(db, municipality, auto_id)
    if doc["status"] == "rascunho":
        raise ServiceError("O auto ainda é rascunho: lavre-o primeiro.")
    if doc["status"] == "nulo":
        raise ServiceError(f"O auto nº {doc['number']} é nulo: a notificação foi entregue fora do prazo.")
    return doc


# ---- notification ----

def notify(db: Database, actor: Actor, municipality: str, auto_id: str, *, method: str, sent_on: date,
           received_on: date | None = None, juntada_on: date | None = None, recipient: str = "infrator") -> dict:
    """Record the notification (sent, received, juntada) to the offender, or to the platform
    (``recipient="plataforma"``, CG art. 25 caput). Method from the act's list (CG art. 25 §1 I–IV;
    MP art. 21 §1). In Matupá a notification delivered after 90 days of the auto is refused with its
    article and the auto becomes void (MP art. 21 §1). Returns the dates the rules compute."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    rules = _rules(municipality)
    methods = {m.code: m for m in rules.notification_methods}
    if method not in methods:
        raise ValidationFailed({"method": "Forma de notificação: escolha uma das previstas em "
                                          f"{rules.ref('notification')}."})
    _not_future("sent_on", "Enviada em", sent_on)
    auto_on = parse_date(doc["auto_on"])
    errors = {}
    if sent_on < auto_on:
        errors["sent_on"] = "Enviada em: não pode ser anterior ao auto."
    if received_on is not None:
        _not_future("received_on", "Recebida em", received_on)
        if received_on < sent_on:
            errors["received_on"] = "Recebida em: não pode ser anterior ao envio."
    if juntada_on is not None:
        _not_future("juntada_on", "Juntada em", juntada_on)
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
            _save(db, actor, municipality, doc, {"platform_notification": notice}, "notify_platform",
                  f"Notificação à plataforma por {notice['method_label']}")
        return notice
    book = parameters.book(db, municipality)
    limit = None
    if rules.notification_limit_days:
        limit = parameters.calendar_from(book, auto_on).add_days(auto_on, rules.notification_limit_days)
        delivered = received_on or sent_on
        if delivered > limit:
            note = (f"Notificação de {day(delivered)} após o prazo máximo de {rules.notification_limit_days} dias da "
                    f"lavratura ({day(auto_on)} → {day(limit)}): auto nulo")
            with store.transaction(db):
                _save(db, actor, municipality, doc, {"status": "nulo", "void_reason": note,
                                                     "void_reference": rules.ref("notification"),
                                                     "late_notification": notice}, "void", note)
            raise DeadlineMissed(note, rules.ref("notification"), "received_on" if received_on else "sent_on")
    process = InfractionProcess(auto_on, received_on, method, juntada_on)
    state = rules.process_status(process, max(clock.today(), juntada_on or auto_on), book,
                                 parameters.calendar_from(book, auto_on))
    notice.update(limit=limit, defence_deadline=state.defence_deadline)
    with store.transaction(db):
        _save(db, actor, municipality, doc, {"notification": notice}, "notify",
              f"Notificação por {notice['method_label']}" + (
                  f"; prazo de defesa até {day(state.defence_deadline)}" if state.defence_deadline else ""))
    return notice


# ---- defence, decision, appeal ----

def _filing(db: Database, name: str, filed_on: date, by: str, summary: str, attachments: Any) -> dict:
    _not_future("filed_on", "Apresentada em", filed_on)
    errors = {}
    if not (by or "").strip():
        errors["by"] = "Apresentada por: obrigatório."
    if not (summary or "").strip():
        errors["summary"] = "Resumo: obrigatório."
    if errors:
        raise ValidationFailed(errors)
    return {"filed_on": filed_on, "by": by.strip(), "summary": summary.strip(), "attachments": _files(db, attachments)}


def file_defence(db: Database, actor: Actor, municipality: str, auto_id: str, *, filed_on: date, by: str,
                 summary: str, attachments: Any = ()) -> dict:
    """Record the defence (filed on, by whom, summary, attachments); a late one is kept and flagged."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    if doc.get("decision"):
        raise ServiceError("O auto já foi decidido; apresente recurso.")
    defence = _filing(db, "defence", filed_on, by, summary, attachments)
    if filed_on < parse_date(doc["auto_on"]):
        raise ValidationFailed({"filed_on": "Apresentada em: não pode ser anterior ao auto."})
    deadline = parse_date((doc.get("notification") or {}).get("defence_deadline"))
    defence["late"] = bool(deadline and filed_on > deadline)
    with store.transaction(db):
        _save(db, actor, municipality, doc, {"defence": defence}, "defence",
              "Defesa apresentada" + (" fora do prazo" if defence["late"] else ""))
    return defence


def _ruling(outcome: str, reasons: str, authority: str, decided_on: date) -> dict:
    _not_future("decided_on", "Decidido em", decided_on)
    errors = {}
    if outcome not in OUTCOMES:
        errors["outcome"] = "Resultado: escolha mantido, mantido em parte ou anulado."
    if not (reasons or "").strip():
        errors["reasons"] = "Fundamentação: obrigatória."
    if not (authority or "").strip():
        errors["authority"] = "Autoridade: obrigatória."
    if errors:
        raise ValidationFailed(errors)
    return {"outcome": outcome, "reasons": reasons.strip(), "authority": authority.strip(), "decided_on": decided_on}


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
        state = _penalty_state(db, municipality, {**doc, "decision": ruling}, decided_on)
        if not state["may_apply"]:
            raise ServiceError("Não é possível manter o auto nesta data: " + "; ".join(state["reasons"]),
                               field="decided_on")
    ruling["fine_amount"], ruling["penalties"] = _ruled_penalties(doc, outcome, fine_amount, penalties)
    with store.transaction(db):
        _save(db, actor, municipality, doc, {"decision": ruling}, "decide",
              f"Decisão: {OUTCOMES[outcome]} por {ruling['authority']}")
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


def file_appeal(db: Database, actor: Actor, municipality: str, auto_id: str, *, filed_on: date, by: str,
                summary: str, attachments: Any = ()) -> dict:
    """An appeal against the decision (CG art. 25 caput "recurso administrativo"; MP art. 25 §4)."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    decision = doc.get("decision")
    if not decision:
        raise ServiceError("Só cabe recurso depois da decisão.")
    if doc.get("appeal"):
        raise Conflict("O recurso já foi registrado.")
    appeal = _filing(db, "appeal", filed_on, by, summary, attachments)
    if filed_on < parse_date(decision["decided_on"]):
        raise ValidationFailed({"filed_on": "Apresentado em: não pode ser anterior à decisão."})
    deadline = _appeal_deadline(db, municipality, doc)
    appeal["late"] = bool(deadline and filed_on > deadline)
    appeal["decision"] = None
    with store.transaction(db):
        _save(db, actor, municipality, doc, {"appeal": appeal}, "appeal",
              "Recurso apresentado" + (" fora do prazo" if appeal["late"] else ""))
    return appeal


def decide_appeal(db: Database, actor: Actor, municipality: str, auto_id: str, *, outcome: str, reasons: str,
                  authority: str, decided_on: date, fine_amount: Decimal | None = None,
                  penalties: list[str] | None = None) -> dict:
    """The appeal's decision; it replaces the first decision's outcome, fine and penalties."""
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
        _save(db, actor, municipality, doc, {"appeal": {**appeal, "decision": ruling}}, "decide_appeal",
              f"Recurso: {OUTCOMES[outcome]} por {ruling['authority']}")
    return ruling


def _ruled(doc: dict) -> dict:
    appeal = doc.get("appeal") or {}
    return appeal.get("decision") or doc.get("decision") or {}


# ---- penalties ----

def _may_apply(db: Database, municipality: str, doc: dict, on: date) -> None:
    state = _penalty_state(db, municipality, doc, on)
    if not state["may_apply"]:
        raise PenaltyNotYet("A penalidade ainda não pode ser aplicada: " + "; ".join(state["reasons"]))


def fine_due_date(db: Database, municipality: str, on: date) -> date:
    """Due date of the fine DAM: ``fine_due_days`` (a dated parameter; the acts only say "no prazo")
    after its issue; the DAM service moves it to a business day."""
    try:
        days = int(parameters.value(db, municipality, FINE_DUE_PARAMETER, on))
    except ParameterMissing:
        raise ServiceError("Parâmetro 'fine_due_days' (dias para pagar a multa) sem valor em vigor: "
                           "peça à TI para defini-lo.") from None
    return on + timedelta(days=days)


def issue_fine_dam(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """The decided fine as a DAM ("multa de transporte"); paying it closes the fine."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    today = clock.today()
    _may_apply(db, municipality, doc, today)
    ruled = _ruled(doc)
    if Penalty.MULTA.value not in ruled.get("penalties", []) or not ruled.get("fine_amount"):
        raise ServiceError("A decisão não mantém multa neste auto.")
    if (doc.get("fine_dam") or {}).get("id"):
        raise Conflict(f"O DAM da multa já foi emitido ({doc['fine_dam']['number']}).")
    address = doc.get("driver_address") or ""
    with store.transaction(db):
        dam = dams.issue(db, actor, municipality, taxpayer_name=doc["offender_name"],
                         taxpayer_document=doc["offender_document"],
                         taxpayer_address=address, revenue_kind=REVENUE_KIND,
                         description=f"Multa do auto de infração nº {doc['number']} ({doc['infraction_code']})",
                         legal_basis=doc["infraction_reference"], amount=Decimal(str(ruled["fine_amount"])),
                         due=fine_due_date(db, municipality, today),
                         pays={"collection": COLLECTION, "id": doc["id"], "label": f"Auto nº {doc['number']}"})
        fine = {"id": dam["id"], "number": dam["number"], "amount": dam["amount"], "due_on": dam["due_on"],
                "issued_on": dam["issued_on"], "paid": False, "paid_on": None}
        _save(db, actor, municipality, doc, {"fine_dam": fine}, "fine_dam", f"DAM {dam['number']} da multa emitido")
    return dam


@events.on_dam_paid(COLLECTION)
def fine_paid(db: Database, dam: dict) -> None:
    """A paid fine DAM closes the fine of its auto (idempotent: a second run finds it closed)."""
    pays = dam.get("pays") or {}
    municipality = dam["municipality"]
    raw = db[COLLECTION].find_one({"_id": _oid(pays["id"]), "municipality": municipality})
    if raw is None:
        return
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    fine = doc.get("fine_dam") or {}
    if fine.get("id") != dam["id"] or fine.get("paid"):
        return
    payment = dam.get("payment") or {}
    closed = {**fine, "paid": True, "paid_on": parse_date(payment.get("paid_on")), "paid_amount": payment.get("amount"),
              "flags": payment.get("flags") or []}
    _save(db, DAM_ACTOR, municipality, doc, {"fine_dam": closed}, "fine_paid",
          f"DAM {fine['number']} pago: multa do auto nº {doc['number']} quitada")


def apply_sanction(db: Database, actor: Actor, municipality: str, auto_id: str, *, penalty: str, start: date,
                   note: str = "") -> dict:
    """Apply one decided penalty other than the fine from ``start``: a suspension ends after exactly its
    days or months (CG art. 27 §ú, 29 §1; MP art. 23 §1, 26 IV–V); revocation and cassação end the
    authorization; deregistrations are recorded. The authorization's status changes on ``start``."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    if penalty not in SANCTIONS:
        raise ValidationFailed({"penalty": "Penalidade: escolha uma das previstas."})
    if penalty not in _ruled(doc).get("penalties", []):
        raise ServiceError(f"A decisão não aplica {penalty} neste auto.")
    if any(s["penalty"] == penalty for s in doc.get("sanctions_applied", [])):
        raise Conflict(f"{penalty.capitalize()} já aplicada.")
    if not isinstance(start, date):
        raise ValidationFailed({"start": "Início: informe a data."})
    _may_apply(db, municipality, doc, start)
    until = None
    if penalty == Penalty.SUSPENSAO.value:
        until = suspension_last_day(start, doc.get("suspension_days"), doc.get("suspension_months"))
    kind = SANCTIONS[penalty]
    applied = {"penalty": penalty, "start": start, "until": until, "by": actor.username, "note": note.strip(),
               "authorization_id": None, "recorded_at": clock.now_utc()}
    text = f"{penalty.capitalize()} a partir de {day(start)}" + (f" até {day(until)}" if until else "")
    with store.transaction(db):
        if kind is not None:
            auth_id = authorizations.authorization_of(db, actor, municipality, doc.get("driver_cpf", ""),
                                                      doc.get("plate", ""))
            authorizations.apply_penalty(db, actor, municipality, auth_id, kind, start, until,
                                         f"Auto nº {doc['number']}: {text}")
            applied["authorization_id"] = auth_id
        _save(db, actor, municipality, doc, {}, "sanction", text, push={"sanctions_applied": applied})
    return applied


def record_measure(db: Database, actor: Actor, municipality: str, auto_id: str, *, measure: str, on: date,
                   by: str, note: str = "") -> dict:
    """An administrative measure taken (retention, removal, seizure of documents or of the vehicle),
    with who took it and when (CG art. 27 II; MP art. 24)."""
    authorize(actor, "write", municipality)
    doc = _lavrado(db, municipality, auto_id)
    known = {m.value for m in Measure}
    if measure not in known:
        raise ValidationFailed({"measure": "Medida: escolha uma das previstas."})
    _not_future("on", "Data da medida", on)
    if not (by or "").strip():
        raise ValidationFailed({"by": "Responsável: obrigatório."})
    item = {"measure": measure, "on": on, "by": by.strip(), "note": (note or "").strip(), "recorded_by": actor.username}
    with store.transaction(db):
        _save(db, actor, municipality, doc, {}, "measure", f"{measure.capitalize()} em {day(on)} por {by}",
              push={"measures_applied": item})
    return item


# ---- lists, history and the queue ----

@dataclass(frozen=True)
class AutoRow:
    id: str
    number: str
    committed_on: date | None
    target: str
    offender_name: str
    driver_cpf: str
    plate: str
    infraction_code: str
    severity: str
    stage: str
    outcome: str
    amount: Decimal | None
    payment: str
    recurrence_of: str


LIST_FIELDS = {name: 1 for name in ("number", "committed_on", "target_kind", "offender_name", "driver_cpf", "plate",
                                    "platform_id", "infraction_code", "severity", "stage", "decision", "appeal",
                                    "fine_amount", "fine_dam", "recurrence_of", "status")}


def _row(doc: dict) -> AutoRow:
    ruled = _ruled(doc)
    fine = doc.get("fine_dam") or {}
    payment = (f"Pago em {day(parse_date(fine['paid_on']))}" if fine.get("paid") else
               f"DAM {fine['number']} vence {day(parse_date(fine['due_on']))}" if fine else "")
    amount = ruled.get("fine_amount", doc.get("fine_amount"))
    prior = doc.get("recurrence_of") or {}
    return AutoRow(str(doc.get("id") or doc.get("_id")), doc.get("number") or "", parse_date(doc.get("committed_on")),
                   TARGETS.get(doc["target_kind"], ""), doc.get("offender_name") or "", doc.get("driver_cpf") or "",
                   doc.get("plate") or "", doc["infraction_code"], doc.get("severity") or "",
                   STAGES.get(doc["stage"], doc["stage"]), OUTCOMES.get(ruled.get("outcome"), ""),
                   Decimal(str(amount)) if amount is not None else None, payment,
                   f"Auto nº {prior['number']} de {day(parse_date(prior['committed_on']))}" if prior else "")


def _query(municipality: str, search: str, stage: str) -> dict:
    query: dict[str, Any] = {"municipality": municipality}
    if stage:
        query["stage"] = stage
    term = (search or "").replace("\x00", "").strip()
    if term:
        plain = {"$regex": re.escape(term), "$options": "i"}
        bare = {"$regex": re.escape(term.replace("-", "").replace(".", "")), "$options": "i"}
        query["$or"] = [{"number": plain}, {"offender_name": plain}, {"infraction_code": plain},
                        {"driver_cpf": bare}, {"plate": bare}]
    return query


def list_autos(db: Database, actor: Actor, municipality: str, search: str = "", stage: str = "",
               limit: int = 200) -> list[AutoRow]:
    """Autos matching ``search`` (number, name, CPF, plate, code) and ``stage``, newest first."""
    authorize(actor, "read", municipality)
    raws = db[COLLECTION].find(_query(municipality, search, stage), LIST_FIELDS).sort(
        [("committed_on", -1), ("_id", 1)]).limit(max(1, int(limit)))
    return [_row(decode(r)) for r in raws]


EXPORT_COLUMNS = ["Número", "Data", "Autuado", "Nome", "CPF", "Placa", "Infração", "Gravidade", "Etapa",
                  "Resultado", "Multa", "Pagamento", "Reincidência de"]


def _export_rows(db: Database, actor: Actor, municipality: str, search: str, stage: str) -> list[dict]:
    return [dict(zip(EXPORT_COLUMNS, (r.number, r.committed_on, r.target, r.offender_name,
                                      fields.show("cpf", r.driver_cpf) if r.driver_cpf else "",
                                      fields.show("plate", r.plate) if r.plate else "", r.infraction_code,
                                      r.severity, r.stage, r.outcome, r.amount, r.payment, r.recurrence_of)))
            for r in list_autos(db, actor, municipality, search, stage, limit=100000)]


def export_csv(db: Database, actor: Actor, municipality: str, search: str = "", stage: str = "") -> bytes:
    """The autos the filter shows, as CSV (pt-BR)."""
    return exports.to_csv(_export_rows(db, actor, municipality, search, stage), EXPORT_COLUMNS)


def export_xlsx(db: Database, actor: Actor, municipality: str, search: str = "", stage: str = "") -> bytes:
    """The autos the filter shows, as XLSX."""
    return exports.to_xlsx(_export_rows(db, actor, municipality, search, stage), EXPORT_COLUMNS, "Autos")


def history(db: Database, actor: Actor, municipality: str, *, driver_cpf: str = "", plate: str = "",
            platform_id: str = "") -> list[AutoRow]:
    """Every auto of a driver (CPF), a vehicle (plate) or a platform, oldest first, with its stage,
    outcome, amount, payment and the earlier auto a recurrence counted."""
    authorize(actor, "read", municipality)
    key, value = next(((k, v) for k, v in (("driver_cpf", driver_cpf), ("plate", plate), ("platform_id", platform_id))
                       if v), ("driver_cpf", None))
    if value is None:
        raise ValidationFailed({"driver_cpf": "Informe o CPF, a placa ou a plataforma."})
    raws = db[COLLECTION].find({"municipality": municipality, key: value}, LIST_FIELDS).sort("committed_on", 1)
    return [_row(decode(r)) for r in raws]


def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[Any]:
    """Autos awaiting notification (with the Matupá limit), defences due, decisions due, fines overdue
    and suspensions ending, as items of the Pendências queue."""
    authorize(actor, "read", municipality)
    rules = _rules(municipality)
    book = parameters.book(db, municipality)
    calendar = parameters.calendar_from(book, on)
    open_stages = ["aguardando_notificacao", "notificado", "prazo_defesa", "defesa", "decidido", "penalidade"]
    items = []
    for raw in db[COLLECTION].find({"municipality": municipality, "stage": {"$in": open_stages}}):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        for due, kind, message, reference in _due_items(doc, on, rules, book, calendar):
            if due <= on + timedelta(days=HORIZON_DAYS):
                items.append(Pendencia(due, kind, f"Auto {doc['number']}", doc.get("plate") or "",
                                       doc.get("driver_cpf") or "", message, reference, due < on and kind != DECIDE, ""))
    return sorted(items, key=lambda p: (p.due, p.protocol))


def _due_items(doc: dict, on: date, rules: Any, book: Any, calendar: Any) -> list[tuple[date, str, str, str]]:
    stage, number = doc["stage"], doc["number"]
    auto_on = parse_date(doc["auto_on"])
    if stage == "aguardando_notificacao":
        if rules.notification_limit_days:
            limit = calendar.add_days(auto_on, rules.notification_limit_days)
            return [(limit, "Notificar auto", f"Auto nº {number}: entregar a notificação até {day(limit)} "
                     f"({rules.notification_limit_days} dias da lavratura); depois, o auto é nulo",
                     rules.ref("notification"))]
        return [(auto_on, "Notificar auto", f"Auto nº {number} lavrado em {day(auto_on)} aguardando notificação",
                 rules.ref("notification"))]
    notice = doc.get("notification") or {}
    if stage == "notificado":
        return [(parse_date(notice["received_on"]), "Juntar notificação",
                 f"Auto nº {number}: juntar a notificação recebida para abrir o prazo de defesa", rules.ref("defence"))]
    if stage in ("prazo_defesa", "defesa"):
        deadline = parse_date(notice.get("defence_deadline"))
        if stage == "prazo_defesa" and deadline and on <= deadline:
            return [(deadline, "Prazo de defesa", f"Auto nº {number}: prazo de defesa até {day(deadline)}",
                     rules.ref("defence"))]
        due = deadline + timedelta(days=1) if deadline else on
        return [(due, DECIDE, f"Auto nº {number}: prazo de defesa encerrado em {day(deadline or on)}; decidir "
                 f"a partir de {day(due)}", rules.ref("due_process"))]
    items = []
    fine = doc.get("fine_dam") or {}
    if fine and not fine.get("paid"):
        due = parse_date(fine["due_on"])
        items.append((due, "Multa", f"Auto nº {number}: DAM {fine['number']} da multa ({brl(fine['amount'])}) "
                      f"vence em {day(due)}", doc.get("infraction_reference", "")))
    for applied in doc.get("sanctions_applied", []):
        until = parse_date(applied.get("until"))
        if until and until >= on:
            items.append((until, "Suspensão (auto)", f"Auto nº {number}: suspensão até {day(until)}; volta a valer "
                          f"em {day(until + timedelta(days=1))}", rules.ref("suspension")))
    return items
