"""The notification of an auto through the electronic domicile (CG Decreto 06/2026 art. 25 §1 IV; MP Lei
1.552/2025 art. 21 §1 "por via eletrônica"): the panel renders the notification's PDF and delivers it to
the offender's domicile (a driver by CPF, a platform by CNPJ, ``services.shared.domicile``); the clerk
types no date. The notice counts as received, and is joined to the case, on the day the addressee first
opens it, or on its tacit day if never opened before (``rules/notice.py``, Decreto 70.235/1972 art. 23
§2 III; docs/LEITURAS.md, seção 7, leitura 27), and the defence term runs from that day (CG art. 25 §2;
MP art. 21 §2). Until then the auto waits for ciência (stage ``aguardando_ciencia``); the tacit day
comes without a write, so every reader takes the auto through ``autos.as_of``; an opening writes the
dates on the auto in the opening's unit of work (``opening``, its handler).
"""
from __future__ import annotations

from pymongo.database import Database

from rules import notice as notice_rules
from rules.fmt import day
from services import store
from services.ridehailing.enforcement import autos, documents, opening, process
from services.ridehailing.enforcement.opening import CATEGORY
from services.shared import clock, domicile, parameters
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ServiceError, ValidationFailed
from services.store import parse_date

NO_DOMICILE = "O autuado não tem domicílio eletrônico ativo: notifique por via postal com AR ou por edital."


def addressee(db: Database, municipality: str, doc: dict, recipient: str) -> tuple[str, str]:
    """(kind, document) of the auto's addressee: the offender — a driver (or a vehicle's driver) by CPF,
    a platform by CNPJ — or, for ``recipient="plataforma"``, the driver's platform."""
    if recipient == "plataforma":
        return "plataforma", documents._platform_of(db, municipality, doc).get("cnpj", "")
    document = "".join(c for c in doc.get("offender_document") or doc.get("driver_cpf") or "" if c.isdigit())
    return ("plataforma" if len(document) == 14 else "condutor"), document


@checked
def available(db: Database, actor: Actor, municipality: str, auto_id: str, recipient: str = "infrator") -> bool:
    """Whether the electronic channel may be offered: the addressee has an active domicile."""
    authorize(actor, "read", municipality)
    doc = autos._load(db, municipality, auto_id)
    return domicile.active(db, municipality, *addressee(db, municipality, doc, recipient))


@checked
def notify_by_domicile(db: Database, actor: Actor, municipality: str, auto_id: str,
                       recipient: str = "infrator") -> dict:
    """Deliver the notification of the auto to the addressee's domicile, now, and record it on the auto
    (channel, delivery, the tacit day, and the defence term the tacit day would open). In Matupá a
    delivery after the 90 days is refused and the auto is void, as by any channel (MP art. 21 §1), and
    a tacit day past the limit is warned about. Returns the notice recorded."""
    authorize(actor, "write", municipality)
    doc = process._lavrado(db, municipality, auto_id)
    if recipient not in ("infrator", "plataforma"):
        raise ValidationFailed({"recipient": "Destinatário: infrator ou plataforma."})
    if recipient == "infrator" and doc.get("decision"):
        raise ServiceError("O auto já foi decidido: a notificação do infrator não pode mais ser alterada.")
    earlier = doc.get("platform_notification" if recipient == "plataforma" else "notification") or {}
    if earlier.get("message_id"):  # a second delivery would move the receipt: the first one stands
        raise ServiceError("A notificação já foi entregue no domicílio eletrônico em "
                           f"{day(parse_date(earlier['sent_on']))}.")
    kind, document = addressee(db, municipality, doc, recipient)
    if not domicile.active(db, municipality, kind, document):
        raise ValidationFailed({"method": NO_DOMICILE})
    method = next(m for m in autos._rules(municipality).notification_methods if m.code == process.DOMICILE)
    notice = {"method": method.code, "method_label": method.label, "method_reference": method.reference}
    limit = None
    if recipient == "infrator":
        limit = process._refuse_late(db, actor, municipality, doc, {**notice, "sent_on": clock.today()},
                                     clock.today(), "method")
    days = int(parameters.value(db, municipality, notice_rules.TACIT_DAYS, clock.today()))
    pdf = documents.notification_pdf(db, actor, municipality, auto_id,
                                     "plataforma" if recipient == "plataforma" else "condutor", days)
    with store.transaction(db):
        message = domicile.deliver(db, actor, municipality, kind, document,
                                   title=f"Notificação do Auto de Infração nº {doc['number']}", category=CATEGORY,
                                   pdf=pdf, ref={"collection": autos.COLLECTION, "id": auto_id, "recipient": recipient})
        tacit = message["tacit_on"]
        notice.update(sent_on=message["delivered_on"], received_on=None, juntada_on=None, message_id=message["id"],
                      delivered_at=message["delivered_at"], tacit_days=message["tacit_days"], tacit_on=tacit)
        note = (f"Notificação entregue no domicílio eletrônico em {day(message['delivered_on'])}; ciência tácita em "
                f"{day(tacit)} se não for aberta antes")
        if recipient == "plataforma":
            autos._save(db, actor, municipality, doc, {"platform_notification": notice}, "notify_platform", note)
            return notice
        notice.update(limit=limit, tacit_defence_deadline=opening.defence_deadline(db, municipality, doc, tacit))
        if limit is not None and tacit > limit:
            notice["warning"] = (f"Se não for aberta até {day(limit)}, a ciência tácita de {day(tacit)} ficará fora do "
                                 f"prazo máximo da notificação ({autos._rules(municipality).ref('notification')})")
        autos._save(db, actor, municipality, doc, {"notification": notice}, "notify", note, process.kept_attempt(doc))
    return notice
