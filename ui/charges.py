"""The charge (débito) a DAM belongs to: what it owes, what was paid, its DAMs, and the DAM of what is open.

Drawn under a DAM on the DAM page and under a charge on the Débitos page; the figures come from the
stored charge (``services.dam.charges``), never recomputed from the DAMs on the screen.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

import pandas as pd
import streamlit as st

from rules import fmt
from rules.dam import charges as charge_rules
from services.dam import charges, rebill
from services.shared import clock
from services.shared.auth import Actor
from ui import common


def standing_line(charge: dict) -> str:
    """The charge in one pt-BR line: status, owed, paid, open and any credit."""
    parts = [f"**Débito:** {charge_rules.STATUSES[charge['status']]}",
             f"devido {fmt.brl(charge['principal'] + charge['late'])}",
             f"pago {fmt.brl(charge['paid'])}", f"em aberto {fmt.brl(charge['open'])}"]
    if charge["credit"] > 0:
        parts.append(f"crédito a restituir {fmt.brl(charge['credit'])}")
    return " · ".join(parts)


def panel(db: Any, actor: Actor, mun: str, charge_id: str, key: str) -> None:
    """The charge's standing, DAMs and payments; the form of a new DAM when it waits for one."""
    ok, charge = common.attempt(charges.get, db, actor, mun, charge_id)
    if not ok:
        return
    st.markdown(standing_line(charge) + f"  \n**Vencimento do débito:** {fmt.day(charge['due_on'])}")
    with st.expander(f"DAMs e pagamentos do débito ({len(charge['dams'])} DAM, {len(charge['payments'])} pagamento)"):
        st.dataframe(pd.DataFrame([{
            "DAM": d["number"], "Via": f"{d['via']}ª", "Valor": fmt.brl(d["amount"]),
            "Multa e juros": fmt.brl(d["fine"] + d["interest"]), "Vencimento": fmt.day(d["due_on"]),
        } for d in charge["dams"]]), hide_index=True, width="stretch")
        if charge["payments"]:
            st.dataframe(pd.DataFrame([{
                "DAM pago": p["dam_number"], "Data": fmt.day(p["paid_on"]), "Valor": fmt.brl(p["amount"]),
                "Origem": "Baixa manual" if p["origin"] == "manual" else "Arquivo retorno",
            } for p in charge["payments"]]), hide_index=True, width="stretch")
    if rebill.issuable(charge):
        open_form(db, actor, mun, charge, key)


def open_form(db: Any, actor: Actor, mun: str, charge: dict, key: str) -> None:
    """A new DAM for what the charge still owes (its DAM was cancelled, or it was paid short)."""
    title = "Emitir DAM da diferença" if charge["paid"] > 0 else "Emitir novo DAM do débito"
    st.info(f"O débito não tem DAM em aberto: {fmt.brl(charge['open'])} a cobrar. {title} para o contribuinte pagar.")
    due = st.date_input("Vencimento do novo DAM", clock.today() + timedelta(days=5), min_value=clock.today(),
                        format="DD/MM/YYYY", key=f"{key}_due")
    if st.button(title, type="primary", key=f"{key}_issue", icon=":material/receipt_long:"):
        ok, dam = common.attempt(rebill.issue_open, db, actor, mun, charge["id"], due)
        if ok:
            st.session_state["dams_flash"] = ("success", [
                f"DAM {dam['number']} emitido: {fmt.brl(dam['amount'])}, vencimento {fmt.day(dam['due_on'])}."])
            st.session_state["dams_open_next"] = dam["id"]  # the DAM page opens the new DAM
            st.rerun()

