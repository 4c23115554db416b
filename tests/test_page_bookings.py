"""Machinery bookings screens of Nova Lacerda driven as a user would (AppTest)."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.dam import payments
from services.dam import payments as dam_payments
from services.shared import clock, parameters
from services.shared.auth import Actor
from tests.conftest import TI

ROOT = Path(__file__).resolve().parent.parent
MUN = "nova_lacerda"
CLERK = Actor("secretaria.novalacerda", "Servidora de Nova Lacerda", "secretaria", (MUN,))


def page(name: str, actor: Actor = CLERK, municipality: str = MUN) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / name), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    return at.run()


def texts(at: AppTest, kind: str) -> str:
    return " | ".join(e.value for e in getattr(at, kind))


def frame_text(at: AppTest, column: str) -> str:
    """The text of the first table on screen with that column."""
    return next(d.value for d in at.dataframe if column in d.value.columns).to_string()


def test_price_table_update_is_previewed_then_saved(db):
    at = page("price_table.py", TI)
    assert not at.exception
    assert "Retroescavadeira" in frame_text(at, "Preço (R$)") and "R$ 300,00" in frame_text(at, "Preço (R$)")
    at.selectbox(key="prices_index").set_value("INPC")
    at.text_input(key="prices_variation").input("10")
    at.text_input(key="prices_period").input("03/2026 a 02/2027")
    at.text_input(key="prices_act").input("Decreto Municipal 40/2027")
    at.button[0].click().run()
    assert not at.exception
    preview = frame_text(at, "Novo preço")
    assert "R$ 330,00" in preview and "R$ 165,00" in preview and "R$ 4,95" in preview
    assert "nada foi gravado" in " ".join(m.value for m in at.markdown)
    assert len(parameters.book(db, MUN).history("public_price_table")) == 1
    at.button(key="prices_save").click().run()
    assert not at.exception
    assert "Nova versão registrada" in texts(at, "success")
    versions = parameters.book(db, MUN).history("public_price_table")
    assert [v.effective for v in versions] == [versions[0].effective, clock.today() + timedelta(days=1)]
    assert D(str(versions[1].value["01"])) == D("330.00")


def test_price_table_errors_show_under_their_fields(db):
    at = page("price_table.py", TI)
    at.text_input(key="prices_variation").input("abc")
    at.button[0].click().run()
    captions = " ".join(c.value for c in at.caption)
    assert "Informe a variação do índice" in captions
    assert "Informe o período de referência" in captions and "Informe o ato do Poder Executivo" in captions
    assert all("Novo preço" not in d.value.columns for d in at.dataframe)


def test_price_table_is_not_offered_where_the_module_is_off(db):
    at = page("price_table.py", TI, "chapada")
    assert texts(at, "error") == "O módulo de serviços de máquinas não está habilitado neste município."


# ---- the bookings screens as a Nova Lacerda clerk (issue 13) ----

from datetime import date  # noqa: E402

from pypdf import PdfReader  # noqa: E402

from services.dam import dams  # noqa: E402
from services.machinery import (
    booking_requests,
    documents,
    payment,
    protocol,
    quotes,
    schedule,
)
from tests.test_bookings import HOURS6, LOADS5, MONDAY, form, nl  # noqa: E402,F401 — the fixture with zones, machines and requesters


def pdf_text(data: bytes) -> str:
    import io

    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(data)).pages)


def fill_protocol(at: AppTest, requester_id: str, term: str) -> None:
    at.selectbox(key="req_requester").set_value(requester_id).run()  # a small register: one widget
    at.text_input(key="req_identification").input("RG 123456 SSP/MT")
    at.text_input(key="req_residence").input("Conta de energia de outubro")
    at.text_area(key="req_justification").input("Aterro do quintal")
    at.text_input(key="req_licence").input("Cascalheira municipal, LO 12/2026")
    at.checkbox(key="req_agrees").check()
    at.checkbox(key="req_liability").check()


def submit(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Protocolar solicitação").click()
    return at.run()


def bpc_family_request(at: AppTest, nl: dict) -> None:
    """Maria's family protocols 5 loads with the BPC discount (Decreto 017/2026, art. 7, §3, I; Anexo II)."""
    fill_protocol(at, nl["family"], "Maria")
    at.number_input(key="req_loads").set_value(5)
    at.selectbox(key="req_criterion").set_value("BPC")
    at.selectbox(key="req_evidence").set_value("BPC_RECEIPT")
    at.text_input(key="req_evidence_ref").input("NB 123.456.789-0")
    submit(at)


def test_bpc_family_story_on_the_screens(db, nl, today):
    at = page("machinery_requests.py")
    assert not at.exception
    bpc_family_request(at, nl)
    assert not at.exception, at.exception
    assert f"Solicitação protocolada sob o nº 0001/{MONDAY.year}" in texts(at, "success")
    rid = at.session_state["req_open"]
    at.button(key="req_quote").click().run()
    assert "Orçamento feito." in texts(at, "success")
    quote = frame_text(at, "Desconto")
    assert "R$ 750,00" in quote and "R$ 525,00" in quote and "R$ 225,00" in quote and "70%" in quote
    next(b for b in at.button if b.label == "Emitir DAMs").click()
    at.run()
    assert "DAMs emitidos" in texts(at, "success")
    [full] = [i for i in booking_requests.get_request(db, CLERK, MUN, rid)["payment"]["instalments"] if i["dam_id"]]
    dam = dams.get(db, CLERK, MUN, full["dam_id"])
    # issue 22 item 5: the action leads to what it produced, the DAM's number and its PDF
    [pdf] = [b for b in at.get("download_button") if b.proto.label.startswith("Baixar PDF dos DAMs em aberto")]
    assert dam["number"] in pdf.proto.label
    payments.record_payment(db, CLERK, MUN, full["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")

    day = MONDAY + timedelta(days=2)
    board = page("machinery_schedule.py")
    board.date_input(key="sched_day").set_value(day).run()
    assert "Assentamento Bandeira" in frame_text(board, "Motivo da posição")
    board.selectbox(key="sched_asset").set_value(nl["truck"])
    board.selectbox(key="sched_operator").set_value(nl["pedro"])
    next(b for b in board.button if b.label == "Agendar neste dia").click()
    board.run()
    assert not board.exception, board.exception
    assert f"agendado para {day:%d/%m/%Y}" in texts(board, "success")
    assert "QBA1D23" in frame_text(board, "Operador")

    today.set(day)
    run = page("machinery_execution.py")
    run.text_input(key=f"exec_m0_{nl['truck']}").input("80000")
    run.text_input(key=f"exec_m1_{nl['truck']}").input("80060")
    run.number_input(key="exec_loads").set_value(5)
    next(b for b in run.button if b.label == "Concluir serviço").click()
    run.run()
    assert not run.exception, run.exception
    assert "Serviço concluído." in texts(run, "success")
    receipt = pdf_text(documents.receipt_pdf(db, CLERK, MUN, rid))
    assert "COMPROVANTE DE PRESTAÇÃO DE SERVIÇO" in receipt and "Cargas entregues 5" in receipt
    assert "o total de R$ 225,00" in receipt


def test_farmer_story_balance_due_and_next_request_blocked_on_the_screen(db, nl, today):
    at = page("machinery_requests.py")
    fill_protocol(at, nl["farmer"], "Antônio")
    at.text_input(key="req_hours_01").input("6")
    submit(at)
    assert "Solicitação protocolada" in texts(at, "success")
    rid = at.session_state["req_open"]
    at.button(key="req_quote").click().run()
    next(b for b in at.button if b.label == "Emitir DAMs").click()
    at.run()
    doc = booking_requests.get_request(db, CLERK, MUN, rid)
    advance = next(i for i in doc["payment"]["instalments"] if i["key"] == "adiantamento")
    assert advance["amount"] == D("900.00")
    dam = dams.get(db, CLERK, MUN, advance["dam_id"])
    payments.record_payment(db, CLERK, MUN, advance["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    day = MONDAY + timedelta(days=1)
    schedule.book(db, CLERK, MUN, rid, day, [(nl["backhoe"], nl["joao"])])
    today.set(day)
    run = page("machinery_execution.py")
    run.text_input(key="exec_hours_01").input("7")
    next(b for b in run.button if b.label == "Concluir serviço").click()
    run.run()
    assert not run.exception, run.exception
    settlement = booking_requests.get_request(db, CLERK, MUN, rid)["settlement"]
    assert settlement["amount_due"] == D("1200.00") and settlement["due"] == date(2026, 4, 22)
    assert "Serviço concluído." in texts(run, "success")

    today.set(date(2026, 4, 23))
    again = page("machinery_requests.py")
    fill_protocol(again, nl["farmer"], "Antônio")
    again.text_input(key="req_hours_01").input("2")
    submit(again)
    assert not again.exception
    shown = texts(again, "error")
    assert "tem DAM vencido e não pago deste serviço" in shown and "art. 8" in shown
    assert booking_requests.list_requests(db, CLERK, MUN) and len(booking_requests.list_requests(db, CLERK, MUN)) == 1


def test_pending_and_registers_pages_open_for_the_clerk(db, nl, today):
    for name in ("machinery_pending.py", "machinery_registers.py", "machinery_requesters.py", "machinery_schedule.py",
                 "machinery_execution.py"):
        at = page(name)
        assert not at.exception, (name, at.exception)
        assert not at.error, (name, texts(at, "error"))


def test_a_completion_refused_by_the_services_says_why(db, nl, today):
    """The balance DAM cannot be issued (TI has not set the FEBRABAN code yet): the service refuses,
    the screen says so (the refusal names no field of the execution form) and nothing is completed."""
    rid = protocol.create_request(db, CLERK, MUN, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, MUN, rid, MONDAY)
    advance = next(i for i in doc["payment"]["instalments"] if i["key"] == "adiantamento")
    dam = dams.get(db, CLERK, MUN, advance["dam_id"])
    dam_payments.record_payment(db, CLERK, MUN, advance["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    schedule.book(db, CLERK, MUN, rid, MONDAY + timedelta(days=2), [(nl["backhoe"], nl["joao"])])
    today.set(MONDAY + timedelta(days=2))
    db["parameters"].delete_many({"municipality": MUN, "name": "dam_febraban_code"})
    run = page("machinery_execution.py")
    run.date_input(key="exec_started").set_value(MONDAY + timedelta(days=2))
    run.date_input(key="exec_ended").set_value(MONDAY + timedelta(days=2))
    run.text_input(key="exec_hours_01").input("7")
    next(b for b in run.button if b.label == "Concluir serviço").click()
    run.run()
    assert not run.exception
    assert "FEBRABAN" in texts(run, "error")
    assert booking_requests.get_request(db, CLERK, MUN, rid)["status"] == "agendado"


MODULE_PAGES = [p for p in __import__("ui.navigation", fromlist=["PAGES"]).PAGES if p.module == "maquinas"]
NL_ROLES = {"secretaria": CLERK, "gabinete": Actor("gab.nl", "Gabinete", "gabinete", (MUN,)),
            "ti": Actor("ti.nl", "TI de Nova Lacerda", "ti", (MUN,))}


@pytest.mark.parametrize("role", NL_ROLES)
@pytest.mark.parametrize("module_page", MODULE_PAGES, ids=lambda p: p.path)
def test_module_page_by_role_in_nova_lacerda(db, nl, today, role, module_page):
    """With the demo-like registers in place, each page opens for the roles it is meant for and
    tells the others they have no access."""
    actor = NL_ROLES[role]
    at = AppTest.from_file(str(ROOT / module_page.path), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = MUN
    at.run()
    assert not at.exception, at.exception
    if actor.can(module_page.permission):
        assert at.title and not at.error, texts(at, "error")
    else:
        assert texts(at, "error") == "Seu perfil não tem acesso a esta página."


def test_urgency_needs_a_justification_and_then_moves_ahead(db, nl, today):
    first = protocol.create_request(db, CLERK, MUN, form(nl["family"], LOADS5))
    second = protocol.create_request(db, CLERK, MUN, form(nl["association"], LOADS5))
    for rid in (first, second):
        quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
        doc = payment.issue_payment(db, CLERK, MUN, rid, MONDAY)
        [full] = [i for i in doc["payment"]["instalments"] if i["dam_id"]]
        dam = dams.get(db, CLERK, MUN, full["dam_id"])
        payments.record_payment(db, CLERK, MUN, full["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    at = page("machinery_schedule.py")
    assert frame_text(at, "Motivo da posição").index("Maria BPC") < frame_text(at, "Motivo da posição").index(
        "Associação")
    at.selectbox(key="sched_urgent_req").set_value(second)
    next(b for b in at.button if b.label == "Antecipar com justificativa").click()
    at.run()
    assert "justificativa" in texts(at, "error").lower()
    at.text_area(key="sched_urgent_why").input("Estrada da escola interrompida pela chuva")
    next(b for b in at.button if b.label == "Antecipar com justificativa").click()
    at.run()
    assert "antecipado, com a justificativa" in texts(at, "success")
    queue = frame_text(at, "Motivo da posição")
    assert queue.index("Associação") < queue.index("Maria BPC")


def test_van_hire_records_the_responsible_person_and_an_incident_against_them(db, nl, today):
    from services.machinery.protocol import ServiceAsked
    from services.shared import entities

    van = entities.create(db, CLERK, "machinery_assets", MUN, {
        "identifier": "QBH9K21", "kind": "micro_onibus_van", "description": "Renault Master", "status": "disponivel",
        "meter_kind": "odometro", "meter_reading": 61200})
    rid = protocol.create_request(db, CLERK, MUN, form(nl["association"], ServiceAsked(
        "passenger_transport", item="11", distance_km=D(120)), trip_responsible="Carla Responsável"))
    quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, MUN, rid, MONDAY)
    [full] = [i for i in doc["payment"]["instalments"] if i["dam_id"]]
    dam = dams.get(db, CLERK, MUN, full["dam_id"])
    dam_payments.record_payment(db, CLERK, MUN, full["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    schedule.book(db, CLERK, MUN, rid, MONDAY, [(van, nl["pedro"])])
    at = page("machinery_execution.py")
    at.text_input(key="exec_trip_name").input("Carla Responsável")
    at.text_input(key="exec_trip_doc").input("52998224725")
    at.text_area(key="exec_trip_passengers").input("Ana\nBeto\nCida")
    at.text_input(key="exec_trip_route").input("Nova Lacerda – Vila Bela – Nova Lacerda")
    next(b for b in at.button if b.label == "Salvar dados da viagem").click()
    at.run()
    assert "Dados da viagem registrados." in texts(at, "success")
    at.selectbox(key="exec_inc_kind").set_value("lotacao")
    at.text_area(key="exec_inc_text").input("Dois passageiros além da lotação na volta")
    next(b for b in at.button if b.label == "Registrar ocorrência").click()
    at.run()
    assert not at.exception, at.exception
    assert "Ocorrência registrada contra o responsável pela viagem." in texts(at, "success")
    incidents = frame_text(at, "Ocorrência")
    assert "Excesso de lotação" in incidents and "Carla Responsável" in incidents
    order = pdf_text(documents.service_order_pdf(db, CLERK, MUN, rid))
    assert "Responsável pela viagem Carla Responsável" in order and "Passageiros 3" in order


def test_pending_lists_what_awaits_action(db, nl, today):
    protocol.create_request(db, CLERK, MUN, form(nl["farmer"], HOURS6))
    at = page("machinery_pending.py")
    assert not at.exception
    assert "Aguardando orçamento" in frame_text(at, "Pendência")
    assert "1 pendência" in " ".join(m.value for m in at.markdown)


def test_execution_opens_for_a_service_booked_for_a_later_day(db, nl, today):
    """A service booked for next week can be reported done today (the team went earlier)."""
    rid = protocol.create_request(db, CLERK, MUN, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, MUN, rid, MONDAY)
    advance = next(i for i in doc["payment"]["instalments"] if i["key"] == "adiantamento")
    dam = dams.get(db, CLERK, MUN, advance["dam_id"])
    dam_payments.record_payment(db, CLERK, MUN, advance["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    schedule.book(db, CLERK, MUN, rid, MONDAY + timedelta(days=7), [(nl["backhoe"], nl["joao"])])
    at = page("machinery_execution.py")
    assert not at.exception, at.exception
    assert at.date_input(key="exec_started").value == MONDAY


# ---- issue 23 ----

def test_the_request_form_takes_the_stage_so_more_loads_reach_the_next_one(db, nl, today):
    """Issue 23 item 7 (art. 9 §2): once 5 loads were granted in stage 2026, the next request typed
    for stage 2026-2 is quoted; without the field it could only be served next year."""
    first = protocol.create_request(db, CLERK, MUN, form(nl["family"], LOADS5))
    quotes.make_quote(db, CLERK, MUN, first, MONDAY)
    at = page("machinery_requests.py")
    fill_protocol(at, nl["family"], "Maria")
    at.number_input(key="req_loads").set_value(2)
    at.text_input(key="req_stage").input("2026-2")
    submit(at)
    assert not at.exception, at.exception
    rid = at.session_state["req_open"]
    assert booking_requests.get_request(db, CLERK, MUN, rid)["stage"] == "2026-2"
    assert "etapa 2026-2" in " ".join(m.value for m in at.markdown)
    at.button(key="req_quote").click().run()
    assert "Orçamento feito." in texts(at, "success"), texts(at, "error")


def test_a_desired_start_before_the_request_shows_under_its_field(db, nl, today):
    at = page("machinery_requests.py")
    fill_protocol(at, nl["farmer"], "Antônio")
    at.text_input(key="req_hours_01").input("6")
    at.date_input(key="req_desired").set_value(MONDAY - timedelta(days=36))
    submit(at)
    assert "Início desejado: informe uma data a partir da data do pedido" in " ".join(c.value for c in at.caption)
    assert db["booking_requests"].count_documents({}) == 0


def test_the_schedule_books_a_period_reschedules_and_cancels_with_confirmation(db, nl, today):
    """Issue 23 items 6 and 7 on the Agenda: a 40-hour job booked Monday to Friday, the week board
    per machine, a reschedule with reason, and a cancel that asks first and sends the request back."""
    rid = protocol.create_request(db, CLERK, MUN, form(nl["farmer"], protocol.ServiceAsked(
        "machine_hours", item="01", hours=D(40))))
    quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, MUN, rid, MONDAY)
    advance = next(i for i in doc["payment"]["instalments"] if i["key"] == "adiantamento")
    dam = dams.get(db, CLERK, MUN, advance["dam_id"])
    dam_payments.record_payment(db, CLERK, MUN, advance["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    at = page("machinery_schedule.py")
    at.selectbox(key="sched_asset").set_value(nl["backhoe"])
    at.selectbox(key="sched_operator").set_value(nl["joao"])
    at.date_input(key="sched_until").set_value(MONDAY + timedelta(days=4))
    next(b for b in at.button if b.label == "Agendar neste dia").click()
    at.run()
    assert not at.exception, at.exception
    assert "agendado para 06/04/2026 a 10/04/2026 (5 dias)" in texts(at, "success"), texts(at, "error")
    board = next(d.value for d in at.dataframe if "Máquina" in d.value.columns and "Tipo" in d.value.columns)
    backhoe = board[board["Máquina"] == "PAT-0101"].iloc[0]
    assert list(backhoe[["Seg 06/04", "Sex 10/04", "Sáb 11/04"]]) == ["0001/2026 · João Operador"] * 2 + ["livre"]

    at.selectbox(key="sched_change_req").set_value(rid).run()
    assert "06/04/2026 a 10/04/2026 (5 dias)" in " ".join(m.value for m in at.markdown)
    at.date_input(key="sched_move_day").set_value(MONDAY + timedelta(days=7))
    at.text_area(key="sched_move_reason").input("Chuva: estrada intransitável")
    next(b for b in at.button if b.label == "Remarcar com as mesmas máquinas e operadores").click()
    at.run()
    assert "remarcado para 13/04/2026" in texts(at, "success"), texts(at, "error")
    assert booking_requests.get_request(db, CLERK, MUN, rid)["schedule"]["days"] == [MONDAY + timedelta(days=7)]

    at.selectbox(key="sched_change_req").set_value(rid).run()
    at.text_area(key="sched_cancel_reason").input("Desistência do solicitante")
    at.button(key="sched_cancel").click().run()
    assert booking_requests.get_request(db, CLERK, MUN, rid)["status"] == "agendado"  # asked first, nothing done
    assert "Cancelar o agendamento do pedido 0001/2026?" in " ".join(w.value for w in at.warning)
    at.button(key="sched_cancel_yes").click().run()
    assert not at.exception, at.exception
    assert "voltou à fila" in texts(at, "success"), texts(at, "error")
    doc = booking_requests.get_request(db, CLERK, MUN, rid)
    assert doc["status"] == "a_agendar" and db["machinery_bookings"].count_documents({"request_id": rid}) == 0


def test_the_credit_returned_is_recorded_on_the_request_page(db, nl, today):
    """Issue 23 item 7 (art. 8 §2): 2 h worked on a 6-hour advance leave R$ 300,00 to return; the
    request page records the devolution, a refund of the advance's charge."""
    from services.dam import charges
    from services.machinery import execution
    from services.machinery.execution import ExecutionInput

    rid = protocol.create_request(db, CLERK, MUN, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, MUN, rid, MONDAY)
    advance = next(i for i in doc["payment"]["instalments"] if i["key"] == "adiantamento")
    dam = dams.get(db, CLERK, MUN, advance["dam_id"])
    dam_payments.record_payment(db, CLERK, MUN, advance["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    schedule.book(db, CLERK, MUN, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    execution.complete(db, CLERK, MUN, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"], worked_hours=(("01", D(2)),)))
    at = page("machinery_requests.py")
    at.selectbox(key="req_pick").set_value(rid).run()
    assert "Devolução do crédito de R$ 300,00" in " ".join(m.value for m in at.markdown)
    at.text_input(key="req_credit_note").input("Ordem de pagamento 12/2026")
    next(b for b in at.button if b.label == "Registrar devolução do crédito").click()
    at.run()
    assert not at.exception, at.exception
    assert "Devolução de R$ 300,00 registrada no pedido 0001/2026." in texts(at, "success"), texts(at, "error")
    charge = charges.load(db, advance["charge_id"])
    assert (charge["credit"], charge["refunds"][0]["note"]) == (D("0.00"), "Ordem de pagamento 12/2026")
    assert all(b.label != "Registrar devolução do crédito" for b in at.button)


def test_the_requests_list_is_searched_by_protocol_or_requester(db, nl, today):
    """Issue 22: search on every list — the machinery requests' list had only a status filter."""
    at = page("machinery_requests.py")
    bpc_family_request(at, nl)
    assert not at.exception, at.exception
    protocol = f"0001/{MONDAY.year}"
    at.text_input(key="req_search").input(protocol).run()
    assert protocol in frame_text(at, "Solicitante")
    at.text_input(key="req_search").input("9999/1999").run()
    table = next(d.value for d in at.dataframe if d.proto.id and "req_table" in d.proto.id)
    assert table.empty


def test_the_credit_of_a_request_refused_after_payment_is_returned_on_its_page(db, nl, today):
    """LEITURAS NL 8: refused after its DAM was paid, the request owes back what was paid; its page
    offers the devolution (before, the form showed only on completed requests)."""
    from rules.fmt import brl
    from services.dam import charges
    from tests.test_bookings import upfront

    rid = protocol.create_request(db, CLERK, MUN, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, MUN, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, MUN, rid, MONDAY))
    dam = dams.get(db, CLERK, MUN, full["dam_id"])
    dam_payments.record_payment(db, CLERK, MUN, full["dam_id"], dam["issued_on"], dam["amount"], "Banco do Brasil")
    payment.refuse_request(db, CLERK, MUN, rid, "Máquina em manutenção por tempo indeterminado")
    at = page("machinery_requests.py")
    at.selectbox(key="req_pick").set_value(rid).run()
    amount = brl(full["amount"])
    assert f"devolução de {amount} ao interessado" in " ".join(m.value for m in at.markdown)
    at.text_input(key="req_refund_note").input("Ordem de pagamento 13/2026")
    next(b for b in at.button if b.label == "Registrar devolução do crédito").click()
    at.run()
    assert not at.exception, at.exception
    assert f"Devolução de {amount} registrada" in texts(at, "success"), texts(at, "error")
    assert charges.load(db, full["charge_id"])["credit"] == D("0.00")
    assert all(b.label != "Registrar devolução do crédito" for b in at.button)
    assert "devolvido ao interessado em" in texts(at, "info")


def test_the_completion_form_starts_with_the_loads_empty_and_refuses_them_empty(db, nl, today):
    """Issue 35 item 4: "Cargas entregues" is not 0 until someone types it; left empty, the form says so
    under the field and nothing is completed."""
    from tests.test_bookings import ready

    rid = ready(db, nl, nl["family"])
    schedule.book(db, CLERK, MUN, rid, MONDAY, [(nl["truck"], nl["pedro"])])
    today.set(MONDAY)
    run = page("machinery_execution.py")
    assert run.number_input(key="exec_loads").value is None
    next(b for b in run.button if b.label == "Concluir serviço").click()
    run.run()
    assert not run.exception, run.exception
    assert "Informe as cargas entregues (0 se nenhuma)." in texts(run, "caption")
    assert booking_requests.get_request(db, CLERK, MUN, rid)["status"] == "agendado"
    run.number_input(key="exec_loads").set_value(5)
    next(b for b in run.button if b.label == "Concluir serviço").click()
    run.run()
    assert "Serviço concluído." in texts(run, "success")
    assert booking_requests.get_request(db, CLERK, MUN, rid)["execution"]["loads_delivered"] == 5


def test_the_requester_form_refuses_a_zone_beside_another_zones_locality(db, nl, today):
    """Issue 35 item 5 (art. 3, §1): the register's form says it under "Localidade" and saves nothing."""
    at = page("machinery_requesters.py")
    form = "machinery_requesters_form_new"
    at.text_input(key=f"{form}_name").input("Joana Chacareira")
    at.text_input(key=f"{form}_document").input("714.287.938-60")
    at.selectbox(key=f"{form}_kind").set_value("pf")
    at.text_input(key=f"{form}_address").input("Chácara 3")
    at.selectbox(key=f"{form}_zone").set_value("Zona Urbana")
    at.selectbox(key=f"{form}_locality").set_value("Comunidade Pontal")
    at.selectbox(key=f"{form}_standing").set_value("nada_deve")
    at.date_input(key=f"{form}_standing_checked_on").set_value(MONDAY)
    next(b for b in at.button if b.label == "Salvar e novo").click().run()
    assert not at.exception, at.exception
    assert "Comunidade Pontal não é uma localidade da Zona Urbana" in texts(at, "caption")
    assert db["machinery_requesters"].count_documents({"name": "Joana Chacareira"}) == 0


def test_the_booking_form_shows_the_days_a_period_skips_before_it_is_saved(db, nl, today):
    """Issue 35 item 6 (art. 3 III): Friday 17/04 to Wednesday 22/04 — the screen lists the weekend and
    Tiradentes as skipped, with why, as soon as the last day is chosen; nothing is booked yet."""
    from tests.test_bookings import ready

    rid = ready(db, nl, nl["farmer"], (protocol.ServiceAsked("machine_hours", item="01", hours=D(20)),))
    at = page("machinery_schedule.py")
    at.date_input(key="sched_day").set_value(date(2026, 4, 17)).run()
    at.date_input(key="sched_until").set_value(date(2026, 4, 22)).run()
    assert not at.exception, at.exception
    shown = texts(at, "info")
    assert "17/04/2026 a 22/04/2026: 3 dias de serviço (17/04, 20/04 e 22/04)" in shown
    assert "18/04/2026 (sábado)" in shown and "19/04/2026 (domingo)" in shown
    assert "21/04/2026 (feriado nacional: Tiradentes)" in shown
    assert db["machinery_bookings"].count_documents({}) == 0
    at.selectbox(key="sched_asset").set_value(nl["backhoe"])
    at.selectbox(key="sched_operator").set_value(nl["joao"])
    next(b for b in at.button if b.label == "Agendar neste dia").click()
    at.run()
    assert "agendado para 17/04/2026 a 22/04/2026 (3 dias)" in texts(at, "success"), texts(at, "error")
    assert booking_requests.get_request(db, CLERK, MUN, rid)["schedule"]["days"] == [
        date(2026, 4, 17), date(2026, 4, 20), date(2026, 4, 22)]
