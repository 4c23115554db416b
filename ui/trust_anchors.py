"""The trust anchors of one municipality on the TI's page Implantação (issue 36 item 4): the root
certificates (ICP-Brasil's) under which the panel accepts the signed files the platforms send on the
portal — upload (PEM or DER), list and remove, through ``services.shared.trust_anchors``."""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rules.fmt import day
from services.shared import clock, trust_anchors, uploads
from services.shared.errors import ServiceError, ValidationFailed
from ui import common
from ui.entity import confirm_button


def anchors_section(db: Any, actor: Any, code: str) -> None:
    """The expander "Autoridades certificadoras confiáveis" of the municipality ``code``."""
    key = f"anchors_{code}"
    ok, rows = common.attempt(trust_anchors.anchors, db, actor, code)
    if not ok:
        return
    with st.expander("Autoridades certificadoras confiáveis (assinaturas digitais)", expanded=not rows):
        st.caption("Os arquivos que as plataformas enviam pelo portal (respostas aos pedidos de dados) só são aceitos "
                   "com assinatura digital de certificado emitido sob uma destas raízes. Envie as raízes da "
                   "ICP-Brasil (arquivo .crt, .cer ou .pem, do site do ITI).")
        if st.session_state.pop(f"{key}_done", None):
            st.success(st.session_state.pop(f"{key}_done_text", "Gravado."))
        if not rows:
            st.warning(trust_anchors.NO_ANCHORS)
        else:
            common.table(pd.DataFrame([{
                "Certificado": r.subject, "Número de série": r.serial, "Válido de": day(clock.to_local(r.not_before)),
                "Válido até": day(clock.to_local(r.not_after)), "Incluído em": day(clock.to_local(r.added_at)),
                "Incluído por": r.added_by} for r in rows]), key=f"{key}_table")
        upload = st.file_uploader(f"Certificado raiz (PEM ou DER, {uploads.shown_limit('trust_anchor')})",
                                  type=["pem", "crt", "cer", "der"], key=f"{key}_file")
        error = st.session_state.get(f"{key}_error")
        if error:
            st.caption(f":red[{error}]")
        if upload is not None and st.button("Incluir como raiz confiável", key=f"{key}_add", icon=":material/upload:"):
            _run(key, lambda: trust_anchors.add_anchors(db, actor, code, upload.getvalue(), upload.name),
                 lambda names: f"Incluído: {', '.join(names)}.")
        if rows:
            labels = {r.id: f"{r.subject} (nº {r.serial})" for r in rows}
            chosen = st.selectbox("Retirar uma raiz", list(labels), format_func=labels.get, index=None,
                                  placeholder="Escolha...", key=f"{key}_pick")
            if chosen and confirm_button("Retirar raiz", f"{key}_remove",
                                         "Arquivos assinados sob esta raiz deixarão de ser aceitos. Retirar?"):
                _run(key, lambda: trust_anchors.remove_anchor(db, actor, code, chosen), lambda _r: "Raiz retirada.")


def _run(key: str, action, done) -> None:
    try:
        result = action()
    except ValidationFailed as exc:
        st.session_state[f"{key}_error"] = "; ".join(exc.errors.values())
        st.rerun()
    except ServiceError as exc:
        st.session_state[f"{key}_error"] = exc.message
        st.rerun()
    st.session_state.pop(f"{key}_error", None)
    st.session_state[f"{key}_done"] = True
    st.session_state[f"{key}_done_text"] = done(result)
    st.rerun()
