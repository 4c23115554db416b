"""What the pages of the machinery bookings module (Nova Lacerda, Decreto 017/2026) share: the guard,
and the payment of a request read from its charges (débitos) with the new DAM a charge may need."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pandas as pd
import streamlit as st
from pymongo.database import Database

from rules import fmt
from rules.machinery.payment import BALANCE
from rules.registry import MACHINERY
from services.dam import printing
from services.machinery import booking_requests, execution, ledger, payment
from services.shared import municipalities
from services.shared.auth import Actor
from ui import common

MODULE_OFF = booking_requests.MODULE_OFF
NEW_DAM_DAYS = 5  # the new DAM's due date offered by default


def guard(permission: str) -> Actor:
    """The actor, as :func:`ui.common.guard`, and only where the municipality has the module."""
    actor = common.guard(permission)
    if MACHINERY not in municipalities.get(common.db(), common.municipality()).modules:
        st.error(MODULE_OFF)
        st.stop()
    return actor


def _new_dam_form(db: Database, actor: Actor, municipality: str, doc: dict, row: ledger.ChargeRow, today: date,
                  done_key: str) -> None:
    """Art. 3 II: a charge whose DAM was cancelled (or paid short) gets a new DAM; the request keeps its place."""
    what = "DAM da diferença" if row.paid > 0 else "novo DAM"
    with st.form(f"req_newdam_{row.charge_id}"):
        st.warning(f"{row.label}: {row.situation}. Emita o {what} de {fmt.brl(row.open)}; o pedido mantém o "
                   "protocolo e a posição na fila (art. 3, II).")
        due = st.date_input("Vencimento do novo DAM", today + timedelta(days=NEW_DAM_DAYS), min_value=today,
                            format="DD/MM/YYYY", key=f"req_newdam_due_{row.charge_id}")
        if st.form_submit_button("Emitir novo DAM", type="primary"):
            ok, _ = common.attempt(payment.issue_new_dam, db, actor, municipality, doc["id"], row.charge_id, due)
            if ok:
                st.session_state[done_key] = f"Novo DAM emitido para «{row.label}» do pedido {doc['protocol']}."
                st.rerun()


def _refund_form(key: str, heading: str, credit: Decimal, today: date, done_key: str, protocol: str, action,
                 *args) -> None:
    """The devolution of a credit to the requester: the day and the document, then ``action(*args, on, note)``."""
    with st.form(key):
        st.markdown(heading)
        cols = st.columns(2)
        on = cols[0].date_input("Devolvido em", today, max_value=today, format="DD/MM/YYYY", key=f"{key}_on")
        note = cols[1].text_input("Documento da devolução (ordem de pagamento, restituição nº)", key=f"{key}_note")
        if st.form_submit_button("Registrar devolução do crédito", type="primary"):
            ok, _ = common.attempt(action, *args, on, note)
            if ok:
                st.session_state[done_key] = f"Devolução de {fmt.brl(credit)} registrada no pedido {protocol}."
                common.forget(f"{key}_on", f"{key}_note")
                st.rerun()


def _refusal_credit(db: Database, actor: Actor, municipality: str, doc: dict, rows: list, today: date,
                    done_key: str) -> None:
    """A refused request had been paid: the credit to return, and the form that records its return."""
    refusal = doc.get("refusal") or {}
    if refusal.get("credit_returned_on"):
        st.info(f"Crédito de {fmt.brl(refusal['credit_returned'])} devolvido ao interessado em "
                f"{fmt.day(refusal['credit_returned_on'])} ({refusal.get('credit_note', '')}).")
        return
    credit = payment.refusal_credit(rows, doc)
    if credit > 0:
        _refund_form("req_refund", f"**Pedido recusado depois de pago: devolução de {fmt.brl(credit)} ao "
                     "interessado** (o serviço não prestado não é devido)", credit, today, done_key, doc["protocol"],
                     payment.record_refusal_refund, db, actor, municipality, doc["id"])


def payment_view(db: Database, actor: Actor, municipality: str, doc: dict, today: date, done_key: str) -> None:
    """The request's payment from its charges: what each DAM charges, paid, open, where it stands;
    the estimate of the balance only as an estimate; a new DAM where a charge waits for one."""
    plan = doc.get("payment")
    if not plan:
        return
    ok, rows = common.attempt(ledger.request_charges, db, actor, municipality, doc)
    rows = rows if ok else []
    st.markdown("**Pagamento (art. 8)**")
    table = [{"Parcela": r.label, "Cobrado": fmt.brl(r.charged), "Vencimento": fmt.day(r.due_on),
              "DAM": r.dam_number or "—", "Pago": fmt.brl(r.paid), "Em aberto": fmt.brl(r.open),
              "Situação": r.situation} for r in rows]
    table += [{"Parcela": i["label"], "Cobrado": fmt.brl(i["amount"]), "Vencimento": "diferido (art. 8, §3)",
               "DAM": "—", "Pago": "—", "Em aberto": "—", "Situação": "cobrado após a conclusão"}
              for i in plan["instalments"] if i.get("deferred") and not i.get("charge_id") and i["amount"] > 0]
    st.dataframe(pd.DataFrame(table, columns=["Parcela", "Cobrado", "Vencimento", "DAM", "Pago", "Em aberto",
                                              "Situação"]), hide_index=True, width="stretch", key="req_payment_table")
    out = [r.live_dam_id for r in rows if r.live_dam_id and r.owing]
    if out:  # what "Emitir DAMs" produced, ready to hand to the requester
        numbers = ", ".join(r.dam_number for r in rows if r.live_dam_id in out)
        st.download_button(f"Baixar PDF dos DAMs em aberto ({numbers})",
                           lambda: printing.pdf_batch(db, actor, municipality, out),
                           f"dams_pedido_{doc.get('protocol', '').replace('/', '_')}.pdf", "application/pdf",
                           key="req_payment_pdf", icon=":material/picture_as_pdf:", on_click="ignore")
    estimate = next((i for i in plan["instalments"] if i["key"] == BALANCE and i["amount"] > 0), None)
    if estimate and not doc.get("settlement"):
        st.caption(f"{estimate['label']}: {fmt.brl(estimate['amount'])} — estimativa, não cobrada agora; o acerto "
                   "pelas horas executadas sai na conclusão (art. 8, §2).")
    if doc.get("settlement"):
        st.info(ledger.settlement_text(doc["settlement"], rows))
        credit = ledger.credit_owed(doc["settlement"])
        if doc["status"] == "concluido" and credit > 0:  # art. 8 §2: the advance beyond the hours worked
            _refund_form("req_credit", f"**Devolução do crédito de {fmt.brl(credit)} ao interessado (art. 8, §2)**",
                         credit, today, done_key, doc["protocol"], execution.record_credit_returned, db, actor,
                         municipality, doc["id"])
    if doc["status"] == "aguardando_pagamento":
        for finding in payment.upfront_decision(rows).failures:
            st.warning(finding.text())
    if doc["status"] == "recusado":
        _refusal_credit(db, actor, municipality, doc, rows, today, done_key)
    else:
        for row in rows:
            if row.issuable:
                _new_dam_form(db, actor, municipality, doc, row, today, done_key)
