"""Autos de infração of ride-hailing: the collection, one auto as stored, and the draft.

The process (CG Decreto 06/2026 arts. 22–30; MP Lei 1.552/2025 arts. 18–27) runs through the modules of
this package, one per stage: a draft (``rascunho``, no number, e.g. from a platform list's
reconciliation; here) is lavrado in :mod:`.lavratura`; notified, defended, decided and appealed in
:mod:`.process`; its fine becomes a DAM and its penalties and measures are applied in
:mod:`.penalties`; :mod:`.lists` lists the autos and puts their deadlines in the Pendências queue.

This module holds what every stage shares: the collection and its indexes, the stage an auto's
recorded facts put it in, reading one auto, and the unit of work every write goes through (document,
audit entry), conditional on the auto's ``version``, its events appended with ``$push``.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from bson import ObjectId
from pymongo.database import Database

from rules.ridehailing.concepts import Measure
from rules.ridehailing.errors import UnknownInfraction
from rules.ridehailing.sanctions import LASTING_MEASURES, unregistered_offender_finding
from services import store
from services.ridehailing import registry
from services.shared import audit, clock, entities, fields, parameters
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.store import decode, encode, ensure_indexes, insert_one, parse_date

COLLECTION = "autos"
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
TARGETS = {"driver": "Condutor", "vehicle": "Veículo", "platform": "Plataforma",
           "unregistered": "Sem cadastro (transporte ilegal)"}
# Whose earlier autos count as recurrence: the same CPF, plate or platform (an unregistered person by CPF).
OFFENDER_KEY = {"driver": "driver_cpf", "vehicle": "plate", "platform": "platform_id", "unregistered": "driver_cpf"}
OUTCOMES = {"mantido": "Mantido", "parcialmente": "Mantido em parte", "anulado": "Anulado"}
STAGES = {
    "rascunho": "Rascunho", "aguardando_notificacao": "Aguardando notificação", "notificado": "Notificado",
    "prazo_defesa": "Prazo de defesa", "defesa": "Defesa apresentada", "decidido": "Decidido",
    "recurso": "Recurso em análise", "penalidade": "Penalidade aplicada", "multa_paga": "Multa paga",
    "anulado": "Anulado", "nulo": "Nulo (notificação fora do prazo)", "descartado": "Rascunho descartado",
}
# the Auditoria names the codes an auto stores by these words (issue 22 item 9)
name_codes("status", STAGES)
name_codes("stage", STAGES)
name_codes("outcome", OUTCOMES)
name_codes("target_kind", TARGETS)


def prepare(db: Database) -> None:
    """Indexes of the autos (idempotent; called at start by ``services.setup.bootstrap``)."""
    ensure_indexes(db, INDEXES)


def _rules(municipality: str) -> Any:
    return registry.rules_of(municipality)


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


@checked
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
    if doc.get("status") in ("rascunho", "descartado"):
        return doc["status"]
    if doc.get("status") == "nulo":
        return "nulo"
    decision, appeal = doc.get("decision") or {}, doc.get("appeal") or {}
    final = (appeal.get("decision") or {}).get("outcome") or decision.get("outcome")
    if final == "anulado":
        return "anulado"
    fine = doc.get("fine_dam") or {}
    if fine.get("paid"):
        return "multa_paga"
    if fine or any(not s.get("lifted_on") for s in doc.get("sanctions_applied") or []):  # lifted by an appeal: not
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


def _final_outcome(doc: dict) -> str | None:
    appeal = doc.get("appeal") or {}
    return (appeal.get("decision") or {}).get("outcome") or (doc.get("decision") or {}).get("outcome")


def appeal_deadline(db: Database, municipality: str, doc: dict) -> date | None:
    """Last day of the appeal against the first decision: the acts set none, the defence's period is
    used, counted from the decision (docs/LEITURAS.md, seção 7, leitura 12)."""
    decided = parse_date((doc.get("decision") or {}).get("decided_on"))
    if decided is None:
        return None
    days = int(parameters.value(db, municipality, "defence_period_days", decided))
    return parameters.calendar(db, municipality, decided).add_days(decided, days)


def measures_of(doc: dict) -> list[dict]:
    """The auto's measures as the screen and the PDF show them, each with its release when recorded
    and whether it lasts until one (``lasting``)."""
    released = {r["measure_index"]: r for r in doc.get("measures_released", [])}
    return [{**m, "index": i, "lasting": Measure(m["measure"]) in LASTING_MEASURES, "released": released.get(i)}
            for i, m in enumerate(doc.get("measures_applied", []))]


def _ruled(doc: dict) -> dict:
    appeal = doc.get("appeal") or {}
    return appeal.get("decision") or doc.get("decision") or {}


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


# ---- the draft ----

def _unregistered(db: Database, municipality: str, infraction: Any, offender_name: str, driver_cpf: str,
                  plate: str, platform_id: str) -> dict:
    """Someone outside the drivers register, identified as typed: name, CPF (check digits) and plate.

    Only transporte ilegal is charged to them (CG art. 30; MP art. 27); a CPF of the register is
    charged as its driver instead."""
    errors = {}
    finding = unregistered_offender_finding(infraction)
    if not finding.ok:
        errors["infraction_code"] = f"Infração: {finding.message} ({finding.reference})."
    if not (offender_name or "").strip():
        errors["offender_name"] = "Nome do autuado: obrigatório."
    found: dict[str, Any] = {"driver_cpf": "", "plate": "", "platform_id": "", "driver_address": ""}
    for name, kind, label, raw in (("driver_cpf", "cpf", "CPF", driver_cpf), ("plate", "plate", "Placa", plate)):
        if not str(raw or "").strip():
            errors[name] = f"{label}: obrigatório para identificar quem não tem cadastro."
            continue
        try:
            found[name] = fields.parse(kind, raw)
        except ValueError as exc:
            errors[name] = f"{label}: {exc}."
    if found["driver_cpf"] and db["drivers"].find_one({"municipality": municipality, "cpf": found["driver_cpf"]},
                                                      {"_id": 1}):
        errors["driver_cpf"] = "CPF: condutor cadastrado neste município; autue-o como condutor."
    if platform_id:
        _platform_of(db, municipality, platform_id, found, errors)
    if errors:
        raise ValidationFailed(errors)
    return {**found, "offender_name": offender_name.strip(), "offender_document": found["driver_cpf"]}


def _platform_of(db: Database, municipality: str, platform_id: str, found: dict, errors: dict) -> None:
    """The platform an auto names, from the register: its name and CNPJ into ``found``, or the error."""
    doc = db["platforms"].find_one({"municipality": municipality, "_id": entities._object_id(platform_id)},
                                   {"name": 1, "cnpj": 1})
    if doc is None:
        errors["platform_id"] = "Plataforma: não cadastrada neste município."
    else:
        found.update(platform_id=platform_id, platform_name=doc["name"], platform_cnpj=doc["cnpj"])


def _offender(db: Database, municipality: str, target_kind: str, driver_cpf: str, plate: str,
              platform_id: str) -> dict:
    """Who the auto is against, from the register: the name and document printed on it and the DAM."""
    errors = {}
    found: dict[str, Any] = {"driver_cpf": driver_cpf or "", "plate": plate or "", "platform_id": platform_id or ""}
    if target_kind not in TARGETS:
        raise ValidationFailed({"target_kind": "Autuado: escolha condutor, veículo, plataforma ou sem cadastro."})
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
        _platform_of(db, municipality, platform_id, found, errors)
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


@checked
def draft_auto(db: Database, actor: Actor, municipality: str, *, target_kind: str, driver_cpf: str = "",
               plate: str = "", platform_id: str = "", offender_name: str = "", infraction_code: str, facts: str,
               origin: str = "", committed_on: date | None = None) -> str:
    """A draft auto (``rascunho``, no number) for a clerk to review and lavrar; returns its id.

    Used by the platform-list reconciliation (``origin`` says where it came from). Against someone
    outside the register (``target_kind="unregistered"``) ``offender_name``, ``driver_cpf`` and
    ``plate`` identify them."""
    authorize(actor, "write", municipality)
    try:
        infraction = _rules(municipality).infraction(infraction_code)
    except UnknownInfraction as exc:
        raise ValidationFailed({"infraction_code": f"Infração: {exc.message}."}) from None
    if not (facts or "").strip():
        raise ValidationFailed({"facts": "Fatos: descreva o que foi constatado."})
    if target_kind == "unregistered":
        who = _unregistered(db, municipality, infraction, offender_name, driver_cpf, plate, platform_id)
    else:
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


@checked
def discard_draft(db: Database, actor: Actor, municipality: str, auto_id: str, *, reason: str) -> dict:
    """Discard a draft that will not be lavrado (a false positive of a reconciliation, one typed twice):
    kept with ``status = descartado``, the reason, who and when, and audited; never deleted. Only a
    draft: a lavrado auto ends by its decision (annulled), not here."""
    authorize(actor, "write", municipality)
    doc = _load(db, municipality, auto_id)
    if doc["status"] == "descartado":
        raise Conflict("Este rascunho já foi descartado.")
    if doc["status"] != "rascunho":
        raise Conflict(f"O auto nº {doc['number']} já foi lavrado: só um rascunho pode ser descartado; "
                       "um auto lavrado termina pela decisão (anulado).")
    if not (reason or "").strip():
        raise ValidationFailed({"reason": "Motivo do descarte: obrigatório."})
    discard = {"reason": reason.strip(), "on": clock.today(), "by": actor.username}
    with store.transaction(db):
        return _save(db, actor, municipality, doc, {"status": "descartado", "discard": discard}, "discard",
                     f"Rascunho descartado: {discard['reason']}")
