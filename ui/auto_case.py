"""What the Autos de infração screen shows above an auto's stages (``ui.autos``): its PDFs (the auto, the
notices to the driver and to the platform, the whole case), every notice to the offender with its channel
and what happened to it (``enforcement.notices``), and its deadlines, with whether the process already lets
the decided penalties be applied."""
from __future__ import annotations

import streamlit as st

from rules.fmt import day
from services.ridehailing import registry
from services.ridehailing.enforcement import documents as enforcement_documents
from services.ridehailing.enforcement import notices as enforcement_notices
from services.shared import clock
from services.shared.auth import Actor
from ui import common


def documents(actor: Actor, mun: str, doc: dict) -> None:
    db = common.db()
    cols = st.columns(4)
    number = doc["number"].replace("/", "-")
    cols[0].download_button("Auto (PDF)", lambda: enforcement_documents.auto_pdf(db, actor, mun, doc["id"]),
                            f"auto_{number}.pdf", "application/pdf", key="autos_pdf_auto",
                            icon=":material/picture_as_pdf:", on_click="ignore")
    cols[1].download_button("Notificação ao condutor",
                            lambda: enforcement_documents.notification_pdf(db, actor, mun, doc["id"], "condutor"),
                            f"notificacao_{number}.pdf", "application/pdf", key="autos_pdf_notice", on_click="ignore")
    cols[2].download_button("Notificação à plataforma",
                            lambda: enforcement_documents.notification_pdf(db, actor, mun, doc["id"], "plataforma"),
                            f"notificacao_plataforma_{number}.pdf", "application/pdf", key="autos_pdf_platform",
                            on_click="ignore")
    cols[3].download_button("Processo completo (PDF)",
                            lambda: enforcement_documents.case_file_pdf(db, actor, mun, doc["id"]),
                            f"processo_auto_{number}.pdf", "application/pdf", key="autos_pdf_case",
                            icon=":material/folder_open:", on_click="ignore")


def notices(doc: dict) -> None:
    """Each notice to the offender: channel and article, sent or delivered, opened or tacit, AR received
    or returned, the edital's number, edition and publication, and the juntada."""
    rows = enforcement_notices.notice_rows(doc, clock.today())
    if rows:
        with st.expander(f"Notificações ao autuado ({len(rows)})", expanded=True):
            for label, line in rows:
                st.markdown(f"**{label}**: {line or '—'}.")


def deadlines(mun: str, state: dict) -> None:
    rules = registry.rules_of(mun)
    lines = []
    if state["notification_deadline"]:
        lines.append(f"Notificar até **{day(state['notification_deadline'])}** ({rules.ref('notification')})")
    if state["defence_deadline"]:
        lines.append(f"Defesa até **{day(state['defence_deadline'])}**, contada da juntada ({rules.ref('defence')})")
    if state["appeal_deadline"]:
        lines.append(f"Recurso até **{day(state['appeal_deadline'])}**")
    elif state.get("awaiting_decision_notice"):
        lines.append("Recurso: o prazo começa na ciência da decisão entregue no domicílio eletrônico")
    if lines:
        st.markdown(" · ".join(lines))
    if state["may_apply"]:
        st.success("O processo permite aplicar as penalidades decididas.")
    else:
        st.warning("Penalidade ainda não pode ser aplicada: " + "; ".join(state["reasons"]))


def filing(actor: Actor, mun: str, doc: dict, key: str) -> None:
    """The defence or the appeal as joined to the case: who, when and through which channel (the portal or
    the counter), in time or not, its summary and a download of each attachment."""
    filed = doc.get(key) or {}
    late = " — **fora do prazo**" if filed.get("late") else ""
    joined = enforcement_documents.joined_text(filed)
    st.markdown(f"Juntada em {joined}{late}.  \nPor {filed['by']}: {filed['summary']}")
    for i, item in enumerate(filed.get("attachments", [])):
        st.download_button(f"Anexo: {item['name']}",
                           lambda digest=item["sha256"]: enforcement_documents.filing_file(common.db(), actor, mun,
                                                                                          doc["id"], digest),
                           item["name"], key=f"autos_{key}_file_{i}", icon=":material/attach_file:", on_click="ignore")
