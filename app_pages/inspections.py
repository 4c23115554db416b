"""Vistorias: the law's checklist, result approved or failed with the 5-day deadline, the laudo in
PDF, the annual and late list, and the extraordinary convocation with its notice to the driver and
the platform."""
import pandas as pd
import streamlit as st

from rules.fmt import day
from rules.ridehailing.lifecycle import Status
from services.ridehailing import (
    authorizations,
    convocation_delivery,
    documents,
    inspections,
    registry,
)
from services.ridehailing.work_queue import INSPECTION_KINDS
from services.shared import clock, entities, exports, schema
from ui import common
from ui.entity import field_error, forget, form_errors, submit
from ui.lists import asked_page, entity_list, list_view, pages_of
from ui.ridehailing import (
    authorization_picker,
    authorization_step,
    clear_reads,
    finding_word,
    go,
    queue_page,
    whole_queue,
)
from ui.verdicts import findings_table

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
today = clock.today()
show_plate = schema.SPECS["vehicles"].field("plate").show
KINDS = dict(schema.SPECS["inspections"].field("kind").choices)
common.page_header("Vistorias", rules.act)
common.flash("insp_flash")


def record() -> None:
    chosen = authorization_picker(
        actor, mun, "Veículo / autorização", "insp_auth", (Status.AWAITING_INSPECTION, Status.BLOCKED, Status.ACTIVE),
        lambda r: f"{show_plate(r.plate)} · {r.driver_name} · protocolo {r.protocol} · {r.state.label}")
    if not chosen:
        return
    doc = authorizations.get_authorization(db, actor, mun, chosen)
    st.caption(f"Vistoria {KINDS[inspections.inspection_kind(doc)].lower()} · checklist de {rules.act}")
    ok, computed = common.attempt(inspections.inspection_computed, db, actor, mun, chosen, today)
    computed = computed if ok else {}
    form_errors("insp_form", ["performed_on", "inspector"])
    with st.form("insp_form"):
        answers = {}
        for item in rules.inspection_items:
            if item.code in computed:  # answered by the register, not ticked
                finding = computed[item.code]
                source = "" if item.code == rules.fee_item else " (calculado do ano modelo do cadastro)"
                st.markdown(f"{finding_word(finding)} — {item.code} — {item.text}: {finding.message}{source}",
                            help=item.reference)
            else:
                answers[item.code] = st.checkbox(f"{item.code} — {item.text}", key=f"insp_item_{item.code}",
                                                 help=item.reference)
        cols = st.columns(2)
        with cols[0]:
            performed_on = st.date_input("Data da vistoria *", today, format="DD/MM/YYYY", key="insp_on")
            field_error("insp_form", "performed_on")
        with cols[1]:
            inspector = st.text_input("Vistoriador (nome de quem fez a vistoria) *", key="insp_inspector")
            field_error("insp_form", "inspector")
        notes = st.text_area("Observações", key="insp_notes")
        submitted = st.form_submit_button("Registrar vistoria", type="primary")
    if submitted:
        ok, outcome = submit("insp_form", inspections.record_inspection, db, actor, mun, chosen, performed_on,
                             answers, inspector, notes)
        if ok:
            forget("insp_inspector", "insp_notes", "insp_on", *(f"insp_item_{i.code}" for i in rules.inspection_items),
                   insp_on=today)
            clear_reads()
            if outcome.decision.ok:
                st.session_state["insp_flash"] = ("success", f"Vistoria aprovada. Situação: {outcome.state.label}.")
            else:
                st.session_state["insp_flash"] = ("error", "Vistoria reprovada — "
                                                  + "; ".join(outcome.decision.reasons())
                                                  + f". Prazo para sanar: até {day(outcome.fix_deadline)}, "
                                                    "sem realizar serviços.")
            st.session_state["insp_last"] = outcome.decision.findings
            st.session_state["insp_last_id"] = outcome.inspection_id
            st.session_state["insp_last_auth"] = chosen
            st.session_state.pop("insp_auth", None)
            st.rerun()


def report_button(inspection_id: str, key: str) -> None:
    st.download_button("Baixar laudo da vistoria (PDF)",
                       lambda: documents.inspection_report_pdf(db, actor, mun, inspection_id),
                       f"laudo_vistoria_{inspection_id[-6:]}.pdf", "application/pdf", key=key,
                       icon=":material/picture_as_pdf:", on_click="ignore")


last = st.session_state.get("insp_last")
if last:
    findings_table(last, "insp_last_findings")
    report_button(st.session_state["insp_last_id"], "insp_last_report")
    step = authorization_step(actor, mun, st.session_state["insp_last_auth"]) \
        if st.session_state.get("insp_last_auth") else None
    if step and step.label != "Registrar vistoria":
        go(step, "insp_next")

CALLS_SHOWN = 200  # open convocations offered for their notice (few: a convocation is an exception)


def convocations() -> None:
    """Call an active authorization to an extraordinary vistoria and print the notice."""
    chosen = authorization_picker(actor, mun, "Autorização ativa", "insp_call_auth", (Status.ACTIVE,),
                                  lambda r: f"{show_plate(r.plate)} · {r.driver_name} · nº {r.number}")
    with st.form("insp_call_form", clear_on_submit=True):
        note = st.text_input("Motivo da convocação", key="insp_call_note")
        submitted = st.form_submit_button("Convocar para vistoria extraordinária", type="primary")
    if submitted and chosen:
        ok, called = common.attempt(convocation_delivery.call_and_deliver, db, actor, mun, chosen, today, note)
        if ok:
            clear_reads()
            deadline, delivered = called
            where = {"condutor": "do condutor", "plataforma": "da plataforma"}
            sent = " e ".join(where[m["kind"]] for m in delivered)
            st.session_state["insp_flash"] = ("success", f"Convocação registrada: comparecer até {day(deadline)}. " + (
                f"Entregue no domicílio eletrônico {sent}; baixe a notificação para quem não tem domicílio."
                if delivered else "Baixe a notificação ao condutor, com cópia à plataforma."))
            st.session_state["insp_notice"] = chosen
            st.session_state.pop("insp_call_auth", None)
            st.rerun()
    ok, calls = queue_page(actor, mun, kinds=("Vistoria extraordinária",), limit=CALLS_SHOWN)
    open_calls = {p.authorization_id: f"{show_plate(p.plate)} · protocolo {p.protocol} · {p.message}"
                  for p in (calls.rows if ok else ())}
    if not open_calls:
        st.caption("Nenhuma convocação em aberto.")
        return
    if st.session_state.get("insp_notice") not in open_calls:
        st.session_state.pop("insp_notice", None)
    notice = st.selectbox("Convocações em aberto", list(open_calls), format_func=open_calls.get,
                          key="insp_notice", placeholder="Escolha...")
    st.download_button("Baixar notificação de convocação (PDF)",
                       lambda: documents.convocation_notice_pdf(db, actor, mun, notice),
                       f"convocacao_{notice[-6:]}.pdf", "application/pdf", key="insp_notice_pdf",
                       icon=":material/campaign:", on_click="ignore")


DUE_COLUMNS = ["Prazo", "Atrasada", "Tipo", "Placa", "Protocolo", "Situação"]


def due_cells(p) -> dict:
    return {"Prazo": p.due, "Atrasada": "Sim" if p.late else "Não", "Tipo": p.kind, "Placa": show_plate(p.plate),
            "Protocolo": p.protocol, "Situação": p.message}


def due_list() -> None:
    """The vistorias due or late, a page at a time from the queue kept as data."""
    page, per_page = asked_page("insp_due")
    ok, found = queue_page(actor, mun, kinds=INSPECTION_KINDS, skip=(page - 1) * per_page, limit=per_page)
    if not ok:
        return
    pages = pages_of("insp_due", found.total, per_page)
    rows = list(found.rows)

    def everything() -> list[dict]:
        return [due_cells(p) for p in whole_queue(actor, mun, INSPECTION_KINDS)]

    frame = pd.DataFrame([{**due_cells(p), "Prazo": day(p.due)} for p in rows], columns=DUE_COLUMNS)
    index = list_view("insp_due", frame, found.total, pages, "Vistorias a vencer", mun,
                      lambda: exports.to_csv(everything(), DUE_COLUMNS),
                      lambda: exports.to_xlsx(everything(), DUE_COLUMNS, sheet="Vistorias a vencer"), ("vistoria", "vistorias"),
                      exact=True)
    if index is not None:
        st.button("Registrar a vistoria desta autorização", key="insp_due_open", type="primary",
                  icon=":material/fact_check:", on_click=st.session_state.update,
                  args=({"insp_auth": rows[index].authorization_id, "insp_tabs": "Registrar vistoria"},))


tab_record, tab_due, tab_call, tab_list = common.tabs(
    ["Registrar vistoria", "Vencidas e a vencer", "Convocação extraordinária", "Vistorias realizadas"], "insp_tabs")
with tab_record:
    record()
with tab_due:
    due_list()
with tab_call:
    convocations()
with tab_list:
    selected = entity_list(entities.spec_for(db, "inspections", mun), actor, mun)
    if selected:
        report_button(selected, "insp_report")
