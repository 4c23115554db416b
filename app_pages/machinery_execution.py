"""Execution of scheduled services: start, meters, loads, hours, completion → balance DAM or credit
(Decreto 017/2026, art. 8 §2); bus and van hire: responsible person, driver, passengers, incidents (art. 6)."""
from datetime import date
from decimal import Decimal

import pandas as pd
import streamlit as st

from rules import fmt
from services.machinery import (
    attachments,
    booking_requests,
    documents,
    execution,
    trips,
)
from services.machinery.execution import ExecutionInput
from services.shared import clock, fields
from services.shared.errors import ServiceError, ValidationFailed
from ui import bookings as ui_bookings
from ui import common
from ui.entity import forget

actor = ui_bookings.guard("write")
db = common.db()
mun = common.municipality()
today = clock.today()
common.page_header("Execução", "Registro do serviço executado e conclusão (art. 8, §2)")
if st.session_state.get("exec_done"):
    st.success(st.session_state.pop("exec_done"))

SHOWN = 25  # of each status, newest protocol first: a search finds the others (issue 21: up to 400 were read)
search = st.text_input("Buscar pedido", key="exec_search", placeholder="Protocolo, solicitante, CPF/CNPJ ou localidade")
rows, more = [], False
for status in ("agendado", "em_execucao"):
    ok, found = common.attempt(booking_requests.list_requests, db, actor, mun, status, SHOWN, search)
    rows += found if ok else []
    more = more or (ok and len(found) == SHOWN)
if not rows:
    st.info("Nenhum pedido agendado ou em execução" + (" encontrado na busca." if search.strip() else "."))
    st.stop()
if more:
    st.caption(f"Os {SHOWN} pedidos agendados e os {SHOWN} em execução mais recentes; busque para achar outro.")
labels = {r["id"]: f"{r['protocol']} · {r['requester']['name']} · {r['status_label']}" for r in rows}
rid = st.selectbox("Pedido", list(labels), key="exec_request", format_func=labels.get, placeholder="Escolha...")
ok, doc = common.attempt(booking_requests.get_request, db, actor, mun, rid)
if not ok:
    st.stop()
schedule = doc.get("schedule") or {}
st.markdown(f"**{doc['protocol']}** · {booking_requests.describe_services(doc['services'])} · agendado para "
            f"{booking_requests.describe_period(schedule) or '—'}")
st.download_button("Ordem de serviço (PDF)", lambda: documents.service_order_pdf(db, actor, mun, rid),
                   f"os_{doc['sequence']}.pdf", "application/pdf", key="exec_order_pdf",
                   icon=":material/picture_as_pdf:",
                   on_click="ignore")  # made when clicked, not on every render of the page
if doc["status"] == "agendado" and st.button("Registrar início do serviço hoje", key="exec_start"):
    done, _ = common.attempt(execution.start_execution, db, actor, mun, rid, today)
    if done:
        st.session_state["exec_done"] = "Início registrado."
        st.rerun()

errors: dict[str, str] = st.session_state.get("exec_errors", {})


def under(name: str) -> None:
    if errors.get(name):
        st.caption(f":red[{errors[name]}]")


def number(text: str) -> Decimal | None:
    """A meter reading or a count as typed (1.234,5 or 1234.5); None when empty or not a number."""
    try:
        return fields.parse_decimal(text) if (text or "").strip() else None
    except ValueError:
        return None


SHOWN = ("ended_on", "meters", "worked_hours", "loads_delivered")
for name, message in errors.items():  # an error of no field on this form (e.g. the rules' refusal)
    if name not in SHOWN:
        st.error(message)
bookings_ = schedule.get("bookings", [])
hour_items = [s["item"] for s in doc["services"] if s["kind"] == "machine_hours"]
has_loads = any(s["kind"] == "earth_loads" for s in doc["services"])
with st.form("exec_form"):
    cols = st.columns(2)
    started = cols[0].date_input("Início", min(schedule.get("day") or today, today), max_value=today,
                                 format="DD/MM/YYYY", key="exec_started")
    ended = cols[1].date_input("Conclusão", today, max_value=today, format="DD/MM/YYYY", key="exec_ended")
    under("ended_on")
    meters = []
    for b in bookings_:
        cols = st.columns(2)
        start = cols[0].text_input(f"{b['asset']}: horímetro/odômetro inicial", key=f"exec_m0_{b['asset_id']}")
        end = cols[1].text_input(f"{b['asset']}: horímetro/odômetro final", key=f"exec_m1_{b['asset_id']}")
        meters.append((b["asset_id"], start, end))
    under("meters")
    hours = {item: st.text_input(f"Horas executadas (item {item})", key=f"exec_hours_{item}") for item in hour_items}
    under("worked_hours")
    loads = st.number_input("Cargas entregues *", 0, 100, None, 1, key="exec_loads",
                            placeholder="Informe (0 se nenhuma)") if has_loads else None
    under("loads_delivered")
    notes = st.text_area("Observações", key="exec_notes")
    photos = st.file_uploader("Fotos (opcional)", accept_multiple_files=True, key="exec_photos")
    submitted = st.form_submit_button("Concluir serviço", type="primary")
if submitted:
    bad = {}
    read = []
    for asset_id, start, end in meters:
        a, b = number(start), number(end)
        if (start or end) and (a is None or b is None):
            bad["meters"] = "Informe as duas leituras em número."
        elif a is not None:
            read.append((asset_id, a, b))
    worked = []
    for item, text in hours.items():
        value = number(text)
        if value is None:
            bad["worked_hours"] = "Informe as horas executadas de cada máquina (0 se não usada)."
        else:
            worked.append((item, value))
    if has_loads and loads is None:  # empty is not 0: the service refuses it too
        bad["loads_delivered"] = execution.LOADS_MISSING
    if bad:
        st.session_state["exec_errors"] = bad
        st.rerun()
    operator = bookings_[0]["operator_id"] if bookings_ else ""
    sha = tuple(attachments.add_attachment(db, actor, mun, rid, f.getvalue(), f.name, "foto") for f in photos or [])
    try:
        result = execution.complete(db, actor, mun, rid, ExecutionInput(
            started, ended, operator, tuple(read), int(loads) if loads is not None else None, tuple(worked), sha, notes))
    except ValidationFailed as exc:
        st.session_state["exec_errors"] = exc.errors
        st.rerun()
    except ServiceError as exc:
        st.error(exc.message)
    else:
        st.session_state.pop("exec_errors", None)
        forget("exec_notes", "exec_loads", *(f"exec_m{n}_{b['asset_id']}" for b in bookings_ for n in (0, 1)),
               *(f"exec_hours_{item}" for item in hour_items), exec_notes="", exec_loads=None)  # the next form
        settlement = result.get("settlement") or {}
        st.session_state["exec_done"] = "Serviço concluído. " + (settlement.get("message") or "")
        st.rerun()

if doc["services"] and any(s["kind"] == "passenger_transport" for s in doc["services"]):
    st.subheader("Viagem (art. 6)")
    trip = doc.get("trip") or {}
    with st.form("exec_trip"):
        name = st.text_input("Responsável pela viagem *", trip.get("responsible_name", ""), key="exec_trip_name")
        document = st.text_input("CPF do responsável *", trip.get("responsible_document", ""), key="exec_trip_doc")
        driver = st.selectbox("Motorista (servidor)", [b["operator_id"] for b in bookings_], key="exec_trip_driver",
                              format_func=lambda i: next(b["operator"] for b in bookings_ if b["operator_id"] == i),
                                  placeholder="Escolha...")
        passengers = st.text_area("Passageiros (um por linha)", "\n".join(trip.get("passengers") or []),
                                  key="exec_trip_passengers")
        route = st.text_input("Rota *", trip.get("route", ""), key="exec_trip_route")
        if st.form_submit_button("Salvar dados da viagem"):
            done, _ = common.attempt(trips.record_trip, db, actor, mun, rid, name, document, driver or "",
                                     [p for p in passengers.splitlines() if p.strip()], route)
            if done:
                st.session_state["exec_done"] = "Dados da viagem registrados."
                st.rerun()
    incidents = trip.get("incidents") or []
    st.dataframe(pd.DataFrame([{"Data": fmt.day(date.fromisoformat(str(i["on"])[:10])),
                                "Ocorrência": i.get("kind_label", i["kind"]), "Descrição": i["description"],
                                "Responsável": i.get("responsible", "")} for i in incidents],
                              columns=["Data", "Ocorrência", "Descrição", "Responsável"]), hide_index=True,
                 width="stretch")
    with st.form("exec_incident"):
        on = st.date_input("Data", today, max_value=today, format="DD/MM/YYYY", key="exec_inc_on")
        kind = st.selectbox("Ocorrência", list(trips.INCIDENT_KINDS), format_func=trips.INCIDENT_KINDS.get,
                            key="exec_inc_kind", placeholder="Escolha...")
        description = st.text_area("Descrição *", key="exec_inc_text")
        if st.form_submit_button("Registrar ocorrência"):
            done, _ = common.attempt(trips.record_incident, db, actor, mun, rid, on, kind, description)
            if done:
                st.session_state["exec_done"] = "Ocorrência registrada contra o responsável pela viagem."
                st.rerun()
