"""Schedule board (Decreto 017/2026, art. 3): paid or deferred requests by zone and locality in protocol
order, the machines and operators free on the day, booking for a day or a period, rescheduling and
cancelling a booking, the week per machine and the printable week. Every list is read a page at a
time (issue 21: the whole queue, fleet and week were drawn on each render); a row clicked chooses
its record in the form below."""
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
from ui.lists import asked_page, every_row, follow_click, keep_choice, list_view

KINDS = dict(ASSET_KINDS)  # the kind beside the plate: each machine serves its Anexo I items
BOOKED = ["Protocolo", "Zona", "Localidade", "Máquina", "Operador"]
QUEUE = ["Ordem", "Protocolo", "Solicitante", "Zona", "Localidade", "Serviços", "Urgente", "Motivo da posição"]
actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
today = clock.today()
common.page_header("Agenda", "Cronograma por zona e localidade, em ordem de protocolo (art. 3)")
if st.session_state.get("sched_done"):
    st.success(st.session_state.pop("sched_done"))

day = st.date_input("Dia", today, min_value=today, format="DD/MM/YYYY", key="sched_day")


def queue_row(e) -> dict:
    return {"Ordem": e.position, "Protocolo": e.protocol, "Solicitante": e.requester, "Zona": e.zone,
            "Localidade": e.locality, "Serviços": e.services, "Urgente": "Sim" if e.urgent else "",
            "Motivo da posição": f"{e.reason} ({e.reference})"}


def asset_row(a: dict) -> dict:
    return {"Identificação": a["identifier"], "Tipo": KINDS.get(a.get("kind"), a.get("kind") or ""),
            "Descrição": a.get("description") or ""}


def operator_row(o: dict) -> dict:
    return {"Nome": o["name"], "Função": dict(DUTIES).get(o.get("duty"), o.get("duty") or ""),
            "CNH": o.get("licence_category") or ""}


def booked_row(b: dict) -> dict:
    return {"Protocolo": b.get("protocol", ""), "Zona": b.get("zone", ""), "Localidade": b.get("locality", ""),
            "Máquina": b.get("asset", ""), "Operador": b.get("operator", "")}


def paged_list(key: str, rows: list[dict], columns: list[str], total: int, pages: int, kind: str, everything,
               noun: tuple[str, str], hint: str | None) -> int | None:
    """One list of the board: its page, count and exports (``everything``: every row, when clicked)."""
    return list_view(key, pd.DataFrame(rows, columns=columns), total, pages, kind, mun,
                     lambda: exports.to_csv(everything(), columns),
                     lambda: exports.to_xlsx(everything(), columns, sheet=kind[:31]), noun=noun, hint=hint)


def show_period(until) -> None:
    """Before the booking is saved: the days the period takes and those it skips, with why (art. 3, III)."""
    ok, shown = common.attempt(schedule.period_preview, db, actor, mun, day, until)
    if not ok:
        return
    taken = [fmt.day(d)[:5] for d in shown.days]
    listed = taken[0] if len(taken) == 1 else ", ".join(taken[:-1]) + f" e {taken[-1]}"
    text = f"{fmt.day(day)} a {fmt.day(until)}: {fmt.count(len(taken), 'dia de serviço', 'dias de serviço')} ({listed})."
    if shown.skipped:
        text += " Ficam fora: " + "; ".join(f"{fmt.day(s.day)} ({s.reason})" for s in shown.skipped) + "."
    st.info(text, icon=":material/event_busy:")


def free_list(key: str, search_label: str, placeholder: str, service, row, columns: list[str], kind: str,
              noun: tuple[str, str], hint: str, target: str):
    """The machines or the operators free on the day: searched and paged in the store; a row clicked
    is chosen in the booking form's ``target``."""
    search = st.text_input(search_label, key=f"{key}_search", placeholder=placeholder)
    page, per_page = asked_page(key)
    ok, free = common.attempt(service, db, actor, mun, day, search, page, per_page)
    if not ok:
        st.stop()
    clicked = paged_list(key, [row(record) for record in free.rows], columns, free.total, free.pages, kind,
                         lambda: [row(record) for record in every_row(
                             lambda p, n: service(db, actor, mun, day, search, p, n))], noun, hint)
    follow_click(free.rows[clicked]["id"] if clicked is not None else None, target)
    return free


st.subheader("Fila a agendar")
search = st.text_input("Buscar na fila", key="sched_queue_search", placeholder="Protocolo ou nome do solicitante")
page, per_page = asked_page("sched_queue")
ok, queue = common.attempt(schedule.queue_page, db, actor, mun, day, page, per_page, search)
if not ok:
    st.stop()
clicked = paged_list("sched_queue", [queue_row(e) for e in queue.entries], QUEUE, queue.total, queue.pages,
                     "Fila da agenda",
                     lambda: [queue_row(e) for e in schedule.queue_rows(db, actor, mun, day, search)],
                     ("pedido", "pedidos"), "Clique em um pedido para escolhê-lo no agendamento abaixo.")
follow_click(queue.entries[clicked].request_id if clicked is not None else None, "sched_request")

assets_tab, operators_tab = st.tabs([f"Máquinas e veículos livres em {fmt.day(day)}",
                                     f"Operadores e motoristas livres em {fmt.day(day)}"])
with assets_tab:
    free_assets = free_list("sched_assets", "Buscar máquina ou veículo", "Placa, patrimônio, marca ou modelo",
                            schedule.free_assets, asset_row, ["Identificação", "Tipo", "Descrição"], "Máquinas livres",
                            ("máquina ou veículo", "máquinas ou veículos"), "Clique em uma máquina para escolhê-la no agendamento abaixo.",
                            "sched_asset")
with operators_tab:
    free_operators = free_list("sched_operators", "Buscar operador ou motorista", "Nome", schedule.free_operators,
                               operator_row, ["Nome", "Função", "CNH"], "Operadores livres",
                               ("operador ou motorista", "operadores ou motoristas"),
                               "Clique em um operador para escolhê-lo no agendamento abaixo.", "sched_operator")

if queue.entries:
    st.subheader("Agendar")
    in_order = {e.request_id: f"{e.position}º · {e.protocol} · {e.requester} · {e.locality}" for e in queue.entries}
    assets = {a["id"]: f"{a['identifier']} · {KINDS.get(a.get('kind'), a.get('kind') or '')}"
              for a in free_assets.rows}
    operators = {o["id"]: o["name"] for o in free_operators.rows}
    for key, options in (("sched_request", in_order), ("sched_asset", assets), ("sched_asset_2", assets),
                         ("sched_operator", operators), ("sched_operator_2", operators)):
        keep_choice(key, list(options))
    st.caption("Pedidos, máquinas e operadores da página mostrada em cada lista acima; busque nela para achar "
               "outro.")
    # outside the form: the period's days and the days it skips show as soon as the last day is chosen
    until = st.date_input("Até (último dia, para serviço de vários dias)", value=None, min_value=day,
                          format="DD/MM/YYYY", key="sched_until",
                          help="Em branco: só o dia escolhido. Os dias seguintes são os dias úteis até esta data.")
    if until and until > day:
        show_period(until)
    with st.form("sched_form"):
        entry = st.selectbox("Pedido", list(in_order), key="sched_request", format_func=in_order.get,
                             placeholder="Escolha...")
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
        if st.form_submit_button("Agendar neste dia", type="primary"):
            pairs = [(a, o) for a, o in ((asset, operator), (asset_2, operator_2)) if a and o]
            done, doc = common.attempt(schedule.book, db, actor, mun, entry, day, pairs, until)
            if done:
                st.session_state["sched_done"] = (f"Pedido {doc['protocol']} agendado para "
                                                  f"{booking_requests.describe_period(doc['schedule'])}.")
                common.forget("sched_asset", "sched_operator", "sched_asset_2", "sched_operator_2", "sched_until")
                st.rerun()

    with st.expander("Urgência ou relevância pública (art. 3, §2)"):
        not_urgent = {e.request_id: f"{e.protocol} · {e.requester}" for e in queue.entries if not e.urgent}
        keep_choice("sched_urgent_req", list(not_urgent))
        with st.form("sched_urgent"):
            urgent = st.selectbox("Pedido", list(not_urgent), key="sched_urgent_req", format_func=not_urgent.get,
                                  placeholder="Escolha...")
            why = st.text_area("Justificativa registrada", key="sched_urgent_why")
            if st.form_submit_button("Antecipar com justificativa") and urgent:
                done, doc = common.attempt(schedule.mark_urgent, db, actor, mun, urgent, why)
                if done:
                    st.session_state["sched_done"] = f"Pedido {doc['protocol']} antecipado, com a justificativa."
                    st.rerun()

st.subheader(f"Agendados em {fmt.day(day)}")
page, per_page = asked_page("sched_booked")
ok, booked = common.attempt(schedule.booked_page, db, actor, mun, day, page, per_page)
clicked = None
if ok:
    clicked = paged_list(
        "sched_booked", [booked_row(b) for b in booked.rows], BOOKED, booked.total, booked.pages, "Agendados do dia",
        lambda: [booked_row(b) for b in every_row(lambda p, n: schedule.booked_page(db, actor, mun, day, p, n))],
        ("agendamento", "agendamentos"), "Clique em um agendamento para remarcá-lo ou cancelá-lo abaixo.")
    follow_click(booked.rows[clicked]["request_id"] if clicked is not None else None, "sched_change_req")

st.subheader("Remarcar ou cancelar um agendamento")
change_search = st.text_input("Buscar pedido agendado", key="sched_change_search",
                              placeholder="Protocolo, solicitante, CPF/CNPJ ou localidade")
ok, scheduled = common.attempt(booking_requests.list_requests, db, actor, mun, "agendado", 25, change_search)
labels = {r["id"]: f"{r['protocol']} · {r['requester']['name']} · {r.get('locality', '')}"
          for r in (scheduled if ok else [])}
picked = st.session_state.get("sched_change_req")
if picked and picked not in labels:  # clicked in the day's bookings: beyond the 25 found
    found, doc = common.attempt(booking_requests.get_request, db, actor, mun, picked)
    if found and doc["status"] == "agendado":
        labels[picked] = f"{doc['protocol']} · {doc['requester']['name']} · {doc.get('locality', '')}"
keep_choice("sched_change_req", list(labels))
chosen = st.selectbox("Pedido agendado", list(labels), key="sched_change_req", index=None,
                      placeholder="Escolha…" if labels else "Nenhum pedido agendado encontrado",
                      format_func=labels.get)
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
page, per_page = asked_page("sched_week")
ok, week = common.attempt(schedule.week_board, db, actor, mun, week_start, page, per_page)
if ok:
    heads = [f"{fmt.weekday(d, short=True)} {d:%d/%m}" for d in week.days]

    def week_rows(machines) -> list[dict]:
        return [{"Máquina": m.identifier, "Tipo": KINDS.get(m.kind, m.kind),
                 **{head: taken or ("em manutenção" if m.status == "em_manutencao" else "livre")
                    for head, taken in zip(heads, m.taken)}} for m in machines]

    def every_machine() -> list[dict]:
        return week_rows(every_row(lambda p, n: schedule.week_board(db, actor, mun, week_start, p, n),
                                   field="machines"))

    paged_list("sched_week", week_rows(week.machines), ["Máquina", "Tipo", *heads], week.total, week.pages,
               "Semana das máquinas", every_machine, ("máquina ou veículo", "máquinas ou veículos"), None)

st.subheader("Semana para impressão")
st.download_button(f"Agenda da semana de {fmt.day(week_start)} (PDF)",
                   lambda: documents.week_board_pdf(db, actor, mun, week_start), f"agenda_{week_start}.pdf",
                   "application/pdf", key="sched_week_pdf",
                   icon=":material/picture_as_pdf:",
                   on_click="ignore")  # made when clicked, not on every render of the page
