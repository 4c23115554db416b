"""The "Obrigações das plataformas" page: lists, data requests late to the minute, ISSQN months, and a
refused field shown under its field."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.ridehailing import trip_data
from services.shared import clock
from tests.conftest import SECRETARIA_CG
from tests.test_platform_obligations import platform

PAGE = str(Path(__file__).resolve().parent.parent / "app_pages" / "platform_obligations.py")


def page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["actor"] = SECRETARIA_CG
    at.session_state["municipality"] = "chapada"
    return at.run()


def test_without_platforms_the_page_says_where_to_register_them(db):
    at = page()
    assert not at.exception and "Cadastre as plataformas" in at.info[0].value


def test_a_late_data_request_and_a_late_list_are_flagged(db):
    pid = platform(db, "chapada")
    notified = clock.now_utc() - timedelta(hours=24, minutes=2)
    trip_data.request_data(db, SECRETARIA_CG, "chapada", pid, "Denúncia de embarque na via", notified)
    at = page()
    assert not at.exception and not at.error
    tables = [df.value for df in at.dataframe]
    requests = next(t for t in tables if "Justificativa" in t.columns)
    assert requests["Situação"].tolist() == ["🔴 Atrasado"]
    assert "art. 11, §2º" in requests["Fundamento"][0]
    statuses = next(t for t in tables if "Próxima até" in t.columns)
    assert statuses["Situação"].tolist() == ["🔴 atrasada"]  # credentialed 100 days ago, no list: CG art. 5 VIII


def test_a_request_registered_after_midnight_keeps_the_forms_own_time(db, monkeypatch):
    """00:30 in Cuiabá: the form's hour starts at now, never at a later hour of the day that would
    be refused as a notification in the future."""
    platform(db, "chapada")
    monkeypatch.setattr(clock, "now_utc", lambda: datetime(2026, 12, 2, 4, 30, tzinfo=timezone.utc))
    at = page()
    at.text_area(key="pob_req_justification").input("Denúncia de embarque irregular na rodoviária")
    at.button(key="FormSubmitter:pob_req_form-Registrar pedido").click().run()
    assert not at.exception and [s.value for s in at.success] == ["Pedido registrado."], [e.value for e in at.error]
    (stored,) = db[trip_data.REQUESTS].find({})
    assert clock.to_local(stored["notified_at"].replace(tzinfo=timezone.utc)).strftime("%d/%m %H:%M") == "02/12 00:30"


def test_a_request_without_justification_is_refused_under_the_field(db):
    platform(db, "chapada")
    at = page()
    at.button(key="FormSubmitter:pob_req_form-Registrar pedido").click().run()
    assert not at.exception
    assert any("Justificativa: obrigatória" in e.value for e in at.error)
    assert db[trip_data.REQUESTS].count_documents({}) == 0
    at.text_area(key="pob_req_justification").input("Apurar reclamação de passageiro")
    at.button(key="FormSubmitter:pob_req_form-Registrar pedido").click().run()
    assert not at.exception and at.success[0].value == "Pedido registrado."
    assert db[trip_data.REQUESTS].count_documents({"municipality": "chapada"}) == 1


def test_the_issqn_months_read_as_money_and_dates_in_pt_br(db):
    """A month assessed and not yet billed: its base and tax as R$ with a comma, its due date dd/mm/aaaa and
    "—" where there is no DAM or payment yet (the table read the first row's types and showed "R$ 60.00",
    "2026-12-05" and "None")."""
    import random

    from seed.people import cpf
    from services.ridehailing import issqn
    from tests.ridehailing_data import ACTORS
    from tests.test_platform_obligations import TODAY, csv_file, set_rate, trips

    set_rate(db, "chapada")
    pid = platform(db, "chapada")
    last_month = (TODAY.replace(day=1) - timedelta(days=1)).replace(day=5)
    trip_data.import_trips(db, ACTORS["chapada"], "chapada", pid,
                           csv_file(trips(cpf(random.Random(4)), "QBC1D23", last_month, 3)), "v.csv", commit=True)
    issqn.assess_issqn(db, ACTORS["chapada"], "chapada", pid, last_month)
    at = page()
    assert not at.exception
    months = next(df.value for df in at.dataframe if "ISSQN" in df.value.columns)
    row = months.iloc[0]
    assert (row["Base"], row["ISSQN"]) == ("R$\xa060,00", "R$\xa03,00")
    assert row["Vencimento"].count("/") == 2 and row["Pago em"] is None  # drawn as "—"
