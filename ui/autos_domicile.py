"""The auto's notification as recorded, and the electronic domicile on its notification step: offered
only when the addressee has an active domicile; its delivery, opening or tacit receipt shown on the case
(``services.ridehailing.enforcement.electronic``; the clerk types no date for it)."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rules.fmt import day
from services.ridehailing.enforcement import autos, decision_notice, electronic
from services.shared import clock, domicile
from services.shared.auth import Actor
from ui import common


def alert_line(actor: Actor, mun: str, message_id: str) -> None:
    """Whether the e-mail alert of a domicile message went ("enviado em …", "falhou, nova tentativa em …")."""
    ok, line = common.attempt(domicile.alert_line, common.db(), actor, mun, message_id)
    if ok:
        st.caption(line[0].upper() + line[1:] + ". A notificação vale pela entrega no domicílio, com ou sem o e-mail.")


def notice_summary(actor: Actor, mun: str, doc: dict, done: Callable[[str], None]) -> dict:
    """Show the notification recorded and offer the delivery to the domicile; returns the notice as it
    stands today (a notice never opened counts from its tacit day)."""
    db, today = common.db(), clock.today()
    notice = autos.as_of(doc, today).get("notification") or {}
    if notice.get("message_id"):
        joined = f", juntada em {day(notice['juntada_on'])}" if notice.get("juntada_on") else ""
        st.markdown(f"**Notificação** por {notice['method_label']}: {autos.receipt_line(notice, today)}{joined}.")
        alert_line(actor, mun, notice["message_id"])
        if notice.get("warning") and not notice.get("received_on"):
            st.warning(notice["warning"] + ".")
    elif notice.get("juntada_on"):
        st.markdown(f"**Notificação** por {notice['method_label']}: enviada em {day(notice['sent_on'])}, recebida em "
                    f"{day(notice['received_on'])}, juntada em {day(notice['juntada_on'])}.")
    if notice.get("received_on") or notice.get("message_id") or doc.get("decision"):
        return notice
    ok, available = common.attempt(electronic.available, db, actor, mun, doc["id"])
    if ok and available:
        st.info("O autuado tem domicílio eletrônico: a notificação pode ser entregue lá. Conta como recebida no dia "
                "em que ele a abrir, ou na ciência tácita se não a abrir (sem digitar datas).")
        if st.button("Entregar no domicílio eletrônico", key="autos_notice_domicile", type="primary"):
            sent, result = common.attempt(electronic.notify_by_domicile, db, actor, mun, doc["id"])
            if sent:
                done(f"Notificação entregue no domicílio eletrônico; ciência tácita em {day(result['tacit_on'])} se "
                     "não for aberta antes.")
    return notice


def decision_notice_summary(actor: Actor, mun: str, doc: dict, done: Callable[[str], None]) -> None:
    """The decision's notification in the domicile (delivery, opening or tacit receipt; the appeal term runs
    from it), or the offer to deliver it when the offender has an active domicile."""
    db, today = common.db(), clock.today()
    notice = doc.get("decision_notification") or {}
    if notice.get("message_id"):
        st.markdown(f"**Notificação da decisão** por domicílio eletrônico: {autos.receipt_line(notice, today)}.")
        alert_line(actor, mun, notice["message_id"])
        return
    if doc.get("appeal"):
        return
    ok, available = common.attempt(decision_notice.available, db, actor, mun, doc["id"])
    if ok and available:
        st.info("O autuado tem domicílio eletrônico: a decisão pode ser entregue lá, e o prazo de recurso passa a "
                "contar da ciência (abertura ou ciência tácita), não da data da decisão.")
        if st.button("Entregar a decisão no domicílio eletrônico", key="autos_decision_domicile"):
            sent, result = common.attempt(decision_notice.notify_decision, db, actor, mun, doc["id"])
            if sent:
                done(f"Decisão entregue no domicílio eletrônico; ciência tácita em {day(result['tacit_on'])} se "
                     "não for aberta antes.")
