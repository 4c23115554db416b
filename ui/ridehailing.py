"""Display helpers of the ride-hailing screens: findings with their articles, status badges."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules.base import Decision, Finding, Level
from rules.ridehailing.lifecycle import AuthorizationState, Status

ICONS = {True: "✅", False: "❌"}
STATUS_COLOURS = {
    Status.ACTIVE: "green", Status.AWAITING_FEE: "orange", Status.AWAITING_INSPECTION: "orange",
    Status.REQUESTED: "blue", Status.BLOCKED: "red", Status.SUSPENDED: "red", Status.REFUSED: "gray",
    Status.REVOKED: "gray", Status.CASSADA: "red", Status.EXPIRED: "gray",
}


def finding_icon(finding: Finding) -> str:
    if finding.ok:
        return "✅" if finding.level is not Level.INFO else "ℹ️"
    return "⚠️" if finding.level is Level.WARNING else "❌"


def findings_table(findings: tuple[Finding, ...] | list[Finding], key: str) -> None:
    """Every finding with its icon, message and the act and article behind it."""
    frame = pd.DataFrame([{"": finding_icon(f), "Requisito": f.message, "Fundamento legal": f.reference}
                          for f in findings], columns=["", "Requisito", "Fundamento legal"])
    st.dataframe(frame, hide_index=True, use_container_width=True, key=key)


def verdict(decision: Decision, subject: str, key: str) -> None:
    """The verdict line (eligible or not, with the blocking reasons) and the full table."""
    if decision.ok:
        st.success(f"{subject}: atende a todos os requisitos da lei.", icon=":material/verified:")
    else:
        st.error(f"{subject}: não atende à lei — " + "; ".join(decision.reasons()), icon=":material/block:")
    findings_table(decision.findings, key)


def status_badge(state: AuthorizationState) -> str:
    return f":{STATUS_COLOURS.get(state.status, 'gray')}-badge[{state.label}]"


EVENT_LABELS = {
    "requested": "Requerimento protocolado", "refused": "Indeferido", "approved": "Aprovado",
    "inspection_passed": "Vistoria aprovada", "inspection_failed": "Vistoria reprovada",
    "inspection_called": "Convocação para vistoria", "fee_paid": "Taxa paga — autorização expedida",
    "renewal_requested": "Renovação requerida", "renewal_fee_paid": "Taxa de renovação paga",
    "vehicle_substituted": "Veículo substituído", "suspended": "Suspensão", "revoked": "Revogação",
    "cassada": "Cassação",
}


def flash(key: str) -> None:
    """Show the message an action left before its rerun."""
    message = st.session_state.pop(key, None)
    if message:
        kind, text = message
        getattr(st, kind)(text)
