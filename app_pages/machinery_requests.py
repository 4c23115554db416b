"""Requests for municipal machines and vehicles (Decreto 017/2026): the protocol form of art. 2 §4,
eligibility with articles, quote line by line, payment plan and DAMs (from their charges, with a new DAM where
a charge waits for one), refusal; the record guides to the next step."""
from datetime import date
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules import fmt
from rules.machinery.discounts import DiscountCriterion, EvidenceKind
from rules.machinery.payment import ExtensionGround
from services.machinery import (
    booking_requests,
    documents,
    payment,
    protocol,
    quotes,
    schedule,
)
from services.machinery.payment import ExtensionInput
from services.machinery.protocol import ClaimInput, RequestInput, ServiceAsked
from services.shared import clock, exports, fields
from services.shared.errors import ServiceError, ValidationFailed
from ui import bookings as ui_bookings
from ui import common
from ui.entity import record_picker
from ui.lists import export_buttons

actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
today = clock.today()
common.page_header("Solicitações", "Serviços com bens públicos — Decreto Municipal 017/2026")
MACHINES = {"01": "Retroescavadeira", "02": "Motoniveladora", "03": "Pá carregadeira", "04": "Escavadeira hidráulica"}
STANDING = {"nada_deve": "Nada deve", "parcelamento_em_dia": "Parcelamento em dia", "em_debito": "Em débito"}


def decimal_or_none(text: str, field: str, errors: dict) -> Decimal | None:
    text = (text or "").strip()
    if not text:
        return None
    try:
        return fields.parse_decimal(text)
    except ValueError:
        errors[field] = "Informe um número, por exemplo 6 ou 6,5."
        return None


def findings(rows) -> None:
    """Refusals in red and warnings in yellow, each with its article; what holds, folded below."""
    held = []
    for f in rows:
        ok, level, message, reference = (f.ok, f.level.value, f.message, f.reference) if hasattr(f, "ok") else (
            f["ok"], f["level"], f["message"], f["reference"])
        text = f"{message} ({reference})" if reference else message
        if not ok and level == "error":
            st.error(text)
        elif not ok or level == "warning":
            st.warning(text)
        else:
            held.append(text)
    if held:
        with st.expander(f"Requisitos atendidos ({len(held)})"):
            st.markdown("\n".join(f"- {text}" for text in held))


def new_request() -> None:
    errors: dict[str, str] = st.session_state.get("req_errors", {})

    def under(name: str) -> None:
        if errors.get(name):
            st.caption(f":red[{errors[name]}]")

    requester = record_picker("machinery_requesters", actor, mun, "Solicitante",
                              lambda d: f"{d['name']} · {d.get('document', '')} · {d.get('locality', '')}",
                              "req_requester")
    under("requester_id")
    with st.form("req_form"):
        st.markdown("**Serviços pedidos (Anexo I)**")
        cols = st.columns(4)
        hours = {item: cols[i].text_input(f"{name} (horas estimadas)", key=f"req_hours_{item}")
                 for i, (item, name) in enumerate(MACHINES.items())}
        cols = st.columns(4)
        loads = cols[0].number_input("Cargas de terra/cascalho (item 12)", 0, 100, 0, key="req_loads")
        truck_km = cols[1].text_input("Caminhão basculante: km ida e volta", key="req_truck_km")
        half_day = cols[1].checkbox("Meia diária", key="req_truck_half")
        lowboy_km = cols[2].text_input("Caminhão prancha: km ida e volta", key="req_lowboy_km")
        bus_item = cols[3].selectbox("Ônibus ou van", ["", "10", "11"], key="req_bus_item",
                                     format_func=lambda v: {"": "—", "10": "Ônibus (item 10)",
                                                            "11": "Micro-ônibus ou van (item 11)"}[v],
                                                                placeholder="Escolha...")
        bus_km = cols[3].text_input("km ida e volta da viagem", key="req_bus_km")
        under("services")
        st.markdown("**Formulário de protocolo (art. 2, §4)**")
        cols = st.columns(2)
        with cols[0]:
            requested_on = st.date_input("Data do pedido", today, max_value=today, format="DD/MM/YYYY",
                                         key="req_requested_on")
            under("requested_on")
            desired = st.date_input("Início desejado", value=None, format="DD/MM/YYYY", key="req_desired")
            under("desired_start")
            stage = st.text_input("Etapa do cronograma (art. 9, §2)", key="req_stage", placeholder=f"{today.year}",
                                  help="Etapa da programação da Secretaria em que o pedido será atendido; em "
                                       "branco, a etapa do ano. Encerrada uma etapa, o novo pedido vai para a "
                                       f"seguinte (ex.: {today.year}-2).")
            under("stage")
            identification = st.text_input("I – Identificação do interessado (documento apresentado)",
                                           key="req_identification")
            under("identification")
            residence = st.text_input("II – Comprovante de residência ou sede no Município", key="req_residence")
            under("residence_proof")
            justification = st.text_area("IV – Serviços desejados e justificativa técnica", key="req_justification")
            under("justification")
            route = st.text_input("Rota (transporte) ou acesso ao local", key="req_route")
            trip_responsible = st.text_input("Responsável pela viagem (ônibus/van, art. 6)", key="req_trip_resp")
            under("trip_responsible")
        with cols[1]:
            private = st.checkbox("Serviço em imóvel particular", key="req_private")
            property_description = st.text_input("Imóvel de destino (descrição, matrícula ou CAR)",
                                                  key="req_property")
            property_proof = st.text_input("III – Comprovação de propriedade ou autorização do proprietário",
                                           key="req_property_proof")
            under("property_proof")
            standing = st.selectbox("Situação fiscal do imóvel (art. 2, §1)", list(STANDING), format_func=STANDING.get,
                                    key="req_property_standing", placeholder="Escolha...")
            under("property_standing")
            checked_on = st.date_input("Situação do imóvel verificada em", today, format="DD/MM/YYYY",
                                       key="req_property_checked")
            removes = st.checkbox("Há retirada ou movimentação de materiais naturais (art. 10, III)",
                                  key="req_removes")
            licence = st.text_input("Licença ambiental / origem do material (art. 2, §2)", key="req_licence")
            difficult = st.checkbox("Área de difícil acesso (art. 5)", key="req_difficult")
            agent = st.checkbox("Interessado é agente público ou autoridade (art. 10, II)", key="req_agent")
            harms = st.checkbox("Prejudica atividades essenciais do Município (art. 10, I)", key="req_harms")
        st.markdown("**Desconto (somente item 12, Anexo II)**")
        cols = st.columns(4)
        criterion = cols[0].selectbox("Critério", [""] + [c.name for c in DiscountCriterion], key="req_criterion",
                                      format_func=lambda n: DiscountCriterion[n].value if n else "Sem desconto",
                                          placeholder="Escolha...")
        evidence = cols[1].selectbox("Comprovação", [""] + [e.name for e in EvidenceKind], key="req_evidence",
                                     format_func=lambda n: EvidenceKind[n].value if n else "—",
                                         placeholder="Escolha...")
        reference = cols[2].text_input("Nº ou referência do documento", key="req_evidence_ref")
        income = cols[3].text_input("Renda familiar (R$), se for o critério", key="req_income")
        under("claims")
        st.markdown("**Declarações**")
        agrees = st.checkbox("V – Declaro concordar com os critérios de pagamento do Decreto 017/2026",
                             key="req_agrees")
        under("agrees_payment_terms")
        liability = st.checkbox("VI – Declaro assumir a responsabilidade por danos ao meio ambiente, à via pública ou "
                                "a terceiros decorrentes da minha conduta", key="req_liability")
        under("liability_declaration")
        cols = st.columns(2)
        verify = cols[0].form_submit_button("Verificar requisitos")
        submit = cols[1].form_submit_button("Protocolar solicitação", type="primary")
    if errors.get("_form"):  # a refusal of the whole request (art. 8, §4), next to the button
        st.error(errors["_form"])
    if not (verify or submit):
        if st.session_state.get("req_findings"):
            findings(st.session_state["req_findings"])
        return
    found: dict[str, str] = {}
    services = [ServiceAsked("machine_hours", item=item, hours=value)
                for item, text in hours.items() if (value := decimal_or_none(text, "services", found)) is not None]
    if loads:
        services.append(ServiceAsked("earth_loads", loads=int(loads)))
    if (km := decimal_or_none(truck_km, "services", found)) is not None:
        services.append(ServiceAsked("dump_truck_day", distance_km=km, half_day=half_day))
    if (km := decimal_or_none(lowboy_km, "services", found)) is not None:
        services.append(ServiceAsked("lowboy_trip", distance_km=km))
    if bus_item and (km := decimal_or_none(bus_km, "services", found)) is not None:
        services.append(ServiceAsked("passenger_transport", item=bus_item, distance_km=km))
    family_income = decimal_or_none(income, "claims", found)
    if requester is None:
        found["requester_id"] = "Escolha o solicitante (cadastre-o em Solicitantes se for novo)."
    if found:
        st.session_state["req_errors"] = found
        st.rerun()
    values = RequestInput(
        requester_id=requester["id"], requested_on=requested_on, services=tuple(services),
        justification=justification, identification=identification, residence_proof=residence,
        agrees_payment_terms=agrees, liability_declaration=liability, desired_start=desired,
        private_property=private, property_description=property_description, property_proof=property_proof,
        property_standing=standing, property_standing_checked_on=checked_on, route=route,
        removes_natural_materials=removes, environmental_licence=licence, difficult_access=difficult,
        claims=(ClaimInput(criterion, evidence, reference, family_income),) if criterion else (),
        trip_responsible=trip_responsible, harms_essential_activities=harms, requester_is_public_agent=agent,
        stage=stage)
    try:
        if verify:
            st.session_state["req_findings"] = protocol.check(db, actor, mun, values)
        else:
            rid = protocol.create_request(db, actor, mun, values)
            doc = booking_requests.get_request(db, actor, mun, rid)
            st.session_state["req_done"] = (f"Solicitação protocolada sob o nº {doc['protocol']}. "
                                            f"Próximo passo: {doc['status_label']}.")
            st.session_state["req_open"] = rid
            st.session_state.pop("req_findings", None)
        st.session_state.pop("req_errors", None)
    except ValidationFailed as exc:
        st.session_state["req_errors"] = exc.errors
    except ServiceError as exc:
        st.session_state["req_errors"] = {exc.field or "_form": exc.message}
    st.rerun()


def pdf_button(label: str, maker, name: str, key: str, *args) -> None:
    try:
        data = maker(db, actor, mun, *args)
    except ServiceError:
        return
    st.download_button(label, data, f"{name}.pdf", "application/pdf", key=key, icon=":material/picture_as_pdf:",
                       on_click="ignore")


def quote_view(doc: dict) -> None:
    quote = doc.get("quote")
    if not quote:
        return
    st.markdown(f"**Orçamento** — {quote['price_table'].get('act', '')}, tabela em vigor desde "
                f"{fmt.day(date.fromisoformat(quote['price_table']['version_id']))}")
    st.dataframe(pd.DataFrame([{
        "Item": line["item"], "Serviço": line["description"], "Unidade": line["unit"],
        "Quantidade": fmt.number(line["quantity"]), "Preço unitário": fmt.brl(line["unit_price"]),
        "Valor": fmt.brl(line["amount"]), "Desconto": fmt.brl(line["discount"]), "Líquido": fmt.brl(line["net"]),
        "Observação": line.get("discount_reason") or line.get("note", "")} for line in quote["lines"]]),
        hide_index=True, width="stretch", key="req_quote_table")
    st.markdown(f"Total bruto {fmt.brl(quote['gross'])} · descontos {fmt.brl(quote['discount_total'])} · "
                f"**total {fmt.brl(quote['total'])}**")
    if (quote.get("discount") or {}).get("reason"):
        st.caption(f"{quote['discount']['reason']} — comprovação: " + "; ".join(
            f"{EvidenceKind[c['evidence_kind']].value} nº {c['evidence_reference']}"
            for c in doc.get("discount_claims", []) if c.get("evidence_kind") in EvidenceKind.__members__))
    if any(line["item"] in ("07", "09") for line in quote["lines"]):
        st.caption(quote.get("km_reading_text", ""))
    for finding in quote.get("load_findings") or []:
        findings([finding])


def act(label: str, fn, *args, done: str, **kwargs) -> None:
    ok, _ = common.attempt(fn, db, actor, mun, *args, **kwargs)
    if ok:
        st.session_state["req_done"] = done
        st.rerun()


def next_step(doc: dict) -> None:
    rid, status = doc["id"], doc["status"]
    if status == "aguardando_vistoria":
        st.info("Próximo passo: registrar a vistoria técnica (art. 2, §3; art. 5).")
        with st.form("req_visit"):
            visited = st.date_input("Data da vistoria", today, max_value=today, format="DD/MM/YYYY", key="req_visit_on")
            viable = st.radio("Parecer", ["Favorável", "Desfavorável"], key="req_visit_viable", horizontal=True)
            notes = st.text_area("Observações da equipe técnica *", key="req_visit_notes")
            licence = st.text_input("Licença ambiental conferida (art. 10, III)", key="req_visit_licence")
            if st.form_submit_button("Registrar vistoria", type="primary"):
                act("visit", quotes.record_technical_visit, rid, visited, viable == "Favorável", notes, licence,
                    done="Vistoria registrada.")
    elif status == "aguardando_parecer":
        st.info("Próximo passo: registrar o parecer social da Assistência Social (art. 7, §4).")
        with st.form("req_social"):
            answered = st.date_input("Recebido em", today, max_value=today, format="DD/MM/YYYY", key="req_social_on")
            favourable = st.radio("Resultado", ["Favorável", "Desfavorável"], key="req_social_fav", horizontal=True)
            reference = st.text_input("Referência do parecer *", key="req_social_ref")
            if st.form_submit_button("Registrar parecer", type="primary"):
                act("social", quotes.record_social_report, rid, answered, favourable == "Favorável", reference,
                    done="Parecer social registrado.")
    elif status == "aguardando_orcamento":
        st.info("Próximo passo: fazer o orçamento pela tabela de preços em vigor (Anexo I).")
        cols = st.columns(2)
        if cols[0].button("Fazer orçamento", type="primary", key="req_quote"):
            act("quote", quotes.make_quote, rid, today, done="Orçamento feito.")
        if cols[1].button("Pedir parecer social à Assistência Social", key="req_ask_social"):
            act("ask", quotes.request_social_report, rid, today, done="Parecer social pedido.")
    elif status == "aguardando_pagamento" and not doc.get("payment"):
        st.info("Próximo passo: emitir os DAMs do plano de pagamento (art. 8).")
        with st.form("req_pay"):
            start = st.date_input("Início previsto do serviço", value=None, format="DD/MM/YYYY", key="req_pay_start")
            defer = st.checkbox("Autorizar vencimento após a conclusão (art. 8, §3)", key="req_pay_defer")
            ground = st.selectbox("Hipótese", [g.name for g in ExtensionGround], key="req_pay_ground",
                                  format_func=lambda n: ExtensionGround[n].value, placeholder="Escolha...")
            reason = st.text_area("Justificativa expressa", key="req_pay_reason")
            days = st.number_input("Dias após a conclusão (até 30)", 1, 30, 30, key="req_pay_days")
            authorization = st.text_input("Autorização prévia da autoridade (inciso II)", key="req_pay_auth")
            if st.form_submit_button("Emitir DAMs", type="primary"):
                extension = ExtensionInput(ground, reason, int(days), prior_authorization=authorization) \
                    if defer else None
                act("pay", payment.issue_payment, rid, today, service_start=start, extension=extension,
                    done="DAMs emitidos: os números estão no quadro de pagamento abaixo, com o PDF para entregar ao "
                         "solicitante. Pagos (tela DAM), o pedido vai para a Agenda.")
    elif status == "aguardando_pagamento":
        st.info("Aguardando o pagamento integral dos DAMs (tela DAM); pago, o pedido vai para a Agenda (art. 8, §1-§2).")
    elif status == "a_agendar":
        st.info("Próximo passo: agendar na tela Agenda (por zona e localidade, em ordem de protocolo).")
        with st.form("req_urgent"):
            why = st.text_area("Justificativa de urgência ou relevância pública (art. 3, §2) *", key="req_urgent_why")
            if st.form_submit_button("Marcar como urgente"):
                act("urgent", schedule.mark_urgent, rid, why, done="Urgência registrada com a justificativa.")
    elif status in ("agendado", "em_execucao"):
        st.info("Próximo passo: registrar a execução na tela Execução.")
    elif status == "concluido":
        st.success("Serviço concluído." + (" Há saldo ou crédito em aberto." if doc.get("settlement_open") else ""))
    elif status == "recusado":
        st.error(f"Solicitação recusada: {(doc.get('refusal') or {}).get('reason', '')}")
    if status not in ("em_execucao", "concluido", "recusado"):
        with st.expander("Recusar a solicitação"):
            with st.form("req_refuse"):
                reason = st.text_area("Motivo da recusa *", key="req_refuse_reason")
                if st.form_submit_button("Recusar"):
                    act("refuse", payment.refuse_request, rid, reason,
                        done="Solicitação recusada com o motivo. DAMs em aberto cancelados; o que já foi pago fica "
                             "como crédito a restituir.")


def record(rid: str) -> None:
    ok, doc = common.attempt(booking_requests.get_request, db, actor, mun, rid)
    if not ok:
        return
    st.subheader(f"Pedido {doc['protocol']} · {doc['requester']['name']}")
    st.markdown(f"**Situação:** {doc['status_label']} · {doc['zone']} / {doc['locality']} · pedido em "
                f"{fmt.day(doc['requested_on'])} · etapa {doc.get('stage', '')} · "
                f"{booking_requests.describe_services(doc['services'])}")
    findings(doc.get("findings", []))
    visit, report = doc.get("technical_visit") or {}, doc.get("social_report")
    if visit.get("required"):
        st.markdown(f"**Vistoria técnica:** {visit.get('status', 'pendente')}"
                    + (f" em {fmt.day(visit['visited_on'])}" if visit.get("visited_on") else "")
                    + (f" — {visit['notes']}" if visit.get("notes") else ""))
    if report:
        answer = ("sem resposta" if not report.get("answered_on") else
                  f"{'favorável' if report.get('favourable') else 'desfavorável'} em {fmt.day(report['answered_on'])}"
                  f" (ref. {report.get('reference', '')})")
        st.markdown(f"**Parecer social (art. 7):** pedido em {fmt.day(report['requested_on'])}; {answer}")
    quote_view(doc)
    ui_bookings.payment_view(db, actor, mun, doc, today, "req_done")
    next_step(doc)
    cols = st.columns(4)
    with cols[0]:
        pdf_button("Orçamento (PDF)", documents.quote_pdf, f"orcamento_{doc['sequence']}", "req_pdf_quote", rid)
    with cols[1]:
        pdf_button("Extrato (PDF)", documents.statement_pdf, f"extrato_{doc['sequence']}", "req_pdf_stmt", rid)
    with cols[2]:
        pdf_button("Ordem de serviço (PDF)", documents.service_order_pdf, f"os_{doc['sequence']}",
                   "req_pdf_order", rid)
    with cols[3]:
        pdf_button("Comprovante (PDF)", documents.receipt_pdf, f"comprovante_{doc['sequence']}",
                   "req_pdf_receipt", rid)


if st.session_state.get("req_done"):
    st.success(st.session_state.pop("req_done"))
tab_list, tab_new = st.tabs(["Pedidos", "Nova solicitação"])
with tab_new:
    new_request()
with tab_list:
    left, right = st.columns([3, 2])
    search = left.text_input("Buscar", key="req_search", placeholder="Protocolo, solicitante, CPF/CNPJ ou localidade")
    status = right.selectbox("Situação", [""] + list(booking_requests.STATUS), key="req_status",
                            format_func=lambda s: booking_requests.STATUS.get(s, "Todas"), placeholder="Escolha...")
    ok, rows = common.attempt(booking_requests.list_requests, db, actor, mun, status or None, search=search)
    rows = rows if ok else []
    listed = [{"Protocolo": r["protocol"], "Data": r["requested_on"], "Solicitante": r["requester"]["name"],
               "Zona": r.get("zone", ""), "Localidade": r.get("locality", ""), "Serviços": r["services_text"],
               "Situação": r["status_label"], "Total (R$)": (r.get("quote") or {}).get("total")} for r in rows]
    event = st.dataframe(pd.DataFrame([{**row, "Data": fmt.day(row["Data"]),
                                        "Total (R$)": fmt.brl(row["Total (R$)"]) if row["Total (R$)"] is not None
                                        else "—"} for row in listed]),
                         hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                         key="req_table")
    cols = st.columns(2)
    export_buttons(cols[0], cols[1], "Solicitacoes", mun, "req_list",
                   lambda: exports.to_csv(listed), lambda: exports.to_xlsx(listed, sheet="Solicitações"))
    picked = event.selection.rows if event and event.selection else []
    if picked:
        st.session_state["req_open"] = rows[picked[0]]["id"]
    labels = {r["id"]: f"{r['protocol']} · {r['requester']['name']}" for r in rows}
    opened = st.selectbox("Abrir pedido", list(labels), index=None, key="req_pick", format_func=labels.get,
                          placeholder="Escolha...")
    if opened:
        st.session_state["req_open"] = opened
    if st.session_state.get("req_open"):
        st.divider()
        record(st.session_state["req_open"])
