"""Autos de infração in lists: the list with its search and exports, every auto of a driver, a vehicle
or a platform (with the earlier auto a recurrence counted), and the autos' deadlines in the Pendências
queue (notification, with the Matupá limit of MP Lei 1.552/2025 art. 21 §1; defence; decision; fine;
suspension).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.dam import charges as charge_rules
from rules.fmt import brl, day
from services.ridehailing import charge_links
from services.ridehailing.enforcement import autos
from services.ridehailing.queue_item import HORIZON_DAYS, Pendencia
from services.shared import exports, fields, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.store import decode, parse_date

DECIDE = "Decidir auto"  # dated by the end of the defence: the acts set no term to decide, never "late"


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


def _rows(db: Database, raws: Any) -> list[AutoRow]:
    """The rows of stored autos, each fine's payment as its charge (débito) has it (one read of the charges)."""
    docs = [decode(r) for r in raws]
    found = charge_links.by_id(db, [(d.get("fine_dam") or {}).get("charge_id") for d in docs])
    return [_row(d, found.get((d.get("fine_dam") or {}).get("charge_id") or "")) for d in docs]


def _row(doc: dict, charge: dict | None) -> AutoRow:
    ruled = autos._ruled(doc)
    fine = doc.get("fine_dam") or {}
    payment = (charge_links.standing_text(charge) if charge else
               f"Pago em {day(parse_date(fine['paid_on']))}" if fine.get("paid") else
               f"DAM {fine['number']} vence {day(parse_date(fine['due_on']))}" if fine else "")
    amount = ruled.get("fine_amount", doc.get("fine_amount"))
    prior = doc.get("recurrence_of") or {}
    return AutoRow(str(doc.get("id") or doc.get("_id")), doc.get("number") or "", parse_date(doc.get("committed_on")),
                   autos.TARGETS.get(doc["target_kind"], ""), doc.get("offender_name") or "",
                   doc.get("driver_cpf") or "", doc.get("plate") or "", doc["infraction_code"],
                   doc.get("severity") or "", autos.STAGES.get(doc["stage"], doc["stage"]),
                   autos.OUTCOMES.get(ruled.get("outcome"), ""),
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
                        {"driver_cpf": bare}, {"offender_document": bare}, {"plate": bare}]
    return query


@checked
def list_autos(db: Database, actor: Actor, municipality: str, search: str = "", stage: str = "",
               limit: int = 200) -> list[AutoRow]:
    """Autos matching ``search`` (number, name, CPF, plate, code) and ``stage``, newest first."""
    authorize(actor, "read", municipality)
    raws = db[autos.COLLECTION].find(_query(municipality, search, stage), LIST_FIELDS).sort(
        [("committed_on", -1), ("_id", 1)]).limit(max(1, int(limit)))
    return _rows(db, raws)


EXPORT_COLUMNS = ["Número", "Data", "Autuado", "Nome", "CPF", "Placa", "Infração", "Gravidade", "Etapa",
                  "Resultado", "Multa", "Pagamento", "Reincidência de"]


def _export_rows(db: Database, actor: Actor, municipality: str, search: str, stage: str) -> list[dict]:
    return [dict(zip(EXPORT_COLUMNS, (r.number, r.committed_on, r.target, r.offender_name,
                                      fields.show("cpf", r.driver_cpf) if r.driver_cpf else "",
                                      fields.show("plate", r.plate) if r.plate else "", r.infraction_code,
                                      r.severity, r.stage, r.outcome, r.amount, r.payment, r.recurrence_of)))
            for r in list_autos(db, actor, municipality, search, stage, limit=100000)]


@checked
def export_csv(db: Database, actor: Actor, municipality: str, search: str = "", stage: str = "") -> bytes:
    """The autos the filter shows, as CSV (pt-BR)."""
    return exports.to_csv(_export_rows(db, actor, municipality, search, stage), EXPORT_COLUMNS)


@checked
def export_xlsx(db: Database, actor: Actor, municipality: str, search: str = "", stage: str = "") -> bytes:
    """The autos the filter shows, as XLSX."""
    return exports.to_xlsx(_export_rows(db, actor, municipality, search, stage), EXPORT_COLUMNS, "Autos")


@checked
def history(db: Database, actor: Actor, municipality: str, *, driver_cpf: str = "", plate: str = "",
            platform_id: str = "") -> list[AutoRow]:
    """Every auto of a driver (CPF), a vehicle (plate) or a platform, oldest first, with its stage,
    outcome, amount, payment and the earlier auto a recurrence counted."""
    authorize(actor, "read", municipality)
    key, value = next(((k, v) for k, v in (("driver_cpf", driver_cpf), ("plate", plate), ("platform_id", platform_id))
                       if v), ("driver_cpf", None))
    if value is None:
        raise ValidationFailed({"driver_cpf": "Informe o CPF, a placa ou a plataforma."})
    raws = db[autos.COLLECTION].find({"municipality": municipality, key: value}, LIST_FIELDS).sort("committed_on", 1)
    return _rows(db, raws)


# What the queue reads of an open auto (not its events, evidence or decision texts: issue 21). The
# sanctions whole: a path through an array (``sanctions_applied.until``) made the store load and
# decode every whole auto, 0,4 s of the 0,6 s of Pendências at scale 10.
PENDING_FIELDS = {"municipality": 1, "stage": 1, "number": 1, "auto_on": 1, "notification": 1,
                  "defence.filed_on": 1, "sanctions_applied": 1, "fine_dam": 1, "plate": 1, "driver_cpf": 1,
                  "infraction_reference": 1, "recurrence_review": 1}
OPEN_STAGES = ("aguardando_notificacao", "aguardando_ciencia", "notificado", "prazo_defesa", "defesa", "decidido",
               "penalidade")
REVIEW = "Rever reincidência"
NEVER_LATE = (DECIDE, REVIEW)  # no legal term: open since their date, never "late"


@dataclass(frozen=True)
class AutoItem:
    """One item of an auto in the Pendências queue; ``horizoned``: shown only from ``HORIZON_DAYS``
    before its due date (every item with a term; a recurrence to review, always)."""
    due: date
    kind: str
    message: str
    reference: str
    horizoned: bool = True


def auto_items(doc: dict, on: date, rules: Any, book: Any, calendar: Any,
               charge: dict | None) -> tuple[list[AutoItem], list[date]]:
    """The items of one auto (decoded, with :data:`PENDING_FIELDS`) on ``on``, however far ahead, and the
    days after which they change without a write (the end of the defence term, of a suspension)."""
    items: list[AutoItem] = []
    dates: list[date] = []
    if doc.get("stage") in OPEN_STAGES:
        waiting = doc["stage"] == "aguardando_ciencia"
        tacit = parse_date((doc.get("notification") or {}).get("tacit_on")) if waiting else None
        doc = autos.as_of(doc, on)  # a notice never opened counts from its tacit day (enforcement.electronic)
        items += [AutoItem(*item) for item in _due_items(doc, on, rules, book, calendar) + _fine_item(doc, charge)]
        deadline = parse_date((doc.get("notification") or {}).get("defence_deadline"))
        if waiting:
            dates += [d for d in (tacit and tacit - timedelta(days=1), deadline) if d]  # the day before the tacit one
        if doc["stage"] in ("prazo_defesa", "defesa"):
            dates.append(deadline or on)  # no deadline: "decidir a partir de hoje" moves every day
        dates += [d for d in (parse_date(a.get("until")) for a in doc.get("sanctions_applied") or []
                              if not a.get("lifted_on")) if d]
    review = doc.get("recurrence_review") or {}
    if review.get("open"):  # LEITURAS §7: recalculate before a penalty is applied, dated by the annulment
        items.append(AutoItem(parse_date(review["flagged_on"]), REVIEW,
                              f"Auto nº {doc['number']}: {review['reason']}; recalcular gravidade, multa e "
                              "penalidades antes de aplicá-las", rules.ref("due_process"), horizoned=False))
    return items, dates


def pendencia(doc: dict, item: AutoItem, on: date) -> Any:
    """An auto's item as the queue shows it on ``on``."""
    return Pendencia(item.due, item.kind, f"Auto {doc['number']}", doc.get("plate") or "", doc.get("driver_cpf") or "",
                     item.message, item.reference, item.due < on and item.kind not in NEVER_LATE, "",
                     ("autos", doc["id"]))


def scope_of(db: Database, municipality: str, on: date) -> tuple[Any, Any, Any]:
    """(rules, parameter book, calendar) the autos' items of ``municipality`` are computed with on ``on``."""
    book = parameters.book(db, municipality)
    return autos._rules(municipality), book, parameters.calendar_from(book, on)


def open_autos(db: Database, query: dict) -> list[dict]:
    """The autos of ``query`` (decoded, ``id`` as text) with what their items need."""
    docs = []
    for raw in db[autos.COLLECTION].find(query, PENDING_FIELDS):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        docs.append(doc)
    return docs


def fine_charges(db: Database, docs: list[dict]) -> dict[str, dict]:
    """The fines' charges of ``docs`` by id (one query)."""
    return charge_links.by_id(db, [(d.get("fine_dam") or {}).get("charge_id") for d in docs])


@checked
def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[Any]:
    """Autos awaiting notification (with the Matupá limit), defences due, decisions due, fines overdue,
    suspensions ending and recurrences to review, as items of the Pendências queue, computed from the
    autos (the queue keeps them as data: ``services.ridehailing.queue_autos``)."""
    authorize(actor, "read", municipality)
    rules, book, calendar = scope_of(db, municipality, on)
    docs = open_autos(db, {"municipality": municipality, "$or": [
        {"stage": {"$in": list(OPEN_STAGES)}}, {"recurrence_review.open": True}]})
    found = fine_charges(db, docs)
    items = []
    for doc in docs:
        charge = found.get((doc.get("fine_dam") or {}).get("charge_id") or "")
        for item in auto_items(doc, on, rules, book, calendar, charge)[0]:
            if not item.horizoned or item.due <= on + timedelta(days=HORIZON_DAYS):
                items.append(pendencia(doc, item, on))
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
    if stage == "aguardando_ciencia":
        if not notice.get("received_on"):
            tacit = parse_date(notice["tacit_on"])
            return [(tacit, "Aguardando ciência", f"Auto nº {number}: notificação entregue no domicílio eletrônico em "
                     f"{day(parse_date(notice['sent_on']))}, aguardando ciência; tácita em {day(tacit)} se não for "
                     "aberta", notice.get("method_reference") or rules.ref("notification"))]
        stage = "prazo_defesa"  # the tacit day came: the defence term runs from it
    if stage == "notificado":
        return [(parse_date(notice["received_on"]), "Juntar notificação",
                 f"Auto nº {number}: juntar a notificação recebida para abrir o prazo de defesa", rules.ref("defence"))]
    if stage in ("prazo_defesa", "defesa"):
        deadline = parse_date(notice.get("defence_deadline"))
        if stage == "prazo_defesa" and deadline and on <= deadline:
            return [(deadline, "Prazo de defesa", f"Auto nº {number}: prazo de defesa até {day(deadline)}",
                     rules.ref("defence"))]
        filed = parse_date((doc.get("defence") or {}).get("filed_on"))
        if stage == "defesa" and filed and notice.get("juntada_on"):  # heard: the authority may decide now
            due = max(filed, parse_date(notice["juntada_on"]))
            return [(due, DECIDE, f"Auto nº {number}: defesa apresentada em {day(filed)}; decidir",
                     rules.ref("due_process"))]
        due = deadline + timedelta(days=1) if deadline else on
        return [(due, DECIDE, f"Auto nº {number}: prazo de defesa encerrado em {day(deadline or on)}; decidir "
                 f"a partir de {day(due)}", rules.ref("due_process"))]
    items = []
    for applied in doc.get("sanctions_applied", []):
        until = parse_date(applied.get("until"))
        if until and until >= on and not applied.get("lifted_on"):  # lifted by an appeal: no end to watch
            items.append((until, "Suspensão (auto)", f"Auto nº {number}: suspensão até {day(until)}; volta a valer "
                          f"em {day(until + timedelta(days=1))}", rules.ref("suspension")))
    return items


def _fine_item(doc: dict, charge: dict | None) -> list[tuple[date, str, str, str]]:
    """The fine still owed, as its charge has it: the DAM to pay (a 2ª via, the DAM of a difference),
    or a cancelled or short-paid fine waiting for a new DAM. Dated by the fine's first due date."""
    fine = doc.get("fine_dam") or {}
    if not fine or fine.get("paid") or (charge and charge_rules.settled(charge["status"])):
        return []
    number, reference = doc["number"], doc.get("infraction_reference", "")
    due = parse_date(charge["due_on"] if charge else fine["due_on"])
    current = charge_links.live(charge) if charge else {**fine, "due_on": due}
    if current is None:
        return [(due, "Multa", f"Auto nº {number}: multa — {charge_links.standing_text(charge)}", reference)]
    short = f" (pago a menor: falta {brl(charge['open'])})" if charge and charge["paid"] > 0 else ""
    return [(due, "Multa", f"Auto nº {number}: DAM {current['number']} da multa ({brl(current['amount'])}) "
             f"vence em {day(parse_date(current['due_on']))}{short}", reference)]
