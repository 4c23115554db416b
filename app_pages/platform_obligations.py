"""Obrigações das plataformas: lists received and reconciled (drafts of autos), trip data requests and
their 24 hours, trip data import with a dry run, ISSQN per vehicle and month with its DAM."""
from datetime import date, datetime
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules.fmt import brl, count, day, moment, plural
from rules.ridehailing.obligations import TRIP_COLUMNS
from services.ridehailing import (
    data_answers,
    issqn,
    platform_files,
    platform_lists,
    registry,
    trip_data,
)
from services.shared import clock, entity_lists, exports, fields, schema, uploads
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.parameter_labels import label
from ui import common
from ui.data_answers import answers_panel
from ui.lists import export_buttons

actor = common.guard("write")
db = common.db()
mun = common.municipality()
rules = registry.rules_of(mun)
today = clock.today()
now_local = clock.to_local(clock.now_utc()).time().replace(second=0, microsecond=0)
common.page_header("Obrigações das plataformas", rules.act)


def call(key: str, action, *args, **kwargs) -> tuple[bool, object]:
    """Run a service; a ValidationFailed keeps its per-field errors for the fields of ``key``."""
    try:
        result = action(*args, **kwargs)
    except ValidationFailed as exc:
        st.session_state[f"{key}_errors"] = exc.errors
        st.error(exc.message)
        return False, None
    except ServiceError as exc:
        st.error(exc.message)
        return False, None
    st.session_state.pop(f"{key}_errors", None)
    return True, result


def field_error(key: str, name: str) -> None:
    message = st.session_state.get(f"{key}_errors", {}).get(name)
    if message:
        st.error(message, icon=":material/error:")


def table(rows: list[dict], key: str, kind: str, empty: str) -> None:
    """The rows as a person reads them (dates dd/mm/aaaa, money R$ 1.234,56, "—" for nothing yet), whatever
    the first row holds, with the CSV/XLSX exports of the values."""
    if not rows:
        st.caption(empty)
        return
    shown = [{c: common.cell_text(v) if isinstance(v, (date, Decimal)) else v for c, v in row.items()} for row in rows]
    common.table(pd.DataFrame(shown), key=f"{key}_table")
    cols = st.columns(2)
    export_buttons(cols[0], cols[1], kind, mun, key, lambda: exports.to_csv(rows), lambda: exports.to_xlsx(rows))


def file_report(report: platform_files.FileReport, key: str) -> None:
    if report.ok:
        return
    st.error(f"{count(len(report.errors), 'problema', 'problemas')} no arquivo; nada foi gravado. Corrija e envie de novo.")
    st.dataframe(pd.DataFrame([{"Linha": e.line, "Campo": e.field, "Problema": e.message} for e in report.errors]),
                 hide_index=True, width="stretch", key=f"{key}_errors_table")


ok, platforms = common.attempt(entity_lists.list_all, db, actor, "platforms", mun, schema.ListQuery(sort="name"))
names = {p["id"]: p["name"] for p in platforms} if ok else {}
if not names:
    st.info("Cadastre as plataformas na página Plataformas para registrar suas obrigações.")
    st.stop()

tab_lists, tab_requests, tab_trips, tab_issqn = common.tabs(["Relações e conciliação", "Pedidos de dados",
                                                             "Dados de viagem", "ISSQN"], "pob_tabs")

with tab_lists:
    st.caption(f"Relação de condutores e veículos: {rules.ref('lists')}. Conciliação contra o cadastro: quem aparece "
               f"sem autorização ativa vira rascunho de auto ({platform_lists.reconciliation_reference(mun)}).")
    with st.form("pob_list_form"):
        cols = st.columns(2)
        platform_id = cols[0].selectbox("Plataforma", list(names), format_func=names.get, key="pob_list_platform",
            placeholder="Escolha...")
        received_on = cols[1].date_input("Recebida em", today, format="DD/MM/YYYY", key="pob_list_on")
        field_error("pob_list", "received_on")
        upload = st.file_uploader("Arquivo da relação (CSV ou XLSX com as colunas CPF, Placa, Nome; "
                                  f"{uploads.shown_limit('platform_list')})",
                                  type=["csv", "xlsx"], key="pob_list_file")
        field_error("pob_list", "file")
        buttons = st.columns(2)
        check = buttons[0].form_submit_button("Verificar (sem gravar)")
        receive = buttons[1].form_submit_button("Receber e conciliar", type="primary")
    if (check or receive) and upload is None:
        st.error("Escolha o arquivo da relação.")
    elif check or receive:
        _ok, report = call("pob_list", platform_lists.receive_list, db, actor, mun, platform_id, received_on,
                           upload.getvalue(), upload.name, commit=receive)
        if report is not None:
            file_report(report, "pob_list")
            if report.ok and receive:
                st.success(f"Relação recebida: {count(report.rows, 'linha', 'linhas')}, {report.hits} sem autorização válida.")
            elif report.ok:
                st.success(f"Arquivo sem problemas: {count(report.rows, 'linha', 'linhas')}. Clique em Receber e conciliar para gravar.")
    st.subheader("Prazos das relações")
    ok, statuses = common.attempt(platform_lists.list_statuses, db, actor, mun, today)
    if ok:
        table([{"Plataforma": s.platform_name, "Última relação": s.last_received, "Próxima até": s.due,
                "Situação": "🔴 atrasada" if s.late else "em dia", "Fundamento": s.reference} for s in statuses],
              "pob_status", "relacoes_prazos", "Nenhuma plataforma credenciada com data de credenciamento.")
    ok, received = common.attempt(platform_lists.received_lists, db, actor, mun)
    if ok:
        st.subheader("Relações recebidas")
        table([{"Plataforma": r["platform_name"], "Recebida em": r["received_on"], "Arquivo": r["file_name"],
                "Linhas": r["row_count"], "Irregulares": r["hit_count"], "Canal": data_answers.list_channel(r)}
               for r in received],
              "pob_lists", "relacoes_recebidas", "Nenhuma relação recebida.")
    ok, hits = common.attempt(platform_lists.drafts, db, actor, mun)
    if ok:
        st.subheader("Rascunhos de autos (conciliação)")
        table([{"Relação de": d["platform_name"], "Recebida em": d["on"], "Linha": d["line"],
                "Nome": d["name"], "CPF": fields.show("cpf", d["cpf"]), "Placa": fields.show("plate", d["plate"]),
                "Achado": d["message"], "Fundamento": d["reference"],
                "Situação": "rascunho para revisão" if d["status"] == platform_lists.DRAFT
                else "auto em rascunho"} for d in hits],
              "pob_drafts", "conciliacao_rascunhos", "Nenhum condutor ou veículo irregular nas relações recebidas.")

with tab_requests:
    st.caption(f"Pedido justificado; a plataforma tem 24 horas da notificação ({rules.ref('data_request')}). "
               "Horários de Cuiabá. Se a plataforma tem domicílio eletrônico, o pedido é entregue lá ao registrar e "
               "as 24 horas contam da entrega (a data e a hora abaixo são ignoradas); ela responde pelo portal com "
               "arquivo assinado digitalmente.")
    with st.form("pob_req_form", clear_on_submit=True):
        req_platform = st.selectbox("Plataforma", list(names), format_func=names.get, key="pob_req_platform",
            placeholder="Escolha...")
        justification = st.text_area("Justificativa", key="pob_req_justification")
        field_error("pob_req", "justification")
        period = st.columns(2)
        period_from = period[0].date_input("Período pedido: de (opcional)", None, format="DD/MM/YYYY", key="pob_req_from")
        period_to = period[1].date_input("até (opcional)", None, format="DD/MM/YYYY", key="pob_req_to")
        field_error("pob_req", "period_to")
        cols = st.columns(2)
        notified_day = cols[0].date_input("Notificada em (data)", today, format="DD/MM/YYYY", key="pob_req_day")
        notified_time = cols[1].time_input("Hora (Cuiabá)", now_local, step=60, key="pob_req_time")
        field_error("pob_req", "notified_at")
        sent = st.form_submit_button("Registrar pedido", type="primary")
    if sent and call("pob_req", trip_data.request_data, db, actor, mun, req_platform, justification,
                     datetime.combine(notified_day, notified_time, tzinfo=clock.LOCAL_TZ), period_from, period_to)[0]:
        st.success("Pedido registrado.")
    ok, requests = common.attempt(trip_data.data_requests, db, actor, mun)
    if ok:
        table([{"Plataforma": r.platform_name, "Justificativa": r.justification,
                "Notificada em": moment(clock.to_local(r.notified_at)), "Prazo": moment(clock.to_local(r.deadline)),
                "Respondida em": moment(clock.to_local(r.answered_at)) if r.answered_at else "",
                "Situação": ("🔴 " if r.late else "") + r.situation, "Canal": r.channel,
                "Assinada por": r.answer["signer_name"] if r.answer else "", "Fundamento": r.reference}
               for r in requests],
              "pob_reqs", "pedidos_de_dados", "Nenhum pedido de dados registrado.")
        answers_panel(db, actor, mun, requests)
        open_ones = {r.id: f"{r.platform_name} · notificada {moment(clock.to_local(r.notified_at))}"
                     for r in requests if r.answered_at is None}
        if open_ones:
            with st.form("pob_ans_form"):
                chosen = st.selectbox("Pedido respondido", list(open_ones), format_func=open_ones.get, key="pob_ans_id",
                    placeholder="Escolha...")
                cols = st.columns(2)
                ans_day = cols[0].date_input("Respondido em (data)", today, format="DD/MM/YYYY", key="pob_ans_day")
                ans_time = cols[1].time_input("Hora (Cuiabá)", now_local, step=60, key="pob_ans_time")
                field_error("pob_ans", "answered_at")
                answered = st.form_submit_button("Registrar resposta")
            if answered and call("pob_ans", trip_data.answer_data_request, db, actor, mun, chosen,
                                 datetime.combine(ans_day, ans_time, tzinfo=clock.LOCAL_TZ))[0]:
                st.success("Resposta registrada; recarregue a lista para ver a situação.")

with tab_trips:
    st.caption("Uma viagem por linha; o cabeçalho do CSV traz cada coluna com o nome abaixo (campos mínimos: "
               f"{rules.trip_data_fields[0].reference.rsplit(',', 1)[0]}, I a VI).")
    common.table(pd.DataFrame([{"Nome no arquivo": c.name, "Conteúdo": c.label, "Obrigatória": "Sim" if c.required else
                                "Não: pode ficar em branco"} for c in TRIP_COLUMNS]), key="pob_trip_columns",
                 height="content")
    with st.form("pob_trip_form"):
        trip_platform = st.selectbox("Plataforma", list(names), format_func=names.get, key="pob_trip_platform",
            placeholder="Escolha...")
        trip_file = st.file_uploader(f"Arquivo de viagens (CSV, {uploads.shown_limit('trip_file')})", type=["csv"], key="pob_trip_file")
        field_error("pob_trip", "file")
        buttons = st.columns(2)
        trip_check = buttons[0].form_submit_button("Verificar (sem gravar)")
        trip_import = buttons[1].form_submit_button("Importar", type="primary")
    if (trip_check or trip_import) and trip_file is None:
        st.error("Escolha o arquivo de viagens.")
    elif trip_check or trip_import:
        _ok, report = call("pob_trip", trip_data.import_trips, db, actor, mun, trip_platform, trip_file.getvalue(),
                           trip_file.name, commit=trip_import)
        if report is not None:
            file_report(report, "pob_trip")
            if report.ok:
                st.success(count(report.rows, "viagem", "viagens") + (
                    plural(report.rows, " importada.", " importadas.") if trip_import else " sem problemas."))

with tab_issqn:
    st.caption(f"ISSQN mensal por veículo ({rules.ref('issqn')}): valores das viagens informadas × alíquota em vigor "
               f"no dia de cada viagem (parâmetro «{label('issqn_rate')}»); vence no dia do parâmetro "
               f"«{label('issqn_due_day')}» do mês seguinte.")
    with st.form("pob_iss_form"):
        cols = st.columns(2)
        iss_platform = cols[0].selectbox("Plataforma", list(names), format_func=names.get, key="pob_iss_platform",
            placeholder="Escolha...")
        competence = cols[1].date_input("Mês de competência (qualquer dia do mês)", today, format="DD/MM/YYYY",
                                        key="pob_iss_month")
        assess = st.form_submit_button("Apurar o ISSQN do mês")
    if assess:
        _ok, written = call("pob_iss", issqn.assess_issqn, db, actor, mun, iss_platform, competence)
        if written is not None:
            st.success(f"{count(written, 'veículo apurado', 'veículos apurados')} em {competence:%m/%Y}.")
    ok, months = common.attempt(issqn.issqn_months, db, actor, mun, today)
    if ok:
        table([{"Plataforma": m.platform_name, "Competência": f"{m.competence[5:]}/{m.competence[:4]}",
                "Placa": fields.show("plate", m.plate), "Viagens": m.trips, "Base": m.base, "ISSQN": m.amount,
                "Vencimento": m.due, "DAM": m.dam_number, "Pago em": m.paid_on,
                "Situação": ("🔴 " if m.situation == "vencido" else "") + m.situation, "Pagamento": m.payment}
               for m in months],
              "pob_iss", "issqn_por_veiculo", "Nenhum mês apurado.")
        without_dam = {m.id: f"{m.platform_name} · {m.competence[5:]}/{m.competence[:4]} · "
                             f"{fields.show('plate', m.plate)} · {brl(m.amount)}" for m in months if m.needs_dam}
        if without_dam:
            with st.form("pob_dam_form"):
                chosen_month = st.selectbox("Emitir DAM do mês", list(without_dam), format_func=without_dam.get,
                                            key="pob_dam_id", placeholder="Escolha...")
                address = st.text_input("Endereço da plataforma (se não estiver em Contribuintes)", key="pob_dam_address")
                field_error("pob_dam", "address")
                issue = st.form_submit_button("Emitir DAM")
            if issue:
                _ok, dam = call("pob_dam", issqn.issue_issqn_dam, db, actor, mun, chosen_month, address)
                if dam is not None:
                    st.success(f"DAM {dam['number']} emitido, vencimento {day(dam['due_on'])}; imprima na página DAM.")
