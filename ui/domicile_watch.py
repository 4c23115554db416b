"""The electronic domicile on the clerk's Início (issue 36 item 5): e-mail alerts that keep failing, notices
unopened near their tacit receipt (each row opens its case), the renewal reminders to send, and the place
of the editais to publish (``editais.to_publish_count``, opening the autos page on its Editais tab)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules import fmt
from services.ridehailing import renewal_reminders
from services.ridehailing.enforcement import editais
from services.shared import domicile_watch
from services.shared.auth import Actor
from ui import common, navigation

SHOWN = 10


def _table(rows, key: str, mun: str, first: str) -> None:
    event = common.table(pd.DataFrame([{first: fmt.day(r.tacit_on) if first == "Ciência tácita" else r.alert,
                                        "Mensagem": r.title, "Destinatário": r.addressee,
                                        "Entregue em": fmt.day(r.delivered_on)} for r in rows]),
                         key=key, on_select="rerun", selection_mode="single-row",
                         column_config={"Mensagem": st.column_config.TextColumn(width="large")})
    picked = event.selection.rows if event is not None and event.selection else []
    record = rows[picked[0]].record if picked else ("", "")
    if record[1] and record[0] in navigation.RECORD_PAGES:  # a click on the row opens the case it notifies
        st.session_state.pop(key, None)
        navigation.open_record(*record, mun)
    st.caption("Clique numa linha para abrir o processo.")


def domicile_inbox(actor: Actor, mun: str, today) -> None:
    db = common.db()
    ok, found = common.attempt(domicile_watch.watch, db, actor, mun, today, domicile_watch.NEAR_TACIT_DAYS, SHOWN)
    if not ok:
        return
    st.subheader("Domicílio eletrônico")
    cols = st.columns(3)
    cols[0].metric("Alertas por e-mail falhando", found.bouncing_total)
    cols[1].metric(f"Sem abrir, ciência tácita em até {found.days} dias", found.near_tacit_total)
    ok, to_publish = common.attempt(editais.to_publish_count, db, actor, mun)
    if ok:
        cols[2].metric("Notificações à espera de edital", to_publish)
        if to_publish and cols[2].button("Abrir os editais", key="home_editais", icon=":material/campaign:"):
            st.session_state["autos_tab"] = "Editais"  # the autos page opens on its Editais tab
            st.switch_page(navigation.RECORD_PAGES["autos"])
    if found.bouncing:
        st.markdown("**Alertas por e-mail que continuam falhando** — a notificação está no domicílio; confira o "
                    "e-mail do cadastro.")
        _table(list(found.bouncing), "home_domicile_bouncing", mun, "Alerta")
    if found.near_tacit:
        st.markdown(f"**Notificações ainda não abertas com ciência tácita nos próximos {found.days} dias**")
        _table(list(found.near_tacit), "home_domicile_tacit", mun, "Ciência tácita")
    if not found.bouncing and not found.near_tacit:
        st.success("Nenhum alerta falhando nem ciência tácita próxima.")
    reminders(actor, mun, today)


def reminders(actor: Actor, mun: str, today) -> None:
    """The renewal reminders due (CG art. 9 §2), sent by the clerk once per authorization and year."""
    db = common.db()
    ok, due = common.attempt(renewal_reminders.due_reminders, db, actor, mun, today)
    if not ok or not due:
        return
    st.caption(fmt.count(len(due), "lembrete de renovação a enviar", "lembretes de renovação a enviar")
               + " a condutores com domicílio eletrônico.")
    if st.button("Enviar lembretes de renovação", key="home_renewal_reminders", icon=":material/event_repeat:"):
        sent, count = common.attempt(renewal_reminders.send_reminders, db, actor, mun, today)
        if sent:
            st.success(fmt.count(count, "lembrete entregue", "lembretes entregues") + " no domicílio eletrônico.")
