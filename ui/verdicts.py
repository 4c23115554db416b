"""The verdict of a driver, a vehicle or a platform against the law: one line, then each finding with
its mark, its word (Atende / Falta comprovar / Não atende) and its article."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules.base import Decision, Finding, Level
from services.ridehailing import registry
from ui import common, navigation

# A mark and a word for each finding: plain text glyphs, never a colour emoji (no emoji font needed).
MEETS, UNPROVEN, FAILS = "✓ Atende", "? Falta comprovar", "✗ Não atende"
WARNS, INFORMS = "! Atenção", "i Informação"


def finding_word(finding: Finding) -> str:
    """Atende / Falta comprovar (its proof is missing) / Não atende (shown to fail) / Atenção / Informação."""
    if finding.ok:
        return INFORMS if finding.level is Level.INFO else MEETS
    if finding.level is Level.WARNING:
        return WARNS
    if finding.level is Level.INFO:
        return INFORMS
    return UNPROVEN if finding.unproven else FAILS


def finding_icon(finding: Finding) -> str:
    """The mark alone (first glyph of :func:`finding_word`)."""
    return finding_word(finding).split(" ", 1)[0]


def findings_table(findings: tuple[Finding, ...] | list[Finding], key: str) -> None:
    """Every finding with its mark and word first, the message and the act and article behind it."""
    frame = pd.DataFrame([{"Situação": finding_word(f), "Requisito": f.message, "Fundamento legal": f.reference}
                          for f in findings], columns=["Situação", "Requisito", "Fundamento legal"])
    st.dataframe(frame, hide_index=True, width="stretch", key=key,
                 column_config={"Situação": st.column_config.TextColumn(width="medium")})


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def is_document(finding: Finding, labels: tuple[str, ...]) -> bool:
    """Whether the finding is about a document of the checklist (presented, missing or expired)."""
    return finding.message.startswith("Documento não apresentado") or any(
        finding.message.startswith(label) for label in labels)


def verdict_line(decision: Decision, subject: str, labels: tuple[str, ...] = ()) -> str:
    """One line: "Condutor — Não atende: 3 documentos faltando, 2 requisitos"."""
    if decision.ok:
        return f"{subject}: atende a todos os requisitos da lei."
    failures = decision.failures
    documents = sum(1 for f in failures if is_document(f, labels))
    unproven = sum(1 for f in failures if f.unproven and not is_document(f, labels))
    failed = len(failures) - documents - unproven
    parts = [p for p in (
        _plural(documents, "documento faltando ou vencido", "documentos faltando ou vencidos") if documents else "",
        _plural(unproven, "requisito a comprovar", "requisitos a comprovar") if unproven else "",
        _plural(failed, "requisito não atendido", "requisitos não atendidos") if failed else "") if p]
    head = "Falta comprovar" if not failed and all(f.unproven for f in failures) else "Não atende"
    return f"{subject} — {head}: " + ", ".join(parts)


def verdict(decision: Decision, subject: str, key: str, driver_id: str | None = None) -> None:
    """The verdict in one line and the checklist grouped by requirement and by document, each item
    with its mark and word first (Atende / Falta comprovar / Não atende) and its article; with
    ``driver_id``, documents missing lead to the driver's page, where they are entered."""
    labels = tuple(req.label for req in registry.rules_of(common.municipality()).documents) \
        if common.municipality() in ("chapada", "matupa") else ()
    line = verdict_line(decision, subject, labels)
    if decision.ok:
        st.success(line, icon=":material/verified:")
    elif line.startswith(f"{subject} — Falta comprovar"):
        st.warning(line, icon=":material/pending:")
    else:
        st.error(line, icon=":material/block:")
    requirements = [f for f in decision.findings if not is_document(f, labels)]
    documents = [f for f in decision.findings if is_document(f, labels)]
    if documents:
        st.markdown("**Requisitos**")
    findings_table(requirements, key)
    if documents:
        st.markdown("**Documentos**")
        findings_table(documents, f"{key}_docs")
        if driver_id and any(not f.ok for f in documents) and st.button(
                "Lançar os documentos no cadastro do condutor", key=f"{key}_to_docs", icon=":material/upload_file:"):
            navigation.open_record("drivers", driver_id, common.municipality())
