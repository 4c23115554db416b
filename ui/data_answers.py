"""The signed answers of the platforms on the page "Obrigações das plataformas" (issue 36 item 4): for a
request answered on the portal, who signed, when, the certificate and the verification's result, and the
original file (and its ``.p7s``) to download, through ``services.ridehailing.data_answers``."""
from __future__ import annotations

from typing import Any

import streamlit as st

from rules.fmt import moment
from services.ridehailing import data_answers
from services.shared import clock
from ui import common


def answers_panel(db: Any, actor: Any, municipality: str, requests: list) -> None:
    """The answers sent with a signed file, one chosen at a time."""
    signed = {r.id: f"{r.platform_name} · entregue {moment(clock.to_local(r.notified_at))} · {r.situation.lower()}"
              for r in requests if r.answer}
    if not signed:
        return
    st.subheader("Respostas assinadas (portal)")
    chosen = st.selectbox("Resposta", list(signed), format_func=signed.get, index=0, placeholder="Escolha...",
                          key="pob_signed_pick")
    row = next(r for r in requests if r.id == chosen)
    shown = {"Pedido": row.justification, "Canal": row.channel, "Respondido em": moment(clock.to_local(row.answered_at)),
             "Situação": ("🔴 " if row.late else "") + row.situation, **data_answers.shown_answer(row.answer)}
    st.markdown("\n".join(f"- **{k}:** {v}" for k, v in shown.items()))
    cols = st.columns(2)
    ok, original = common.attempt(data_answers.answer_file, db, actor, municipality, row.id)
    if ok:
        cols[0].download_button("Baixar o arquivo original", original[0], file_name=original[1],
                                key=f"pob_signed_file_{row.id}", icon=":material/download:", on_click="ignore")
    if row.answer.get("signature_sha"):
        ok, p7s = common.attempt(data_answers.answer_file, db, actor, municipality, row.id, "signature")
        if ok:
            cols[1].download_button("Baixar a assinatura (.p7s)", p7s[0], file_name=p7s[1] or "assinatura.p7s",
                                    key=f"pob_signed_p7s_{row.id}", icon=":material/download:", on_click="ignore")
