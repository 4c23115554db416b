"""The Autos de infração screen driven as a clerk would (AppTest): a new auto from the catalogue and the
register, errors under their fields, and an auto taken through notification and decision."""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.ridehailing.enforcement import autos, lavratura, lists
from services.ridehailing.enforcement.auto_input import AutoInput
from tests.enforcement_support import definitive, driver, lavrado, notified
from tests.ridehailing_data import ACTORS

ROOT = Path(__file__).resolve().parent.parent


def page(municipality: str = "chapada", **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "autos.py"), default_timeout=60)
    at.session_state["actor"] = ACTORS[municipality]
    at.session_state["municipality"] = municipality
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def texts(at: AppTest, kind: str) -> str:
    return " | ".join(e.value for e in getattr(at, kind))


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_the_page_opens_and_lists_the_autos(db, today, municipality):
    cpf, _ = driver(db, municipality, seed=2)
    lavrado(db, today, municipality, "CG-29-I" if municipality == "chapada" else "MP-26-I", date(2026, 3, 2), cpf)
    at = page(municipality)
    assert not at.exception
    table = next(d for d in at.dataframe if "autos_table" in d.proto.id).value
    assert list(table["Número"]) == ["0001/2026"] and list(table["Etapa"]) == ["Aguardando notificação"]


def test_a_new_auto_from_the_catalogue_and_the_register(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    at = page()
    at.selectbox(key="autos_new_code").set_value("CG-29-VI").run()
    assert "infração **grave**" in texts(at, "info")
    at.selectbox(key="autos_new_driver").select_index(0).run()  # the one driver: one widget, no search box
    at.text_input(key="autos_new_time").input("09:40")
    at.text_input(key="autos_new_agent").input("AF-0042")
    at.text_input(key="autos_new_place").input("Praça Dom Wunibaldo")
    at.text_area(key="autos_new_facts").input("Embarque no ponto de táxi")
    button(at, "Lavrar auto").click().run()
    assert not at.exception, at.exception
    assert "Auto nº 0001/2026 lavrado: infração grave, multa R$ 3.000,00." in texts(at, "success")


def test_errors_show_under_each_field(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    at = page()
    at.selectbox(key="autos_new_code").set_value("CG-29-I").run()
    at.selectbox(key="autos_new_driver").select_index(0).run()  # the one driver: one widget, no search box
    at.text_area(key="autos_new_facts").input("Não atendeu à convocação")
    button(at, "Lavrar auto").click().run()
    errors = [e.value for e in at.error]
    assert {"Hora: obrigatório.", "Local: obrigatório.", "Matrícula do agente: obrigatório."} <= set(errors)
    assert lists.list_autos(db, ACTORS["chapada"], "chapada") == []


def test_matupa_notification_after_90_days_is_refused_on_screen(db, today):
    cpf, _ = driver(db, "matupa", seed=3)
    auto_id = lavrado(db, today, "matupa", "MP-12-III", date(2026, 3, 4), cpf)
    today.set(date(2026, 6, 10))
    at = page("matupa", autos_open=auto_id)
    assert "Notificar até **02/06/2026**" in " ".join(m.value for m in at.markdown)
    at.date_input(key="autos_notice_sent").set_value(date(2026, 6, 3))
    button(at, "Registrar notificação").click().run()
    assert not at.exception
    assert "art. 21, §1º" in texts(at, "error") and "auto nulo" in texts(at, "error")
    assert autos.get(db, ACTORS["matupa"], "matupa", auto_id)["status"] == "nulo"


def test_decision_says_why_a_penalty_waits_and_then_the_fine_dam(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    last = notified(db, today, "chapada", auto_id, date(2026, 3, 2))
    at = page(autos_open=auto_id)
    assert f"até {last:%d/%m/%Y}" in texts(at, "warning")
    today.set(last + timedelta(days=1))
    at = page(autos_open=auto_id)
    at.text_area(key="autos_decision_reasons").input("Fatos comprovados")
    at.text_input(key="autos_decision_authority").input("Secretária de Finanças")
    button(at, "Registrar decisão").click().run()
    assert "Decisão registrada: Mantido." in texts(at, "success")
    # CG art. 25 caput: the fine waits for the appeal term; the page says from when, with no button to refuse
    final = autos.appeal_deadline(db, "chapada", autos._load(db, "chapada", auto_id)) + timedelta(days=1)
    shown = texts(at, "info")
    assert "Efeito das penalidades: agendado" in shown and f"a partir de {final:%d/%m/%Y}" in shown
    assert "Emitir DAM da multa" not in [b.label for b in at.button]
    today.set(final)
    at = page(autos_open=auto_id)
    button(at, "Emitir DAM da multa").click().run()
    assert not at.exception
    assert "DAM 0001/2026 da multa emitido" in texts(at, "success")


def test_before_the_defence_the_decision_says_when_it_opens_and_after_it_the_authority_decides(db, today):
    """Issue 22 item 3: no form that is filled in and then refused; the defence in the file opens it."""
    from services.ridehailing.enforcement import process

    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    last = notified(db, today, "chapada", auto_id, date(2026, 3, 2))
    at = page(autos_open=auto_id)
    opens = last + timedelta(days=1)
    assert f"A decisão que mantém o auto abre em {opens:%d/%m/%Y}" in texts(at, "info")
    assert "Registrar decisão" not in [b.label for b in at.button]
    assert at.selectbox(key="autos_annul_outcome").options == ["Anulado"]
    process.file_defence(db, ACTORS["chapada"], "chapada", auto_id, filed_on=today.value, by="Condutor",
                         summary="Não estava no local")
    at = page(autos_open=auto_id)
    assert "A decisão que mantém o auto abre" not in texts(at, "info")
    at.text_area(key="autos_decision_reasons").input("A defesa não afasta as fotos do agente")
    at.text_input(key="autos_decision_authority").input("Secretária de Finanças")
    button(at, "Registrar decisão").click().run()
    assert not at.exception and "Decisão registrada: Mantido." in texts(at, "success"), texts(at, "error")


def test_history_shows_the_recurrence(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    lavrado(db, today, "chapada", "CG-29-IV", definitive(db, today, "chapada", first, date(2026, 3, 2)), cpf)
    at = page()
    at.text_input(key="autos_hist_cpf").input(cpf).run()
    table = next(d.value for d in at.dataframe if "Autuado" not in d.value.columns and "Reincidência de" in d.value.columns)
    assert list(table["Reincidência de"]) == ["", "Auto nº 0001/2026 de 02/03/2026"]


def test_a_partly_upheld_fine_is_typed_in_reais_and_a_bad_amount_is_refused_under_its_field(db, today):
    """The amount kept by a partial decision is money: typed 1.234,56, kept as Decimal, never a float."""
    from decimal import Decimal

    cpf, _ = driver(db, "chapada", seed=3)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    last = notified(db, today, "chapada", auto_id, date(2026, 3, 2))
    today.set(last + timedelta(days=1))
    at = page(autos_open=auto_id)
    at.selectbox(key="autos_decision_outcome").select("parcialmente")
    at.text_area(key="autos_decision_reasons").input("Reduzida por circunstância atenuante")
    at.text_input(key="autos_decision_authority").input("Secretária de Finanças")
    at.text_input(key="autos_decision_amount").input("quinhentos")
    button(at, "Registrar decisão").click().run()
    assert not at.exception and "Multa mantida:" in texts(at, "error")
    assert autos.get(db, ACTORS["chapada"], "chapada", auto_id).get("decision") is None
    at.text_input(key="autos_decision_amount").input("500,10")
    button(at, "Registrar decisão").click().run()
    assert not at.exception, texts(at, "error")
    decision = autos.get(db, ACTORS["chapada"], "chapada", auto_id)["decision"]
    assert decision["fine_amount"] == Decimal("500.10")


def test_an_auto_against_someone_outside_the_register_typed_on_the_form(db, today):
    """CG art. 30: transporte ilegal by someone without a register; name, CPF, plate and place typed."""
    driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    at = page()
    at.selectbox(key="autos_new_code").set_value("CG-30").run()
    at.radio(key="autos_new_target").set_value("unregistered").run()
    at.text_input(key="autos_new_offender_name").input("Marcos Sem Cadastro")
    at.text_input(key="autos_new_offender_cpf").input("123.456.789-00")
    at.text_input(key="autos_new_offender_plate").input("QWE4R56")
    at.text_input(key="autos_new_time").input("09:40")
    at.text_input(key="autos_new_agent").input("AF-0042")
    at.text_input(key="autos_new_place").input("Rodoviária")
    at.text_area(key="autos_new_facts").input("Corrida cobrada sem autorização")
    button(at, "Lavrar auto").click().run()
    assert "CPF: " in texts(at, "error")  # wrong check digits, shown under the CPF
    at.text_input(key="autos_new_offender_cpf").input("529.982.247-25").run()
    button(at, "Lavrar auto").click().run()
    assert not at.exception, at.exception
    assert "Auto nº 0001/2026 lavrado: infração gravíssima" in texts(at, "success")
    [row] = lists.list_autos(db, ACTORS["chapada"], "chapada")
    assert (row.offender_name, row.target) == ("Marcos Sem Cadastro", "Sem cadastro (transporte ilegal)")


def test_a_draft_is_discarded_from_its_page_after_a_confirmation(db, today):
    cpf, _ = driver(db, "chapada", seed=2)
    draft = lavratura.draft_auto(db, ACTORS["chapada"], "chapada", AutoInput(
        target_kind="driver", driver_cpf=cpf, infraction_code="CG-30", facts="Relação da plataforma",
        origin="Conciliação"))
    at = page(autos_open=draft)
    at.text_input(key="autos_discard_reason").input("Falso positivo da conciliação")
    button(at, "Descartar o rascunho").click().run()
    assert "Descartar este rascunho?" in texts(at, "warning")
    assert autos.get(db, ACTORS["chapada"], "chapada", draft)["status"] == "rascunho"  # not before confirming
    button(at, "Confirmar").click().run()
    assert not at.exception, at.exception
    assert "Rascunho descartado." in texts(at, "success")
    assert "Falso positivo da conciliação" in texts(at, "info")
    assert autos.get(db, ACTORS["chapada"], "chapada", draft)["discard"]["reason"] == "Falso positivo da conciliação"


def test_an_auto_whose_recurrence_fell_is_recalculated_from_its_page(db, today):
    from services.ridehailing.enforcement import process

    cpf, _ = driver(db, "chapada", seed=2)
    first = lavrado(db, today, "chapada", "CG-29-IV", date(2026, 3, 2), cpf)
    second = lavrado(db, today, "chapada", "CG-29-IV", definitive(db, today, "chapada", first, date(2026, 3, 2)), cpf)
    actor = ACTORS["chapada"]
    process.file_appeal(db, actor, "chapada", first, filed_on=today.value, by="Defensor", summary="Prova nova")
    process.decide_appeal(db, actor, "chapada", first, outcome="anulado", reasons="Prova nova",
                          authority="Secretário de Finanças", decided_on=today.value)
    at = page(autos_open=second)
    assert "Reincidência a rever: O auto nº 0001/2026" in texts(at, "warning")
    button(at, "Recalcular sem o auto anulado").click().run()
    assert not at.exception, at.exception
    assert "Reincidência revista: infração grave, multa R$ 3.000,00." in texts(at, "success")
    assert "Reincidência a rever" not in texts(at, "warning")


def test_a_seized_vehicle_is_released_from_the_auto_page(db, today):
    """MP art. 27 §ú: the seizure lasts until regularization; the clerk records its end."""
    from services.ridehailing.enforcement import penalties
    from tests.enforcement_support import decided

    cpf, _ = driver(db, "matupa", seed=3)
    auto_id = lavrado(db, today, "matupa", "MP-27", date(2026, 3, 2), cpf)
    decided(db, today, "matupa", auto_id, date(2026, 3, 2))
    penalties.record_measure(db, ACTORS["matupa"], "matupa", auto_id, measure="apreensão do veículo até a regularização",
                             on=today.value, by="Agente AF-0042")
    at = page("matupa", autos_open=auto_id)
    assert "em vigor até a regularização" in " ".join(m.value for m in at.markdown)
    at.text_input(key="autos_release_0_by").input("Pátio municipal")
    button(at, "Registrar liberação").click().run()
    assert not at.exception, at.exception
    assert f"Liberação registrada em {today.value:%d/%m/%Y}." in texts(at, "success")
    assert "liberada em" in " ".join(m.value for m in at.markdown)


def test_the_contact_of_someone_outside_the_register_is_typed_on_the_form(db, today):
    """Issue 35 item 2: address, phone and e-mail on the form; the screen says that, without an address,
    the notification goes by edital (CG art. 25 §1 II)."""
    driver(db, "chapada", seed=2)
    today.set(date(2026, 3, 10))
    at = page()
    at.selectbox(key="autos_new_code").set_value("CG-30").run()
    at.radio(key="autos_new_target").set_value("unregistered").run()
    assert "Sem endereço conhecido, a notificação é feita por edital (" in texts(at, "caption")
    at.text_input(key="autos_new_offender_name").input("Marcos Sem Cadastro")
    at.text_input(key="autos_new_offender_cpf").input("529.982.247-25")
    at.text_input(key="autos_new_offender_plate").input("QWE4R56")
    at.text_input(key="autos_new_offender_address").input("Rua das Palmeiras, 120, Cuiabá-MT")
    at.text_input(key="autos_new_offender_phone").input("9999")
    at.text_input(key="autos_new_time").input("09:40")
    at.text_input(key="autos_new_agent").input("AF-0042")
    at.text_input(key="autos_new_place").input("Rodoviária")
    at.text_area(key="autos_new_facts").input("Corrida cobrada sem autorização")
    button(at, "Lavrar auto").click().run()
    assert "Telefone: telefone inválido; informe DDD e número." in texts(at, "error")
    at.text_input(key="autos_new_offender_phone").input("(65) 99988-7766").run()
    button(at, "Lavrar auto").click().run()
    assert not at.exception, at.exception
    [row] = lists.list_autos(db, ACTORS["chapada"], "chapada")
    doc = autos.get(db, ACTORS["chapada"], "chapada", row.id)
    assert (doc["driver_address"], doc["driver_phone"]) == ("Rua das Palmeiras, 120, Cuiabá-MT", "65999887766")
    at = page(autos_open=row.id)
    assert "Endereço: Rua das Palmeiras, 120, Cuiabá-MT · (65) 99988-7766" in texts(at, "caption")


def test_a_draft_from_a_platform_list_is_lavrado_without_an_address_and_says_edital(db, today):
    """The platform's list has no address: the draft's form asks for it; left empty, the auto says edital."""
    import random

    from seed.people import cpf
    from tests.enforcement_support import set_upfm

    set_upfm(db)
    today.set(date(2026, 3, 10))
    draft = lavratura.draft_auto(db, ACTORS["chapada"], "chapada", AutoInput(
        target_kind="unregistered", offender_name="Pessoa da Relação", driver_cpf=cpf(random.Random(7)),
        plate="BBB2C22", infraction_code="CG-30", facts="Relação da plataforma", origin="Conciliação"))
    at = page(autos_open=draft)
    assert at.text_input(key="autos_draft_offender_address").value == ""
    at.text_input(key="autos_draft_time").input("09:40")
    at.text_input(key="autos_draft_agent").input("AF-0042")
    at.text_input(key="autos_draft_place").input("Rodoviária")
    next(b for b in at.button if b.label == "Lavrar auto" and b.proto.form_id == "autos_draft_form").click().run()
    assert not at.exception and "Auto lavrado." in texts(at, "success"), texts(at, "error")
    at = page(autos_open=draft)
    assert "Endereço desconhecido — notificação por edital (" in texts(at, "caption")
    assert "art. 25, §1º, II" in texts(at, "caption")


def test_the_electronic_domicile_is_offered_only_with_one_and_the_case_shows_its_dates(db, today, monkeypatch):
    """CG art. 25 §1 IV: the channel when the offender has a domicile; the clerk types no date."""
    from datetime import datetime, timezone

    from services.shared import clock, domicile

    cpf, _ = driver(db, "chapada", seed=4)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf)
    today.set(date(2026, 3, 3))
    monkeypatch.setattr(clock, "now_utc", lambda: datetime(2026, 3, 3, 14, tzinfo=timezone.utc))
    at = page(autos_open=auto_id)
    assert "Entregar no domicílio eletrônico" not in [b.label for b in at.button]
    assert not [o for o in at.selectbox(key="autos_notice_method").options if "domicílio eletrônico" in o]
    domicile.open_domicile(db, ACTORS["chapada"], "chapada", "condutor", cpf, "condutor@example.com")
    at = page(autos_open=auto_id)
    button(at, "Entregar no domicílio eletrônico").click().run()
    assert not at.exception
    shown = " ".join(m.value for m in at.markdown)
    assert "entregue no domicílio eletrônico em 03/03/2026 às 10:00" in shown
    assert "aguardando ciência (tácita em 18/03/2026 se não for aberta)" in shown
    assert autos.get(db, ACTORS["chapada"], "chapada", auto_id)["stage"] == "aguardando_ciencia"
