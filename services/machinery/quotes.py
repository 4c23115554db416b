"""From protocol to quote (Decreto 017/2026, Nova Lacerda): the technical visit (art. 2 §3, art. 5,
art. 10 III), the social report for the discount of Anexo II (art. 7), and the quote by the price
table in force (Anexo I/II) within the 5 loads per stage (art. 9 §1).

Price table: the versions are the dated parameter ``public_price_table`` (collection
``parameters``, already store-backed; version 1 = Anexo I, seeded by bootstrap with its act), so
no separate ``price_tables`` collection. :mod:`services.machinery.price_tables` (``ti``) shows the
version in force, previews and saves a new version; a quote stores its ``version_id`` (effective
date ISO), act and prices. Readings: docs/LEITURAS.md §8.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.base import RuleError
from rules.fmt import day as show_day
from rules.machinery.discounts import DiscountCriterion, DiscountDecision
from rules.machinery.prices import DECREE, PriceTable
from rules.machinery.quote import EarthLoads, KmReading, Quote, QuoteLine, quote
from rules.machinery.schedule import LoadRecord, loads_allowance
from services.machinery import booking_requests, protocol
from services.machinery.booking_requests import REQUESTERS, REQUESTS, WrongStep
from services.shared import clock, parameters
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.store import parse_date

# ---- technical visit and social report ----

def _after_visit_status(doc: dict) -> str:
    report = doc.get("social_report") or {}
    return "aguardando_parecer" if report and not report.get("answered_on") else "aguardando_orcamento"


@booking_requests.module_service("write")
def record_technical_visit(db: Database, actor: Actor, municipality: str, request_id: str, visited_on: date,
                           viable: bool, notes: str, environmental_licence: str = "") -> dict:
    """The technical visit (art. 2 §3, art. 5): viability and, when natural materials move, the
    environmental licence (art. 10 III). Unviable → refused with the reason."""
    if not isinstance(visited_on, date) or visited_on > clock.today():
        raise ValidationFailed({"visited_on": "Data da vistoria: informe uma data até hoje."})
    if not notes.strip():
        raise ValidationFailed({"notes": "Descreva a avaliação da equipe técnica."})

    def build(doc: dict) -> dict:
        licence = environmental_licence.strip() or doc.get("environmental_licence", "")
        visit = {"required": True, "status": "favoravel" if viable else "desfavoravel", "visited_on": visited_on,
                 "notes": notes.strip(), "environmental_licence": licence, "by": actor.username}
        changes: dict[str, Any] = {"technical_visit": visit}
        if not viable:
            # Art. 5: "podendo ser negada caso haja risco à segurança, aos equipamentos ou ao meio ambiente"
            changes.update(status="recusado", refusal={"reason": f"Vistoria técnica desfavorável: {notes.strip()} "
                                                                  f"({DECREE}, art. 5)", "on": visited_on,
                                                       "by": actor.username})
        elif doc.get("removes_natural_materials") and not licence:
            # Art. 10, III: no removal of natural materials without legal and environmental licence
            raise ValidationFailed({"environmental_licence": "Retirada de materiais naturais: informe a licença "
                                                             f"ambiental ({DECREE}, art. 10, III)."})
        else:
            changes["status"] = _after_visit_status(doc) if doc["status"] == "aguardando_vistoria" else doc["status"]
        return changes

    return booking_requests._change(db, actor, municipality, request_id,
                                    ("aguardando_vistoria", "aguardando_parecer", "aguardando_orcamento"), build,
                                    "technical_visit")


@booking_requests.module_service("write")
def request_social_report(db: Database, actor: Actor, municipality: str, request_id: str, on: date,
                          note: str = "") -> dict:
    """Ask Social Assistance for the social report (art. 7, second §2-§3)."""

    def build(doc: dict) -> dict:
        report = {"requested_on": on, "requested_by": actor.username, "note": note.strip(), "answered_on": None,
                  "favourable": None, "reference": "", "answer_note": ""}
        status = "aguardando_parecer" if doc["status"] == "aguardando_orcamento" else doc["status"]
        return {"social_report": report, "status": status}

    return booking_requests._change(db, actor, municipality, request_id,
                                    ("aguardando_vistoria", "aguardando_orcamento"), build, "social_report_requested")


@booking_requests.module_service("write")
def record_social_report(db: Database, actor: Actor, municipality: str, request_id: str, answered_on: date,
                         favourable: bool, reference: str, note: str = "") -> dict:
    """The answer of Social Assistance (art. 7 §4); favourable gives the 70% on item 12."""
    if not reference.strip():
        raise ValidationFailed({"reference": "Informe o número ou a referência do parecer social."})

    def build(doc: dict) -> dict:
        report = dict(doc.get("social_report") or {"requested_on": answered_on, "requested_by": actor.username})
        report.update(answered_on=answered_on, favourable=bool(favourable), reference=reference.strip(),
                      answer_note=note.strip())
        status = "aguardando_orcamento" if doc["status"] == "aguardando_parecer" else doc["status"]
        return {"social_report": report, "status": status}

    return booking_requests._change(db, actor, municipality, request_id,
                                    ("aguardando_vistoria", "aguardando_parecer", "aguardando_orcamento"), build,
                                    "social_report_answered")


# ---- quote ----

def _property_key(doc: dict) -> str:
    """The destination property for the art. 9 count; without one described, the requester's own."""
    described = ((doc.get("property") or {}).get("description") or "").strip().casefold()
    return described or f"solicitante:{doc['requester_id']}"


def _stage_records(db: Database, municipality: str, doc: dict) -> list[LoadRecord]:
    """Loads already granted in the request's stage to the same requester or property (art. 9 §1)."""
    query = {"municipality": municipality, "stage": doc["stage"], "status": {"$nin": ["recusado"]},
             "quote": {"$ne": None}, "services.kind": "earth_loads"}
    records = []
    for raw in db[REQUESTS].find(query, {"requester_id": 1, "property": 1, "services": 1, "stage": 1}):
        if str(raw["_id"]) == doc["id"]:
            continue
        loads = sum(s.get("loads") or 0 for s in raw.get("services", []) if s["kind"] == "earth_loads")
        records.append(LoadRecord(raw["requester_id"], _property_key(raw), raw["stage"], loads))
    return records


@booking_requests.module_service("write")
def make_quote(db: Database, actor: Actor, municipality: str, request_id: str, on: date) -> dict:
    """Price the request (Anexo I/II) with the table in force on ``on`` and save the quote; the
    request must meet every condition (findings re-checked with the visit and the payments)."""
    book = parameters.book(db, municipality)

    def build(doc: dict) -> dict:
        if doc.get("payment"):
            raise WrongStep(f"O pedido {doc['protocol']} já tem DAMs emitidos: o orçamento não muda.")
        requested_on = parse_date(doc["requested_on"])
        if not isinstance(on, date) or not requested_on <= on <= clock.today():
            # the quote prices the request with the table in force on its day: between the request and today
            raise ValidationFailed({"on": f"Data do orçamento: de {show_day(requested_on)} (data do pedido) "
                                          "até hoje."})
        requester = booking_requests._record(db, REQUESTERS, municipality, doc["requester_id"], "Solicitante")
        overdue = protocol._overdue_instalments(db, municipality, requester["document"], clock.today())
        findings = protocol._evaluate(doc, requester, book, overdue)
        services = [protocol._rule_service(s) for s in doc["services"]]
        loads = sum(s.loads for s in services if isinstance(s, EarthLoads))
        if loads:
            allowance = loads_allowance(doc["requester_id"], _property_key(doc), doc["stage"], loads, _stage_records(db, municipality, doc), on, book)
            findings += list(allowance.decision.findings)
        blocking = [f for f in findings if f.blocking]
        if blocking:
            raise ServiceError("O pedido não pode ser orçado: " + "; ".join(f.text() for f in blocking))
        try:
            q = quote(services, on, book, protocol._rule_claims(doc))
        except RuleError as error:
            raise protocol._refused(error) from None
        return {"quote": _quote_doc(q), "findings": [protocol._finding_doc(f) for f in findings],
                "status": "aguardando_pagamento"}

    return booking_requests._change(db, actor, municipality, request_id,
                                    ("aguardando_orcamento", "aguardando_pagamento"), build, "quote")


def _quote_doc(q: Quote) -> dict:
    return {
        "on": q.on,
        "price_table": {"version_id": q.price_table.effective.isoformat(), "effective": q.price_table.effective,
                        "act": q.price_table.act, "note": q.price_table.note,
                        "prices": {code: price for code, price in q.price_table.prices}},
        "km_reading": q.km_reading.value, "km_reading_text": q.km_reading.text,
        "km_reading_applies": any(line.item in ("07", "09") or
                                  (line.item in ("05", "06", "08") and "primeiros" in line.note) for line in q.lines),
        "lines": [{"item": l.item, "description": l.description, "unit": l.unit, "quantity": l.quantity,
                   "unit_price": l.unit_price, "amount": l.amount, "discount": l.discount,
                   "discount_reason": l.discount_reason, "note": l.note, "net": l.net, "reference": l.reference}
                  for l in q.lines],
        "gross": q.gross, "discount_total": q.discount_total, "total": q.total,
        "discount": {"rate": q.discount.rate, "criterion": q.discount.criterion.name if q.discount.criterion else None,
                     "reference": q.discount.reference, "reason": q.discount.reason,
                     "findings": [protocol._finding_doc(f) for f in q.discount.findings]},
    }


def _quote_of(doc: dict) -> Quote:
    """The stored quote as the rules' Quote, with the price table it was made with."""
    stored = doc["quote"]
    table = stored["price_table"]
    prices = tuple((code, Decimal(str(price))) for code, price in sorted(table["prices"].items()))
    lines = tuple(QuoteLine(l["item"], l["description"], l["unit"], l["quantity"], l["unit_price"], l["amount"],
                            l["discount"], l["discount_reason"], l["note"]) for l in stored["lines"])
    discount = stored["discount"]
    criterion = DiscountCriterion[discount["criterion"]] if discount.get("criterion") else None
    return Quote(parse_date(stored["on"]), PriceTable(parse_date(table["effective"]), table["act"], prices,
                                                      table.get("note", "")),
                 KmReading(stored["km_reading"]), lines, DiscountDecision(discount["rate"], criterion,
                                                                          discount["reference"]))
