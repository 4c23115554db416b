"""Autos de infração: the list, a new auto from the catalogue and the register, each auto's process
stage by stage (its forms in ``ui.autos``: notification, defence, decision, appeal, penalties, with its
PDFs), the history of a driver or a vehicle, and the editais de notificação (``ui.editais``)."""
import pandas as pd
import streamlit as st

from rules.fmt import brl, day
from services.ridehailing import registry
from services.ridehailing.enforcement import assessment, autos, lavratura, lists
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import clock, schema, uploads
from ui import common
from ui.auto_contact import contact_inputs
from ui.autos import auto_process, done, field, submit
from ui.editais import editais_tab
from ui.entity import record_picker
from ui.lists import export_buttons

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
today = clock.today()
show_cpf = schema.SPECS["drivers"].field("cpf").show
show_plate = schema.SPECS["vehicles"].field("plate").show
common.page_header("Autos de infração", rules.act)
common.flash("autos_flash")


# ---- list ----

def autos_list() -> None:
    cols = st.columns([3, 2])
    search = cols[0].text_input("Buscar", key="autos_search", placeholder="Número, nome, CPF, placa ou código")
    stage = cols[1].selectbox("Etapa", [""] + list(autos.STAGES), key="autos_stage",
                              format_func=lambda s: autos.STAGES.get(s, "Todas"), placeholder="Escolha...")
    ok, rows = common.attempt(lists.list_autos, db, actor, mun, search, stage)
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
                   lambda: lists.export_csv(db, actor, mun, search, stage),
                   lambda: lists.export_xlsx(db, actor, mun, search, stage))
    picked = event.selection.rows if event and event.selection else []
    chosen = rows[picked[0]].id if picked else None
    if chosen and chosen != st.session_state.get("autos_list_picked"):
        st.session_state["autos_open_next"] = chosen
        st.caption("Auto selecionado: veja a aba “Processo do auto”.")
    st.session_state["autos_list_picked"] = chosen


# ---- new auto ----

def new_auto() -> None:
    catalogue = {c["code"]: c for c in assessment.catalogue(mun)}
    code = st.selectbox("Infração (artigo, inciso, gravidade)", list(catalogue), index=None, key="autos_new_code",
                        format_func=lambda c: catalogue[c]["label"], placeholder="Escolha a infração do catálogo")
    code_slot = st.empty()
    if code:
        item = catalogue[code]
        st.info(f"{item['text']} — {item['reference']} · infração **{item['severity']}**")
    target = st.radio("Autuado", list(autos.TARGETS), format_func=autos.TARGETS.get, horizontal=True,
                      key="autos_new_target")
    cpf = plate = platform_id = name = ""
    name_slot = st.empty()
    contact, contact_slots = {}, {}
    if target == "unregistered":  # transporte ilegal by someone outside the register: identified as typed
        st.caption("Quem não tem cadastro: só cabe o transporte ilegal "
                   f"({next((c['reference'] for c in catalogue.values() if c['unregistered']), rules.act)}).")
        name, name_slot = field(st.text_input, "Nome do autuado", key="autos_new_offender_name")
        cols = st.columns(2)
        with cols[0]:
            cpf, driver_slot = field(st.text_input, "CPF do autuado", key="autos_new_offender_cpf",
                                     placeholder="000.000.000-00")
        with cols[1]:
            plate, plate_slot = field(st.text_input, "Placa do veículo", key="autos_new_offender_plate",
                                      placeholder="ABC1D23")
        contact, contact_slots = contact_inputs("autos_new_offender", mun)
    else:
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
            place, place_slot = field(st.text_input, "Local" if target != "unregistered" else "Local onde foi encontrado",
                                      key="autos_new_place")
        with cols[1]:
            auto_on, auto_on_slot = field(st.date_input, "Lavrado em", today, format="DD/MM/YYYY",
                                          key="autos_new_auto_on", help="Data do auto em papel, se lavrado antes")
        agent_name = st.text_input("Nome do agente", key="autos_new_agent_name")
        facts, facts_slot = field(st.text_area, "Fatos constatados", key="autos_new_facts")
        evidence_text = st.text_input("Provas (descrição)", key="autos_new_evidence",
                                      placeholder="Ex.: fotos do embarque na praça")
        files = st.file_uploader(f"Anexos das provas (PDF, JPEG ou PNG, {uploads.shown_limit('evidence')} cada)", accept_multiple_files=True, key="autos_new_files")
        preview = st.form_submit_button("Calcular gravidade e multa")
        submitted = st.form_submit_button("Lavrar auto", type="primary")
    slots = {"infraction_code": code_slot, "driver_cpf": driver_slot, "plate": plate_slot, "platform_id": platform_slot,
             "committed_on": committed_slot, "time": time_slot, "agent_registration": registration_slot,
             "place": place_slot, "facts": facts_slot, "target_kind": driver_slot, "auto_on": auto_on_slot,
             "offender_name": name_slot, **contact_slots}
    if not (preview or submitted):
        return
    if not code:
        code_slot.error("Infração: escolha no catálogo.")
        return
    evidence = [(f"{evidence_text or 'Anexo'} — {f.name}", f.name, f.getvalue()) for f in files or []]
    if evidence_text and not evidence:
        evidence = [(evidence_text, "", None)]
    values = AutoInput(target_kind=target, driver_cpf=cpf, plate=plate, platform_id=platform_id,
                       offender_name=name if target == "unregistered" else "", **contact, infraction_code=code,
                       facts=facts, committed_on=committed_on, time=time, place=place,
                       agent_registration=registration, agent_name=agent_name, auto_on=auto_on,
                       evidence=tuple(evidence))
    if preview:
        ok, found = submit(slots, assessment.assess, db, actor, mun, values)
        if ok:
            show_assessment(found)
    else:
        ok, auto_id = submit(slots, lavratura.lavrar, db, actor, mun, values)
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

def process_tab() -> None:
    ok, rows = common.attempt(lists.list_autos, db, actor, mun)
    if not ok:
        return
    # the label never changes with the stage: the browser keeps the choice by its label
    options = {r.id: f"{r.number or '(rascunho ' + r.id[-6:] + ')'} · {r.offender_name} · {r.infraction_code}"
               for r in rows}
    if "autos_open_next" in st.session_state:
        st.session_state["autos_open"] = st.session_state.pop("autos_open_next")
    wanted = st.session_state.get("autos_open")
    if wanted and wanted not in options:  # opened from the Busca or a link: older than the list's newest
        found, doc = common.attempt(autos.get, db, actor, mun, wanted)
        if found:
            options = {wanted: f"{doc.get('number') or '(rascunho)'} · {doc.get('offender_name', '')} · "
                               f"{doc.get('infraction_code', '')}", **options}
    if st.session_state.get("autos_open") not in options:
        st.session_state.pop("autos_open", None)
    auto_id = st.selectbox("Auto", list(options), index=None, key="autos_open", format_func=options.get,
                           placeholder="Escolha um auto (ou selecione na lista)")
    if not auto_id:
        return
    ok, doc = common.attempt(autos.get, db, actor, mun, auto_id)
    if ok:
        auto_process(actor, mun, doc)


def history_tab() -> None:
    cols = st.columns(2)
    cpf = cols[0].text_input("CPF do condutor", key="autos_hist_cpf")
    plate = cols[1].text_input("Placa", key="autos_hist_plate")
    digits = "".join(ch for ch in cpf if ch.isdigit())
    plate_key = plate.upper().replace("-", "").strip()
    if not digits and not plate_key:
        st.caption("Informe o CPF ou a placa para ver todos os autos, com etapa, resultado, valor e pagamento.")
        return
    ok, rows = common.attempt(lists.history, db, actor, mun, driver_cpf=digits, plate="" if digits else plate_key)
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
tab_list, tab_new, tab_process, tab_history, tab_editais = common.tabs(
    ["Autos", "Novo auto", "Processo do auto", "Histórico", "Editais"], "autos_tab")
with tab_list:
    autos_list()
with tab_new:
    new_auto()
with tab_process:
    process_tab()
with tab_history:
    history_tab()
with tab_editais:
    editais_tab(actor, mun, submit)
