"""Where someone outside the register is notified and billed, on the Autos de infração screen: the address,
phone and e-mail typed with a new auto and with a draft's lavratura, and the line that shows them with
the auto. With no address the notification goes by edital (CG Decreto 06/2026 art. 25 §1 II; MP Lei
1.552/2025 art. 21 §1), and the screen says so before the auto is lavrado."""
from __future__ import annotations

import streamlit as st

from services.ridehailing.enforcement import autos
from services.shared import fields


def contact_inputs(key: str, mun: str, doc: dict | None = None) -> tuple[dict, dict]:
    """The address, phone and e-mail inputs (``AutoInput``'s names, prefilled from ``doc``) and an empty
    slot under each for its error."""
    doc = doc or {}
    address = st.text_input("Endereço do autuado (se conhecido)", doc.get("driver_address", ""), key=f"{key}_address",
                            placeholder="Rua, número, bairro, cidade")
    address_slot = st.empty()
    cols = st.columns(2)
    phone = cols[0].text_input("Telefone (se conhecido)", doc.get("driver_phone", ""), key=f"{key}_phone",
                               placeholder="(65) 99999-0000")
    phone_slot = cols[0].empty()
    email = cols[1].text_input("E-mail (se conhecido)", doc.get("driver_email", ""), key=f"{key}_email")
    email_slot = cols[1].empty()
    st.caption(f"Sem endereço conhecido, a notificação é feita por edital ({autos.edital_reference(mun)}) e o DAM "
               f"da multa sai com “{autos.UNKNOWN_ADDRESS}”.")
    return ({"offender_address": address, "offender_phone": phone, "offender_email": email},
            {"offender_address": address_slot, "offender_phone": phone_slot, "offender_email": email_slot})


def draft_contact(mun: str, doc: dict) -> tuple[dict, dict]:
    """The contact inputs of a draft's lavratura: only a draft against someone outside the register has them."""
    return contact_inputs("autos_draft_offender", mun, doc) if doc["target_kind"] == "unregistered" else ({}, {})


def contact_line(doc: dict) -> str:
    """The contact an auto against someone outside the register keeps, or that it is notified by edital."""
    address = autos.offender_address(doc)
    if address == autos.UNKNOWN_ADDRESS:
        address = f"{address} ({autos.edital_reference(doc['municipality'])})"
    else:
        address = f"Endereço: {address}"
    known = [fields.show(kind, doc[key]) for key, kind in (("driver_phone", "phone"), ("driver_email", "email"))
             if doc.get(key)]
    return " · ".join([address, *known])
