"""Início (issue 22): the clerk's inbox of what is late and due this week, and the gabinete's headline
figures of each municipality with the way to its Resumo (AppTest through app.py)."""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.ridehailing import authorizations, work_queue
from services.shared import clock
from tests.conftest import GABINETE, SECRETARIA_CG
from tests.ridehailing_data import ACTORS, inspected, requested, set_fee
from tests.test_bookings import nl  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parent.parent


def app_as(actor, municipality: str = "chapada") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = actor, municipality
    return at.run()


def test_the_clerk_opens_on_what_is_late_and_due_this_week(db):
    auth = requested(db, "chapada", clock.today() - timedelta(days=20))
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, clock.today() - timedelta(days=15))
    queue = work_queue.pendencias(db, SECRETARIA_CG, "chapada", clock.today())
    late = [p for p in queue if p.late]
    assert late, "the fixture must leave a late item"
    at = app_as(SECRETARIA_CG)
    assert not at.exception and not at.error, [e.value for e in at.error]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Atrasadas"] == str(len(late))
    inbox = next(d.value for d in at.dataframe if "O que fazer" in d.value.columns)
    assert inbox["Tipo"].iloc[0] == late[0].kind and inbox["Prazo"].iloc[0].startswith("Atrasada desde")
    assert "Débitos vencidos" in metrics
    untimed = [p for p in queue if not p.late and p.due <= clock.today()]
    assert metrics["Para hoje (ou já em aberto)"] == str(len(untimed))


def test_the_gabinete_sees_each_municipalitys_figures_and_opens_its_resumo(db):
    at = app_as(GABINETE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    buttons = [b for b in at.button if b.label.startswith("Abrir o Resumo de")]
    assert [b.label for b in buttons] == ["Abrir o Resumo de Chapada dos Guimarães", "Abrir o Resumo de Matupá",
                                          "Abrir o Resumo de Nova Lacerda"]
    assert "Arrecadado (DAM pagos)" in [m.label for m in at.metric]
    buttons[1].click().run()
    assert not at.exception and at.session_state["municipality"] == "matupa"
    assert [t.value for t in at.title][-1] == "Resumo"


def test_a_decision_with_no_legal_term_reads_open_since_its_date(db, today):
    """An auto whose defence is in (to decide, never "late": the acts set no term) is shown as open
    since the defence, not as a past date that looks like a deadline still to come."""
    from services.ridehailing.enforcement import process
    from tests.enforcement_support import driver, lavrado, notified

    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    notified(db, today, "chapada", auto_id, date(2026, 3, 2))
    today.set(date(2026, 3, 10))
    process.file_defence(db, ACTORS["chapada"], "chapada", auto_id, filed_on=date(2026, 3, 10), by="Condutor",
                         summary="Não estava no local")
    today.set(date(2026, 3, 13))
    at = app_as(SECRETARIA_CG)
    assert not at.exception
    inbox = next(d.value for d in at.dataframe if "O que fazer" in d.value.columns)
    row = inbox[inbox["Tipo"] == "Decidir auto"].iloc[0]
    assert row["Prazo"] == "Em aberto desde 10/03/2026"
    assert {m.label: m.value for m in at.metric}["Para hoje (ou já em aberto)"] == "1"


# ---- issue 35 item 11: every row of the inbox opens its record where the work is ----

def clicked(at: AppTest, table: str, column: str, value: str) -> AppTest:
    """A click on the inbox row whose ``column`` reads ``value`` (``table``: the list's key)."""
    frame = next(d.value for d in at.dataframe if column in d.value.columns and value in set(d.value[column]))
    at.session_state[table] = {"selection": {"rows": [list(frame[column]).index(value)], "columns": [], "cells": []}}
    return at.run()


def ride_row(at: AppTest, kind: str) -> AppTest:
    assert not at.exception and not at.error, [e.value for e in at.error]
    at = clicked(at, "home_ride", "Tipo", kind)
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    return at


def test_a_request_to_evaluate_and_a_fee_open_their_authorization(db):
    set_fee(db, "chapada")
    fresh = requested(db, "chapada", seed=3)
    waiting_fee = inspected(db, "chapada")
    for auth, kind in ((fresh, "Avaliar requerimento"), (waiting_fee, "Taxa")):
        protocol = authorizations.get_authorization(db, SECRETARIA_CG, "chapada", auth)["protocol"]
        at = ride_row(app_as(SECRETARIA_CG), kind)
        assert [t.value for t in at.title][-1] == "Autorizações"
        assert any(protocol in s.value for s in at.subheader), kind  # the authorization, open


def test_a_vistoria_opens_the_vistorias_page_with_its_authorization_chosen(db):
    auth = requested(db, "chapada", clock.today() - timedelta(days=20))
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, clock.today() - timedelta(days=15))
    at = ride_row(app_as(SECRETARIA_CG), "Vistoria")
    assert [t.value for t in at.title][-1] == "Vistorias"
    assert at.session_state["insp_tabs"] == "Registrar vistoria"
    assert at.selectbox(key="insp_auth").value == auth
    assert any(c.key and c.key.startswith("insp_item_") for c in at.checkbox)  # its checklist, ready to fill


def test_an_auto_to_notify_and_a_fine_open_the_autos_process(db, today):
    from services.ridehailing.enforcement import penalties
    from tests.enforcement_support import definitive, driver, lavrado

    cpf, _ = driver(db, "chapada", seed=2)
    to_notify = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    fined = lavrado(db, today, "chapada", "CG-18-III", date(2026, 3, 4), cpf)
    definitive(db, today, "chapada", fined, date(2026, 3, 4))  # final: the fine takes effect (leitura 25)
    dam = penalties.issue_fine_dam(db, SECRETARIA_CG, "chapada", fined)
    today.set(dam["due_on"] + timedelta(days=1))  # the fine late: "Multa · Auto 0002/2026" in the inbox
    for auto_id, kind in ((to_notify, "Notificar auto"), (fined, "Multa")):
        at = ride_row(app_as(SECRETARIA_CG), kind)
        assert [t.value for t in at.title][-1] == "Autos de infração"
        assert at.session_state["autos_tab"] == "Processo do auto"
        assert at.selectbox(key="autos_open").value == auto_id, kind  # the auto chosen, its process shown


def test_a_data_change_opens_the_drivers_record_with_its_changes(db):
    from tests.test_ridehailing_changes import change_address, driver_id

    cpf, _ = change_address(db, "chapada", clock.today() - timedelta(days=20), None)  # never reported: late
    at = ride_row(app_as(SECRETARIA_CG), "Alteração de dados")
    assert [t.value for t in at.title][-1] == "Condutores"
    assert at.session_state["drivers_open"] == driver_id(db, "chapada", cpf)
    changes = next(d.value for d in at.dataframe if "Dados alterados" in d.value.columns)
    assert "Rua Nova, 10" in changes["Dados alterados"].iloc[0]
    assert at.selectbox(key="drivers_report_change").options  # where the report or the closing is recorded


def test_a_platforms_list_and_a_trip_data_request_open_the_platforms_obligations(db):
    from services.ridehailing import trip_data
    from tests.test_platform_obligations import platform

    pid = platform(db, "chapada")  # credentialed 100 days ago, no list received: late
    notified = (clock.now_utc() - timedelta(hours=30)).replace(second=0, microsecond=0)
    trip_data.request_data(db, SECRETARIA_CG, "chapada", pid, "Apurar denúncia de embarque na via", notified)
    [request] = trip_data.data_requests(db, SECRETARIA_CG, "chapada")
    at = ride_row(app_as(SECRETARIA_CG), "Relação da plataforma")
    assert [t.value for t in at.title][-1] == "Obrigações das plataformas"
    assert at.session_state["pob_tabs"] == "Relações e conciliação"
    assert at.selectbox(key="pob_list_platform").value == pid
    at = ride_row(app_as(SECRETARIA_CG), "Dados de viagem")
    assert at.session_state["pob_tabs"] == "Pedidos de dados"
    assert at.selectbox(key="pob_ans_id").value == request.id  # the answer to record, chosen


def test_a_nova_lacerda_request_opens_its_record(db, nl, today):
    from services.machinery import booking_requests, protocol
    from tests.test_bookings import CLERK, HOURS6, NL, form

    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    number = booking_requests.get_request(db, CLERK, NL, rid)["protocol"]
    at = app_as(CLERK, NL)
    assert not at.exception and not at.error, [e.value for e in at.error]
    inbox = next(d.value for d in at.dataframe if "Pendência" in d.value.columns)
    at = clicked(at, "home_machinery", "Detalhe", inbox["Detalhe"].iloc[0])
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["req_open"] == rid
    assert any(s.value.startswith(f"Pedido {number}") for s in at.subheader)  # "Pedido 0001/2026 · …"
