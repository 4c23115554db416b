"""Autos de infração: the list, a new auto from the catalogue and the register, and each auto's process
stage by stage (notification, defence, decision, appeal, penalties) with its PDFs."""
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules import fmt
from rules.fmt import brl, day
from rules.ridehailing.concepts import Measure
from services.ridehailing import registry
from services.ridehailing.enforcement import autos
from services.ridehailing.enforcement import documents as enforcement_documents
from services.shared import clock, fields, schema
from services.shared.errors import ServiceError, ValidationFailed
from ui import common
from ui.entity import export_buttons, record_picker
from ui.ridehailing import clear_reads, flash

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
today = clock.today()
show_cpf = schema.SPECS["drivers"].field("cpf").show
show_plate = schema.SPECS["vehicles"].field("plate").show
common.page_header("Autos de infração", rules.act)
flash("autos_flash")


def submit(slots: dict, action, *args, **kwargs):
    """Run a service; a field error is shown under its field, any other error at the form."""
    def call():
        try:
            return "ok", action(*args, **kwargs)
        except ValidationFailed as exc:
            return "fields", exc.errors
        except ServiceError as exc:
            if exc.field in slots:
                return "fields", {exc.field: exc.message}
            raise

    ok, result = common.attempt(call)
    if not ok:
        return False, None
    status, value = result
    if status == "fields":
        for name, message in value.items():
            (slots[name] if name in slots else st).error(message)
        return False, None
    return True, value


def done(message: str, open_id: str | None = None) -> None:
    clear_reads()
    st.session_state["autos_flash"] = ("success", message)
    st.session_state["autos_tab_next"] = "Processo do auto"
    if open_id:  # opened by the process tab on the rerun, before its picker exists
        st.session_state["autos_open_next"] = open_id
    st.rerun()


def field(widget, *args, **kwargs):
    """A widget with an empty slot under it for its error."""
    value = widget(*args, **kwargs)
    return value, st.empty()


# ---- list ----

def autos_list() -> None:
    cols = st.columns([3, 2])
    search = cols[0].text_input("Buscar", key="autos_search", placeholder="Número, nome, CPF, placa ou código")
    stage = cols[1].selectbox("Etapa", [""] + list(autos.STAGES), key="autos_stage",
                              format_func=lambda s: autos.STAGES.get(s, "Todas"), placeholder="Escolha...")
    ok, rows = common.attempt(autos.list_autos, db, actor, mun, search, stage)
    if not ok:
        return
    frame = pd.DataFrame([{
        "Número": r.number or "(rascunho)", "Data": day(r.committed_on) if r.committed_on else "", "Autuado": r.target,
        "Nome": r.offender_name, "Placa": show_plate(r.plate) if r.plate else "", "Infração": r.infraction_code,
        "Gravidade": r.severity, "Etapa": r.stage, "Resultado": r.outcome,
        "Multa": brl(r.amount) if r.amount is not None else "", "Pagamento": r.payment, "Reincidência de": r.recurrence_of,
    } for r in rows], columns=["Número", "Data", "Autuado", "Nome", "Placa", "Infração", "Gravidade", "Etapa",
                               "Resultado", "Multa", "Pagamento", "Reincidência de"])
    event = st.dataframe(frame, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                         key="autos_table")
    places = st.columns(2)
    export_buttons(places[0], places[1], "autos de infração", mun, "autos",
                   lambda: autos.export_csv(db, actor, mun, search, stage),
                   lambda: autos.export_xlsx(db, actor, mun, search, stage))
    picked = event.selection.rows if event and event.selection else []
    chosen = rows[picked[0]].id if picked else None
    if chosen and chosen != st.session_state.get("autos_list_picked"):
        st.session_state["autos_open_next"] = chosen
        st.caption("Auto selecionado: veja a aba “Processo do auto”.")
    st.session_state["autos_list_picked"] = chosen


# ---- new auto ----

def new_auto() -> None:
    catalogue = {c["code"]: c for c in autos.catalogue(mun)}
    code = st.selectbox("Infração (artigo, inciso, gravidade)", list(catalogue), index=None, key="autos_new_code",
                        format_func=lambda c: catalogue[c]["label"], placeholder="Escolha a infração do catálogo")
    code_slot = st.empty()
    if code:
        item = catalogue[code]
        st.info(f"{item['text']} — {item['reference']} · infração **{item['severity']}**")
    target = st.radio("Autuado", list(autos.TARGETS), format_func=autos.TARGETS.get, horizontal=True,
                      key="autos_new_target")
    cpf = plate = platform_id = ""
    if target in ("driver", "vehicle"):
        chosen = record_picker("drivers", actor, mun, "Condutor do cadastro",
                               lambda d: f"{d['name']} · CPF {show_cpf(d['cpf'])}", "autos_new_driver")
        cpf = chosen["cpf"] if chosen else ""
    driver_slot = st.empty()
    vehicle = record_picker("vehicles", actor, mun, "Veículo do cadastro",
                            lambda v: f"{show_plate(v['plate'])} · {v.get('model', '')}", "autos_new_vehicle")
    plate = vehicle["plate"] if vehicle else ""
    plate_slot = st.empty()
    platform = record_picker("platforms", actor, mun, "Plataforma do cadastro", lambda p: p["name"], "autos_new_platform")
    platform_id = platform["id"] if platform else ""
    platform_slot = st.empty()
    with st.form("autos_new_form"):
        cols = st.columns(3)
        committed_on, committed_slot = field(cols[0].date_input, "Data da infração", today, format="DD/MM/YYYY",
                                             key="autos_new_on")
        time, time_slot = field(cols[1].text_input, "Hora (HH:MM)", key="autos_new_time")
        registration, registration_slot = field(cols[2].text_input, "Matrícula do agente", key="autos_new_agent")
        cols = st.columns([3, 1])
        with cols[0]:
            place, place_slot = field(st.text_input, "Local", key="autos_new_place")
        with cols[1]:
            auto_on, auto_on_slot = field(st.date_input, "Lavrado em", today, format="DD/MM/YYYY",
                                          key="autos_new_auto_on", help="Data do auto em papel, se lavrado antes")
        agent_name = st.text_input("Nome do agente", key="autos_new_agent_name")
        facts, facts_slot = field(st.text_area, "Fatos constatados", key="autos_new_facts")
        evidence_text = st.text_input("Provas (descrição)", key="autos_new_evidence",
                                      placeholder="Ex.: fotos do embarque na praça")
        files = st.file_uploader("Anexos das provas", accept_multiple_files=True, key="autos_new_files")
        preview = st.form_submit_button("Calcular gravidade e multa")
        submitted = st.form_submit_button("Lavrar auto", type="primary")
    slots = {"infraction_code": code_slot, "driver_cpf": driver_slot, "plate": plate_slot, "platform_id": platform_slot,
             "committed_on": committed_slot, "time": time_slot, "agent_registration": registration_slot,
             "place": place_slot, "facts": facts_slot, "target_kind": driver_slot, "auto_on": auto_on_slot}
    who = dict(target_kind=target, driver_cpf=cpf, plate=plate, platform_id=platform_id)
    if (preview or submitted) and not code:
        code_slot.error("Infração: escolha no catálogo.")
        return
    if preview:
        ok, found = submit(slots, autos.assess, db, actor, mun, **who, infraction_code=code,
                           committed_on=committed_on)
        if ok:
            show_assessment(found)
    if submitted:
        evidence = [(f"{evidence_text or 'Anexo'} — {f.name}", f.name, f.getvalue()) for f in files or []]
        if evidence_text and not evidence:
            evidence = [(evidence_text, "", None)]
        ok, auto_id = submit(slots, autos.lavrar, db, actor, mun, **who, infraction_code=code, facts=facts,
                             committed_on=committed_on, time=time, place=place, agent_registration=registration,
                             agent_name=agent_name, auto_on=auto_on, evidence=evidence)
        if ok:
            doc = autos.get(db, actor, mun, auto_id)
            done(f"Auto nº {doc['number']} lavrado: infração {doc['severity']}, multa {brl(doc['fine_amount'])}.",
                 auto_id)


def show_assessment(found: dict) -> None:
    line = f"Gravidade: **{found['severity']}** · multa **{brl(found['fine_amount'])}** · " \
           f"penalidades: {'; '.join(found['penalties'])}"
    st.success(line)
    if found.get("recurrence_of"):
        prior = found["recurrence_of"]
        st.warning(f"Reincidência: conta o auto nº {prior['number']} de {day(prior['committed_on'])}.")
    st.dataframe(pd.DataFrame([{"": "✅" if f["ok"] else "❌", "Motivo": f["message"], "Fundamento legal": f["reference"]}
                               for f in found["findings"]], columns=["", "Motivo", "Fundamento legal"]),
                 hide_index=True, width="stretch", key="autos_findings")


# ---- one auto's process ----

def process() -> None:
    ok, rows = common.attempt(autos.list_autos, db, actor, mun)
    if not ok:
        return
    # the label never changes with the stage: the browser keeps the choice by its label
    options = {r.id: f"{r.number or '(rascunho ' + r.id[-6:] + ')'} · {r.offender_name} · {r.infraction_code}"
               for r in rows}
    if "autos_open_next" in st.session_state:
        st.session_state["autos_open"] = st.session_state.pop("autos_open_next")
    if st.session_state.get("autos_open") not in options:
        st.session_state.pop("autos_open", None)
    auto_id = st.selectbox("Auto", list(options), index=None, key="autos_open", format_func=options.get,
                           placeholder="Escolha um auto (ou selecione na lista)")
    if not auto_id:
        return
    ok, doc = common.attempt(autos.get, db, actor, mun, auto_id)
    if not ok:
        return
    summary(doc)
    if doc["status"] == "rascunho":
        lavrar_draft(doc)
        return
    documents(doc)
    if doc["status"] == "nulo":
        st.error(f"Auto nulo: {doc.get('void_reason', '')} ({doc.get('void_reference', '')}).")
        return
    ok, state = common.attempt(autos.process_status, db, actor, mun, auto_id, today)
    if ok:
        deadlines(state)
    notification(doc)
    defence_and_decision(doc)
    penalties(doc, state if ok else None)


def summary(doc: dict) -> None:
    st.subheader(f"Auto nº {doc['number']}" if doc["number"] else "Rascunho de auto")
    cols = st.columns(4)
    cols[0].metric("Etapa", doc["stage_label"])
    cols[1].metric("Gravidade", doc.get("severity") or "—")
    cols[2].metric("Multa", brl(doc["fine_amount"]) if doc.get("fine_amount") is not None else "—")
    cols[3].metric("Autuado", autos.TARGETS[doc["target_kind"]])
    st.write(f"**{doc['offender_name']}** · {doc['infraction_code']} — {doc.get('infraction_text') or ''} "
             f"({doc.get('infraction_reference') or ''})")
    if doc.get("recurrence_of"):
        prior = doc["recurrence_of"]
        st.warning(f"Reincidência: conta o auto nº {prior['number']} de {day(prior['committed_on'])}.")
    if doc.get("findings"):
        with st.expander("Por que esta gravidade, multa e penalidades"):
            for f in doc["findings"]:
                st.write(f"{'✅' if f['ok'] else '❌'} {f['message']} — *{f['reference']}*")


def lavrar_draft(doc: dict) -> None:
    st.info(f"Rascunho ({doc.get('origin') or 'manual'}): confira e lavre.")
    with st.form("autos_draft_form"):
        cols = st.columns(3)
        committed_on, committed_slot = field(cols[0].date_input, "Data da infração", doc.get("committed_on") or today,
                                             format="DD/MM/YYYY", key="autos_draft_on")
        time, time_slot = field(cols[1].text_input, "Hora (HH:MM)", key="autos_draft_time")
        registration, registration_slot = field(cols[2].text_input, "Matrícula do agente", key="autos_draft_agent")
        place, place_slot = field(st.text_input, "Local", key="autos_draft_place")
        submitted = st.form_submit_button("Lavrar auto", type="primary")
    if submitted:
        ok, _ = submit({"committed_on": committed_slot, "time": time_slot, "agent_registration": registration_slot,
                        "place": place_slot}, autos.lavrar, db, actor, mun, doc["id"], committed_on=committed_on,
                       time=time, place=place, agent_registration=registration)
        if ok:
            done("Auto lavrado.")


def documents(doc: dict) -> None:
    cols = st.columns(4)
    number = doc["number"].replace("/", "-")
    cols[0].download_button("Auto (PDF)", lambda: enforcement_documents.auto_pdf(db, actor, mun, doc["id"]),
                            f"auto_{number}.pdf", "application/pdf", key="autos_pdf_auto", icon=":material/picture_as_pdf:")
    cols[1].download_button("Notificação ao condutor",
                            lambda: enforcement_documents.notification_pdf(db, actor, mun, doc["id"], "condutor"),
                            f"notificacao_{number}.pdf", "application/pdf", key="autos_pdf_notice")
    cols[2].download_button("Notificação à plataforma",
                            lambda: enforcement_documents.notification_pdf(db, actor, mun, doc["id"], "plataforma"),
                            f"notificacao_plataforma_{number}.pdf", "application/pdf", key="autos_pdf_platform")
    cols[3].download_button("Processo completo (PDF)",
                            lambda: enforcement_documents.case_file_pdf(db, actor, mun, doc["id"]),
                            f"processo_auto_{number}.pdf", "application/pdf", key="autos_pdf_case",
                            icon=":material/folder_open:")


def deadlines(state: dict) -> None:
    lines = []
    if state["notification_deadline"]:
        lines.append(f"Notificar até **{day(state['notification_deadline'])}** ({rules.ref('notification')})")
    if state["defence_deadline"]:
        lines.append(f"Defesa até **{day(state['defence_deadline'])}**, contada da juntada ({rules.ref('defence')})")
    if state["appeal_deadline"]:
        lines.append(f"Recurso até **{day(state['appeal_deadline'])}**")
    if lines:
        st.markdown(" · ".join(lines))
    if state["may_apply"]:
        st.success("O processo permite aplicar as penalidades decididas.")
    else:
        st.warning("Penalidade ainda não pode ser aplicada: " + "; ".join(state["reasons"]))


def notification(doc: dict) -> None:
    methods = {m.code: m for m in rules.notification_methods}
    notice = doc.get("notification") or {}
    if notice.get("juntada_on"):
        st.markdown(f"**Notificação** por {notice['method_label']}: enviada em {day(notice['sent_on'])}, recebida em "
                    f"{day(notice['received_on'])}, juntada em {day(notice['juntada_on'])}.")
    place = st.expander("Notificação à plataforma ou correção") if notice.get("juntada_on") else st.container()
    with place:
        if not notice.get("juntada_on"):
            st.markdown("#### Notificação")
        with st.form("autos_notice_form"):
            recipient = st.radio("Destinatário", ["infrator", "plataforma"], horizontal=True, key="autos_notice_to")
            method, method_slot = field(st.selectbox, "Forma (prevista no ato)", list(methods), key="autos_notice_method",
                                        format_func=lambda c: f"{methods[c].label} — {methods[c].reference}")
            cols = st.columns(3)
            sent_on, sent_slot = field(cols[0].date_input, "Enviada em", notice.get("sent_on") or today,
                                       format="DD/MM/YYYY", key="autos_notice_sent")
            received_on, received_slot = field(cols[1].date_input, "Recebida em", notice.get("received_on"),
                                               format="DD/MM/YYYY", key="autos_notice_received")
            juntada_on, juntada_slot = field(cols[2].date_input, "Juntada em", notice.get("juntada_on"),
                                             format="DD/MM/YYYY", key="autos_notice_juntada")
            submitted = st.form_submit_button("Registrar notificação", type="primary")
        if submitted:
            ok, result = submit({"method": method_slot, "sent_on": sent_slot, "received_on": received_slot,
                                 "juntada_on": juntada_slot}, autos.notify, db, actor, mun, doc["id"],
                                method=method, sent_on=sent_on, received_on=received_on, juntada_on=juntada_on,
                                recipient=recipient)
            if ok:
                deadline = result.get("defence_deadline")
                done("Notificação registrada." + (f" Prazo de defesa até {day(deadline)}." if deadline else ""))


def ruling_form(key: str, label: str, service, doc: dict) -> None:
    with st.form(key):
        outcome, outcome_slot = field(st.selectbox, "Resultado", list(autos.OUTCOMES), key=f"{key}_outcome",
                                      format_func=autos.OUTCOMES.get)
        reasons, reasons_slot = field(st.text_area, "Fundamentação", key=f"{key}_reasons")
        cols = st.columns(3)
        authority, authority_slot = field(cols[0].text_input, "Autoridade", key=f"{key}_authority")
        decided_on, decided_slot = field(cols[1].date_input, "Decidido em", today, format="DD/MM/YYYY", key=f"{key}_on")
        amount, amount_slot = field(cols[2].text_input, "Multa mantida, R$ (se em parte)",
                                    value=fmt.number(doc.get("fine_amount") or Decimal("0"), 2), key=f"{key}_amount")
        submitted = st.form_submit_button(label, type="primary")
    if submitted and outcome == "parcialmente":
        try:
            fine_amount = fields.parse_money(amount)
        except ValueError as exc:
            amount_slot.error(f"Multa mantida: {exc}.")
            return
    else:
        fine_amount = None
    if submitted:
        ok, _ = submit({"outcome": outcome_slot, "reasons": reasons_slot, "authority": authority_slot,
                        "decided_on": decided_slot, "fine_amount": amount_slot}, service, db, actor, mun, doc["id"],
                       outcome=outcome, reasons=reasons, authority=authority, decided_on=decided_on,
                       fine_amount=fine_amount)
        if ok:
            done(f"Decisão registrada: {autos.OUTCOMES[outcome]}.")


def filing_form(key: str, label: str, service, doc: dict) -> None:
    with st.form(key):
        cols = st.columns(2)
        filed_on, filed_slot = field(cols[0].date_input, "Apresentada em", today, format="DD/MM/YYYY", key=f"{key}_on")
        by, by_slot = field(cols[1].text_input, "Apresentada por", key=f"{key}_by")
        summary_text, summary_slot = field(st.text_area, "Resumo", key=f"{key}_summary")
        files = st.file_uploader("Anexos", accept_multiple_files=True, key=f"{key}_files")
        submitted = st.form_submit_button(label, type="primary")
    if submitted:
        ok, result = submit({"filed_on": filed_slot, "by": by_slot, "summary": summary_slot}, service, db, actor, mun,
                            doc["id"], filed_on=filed_on, by=by, summary=summary_text,
                            attachments=[(f.name, f.getvalue()) for f in files or []])
        if ok:
            done(f"{label.removeprefix('Registrar ').capitalize()} registrado(a)"
                 + (" — fora do prazo." if result.get("late") else "."))


def defence_and_decision(doc: dict) -> None:
    defence, decision, appeal = doc.get("defence"), doc.get("decision"), doc.get("appeal") or {}
    with st.expander("Defesa" + (f" — apresentada em {day(defence['filed_on'])}" if defence else "")):
        if defence:
            st.write(f"Por {defence['by']}: {defence['summary']}" + (" — **fora do prazo**" if defence.get("late") else ""))
        elif not decision:
            filing_form("autos_defence", "Registrar defesa", autos.file_defence, doc)
    st.markdown("#### Decisão")
    if decision:
        st.write(f"{autos.OUTCOMES[decision['outcome']]} em {day(decision['decided_on'])} por "
                 f"{decision['authority']}: {decision['reasons']}")
    else:
        ruling_form("autos_decision", "Registrar decisão", autos.decide, doc)
    if decision:
        with st.expander("Recurso" + (" — em análise" if appeal and not appeal.get("decision") else "")):
            if not appeal:
                filing_form("autos_appeal", "Registrar recurso", autos.file_appeal, doc)
            elif not appeal.get("decision"):
                st.write(f"Recurso de {appeal['by']} em {day(appeal['filed_on'])}: {appeal['summary']}")
                ruling_form("autos_appeal_decision", "Registrar decisão do recurso", autos.decide_appeal, doc)
            else:
                ruled = appeal["decision"]
                st.write(f"Recurso: {autos.OUTCOMES[ruled['outcome']]} em {day(ruled['decided_on'])} por "
                         f"{ruled['authority']}: {ruled['reasons']}")


def penalties(doc: dict, state: dict | None) -> None:
    ruled = (doc.get("appeal") or {}).get("decision") or doc.get("decision") or {}
    if not ruled:
        return
    st.markdown("#### Penalidades")
    with st.container():
        fine = doc.get("fine_dam") or {}
        if fine:
            st.write(f"DAM {fine['number']} da multa ({brl(fine['amount'])}), vence em {day(fine['due_on'])}: "
                     + (f"**pago em {day(fine['paid_on'])}**" if fine.get("paid") else "em aberto"))
        elif "multa" in ruled.get("penalties", []):
            if st.button("Emitir DAM da multa", key="autos_fine_dam", type="primary"):
                ok, dam = common.attempt(autos.issue_fine_dam, db, actor, mun, doc["id"])
                if ok:
                    done(f"DAM {dam['number']} da multa emitido, vencimento {day(dam['due_on'])}.")
        for applied in doc.get("sanctions_applied", []):
            st.write(f"{applied['penalty'].capitalize()} desde {day(applied['start'])}"
                     + (f" até {day(applied['until'])}" if applied.get("until") else ""))
        others = [p for p in ruled.get("penalties", []) if p != "multa"
                  and p not in {a["penalty"] for a in doc.get("sanctions_applied", [])}]
        if others:
            with st.form("autos_sanction_form"):
                penalty = st.selectbox("Penalidade decidida", others, key="autos_sanction_penalty",
                    placeholder="Escolha...")
                start, start_slot = field(st.date_input, "Início", today, format="DD/MM/YYYY", key="autos_sanction_start")
                note = st.text_input("Observação", key="autos_sanction_note")
                submitted = st.form_submit_button("Aplicar penalidade", type="primary")
            if submitted:
                ok, applied = submit({"start": start_slot}, autos.apply_sanction, db, actor, mun, doc["id"],
                                     penalty=penalty, start=start, note=note)
                if ok:
                    done(f"{penalty.capitalize()} aplicada a partir de {day(applied['start'])}"
                         + (f" até {day(applied['until'])}." if applied.get("until") else "."))
        for measure in doc.get("measures_applied", []):
            st.write(f"{measure['measure'].capitalize()} em {day(measure['on'])} por {measure['by']}")
        with st.form("autos_measure_form"):
            cols = st.columns(3)
            measure = cols[0].selectbox("Medida administrativa", [m.value for m in Measure], key="autos_measure",
                placeholder="Escolha...")
            on, on_slot = field(cols[1].date_input, "Data", today, format="DD/MM/YYYY", key="autos_measure_on")
            by, by_slot = field(cols[2].text_input, "Responsável", key="autos_measure_by")
            submitted = st.form_submit_button("Registrar medida")
        if submitted:
            ok, _ = submit({"on": on_slot, "by": by_slot}, autos.record_measure, db, actor, mun, doc["id"],
                           measure=measure, on=on, by=by)
            if ok:
                done("Medida registrada.")


def history_tab() -> None:
    cols = st.columns(2)
    cpf = cols[0].text_input("CPF do condutor", key="autos_hist_cpf")
    plate = cols[1].text_input("Placa", key="autos_hist_plate")
    digits = "".join(ch for ch in cpf if ch.isdigit())
    plate_key = plate.upper().replace("-", "").strip()
    if not digits and not plate_key:
        st.caption("Informe o CPF ou a placa para ver todos os autos, com etapa, resultado, valor e pagamento.")
        return
    ok, rows = common.attempt(autos.history, db, actor, mun, driver_cpf=digits, plate="" if digits else plate_key)
    if ok:
        st.dataframe(pd.DataFrame([{"Número": r.number, "Data": day(r.committed_on) if r.committed_on else "",
                                    "Infração": r.infraction_code, "Gravidade": r.severity, "Etapa": r.stage,
                                    "Resultado": r.outcome, "Multa": brl(r.amount) if r.amount is not None else "",
                                    "Pagamento": r.payment, "Reincidência de": r.recurrence_of} for r in rows],
                                  columns=["Número", "Data", "Infração", "Gravidade", "Etapa", "Resultado", "Multa",
                                           "Pagamento", "Reincidência de"]),
                     hide_index=True, width="stretch", key="autos_history_table")


if "autos_tab_next" in st.session_state:  # after a write, reopen the auto's process
    st.session_state["autos_tab"] = st.session_state.pop("autos_tab_next")
tab_list, tab_new, tab_process, tab_history = st.tabs(["Autos", "Novo auto", "Processo do auto", "Histórico"],
                                                      key="autos_tab", on_change="rerun")
with tab_list:
    autos_list()
with tab_new:
    new_auto()
with tab_process:
    process()
with tab_history:
    history_tab()
