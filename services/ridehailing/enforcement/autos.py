"""Autos de infração of ride-hailing: the collection and one auto as stored, shared by every stage.

The process (CG Decreto 06/2026 arts. 22–30; MP Lei 1.552/2025 arts. 18–27) runs through the modules of
this package, one per stage, each importing only those before it: the form's values
(:class:`.auto_input.AutoInput`) are checked in :mod:`.auto_input`, assessed by the rules in
:mod:`.assessment` and stored in :mod:`.lavratura` (a draft, ``rascunho``, with no number, e.g. from a
platform list's reconciliation, or the auto lavrado); the auto is notified, defended, decided and
appealed in :mod:`.process`; its fine becomes a DAM and its penalties and measures are applied in
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

from rules.fmt import day
from rules.ridehailing import process as process_rules
from rules.ridehailing.concepts import Measure
from rules.ridehailing.sanctions import LASTING_MEASURES
from services.ridehailing import registry
from services.shared import audit, clock, entities, parameters
from services.shared.audit_words import name_codes
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.store import decode, encode, ensure_indexes, parse_date

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
UNKNOWN_ADDRESS = "Endereço desconhecido — notificação por edital"
EDITAL = "official_gazette"  # the notification method of the act's publication (CG art. 25 §1 II; MP art. 21 §1)
OUTCOMES = {"mantido": "Mantido", "parcialmente": "Mantido em parte", "anulado": "Anulado"}
STAGES = {
    "rascunho": "Rascunho", "aguardando_notificacao": "Aguardando notificação",
    "aguardando_ciencia": "Aguardando ciência (domicílio eletrônico)", "notificado": "Notificado",
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


DATE_KEYS = {"on", "start", "until", "appeal_deadline", "tacit_appeal_deadline"}


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
    if notice.get("message_id"):  # delivered to the electronic domicile, neither opened nor tacit when written
        return "aguardando_ciencia"
    return "aguardando_notificacao"


def as_of(doc: dict, on: date) -> dict:
    """The auto as it stands on ``on``: a notice delivered to the electronic domicile and never opened
    counts as received, and joined, on its tacit day once that day is reached (``rules/notice.py``;
    docs/LEITURAS.md, seção 7, leitura 27) — a day that comes without any write."""
    notice = doc.get("notification") or {}
    tacit = parse_date(notice.get("tacit_on"))
    if not notice.get("message_id") or notice.get("received_on") or tacit is None or on < tacit:
        return doc
    return {**doc, "notification": {**notice, "received_on": tacit, "juntada_on": tacit, "receipt": "tacita",
                                    "defence_deadline": notice.get("tacit_defence_deadline")}}


def receipt_line(notice: dict, on: date) -> str:
    """The electronic notice's delivery, opening or tacit receipt, as the case shows it (pt-BR)."""
    delivered, tacit = parse_date(notice.get("sent_on")), parse_date(notice.get("tacit_on"))
    opened = parse_date(notice.get("opened_on"))
    if delivered is None or tacit is None:
        return ""
    at = notice.get("delivered_at")
    line = f"entregue no domicílio eletrônico em {day(delivered)}" + (
        f" às {clock.to_local(at):%H:%M}" if hasattr(at, "hour") else "")
    if notice.get("receipt") == "aberta" or (opened and opened <= tacit):
        return f"{line}; aberta em {day(opened)}"
    if notice.get("receipt") == "tacita" or on >= tacit:
        return f"{line}; ciência tácita em {day(tacit)}" + (f" (aberta depois, em {day(opened)})" if opened else "")
    return f"{line}; aguardando ciência (tácita em {day(tacit)} se não for aberta)"


def _final_outcome(doc: dict) -> str | None:
    appeal = doc.get("appeal") or {}
    return (appeal.get("decision") or {}).get("outcome") or (doc.get("decision") or {}).get("outcome")


def decision_receipt(doc: dict, on: date) -> tuple[bool, date | None]:
    """(whether the decision's notification was delivered to the electronic domicile, the day it counts
    as received as of ``on``): the first opening recorded, else the tacit day once reached — a day that
    comes without any write (``rules/notice.py``)."""
    notice = doc.get("decision_notification") or {}
    if not notice.get("message_id"):
        return False, None
    received = parse_date(notice.get("received_on"))
    tacit = parse_date(notice.get("tacit_on"))
    if received is None and tacit is not None and on >= tacit:
        received = tacit
    return True, received if received is not None and received <= on else None


def appeal_deadline(db: Database, municipality: str, doc: dict, on: date | None = None) -> date | None:
    """Last day of the appeal against the first decision, as known on ``on`` (today by default): the
    acts set none, the defence's period is used, counted from the notification of the decision when one
    was delivered to the domicile (None while it awaits ciência), else from the decision
    (``rules.ridehailing.process.appeal_deadline``; docs/LEITURAS.md, seção 7, leituras 12 e 28)."""
    decided = parse_date((doc.get("decision") or {}).get("decided_on"))
    if decided is None:
        return None
    delivered, received = decision_receipt(doc, on or clock.today())
    days = int(parameters.value(db, municipality, "defence_period_days", decided))
    start = received or decided
    return process_rules.appeal_deadline(decided, days, parameters.calendar(db, municipality, start),
                                         notice_delivered=delivered, notice_received_on=received)


def awaiting_decision_notice(doc: dict, on: date) -> bool:
    """The decision's notification was delivered and has not counted as received by ``on``."""
    delivered, received = decision_receipt(doc, on)
    return delivered and received is None


def offender_address(doc: dict) -> str:
    """The address the offender is notified and billed at: the register's (a driver, a vehicle's driver)
    or the one typed for someone outside it. Someone outside the register found with no known address
    is notified by edital (CG art. 25 §1 II; MP art. 21 §1), and the fine's DAM says so in its address
    (:data:`UNKNOWN_ADDRESS`; docs/LEITURAS.md, seção 7, leitura 24)."""
    address = (doc.get("driver_address") or "").strip()
    return address or (UNKNOWN_ADDRESS if doc.get("target_kind") == "unregistered" else "")


def edital_reference(municipality: str) -> str:
    """The article of the notification by edital: CG art. 25 §1 II (Diário Oficial); MP art. 21 §1."""
    return next(m.reference for m in _rules(municipality).notification_methods if m.code == EDITAL)


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
