"""The notification of an auto's decision through the electronic domicile (issue 36 item 2): the panel
renders the decision's notification and delivers it to the offender's domicile, only when the offender
has an active one (otherwise nothing changes: the appeal term counts from the decision, as before).

Its receipt — the first opening, or the tacit day (``rules/notice.py``) — is the day the offender counts
as notified of the decision and the day it is joined to the case, and the appeal term runs from it: CG
Decreto 06/2026 art. 25 §1 ("iniciando-se o prazo para reconsideração ou recurso") and §2; MP Lei
1.552/2025 art. 21 §2 and art. 25 §4 (``rules.ridehailing.process.appeal_deadline``; docs/LEITURAS.md,
seção 7, leitura 29). Until then the decision awaits ciência and no penalty takes effect. The opening's
handler is ``opening`` (it loads no PDF library at start).
"""
from __future__ import annotations

from decimal import Decimal

from pymongo.database import Database

from rules import notice as notice_rules
from rules.fmt import brl, day
from rules.notice import DTE
from services import store
from services.ridehailing import registry
from services.ridehailing.enforcement import autos, documents, electronic, process
from services.ridehailing.enforcement.auto_pdf import NoticePrint, Section, render_notification
from services.ridehailing.enforcement.opening import DECISION_CATEGORY
from services.shared import authenticity, clock, domicile, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.store import parse_date


@checked
def available(db: Database, actor: Actor, municipality: str, auto_id: str) -> bool:
    """Whether the decision may be delivered to the domicile: decided, not yet delivered, and the offender
    has an active domicile."""
    authorize(actor, "read", municipality)
    doc = autos._load(db, municipality, auto_id)
    if not doc.get("decision") or (doc.get("decision_notification") or {}).get("message_id"):
        return False
    return domicile.active(db, municipality, *electronic.addressee(db, municipality, doc, "infrator"))


@checked
def decision_notification_pdf(db: Database, actor: Actor, municipality: str, auto_id: str,
                              tacit_days: int = 0) -> bytes:
    """The notification of the first decision to the offender: the auto, the decision (outcome, authority,
    reasons, fine and penalties kept) and the appeal term, which runs from its receipt."""
    authorize(actor, "read", municipality)
    doc = documents._doc(db, actor, municipality, auto_id)
    decision = doc.get("decision")
    if not decision:
        raise ServiceError("O auto ainda não tem decisão.")
    rules = registry.rules_of(municipality)
    days = int(parameters.value(db, municipality, "defence_period_days", parse_date(decision["decided_on"])))
    name, document = documents._person(doc)
    sections = [documents._auto_sections(doc)[0], Section("Decisão", documents._ruling_rows(decision))]
    outcome = autos.OUTCOMES.get(decision["outcome"], decision["outcome"])
    fine = Decimal(str(decision.get("fine_amount") or 0))
    body = (
        f"Fica o destinatário NOTIFICADO da decisão de primeira instância no Auto de Infração nº {doc['number']}: "
        f"{outcome.lower()}, em {day(parse_date(decision['decided_on']))}, por {decision['authority']}"
        + (f", com multa de {brl(fine)}" if fine else "") + ".",
        f"Cabe recurso administrativo no prazo de {days} dias, contado da juntada desta notificação ao processo "
        f"({rules.ref('defence')}; {rules.ref('due_process')}). As penalidades mantidas só produzem efeito "
        "depois de encerrado o prazo sem recurso, ou da decisão do recurso.",
        *((f"Entregue no domicílio eletrônico: considera-se recebida, e juntada ao processo, no dia em que for "
           f"aberta pela primeira vez ou, se não for aberta antes, {tacit_days} dias após a entrega "
           f"({documents.notification_reference(municipality)}; {DTE}).",) if tacit_days > 0 else ()),
    )
    data = NoticePrint(
        documents._print(db, municipality, doc, sections), electronic.addressee(db, municipality, doc, "infrator")[0],
        name, document, documents._address(doc), body, title=f"NOTIFICAÇÃO DA DECISÃO — AUTO Nº {doc['number']}")
    item = authenticity.Item("decisao", doc["number"], (autos.COLLECTION, auto_id), data)
    return authenticity.issue(db, actor, municipality, item, lambda stamp: render_notification(data, stamp))


@checked
def notify_decision(db: Database, actor: Actor, municipality: str, auto_id: str) -> dict:
    """Deliver the notification of the first decision to the offender's domicile, now, and record it on
    the auto (delivery, the tacit day, and the appeal term the tacit day would open). Returns it."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    decision = doc.get("decision")
    if not decision:
        raise ServiceError("O auto ainda não tem decisão.")
    earlier = doc.get("decision_notification") or {}
    if earlier.get("message_id"):  # a second delivery would move the receipt: the first one stands
        raise ServiceError("A decisão já foi entregue no domicílio eletrônico em "
                           f"{day(parse_date(earlier['sent_on']))}.")
    if doc.get("appeal"):
        raise ServiceError("O recurso já foi apresentado: a notificação da decisão não abre mais prazo.")
    kind, document = electronic.addressee(db, municipality, doc, "infrator")
    if not domicile.active(db, municipality, kind, document):
        raise ValidationFailed({"method": "O autuado não tem domicílio eletrônico ativo: o prazo de recurso conta "
                                          "da decisão."})
    days = int(parameters.value(db, municipality, notice_rules.TACIT_DAYS, clock.today()))
    pdf = decision_notification_pdf(db, actor, municipality, auto_id, days)
    with store.transaction(db):
        message = domicile.deliver(db, actor, municipality, kind, document,
                                   title=f"Decisão do Auto de Infração nº {doc['number']}", category=DECISION_CATEGORY,
                                   pdf=pdf, ref={"collection": autos.COLLECTION, "id": auto_id, "recipient": "infrator"})
        tacit = message["tacit_on"]
        notice = {"message_id": message["id"], "sent_on": message["delivered_on"], "delivered_at": message["delivered_at"],
                  "tacit_days": message["tacit_days"], "tacit_on": tacit, "received_on": None, "juntada_on": None,
                  "method": process.DOMICILE, "method_label": "domicílio eletrônico"}
        notice["tacit_appeal_deadline"] = autos.appeal_deadline(
            db, municipality, {**doc, "decision_notification": {**notice, "received_on": tacit}}, tacit)
        autos._save(db, actor, municipality, doc, {"decision_notification": notice}, "notify_decision",
                    f"Decisão entregue no domicílio eletrônico em {day(message['delivered_on'])}; ciência tácita em "
                    f"{day(tacit)} se não for aberta antes")
    return notice
