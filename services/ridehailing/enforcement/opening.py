"""The day an auto's notice delivered to the electronic domicile counts as received (CG Decreto 06/2026 art.
25 §1 IV, §2; MP Lei 1.552/2025 art. 21 §1–2; docs/LEITURAS.md, seção 7, leitura 27): the handler the
domicile calls, in the opening's unit of work, when the addressee first opens the notice, and the defence
term it starts. Apart from ``electronic`` (which renders and delivers the notice) so that the start, which
registers the handler, loads no PDF library (``tests/test_startup_imports.py``).
"""
from __future__ import annotations

from datetime import date

from pymongo.database import Database

from rules.fmt import day
from rules.ridehailing.concepts import InfractionProcess
from services.ridehailing.enforcement import autos, process
from services.shared import events, parameters
from services.shared.audit_words import name_codes
from services.shared.auth import Actor
from services.shared.errors import ServiceError
from services.store import parse_date

CATEGORY = "auto_notificacao"
DECISION_CATEGORY = "auto_decisao"  # the decision's notification (enforcement.decision_notice)
name_codes("category", {CATEGORY: "Notificação de auto de infração",
                        DECISION_CATEGORY: "Notificação de decisão de auto de infração"})


def defence_deadline(db: Database, municipality: str, doc: dict, received: date) -> date | None:
    """The defence term's last day when the notice is received and joined on ``received`` (as notify)."""
    rules, book = autos._rules(municipality), parameters.book(db, municipality)
    auto_on = parse_date(doc["auto_on"])
    state = rules.process_status(InfractionProcess(auto_on, received, process.DOMICILE, received), received, book,
                                 parameters.calendar_from(book, auto_on))
    return state.defence_deadline


@events.on_message_opened(CATEGORY)
def _opened(db: Database, actor: Actor, message: dict) -> None:
    """The addressee opened the notification: the auto records the day it counts as received and joined
    (the opening, or the tacit day if that came first) and the defence term from it."""
    ref, municipality = message.get("ref") or {}, message["municipality"]
    try:
        doc = autos._load(db, municipality, ref.get("id", ""))
    except ServiceError:
        return
    key = "platform_notification" if ref.get("recipient") == "plataforma" else "notification"
    notice = doc.get(key) or {}
    if notice.get("message_id") != message["id"] or notice.get("received_on"):
        return  # another notice replaced this one, or the day was already recorded
    receipt = message["receipt"]
    received = receipt.received_on
    changed = {**notice, "received_on": received, "juntada_on": received, "receipt": receipt.state,
               "opened_at": message["opened_at"], "opened_on": message["opened_on"]}
    note = f"Notificação aberta no domicílio eletrônico em {day(message['opened_on'])}"
    if receipt.state != "aberta":
        note += f", depois da ciência tácita de {day(received)}"
    if key == "notification":
        changed["defence_deadline"] = defence_deadline(db, municipality, doc, received)
        note += f"; prazo de defesa até {day(changed['defence_deadline'])}"
    autos._save(db, actor, municipality, doc, {key: changed}, "notice_opened", note)


@events.on_message_opened(DECISION_CATEGORY)
def _decision_opened(db: Database, actor: Actor, message: dict) -> None:
    """The offender opened the decision's notification: the auto records the day it counts as received
    and joined (the opening, or the tacit day if that came first) and the appeal term from it (CG art. 25
    §1–2; docs/LEITURAS.md, seção 7, leitura 29)."""
    ref, municipality = message.get("ref") or {}, message["municipality"]
    try:
        doc = autos._load(db, municipality, ref.get("id", ""))
    except ServiceError:
        return
    notice = doc.get("decision_notification") or {}
    if notice.get("message_id") != message["id"] or notice.get("received_on"):
        return
    receipt = message["receipt"]
    received = receipt.received_on
    changed = {**notice, "received_on": received, "juntada_on": received, "receipt": receipt.state,
               "opened_at": message["opened_at"], "opened_on": message["opened_on"]}
    changed["appeal_deadline"] = autos.appeal_deadline(db, municipality, {**doc, "decision_notification": changed},
                                                       received)
    note = f"Decisão aberta no domicílio eletrônico em {day(message['opened_on'])}"
    if receipt.state != "aberta":
        note += f", depois da ciência tácita de {day(received)}"
    note += f"; prazo de recurso até {day(changed['appeal_deadline'])}"
    autos._save(db, actor, municipality, doc, {"decision_notification": changed}, "decision_notice_opened", note)
