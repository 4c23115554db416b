"""Schedule board (Decreto 017/2026, art. 3): paid or deferred requests by zone and locality in protocol
order, the machines and operators free on the day, booking for a day or a period, rescheduling and
cancelling a booking, the week per machine and the printable week."""
from datetime import timedelta

import pandas as pd
import streamlit as st

from rules import fmt
from services.machinery import booking_requests, documents, schedule
from services.shared import clock, exports
from services.shared.specs.maquinas import ASSET_KINDS, DUTIES
from ui import bookings as ui_bookings
from ui import common
from ui.entity import confirm_button
from ui.lists import export_buttons

KINDS = dict(ASSET_KINDS)  # the kind beside the plate: each machine serves its Anexo I items
actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
today = clock.today()
common.page_header("Agenda", "Cronograma por zona e localidade, em ordem de protocolo (art. 3)")
if st.session_state.get("sched_done"):
    st.success(st.session_state.pop("sched_done"))

day = st.date_input("Dia", today, min_value=today, format="DD/MM/YYYY", key="sched_day")
ok, board = common.attempt(schedule.schedule_board, db, actor, mun, day)
if not ok:
    st.stop()
st.subheader("Fila a agendar")
queue = [{"Ordem": e.position, "Protocolo": e.protocol, "Solicitante": e.requester, "Zona": e.zone,
          "Localidade": e.locality, "Serviços": e.services, "Urgente": "Sim" if e.urgent else "",
          "Motivo da posição": f"{e.reason} ({e.reference})"} for e in board.queue]
st.dataframe(pd.DataFrame(queue, columns=["Ordem", "Protocolo", "Solicitante", "Zona", "Localidade", "Serviços",
                                          "Urgente", "Motivo da posição"]), hide_index=True, width="stretch",
             key="sched_queue")
cols = st.columns(2)
export_buttons(cols[0], cols[1], "Fila da agenda", mun, "sched_list",
               lambda: exports.to_csv(queue), lambda: exports.to_xlsx(queue, sheet="Fila"))

left, right = st.columns(2)
with left:
    st.markdown(f"**Máquinas e veículos livres em {fmt.day(day)}**")
    st.dataframe(pd.DataFrame([{"Identificação": a["identifier"], "Tipo": KINDS.get(a.get("kind"), a.get("kind", "")),
                                "Descrição": a.get("description", "")} for a in board.free_assets],
                              columns=["Identificação", "Tipo", "Descrição"]), hide_index=True, width="stretch")
with right:
    st.markdown(f"**Operadores e motoristas livres em {fmt.day(day)}**")
    st.dataframe(pd.DataFrame([{"Nome": o["name"], "Função": dict(DUTIES).get(o.get("duty"), o.get("duty", "")), "CNH": o.get("licence_category", "")}
                               for o in board.free_operators], columns=["Nome", "Função", "CNH"]),
                 hide_index=True, width="stretch")

if board.queue:
    st.subheader("Agendar")
    # each label made once: looking each option up in the queue took time growing with its square
    # (2.952 requests waiting at benchmark scale 100)
    in_order = {e.request_id: f"{e.position}º · {e.protocol} · {e.requester} · {e.locality}" for e in board.queue}
    with st.form("sched_form"):
        entry = st.selectbox("Pedido", list(in_order), key="sched_request", format_func=in_order.get,
                             placeholder="Escolha...")
        assets = {a["id"]: f"{a['identifier']} · {KINDS.get(a.get('kind'), a.get('kind', ''))}"
                  for a in board.free_assets}
        operators = {o["id"]: o["name"] for o in board.free_operators}
        cols = st.columns(2)
        asset = cols[0].selectbox("Máquina ou veículo", list(assets), format_func=assets.get, key="sched_asset",
                                  index=None, placeholder="Escolha…")
        operator = cols[1].selectbox("Operador ou motorista", list(operators), format_func=operators.get,
                                     key="sched_operator", index=None, placeholder="Escolha…")
        cols = st.columns(2)
        asset_2 = cols[0].selectbox("Segunda máquina ou veículo (opcional)", list(assets), format_func=assets.get,
                                    key="sched_asset_2", index=None, placeholder="—")
        operator_2 = cols[1].selectbox("Operador ou motorista da segunda", list(operators),
                                       format_func=operators.get, key="sched_operator_2", index=None,
                                       placeholder="—")
        until = st.date_input("Até (último dia, para serviço de vários dias)", value=None, min_value=day,
                              format="DD/MM/YYYY", key="sched_until",
                              help="Em branco: só o dia escolhido. Os dias seguintes são os dias úteis até "
                                   "esta data.")
        if st.form_submit_button("Agendar neste dia", type="primary"):
            pairs = [(a, o) for a, o in ((asset, operator), (asset_2, operator_2)) if a and o]
            done, doc = common.attempt(schedule.book, db, actor, mun, entry, day, pairs, until)
            if done:
                st.session_state["sched_done"] = (f"Pedido {doc['protocol']} agendado para "
                                                  f"{booking_requests.describe_period(doc['schedule'])}.")
                common.forget("sched_asset", "sched_operator", "sched_asset_2", "sched_operator_2", "sched_until")
                st.rerun()

    with st.expander("Urgência ou relevância pública (art. 3, §2)"):
        with st.form("sched_urgent"):
            not_urgent = {e.request_id: f"{e.protocol} · {e.requester}" for e in board.queue if not e.urgent}
            urgent = st.selectbox("Pedido", list(not_urgent), key="sched_urgent_req", format_func=not_urgent.get,
                                  placeholder="Escolha...")
            why = st.text_area("Justificativa registrada", key="sched_urgent_why")
            if st.form_submit_button("Antecipar com justificativa") and urgent:
                done, doc = common.attempt(schedule.mark_urgent, db, actor, mun, urgent, why)
                if done:
                    st.session_state["sched_done"] = f"Pedido {doc['protocol']} antecipado, com a justificativa."
                    st.rerun()

st.subheader(f"Agendados em {fmt.day(day)}")
st.dataframe(pd.DataFrame([{"Protocolo": b.get("protocol", ""), "Zona": b.get("zone", ""),
                            "Localidade": b.get("locality", ""), "Máquina": b.get("asset", ""),
                            "Operador": b.get("operator", "")} for b in board.booked],
                          columns=["Protocolo", "Zona", "Localidade", "Máquina", "Operador"]),
             hide_index=True, width="stretch", key="sched_booked")

ok, scheduled = common.attempt(booking_requests.list_requests, db, actor, mun, "agendado")
if ok and scheduled:
    st.subheader("Remarcar ou cancelar um agendamento")
    labels = {r["id"]: f"{r['protocol']} · {r['requester']['name']} · {r.get('locality', '')}" for r in scheduled}
    chosen = st.selectbox("Pedido agendado", list(labels), key="sched_change_req", index=None,
                          placeholder="Escolha…", format_func=labels.get)
    if chosen:
        ok, current = common.attempt(booking_requests.get_request, db, actor, mun, chosen)
        if ok:
            plan = current["schedule"]
            st.markdown(f"Agendado para {booking_requests.describe_period(plan)}: " + "; ".join(
                f"{b['asset']} com {b['operator']}" for b in plan["bookings"]))
            with st.form("sched_move"):
                cols = st.columns(2)
                first = cols[0].date_input("Novo primeiro dia", None, min_value=today, format="DD/MM/YYYY",
                                           key="sched_move_day")
                last = cols[1].date_input("Novo último dia (opcional)", None, min_value=today, format="DD/MM/YYYY",
                                          key="sched_move_until")
                why = st.text_area("Motivo da remarcação *", key="sched_move_reason")
                if st.form_submit_button("Remarcar com as mesmas máquinas e operadores"):
                    done, doc = common.attempt(schedule.reschedule, db, actor, mun, chosen, first, why, last)
                    if done:
                        st.session_state["sched_done"] = (f"Pedido {doc['protocol']} remarcado para "
                                                          f"{booking_requests.describe_period(doc['schedule'])}.")
                        common.forget("sched_move_day", "sched_move_until", "sched_move_reason")
                        st.rerun()
            reason = st.text_area("Motivo do cancelamento *", key="sched_cancel_reason")
            if confirm_button("Cancelar agendamento", "sched_cancel",
                              f"Cancelar o agendamento do pedido {current['protocol']}? As máquinas e os operadores "
                              "ficam livres e o pedido volta à fila na sua posição de protocolo."):
                done, doc = common.attempt(schedule.cancel_booking, db, actor, mun, chosen, reason)
                if done:
                    st.session_state["sched_done"] = (f"Agendamento do pedido {doc['protocol']} cancelado; "
                                                      "o pedido voltou à fila.")
                    common.forget("sched_cancel_reason", "sched_change_req")
                    st.rerun()

week_start = day - timedelta(days=day.weekday())
st.subheader(f"Máquinas na semana de {fmt.day(week_start)}")
ok, week = common.attempt(schedule.week_board, db, actor, mun, week_start)
if ok:
    heads = [f"{fmt.weekday(d, short=True)} {d:%d/%m}" for d in week.days]
    rows = [{"Máquina": m.identifier, "Tipo": KINDS.get(m.kind, m.kind),
             **{head: taken or ("em manutenção" if m.status == "em_manutencao" else "livre")
                for head, taken in zip(heads, m.taken)}} for m in week.machines]
    st.dataframe(pd.DataFrame(rows, columns=["Máquina", "Tipo", *heads]), hide_index=True, width="stretch",
                 key="sched_week_board")

st.subheader("Semana para impressão")
st.download_button(f"Agenda da semana de {fmt.day(week_start)} (PDF)",
                   lambda: documents.week_board_pdf(db, actor, mun, week_start), f"agenda_{week_start}.pdf",
                   "application/pdf", key="sched_week_pdf",
                   icon=":material/picture_as_pdf:")  # made when clicked, not on every render of the page
