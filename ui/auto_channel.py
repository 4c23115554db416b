"""The channel of the auto's notice on its notification step (``services.ridehailing.enforcement.channels``):
the channel the law allows, in its order and why — the electronic domicile, post with AR, or the edital
when the offender cannot be reached —, the AR the Correios returned undelivered with its reason, and an
auto waiting in an edital for its publication (Editais tab)."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rules import edital as edital_rules
from rules.fmt import day
from services.ridehailing.enforcement import channels
from services.shared import clock
from services.shared.auth import Actor
from ui import common

ICONS = {edital_rules.ELECTRONIC: ":material/mail:", edital_rules.POSTAL: ":material/local_post_office:",
         edital_rules.EDITAL: ":material/campaign:"}


def channel_section(actor: Actor, mun: str, doc: dict, done: Callable[[str], None], submit: Callable) -> None:
    """The proposal and the postal notice's AR, while the offender's notice has not reached them."""
    notice = doc.get("notification") or {}
    if notice.get("received_on") or notice.get("message_id") or doc.get("decision"):
        return
    if notice.get("edital_number"):
        st.info(f"Notificação incluída no **edital nº {notice['edital_number']}**, montado em "
                f"{day(notice['sent_on'])}, aguardando publicação: registre a edição e a data na aba "
                "“Editais”.",
                icon=ICONS[edital_rules.EDITAL])
        return
    ok, proposal = common.attempt(channels.propose, common.db(), actor, mun, doc["id"])
    if ok:
        where = " Monte o edital na aba “Editais”." if proposal["channel"] == edital_rules.EDITAL else ""
        st.info(f"**Canal proposto: {proposal['label']}** — {proposal['reason']} ({proposal['reference']}).{where}",
                icon=ICONS[proposal["channel"]])
    if notice.get("method") == "post" and not notice.get("returned_on"):
        st.caption(f"Enviada pelo correio em {day(notice['sent_on'])}, aguardando o AR: registre abaixo a data do AR "
                   "recebido, ou a devolução sem entrega.")
        ar_returned(actor, mun, doc, done, submit)


def ar_returned(actor: Actor, mun: str, doc: dict, done: Callable[[str], None], submit: Callable) -> None:
    with st.expander("AR devolvido sem entrega", icon=ICONS[edital_rules.POSTAL]):
        with st.form("autos_ar_returned"):
            cols = st.columns(2)
            returned_on = cols[0].date_input("Devolvido em", clock.today(), format="DD/MM/YYYY",
                                             key="autos_ar_returned_on")
            returned_slot = cols[0].empty()
            reason = cols[1].selectbox("Motivo da devolução", list(edital_rules.RETURN_REASONS), index=None,
                                       format_func=edital_rules.RETURN_REASONS.get, placeholder=common.CHOOSE,
                                       key="autos_ar_returned_reason")
            reason_slot = cols[1].empty()
            sent = st.form_submit_button("Registrar AR devolvido")
        if sent:
            ok, _ = submit({"returned_on": returned_slot, "reason": reason_slot}, channels.record_ar_returned,
                           common.db(), actor, mun, doc["id"], returned_on=returned_on, reason=reason or "")
            if ok:
                done("AR devolvido registrado: o autuado não foi alcançado; a notificação segue por edital.")
