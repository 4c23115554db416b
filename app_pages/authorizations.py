"""Ride-hailing authorizations: request → evaluation → approval or refusal → vistoria → fee DAM →
issue on payment (number and validity) → renewal, with the status the law gives on each date."""
import pandas as pd
import streamlit as st

from rules.fmt import brl, day
from rules.ridehailing.lifecycle import Status
from services.dam import printing
from services.ridehailing import (
    authorization_lists,
    authorizations,
    convocation_delivery,
    documents,
    fees,
    registry,
)
from services.shared import clock, entity_lists, schema
from services.store import parse_date
from ui import common
from ui.entity import confirm_button, field_error, form_errors, record_picker, submit
from ui.lists import PER_PAGE, list_view
from ui.ridehailing import (
    EVENT_LABELS,
    authorization_page,
    authorization_step,
    clear_reads,
    go,
    status_badge,
)
from ui.verdicts import findings_table, verdict

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
today = clock.today()
show_plate = schema.SPECS["vehicles"].field("plate").show
show_cpf = schema.SPECS["drivers"].field("cpf").show
common.page_header("Autorizações", rules.act)
common.flash("auth_flash")


def done(message: str, auth_id: str | None = None) -> None:
    clear_reads()
    st.session_state["auth_flash"] = ("success", message)
    if auth_id:
        st.session_state["auth_goto"] = auth_id
    st.rerun()


def request_form() -> None:
    st.caption("Condutor e veículo vêm do cadastro: cadastre-os antes do requerimento.")
    driver = record_picker("drivers", actor, mun, "Condutor", lambda d: f"{d['name']} · CPF {show_cpf(d['cpf'])}",
                           "auth_new_driver")
    cpf = driver["cpf"] if driver else None
    vehicles = []
    if cpf:
        ok, vehicles = common.attempt(entity_lists.lookup, db, actor, "vehicles", mun, "", {"driver_cpf": cpf})
    own = {v["plate"]: f"{show_plate(v['plate'])} · {v['model']}" for v in vehicles or []}
    plate = st.selectbox("Veículo do condutor", list(own), format_func=own.get, index=None, key="auth_new_plate",
                         placeholder="Escolha o veículo…" if own or not cpf else "Nenhum veículo vinculado a este CPF")
    field_error("auth_new", "plate")
    protocol_date = st.date_input("Data do protocolo", today, format="DD/MM/YYYY", key="auth_new_date")
    field_error("auth_new", "protocol_date")
    form_errors("auth_new", ["plate", "protocol_date"])
    if st.button("Protocolar requerimento", type="primary", key="auth_new_submit", disabled=not (cpf and plate)):
        ok, auth_id = submit("auth_new", authorizations.request_authorization, db, actor, mun, cpf, plate,
                             protocol_date)
        doc = authorizations.get_authorization(db, actor, mun, auth_id)
        common.forget("auth_new_driver", "auth_new_driver_term", "auth_new_plate", auth_new_date=today)
        done(f"Requerimento protocolado sob o nº {doc['protocol']}.", auth_id)


def events_table(doc: dict) -> None:
    st.dataframe(pd.DataFrame([{
        "Data": day(parse_date(e["on"])), "Evento": EVENT_LABELS.get(e["kind"], e["kind"]),
        "Até": day(parse_date(e["until"])) if e.get("until") else "", "Observação": e.get("note", ""),
        "Usuário": e.get("by", ""),
    } for e in doc.get("events", [])]), hide_index=True, width="stretch", key="auth_events_table")


def evaluation(doc: dict) -> None:
    ok, result = common.attempt(authorizations.evaluate, db, actor, mun, doc["id"])
    if not ok:
        return
    st.markdown(f"**Avaliação na data do protocolo ({day(result.on)})**")
    found, driver = common.attempt(entity_lists.referenced, db, actor, "drivers", mun, "cpf", doc["driver_cpf"])
    verdict(result.driver, "Condutor", "auth_driver_verdict", driver["id"] if found and driver else None)
    verdict(result.vehicle, "Veículo", "auth_vehicle_verdict")
    on = st.date_input("Data da decisão", today, format="DD/MM/YYYY", key="auth_decide_on")
    left, right = st.columns(2)
    with left:
        if st.button("Aprovar", type="primary", key="auth_approve", disabled=not result.ok, icon=":material/check:"):
            ok, state = common.attempt(authorizations.approve, db, actor, mun, doc["id"], on)
            if ok:
                done(f"Aprovado. Apresentar o veículo para vistoria até {day(state.deadline)}.", doc["id"])
    with right:
        note = st.text_area("Motivo do indeferimento (além dos requisitos não atendidos)", key="auth_refuse_note")
        if confirm_button("Indeferir", "auth_refuse", f"Indeferir o requerimento {doc['protocol']}? O indeferimento "
                          "encerra o pedido, com os requisitos não atendidos e o motivo acima.",
                          icon=":material/block:"):
            ok, reasons = common.attempt(authorizations.refuse, db, actor, mun, doc["id"], on, note)
            if ok:
                done("Indeferido: " + "; ".join(reasons), doc["id"])
    cancel(doc)


def cancel(doc: dict) -> None:
    """A protocol entered by mistake (wrong driver or vehicle, typed twice) is cancelled with a reason."""
    with st.expander("Cancelar o protocolo (lançado por engano)", icon=":material/undo:"):
        st.caption("Não é indeferimento: o protocolo fica no histórico como cancelado, com o motivo, e a placa e o "
                   "condutor ficam livres para um novo requerimento.")
        form_errors("auth_cancel", ["reason"])
        reason = st.text_input("Motivo do cancelamento *", key="auth_cancel_reason")
        field_error("auth_cancel", "reason")
        if confirm_button("Cancelar o protocolo", "auth_cancel",
                          f"Cancelar o protocolo {doc['protocol']}? Esta ação fica no registro de auditoria."):
            submit("auth_cancel", authorizations.cancel_request, db, actor, mun, doc["id"], reason)
            st.session_state.pop("auth_cancel_reason", None)
            done(f"Protocolo {doc['protocol']} cancelado. O motivo ficou no histórico e na auditoria.", doc["id"])


def fee(doc: dict, renewal: bool) -> None:
    bill = fees.bill_of(db, doc)  # the fee as its charge (débito) stands
    if bill is not None and (bill.purpose == "renewal") != renewal:
        bill = None
    live, short = (bill.live, bill.short) if bill else (None, None)
    if live:
        kind = "DAM complementar" if short else "DAM"
        st.info(f"{kind} nº {live['number']} de {brl(live['amount'])}, vencimento {day(parse_date(live['due_on']))}, "
                "aguardando pagamento. Registre a baixa na página DAM ou pelo arquivo retorno do banco; "
                "com o pagamento integral da taxa a autorização é expedida automaticamente.")
        st.download_button("Baixar o DAM (PDF)", lambda: printing.pdf(db, actor, mun, [live["id"]]),
                           f"dam_{live['number'].replace('/', '_')}.pdf", "application/pdf", key="auth_dam_pdf",
                           icon=":material/picture_as_pdf:", on_click="ignore")
        return
    if bill and bill.paid:
        st.info("Taxa paga: a expedição da autorização ficou pendente e é refeita automaticamente "
                "(ou tente de novo na página DAM).")
        return
    if short:
        st.warning(fees.shortfall_text(short) + f" ({rules.ref('fee')})", icon=":material/money_off:")
        label = f"Emitir DAM complementar de {brl(short['difference'])}"
    elif bill:
        st.warning(f"O DAM {doc['fee_dam']['number']} da taxa foi cancelado; a taxa continua devida "
                   f"({brl(bill.open)}). Emita um novo DAM do mesmo débito.", icon=":material/receipt_long:")
        label = f"Emitir novo DAM da taxa de {brl(bill.open)}"
    else:
        ok, amount = common.attempt(fees.fee_amount, db, mun, today)
        if not ok:
            return
        st.write(f"Taxa {'de renovação' if renewal else 'de autorização'}: **{brl(amount)}** ({rules.ref('fee')})")
        label = "Emitir DAM da taxa"
    if st.button(label, type="primary", key="auth_issue_dam", icon=":material/receipt_long:"):
        ok, dam = common.attempt(fees.issue_fee_dam, db, actor, mun, doc["id"], today)
        if ok:
            done(f"DAM nº {dam['number']} emitido, vencimento {day(dam['due_on'])}.", doc["id"])


def fee_alerts(doc: dict) -> None:
    """The alerts of the paid fee DAMs (late, amount above the due) stay visible after the issue."""
    alerts = [f"DAM {r['number']}: {a}" for r in (doc.get("fee_dam") or {}).get("received", []) for a in r["alerts"]]
    if alerts:
        st.warning("Taxa paga com alertas — " + "; ".join(alerts), icon=":material/flag:")


def active(doc: dict) -> None:
    fee_alerts(doc)
    left, right = st.columns(2)
    left.download_button("Baixar selo do veículo (PDF)",
                         lambda: documents.sticker_pdf(db, actor, mun, doc["id"]),
                         f"selo_{doc['number'].replace('/', '_')}.pdf", "application/pdf", key="auth_sticker",
                         icon=":material/qr_code_2:", on_click="ignore")
    right.download_button("Baixar certificado de autorização (PDF)",
                          lambda: documents.certificate_pdf(db, actor, mun, doc["id"]),
                          f"autorizacao_{doc['number'].replace('/', '_')}.pdf", "application/pdf",
                          key="auth_certificate", icon=":material/workspace_premium:", on_click="ignore")
    renewal(doc)
    with st.expander("Convocar para vistoria extraordinária"):
        note = st.text_input("Motivo da convocação", key="auth_call_note")
        if st.button("Convocar", key="auth_call"):
            ok, called = common.attempt(convocation_delivery.call_and_deliver, db, actor, mun, doc["id"], today,
                                        note)
            if ok:
                deadline, sent = called
                done(f"Convocação registrada: comparecer até {day(deadline)}. " + (
                    "Entregue no domicílio eletrônico; baixe a notificação para quem não tem domicílio."
                    if sent else "Baixe a notificação ao condutor, com cópia à plataforma, aqui ou na página "
                                 "Vistorias."), doc["id"])
        if doc.get("convocation"):
            st.download_button(f"Baixar notificação {doc['convocation']['number']} (PDF)",
                               lambda: documents.convocation_notice_pdf(db, actor, mun, doc["id"]),
                               f"convocacao_{doc['convocation']['number'].replace('/', '_')}.pdf", "application/pdf",
                               key="auth_call_notice", icon=":material/campaign:", on_click="ignore")
    ok, messages = common.attempt(convocation_delivery.delivered, db, actor, mun, doc["id"])
    if ok and messages:
        with st.expander(f"Domicílio eletrônico ({len(messages)})"):
            for message in messages:
                whom = "condutor" if message["kind"] == "condutor" else "plataforma"
                st.markdown(f"**{message['title']}** ({whom}): {message['receipt']}.")
                st.caption(message["alert"][0].upper() + message["alert"][1:] + ".")
    with st.expander("Substituir o veículo (acidente, venda ou locação)"):
        plate = st.text_input("Placa do novo veículo (já cadastrado)", key="auth_sub_plate")
        reason = st.text_input("Motivo", key="auth_sub_reason")
        if st.button("Substituir", key="auth_sub"):
            ok, state = common.attempt(authorizations.substitute_vehicle, db, actor, mun, doc["id"], plate, today,
                                       reason)
            if ok:
                done(f"Veículo substituído. Nova vistoria até {day(state.deadline)}.", doc["id"])


def renewal(doc: dict, suspended: bool = False) -> None:
    """The renewal's request and fee; also while suspended (neither act forbids it, LEITURAS §7)."""
    with st.expander("Renovação", expanded=suspended):
        if suspended:
            st.caption("A renovação pode ser requerida durante a suspensão: muda só a validade; a suspensão "
                       "continua até o último dia.")
        if fees.pending_renewal(doc):
            fee(doc, renewal=True)
        elif st.button("Registrar pedido de renovação", key="auth_renew"):
            ok, _ = common.attempt(fees.request_renewal, db, actor, mun, doc["id"], today)
            if ok:
                done("Pedido de renovação registrado.", doc["id"])


def detail(auth_id: str) -> None:
    ok, doc = common.attempt(authorizations.get_authorization, db, actor, mun, auth_id)
    if not ok:
        return
    ok, state = common.attempt(authorizations.status, db, actor, mun, auth_id, today)
    if not ok:
        return
    st.subheader(f"Protocolo {doc['protocol']} · placa {show_plate(doc['plate'])}")
    st.markdown(f"Situação em {day(today)}: {status_badge(state)}")
    cols = st.columns(3)
    cols[0].metric("Nº da autorização", doc.get("number") or "—")
    cols[1].metric("Válida até", day(state.valid_until) if state.valid_until else "—")
    ended = state.status in (Status.REFUSED, Status.REVOKED, Status.CASSADA, Status.EXPIRED, Status.CANCELLED)
    cols[2].metric("Desde" if ended else "Prazo", day(state.deadline) if state.deadline else "—")
    if state.findings:
        findings_table(state.findings, "auth_state_findings")
    events_table(doc)
    if state.status is Status.REQUESTED:
        evaluation(doc)
    elif state.status is Status.REFUSED:
        st.error("Indeferido: " + "; ".join(doc.get("refusal_reasons", [])))
    elif state.status is Status.CANCELLED:
        st.info("Protocolo cancelado por ter sido lançado por engano: " + (doc["events"][-1].get("note") or ""))
    elif state.status in (Status.AWAITING_INSPECTION, Status.BLOCKED):
        st.info("Próximo passo: registrar a vistoria na página Vistorias.")
        step = authorization_step(actor, mun, auth_id)
        if step:
            go(step, "auth_next")
    elif state.status is Status.AWAITING_FEE:
        fee(doc, renewal=False)
    elif state.status is Status.ACTIVE:
        active(doc)
    elif state.status is Status.SUSPENDED:
        renewal(doc, suspended=True)


def authorization_list() -> str | None:
    """The list: search, status, sort, pages, CSV + XLSX of the filter; a click on a row opens it."""
    cols = st.columns([3, 2, 2, 1.4])
    search = cols[0].text_input("Buscar", key="auth_search", placeholder="Protocolo, nº, placa, CPF ou nome")
    statuses = dict(schema.SPECS["authorizations"].field("status").choices)
    status = cols[1].selectbox("Situação", [None, *statuses], key="auth_status",
                               format_func=lambda v: "Todas" if v is None else statuses[v], placeholder="Escolha...")
    sort = cols[2].selectbox("Ordenar por", list(authorization_lists.ROW_SORTS), key="auth_sort",
                             format_func=authorization_lists.ROW_SORTS.get, placeholder="Escolha...")
    descending = cols[3].toggle("Decrescente", value=True, key="auth_desc")
    ok, listing = authorization_page(actor, mun, search, st.session_state.get("auth_page", 1),
                                     st.session_state.get("auth_per_page", PER_PAGE[0]), status, sort, descending)
    if not ok:
        return None
    rows = listing.rows
    frame = pd.DataFrame([{**authorization_lists.row_cells(r), "Data do protocolo": day(r.protocol_date),
                           "Validade": day(r.state.valid_until) if r.state.valid_until else "—",
                           "Nº": r.number or "—"} for r in rows], columns=authorization_lists.ROW_COLUMNS)
    index = list_view("auth", frame, listing.total, listing.pages, "Autorizações", mun,
                      lambda: authorization_lists.export_authorizations(db, actor, mun, today, search, status, sort,
                                                                descending, "csv"),
                      lambda: authorization_lists.export_authorizations(db, actor, mun, today, search, status, sort,
                                                                descending, "xlsx"),
                      ("autorização", "autorizações"))
    if index is not None:
        return rows[index].id
    labels = {r.id: f"{r.protocol} · {show_plate(r.plate)} · {r.driver_name} · {r.state.label}" for r in rows}
    if "auth_goto" in st.session_state:
        st.session_state["auth_open"] = st.session_state.pop("auth_goto")
    current = st.session_state.get("auth_open")
    if current and current not in labels:  # opened from an action or another page of the list
        found, doc = common.attempt(authorizations.get_authorization, db, actor, mun, current)
        if found:
            labels = {current: f"{doc['protocol']} · {show_plate(doc['plate'])}", **labels}
        else:
            st.session_state.pop("auth_open", None)
    return st.selectbox("Abrir autorização", list(labels), format_func=labels.get, index=None, key="auth_open",
                        placeholder="Escolha uma autorização…")


if "auth_goto" in st.session_state:  # an action or another page opens a record: the list tab shows it
    st.session_state["auth_tabs"] = "Autorizações"
tab_list, tab_new = common.tabs(["Autorizações", "Novo requerimento"], "auth_tabs")
with tab_new:
    request_form()
with tab_list:
    chosen = authorization_list()
    if chosen:
        st.divider()
        detail(chosen)
