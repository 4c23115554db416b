"""Display helpers of the ride-hailing screens: findings with their articles, status badges, and the
edit form of drivers and vehicles that records when the fact changed (7-day rule)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rules.base import Decision, Finding, Level
from rules.fmt import day
from rules.ridehailing.lifecycle import AuthorizationState, Status
from services import clock, config, entities, ridehailing, ridehailing_changes, ridehailing_queue
from services.entities import EntitySpec
from ui import common
from ui.entity import entity_form, entity_import, entity_list, field_widget

ICONS = {True: "✅", False: "❌"}
READ_TTL_SECONDS = 300  # cached lists live at most this long; writes change the data version sooner
STATUS_COLOURS = {
    Status.ACTIVE: "green", Status.AWAITING_FEE: "orange", Status.AWAITING_INSPECTION: "orange",
    Status.REQUESTED: "blue", Status.BLOCKED: "red", Status.SUSPENDED: "red", Status.REFUSED: "gray", Status.CANCELLED: "gray",
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
    st.dataframe(frame, hide_index=True, width="stretch", key=key)


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
    "cassada": "Cassação", "cancelled": "Protocolo cancelado (lançado por engano)",
}


# ---- cached reads: each page builds its rows once per render and per data version ----

def _store_key() -> str:
    return f"{config.mongodb_uri() or ''}|{config.data_dir()}"


@st.cache_data(ttl=READ_TTL_SECONDS, show_spinner=False)
def _queue(store: str, actor, mun: str, on, version: str) -> list[ridehailing_queue.Pendencia]:
    return ridehailing_queue.pendencias(common.db(), actor, mun, on)


@st.cache_data(ttl=READ_TTL_SECONDS, show_spinner=False)
def _page(store: str, actor, mun: str, on, search: str, page: int, per_page: int,
          version: str) -> ridehailing.RowsPage:
    return ridehailing.authorization_page(common.db(), actor, mun, on, search, page, per_page)


def authorization_page(actor, mun: str, search: str, page: int, per_page: int) -> tuple[bool, ridehailing.RowsPage]:
    """(ok, page) of the authorization list on today, cached under the store's data version."""
    ok, version = common.attempt(ridehailing.data_version, common.db(), actor, mun)
    if not ok:
        return False, None
    return common.attempt(_page, _store_key(), actor, mun, clock.today(), search, page, per_page, version)


def pendencias(actor, mun: str) -> tuple[bool, list[ridehailing_queue.Pendencia]]:
    """(ok, queue) of today, cached under the store's data version."""
    ok, version = common.attempt(ridehailing.data_version, common.db(), actor, mun)
    if not ok:
        return False, []
    return common.attempt(_queue, _store_key(), actor, mun, clock.today(), version)


PICKER_ROWS = 20


def authorization_picker(actor, mun: str, label: str, key: str, statuses: tuple[Status, ...],
                         describe) -> str | None:
    """Pick an authorization by typing its plate, CPF, driver's name or protocol: the store answers the
    newest matches (one page, whatever the size of the register); only those in ``statuses`` are offered."""
    term = st.text_input("Buscar", key=f"{key}_term", placeholder=f"{label}: placa, CPF, nome do condutor ou protocolo")
    ok, found = authorization_page(actor, mun, term, 1, PICKER_ROWS)
    labels = {r.id: describe(r) for r in (found.rows if ok else []) if r.state.status in statuses}
    known = st.session_state.setdefault(f"{key}_labels", {})
    known.update(labels)
    chosen = st.session_state.get(key)
    if chosen in known and chosen not in labels:  # keep the current choice while another term is typed
        labels = {chosen: known[chosen], **labels}
    return st.selectbox(label, list(labels), format_func=labels.get, index=None, key=key,
                        placeholder="Escolha entre os encontrados…" if labels else "Nenhuma autorização encontrada")


def clear_reads() -> None:
    """Forget the cached lists (called by the pages after each write they make)."""
    _page.clear()
    _queue.clear()


def flash(key: str) -> None:
    """Show the message an action left before its rerun."""
    message = st.session_state.pop(key, None)
    if message:
        kind, text = message
        getattr(st, kind)(text)


def change_form(spec: EntitySpec, actor, mun: str, doc: dict, reference: str) -> None:
    """Edit a driver or vehicle saying when the fact changed and when the driver reported it."""
    key = f"{spec.name}_change_{doc['id']}"
    version_key = f"{key}_version"  # the version first loaded: a save over someone else's is refused
    st.session_state.setdefault(version_key, doc.get("version", 0))
    with st.form(key):
        st.caption(f"O condutor deve comunicar a alteração de dados em até 7 dias ({reference}).")
        cols = st.columns(3)
        changed_on = cols[0].date_input("Data da alteração (quando o fato mudou) *", value=None, format="DD/MM/YYYY",
                                        key=f"{key}_changed_on")
        reported_on = cols[1].date_input("Comunicada pelo condutor em", clock.today(), format="DD/MM/YYYY",
                                         key=f"{key}_reported_on")
        unreported = cols[2].checkbox("Não comunicada (constatada pela Secretaria)", key=f"{key}_unreported")
        values = {}
        columns = st.columns(2)
        for index, f in enumerate(spec.fields):
            with columns[index % 2]:
                values[f.name] = field_widget(f, f"{key}_{f.name}", doc.get(f.name), None)
        submitted = st.form_submit_button("Salvar alteração", type="primary")
    if submitted:
        ok, change_id = common.attempt(ridehailing_changes.record_change, common.db(), actor, mun, spec.name,
                                       doc["id"], values, changed_on, None if unreported else reported_on,
                                       st.session_state[version_key])
        if ok:
            st.session_state.pop(version_key, None)
            st.session_state[f"{spec.name}_change_flash"] = (
                ("success", "Alteração salva com as datas do fato e da comunicação.") if change_id
                else ("info", "Nenhum dado foi alterado."))
            st.rerun()


def change_history(actor, mun: str, collection: str, doc_id: str) -> None:
    """The changes with both dates and the 7-day verdict; a not-reported one can get its report date."""
    flash(f"{collection}_change_flash")
    ok, changes = common.attempt(ridehailing_changes.history, common.db(), actor, mun, collection, doc_id,
                                 clock.today())
    if not ok:
        return
    st.dataframe(pd.DataFrame([{
        "": finding_icon(c.finding), "Data da alteração": day(c.changed_on),
        "Comunicada em": day(c.reported_on) if c.reported_on else "não comunicada", "Prazo": day(c.deadline),
        "Dados alterados": c.fields_text, "Situação": c.finding.message, "Fundamento legal": c.finding.reference,
        "Providência": f"{day(c.closed_on)}: {c.closing_note}" if c.closed_on else "",
    } for c in changes], columns=["", "Data da alteração", "Comunicada em", "Prazo", "Dados alterados", "Situação",
                                  "Fundamento legal", "Providência"]),
        hide_index=True, width="stretch", key=f"{collection}_changes_table")
    unreported = {c.id: f"{day(c.changed_on)} · {c.fields_text}" for c in changes if c.reported_on is None}
    if unreported:
        with st.form(f"{collection}_report_form"):
            chosen = st.selectbox("Alteração não comunicada", list(unreported), format_func=unreported.get,
                                  key=f"{collection}_report_change")
            on = st.date_input("Comunicada em", clock.today(), format="DD/MM/YYYY", key=f"{collection}_report_on")
            if st.form_submit_button("Registrar a comunicação"):
                ok, _ = common.attempt(ridehailing_changes.report_change, common.db(), actor, mun, chosen, on)
                if ok:
                    st.rerun()
    irregular = {c.id: f"{day(c.changed_on)} · {c.fields_text}" for c in changes
                 if c.closed_on is None and (c.reported_on is None or not c.finding.ok)}
    if irregular:
        with st.form(f"{collection}_close_form"):
            chosen = st.selectbox("Alteração fora do prazo", list(irregular), format_func=irregular.get,
                                  key=f"{collection}_close_change")
            note = st.text_input("Providência tomada (p.ex. auto de infração nº)", key=f"{collection}_close_note")
            if st.form_submit_button("Encerrar a pendência"):
                ok, _ = common.attempt(ridehailing_changes.close_change, common.db(), actor, mun, chosen, note)
                if ok:
                    st.rerun()


def histories(actor, mun: str, collection: str, doc_id: str) -> None:
    """The data changes with their dates, and below them every audited write of the record."""
    change_history(actor, mun, collection, doc_id)
    with st.expander("Gravações no cadastro (registro de auditoria)"):
        ok, changes = common.attempt(ridehailing.record_history, common.db(), actor, mun, collection, doc_id)
        if ok:
            st.dataframe(pd.DataFrame(changes, columns=["Data", "Usuário", "Campo", "Antes", "Depois"]),
                         hide_index=True, width="stretch", key=f"{collection}_history_table")


def registry_page(spec: EntitySpec, actor, mun: str, new_label: str, picker, detail) -> None:
    """List (with a picker when no row is selected) and the detail of the chosen record; new; import."""
    tab_list, tab_new, tab_import = st.tabs(["Lista", new_label, "Importar CSV"])
    with tab_list:
        selected = entity_list(spec, actor, mun) or picker()
        if selected:
            st.divider()
            ok, doc = common.attempt(entities.get, common.db(), actor, spec.name, mun, selected)
            if ok:
                detail(doc)
    with tab_new:
        entity_form(spec, actor, mun)
    with tab_import:
        entity_import(spec, actor, mun)
