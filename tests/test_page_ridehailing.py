"""Ride-hailing screens driven as a user would (AppTest): eligibility with articles, the
authorization flow from request to the issued authorization, vistorias, pendências, public check."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.dam import payments
from services.ridehailing import authorizations, fees, public_check, registry
from services.shared import clock
from tests.ridehailing_data import ACTORS, inspected, register, requested, set_fee

ROOT = Path(__file__).resolve().parent.parent
TODAY = clock.today()


def page(name: str, municipality: str = "chapada") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / name), default_timeout=60)
    at.session_state["actor"] = ACTORS[municipality]
    at.session_state["municipality"] = municipality
    return at.run()


def texts(at: AppTest, kind: str) -> str:
    return " | ".join(e.value for e in getattr(at, kind))


def frame_text(at: AppTest, key: str) -> str:
    return next(d for d in at.dataframe if d.proto.id and key in d.proto.id).value.to_string()


def test_vehicle_page_shows_the_refusal_of_an_11_year_old_car_with_its_article(db):
    _, plate = register(db, "chapada", vehicle={"model_year": TODAY.year - 11})
    at = page("vehicles.py")
    vehicle_id = registry.vehicle_record(db, "chapada", plate)["id"]
    at.selectbox(key="vehicles_open").set_value(vehicle_id).run()
    assert not at.exception
    assert "Veículo — Não atende: 1 requisito não atendido" in texts(at, "error")
    table = next(d.value for d in at.dataframe if "Requisito" in d.value.columns)
    row = table[table["Requisito"] == "Veículo com 11 anos; o máximo é 10"].iloc[0]
    assert row["Situação"] == "✗ Não atende" and "art. 14, III" in row["Fundamento legal"]


def test_driver_page_shows_the_verdict_and_adds_a_document(db):
    cpf, _ = register(db, "matupa", missing=("garage",))
    at = page("drivers.py", "matupa")
    at.selectbox(key="drivers_open").set_value(registry.driver_record(db, "matupa", cpf)["id"]).run()
    assert "Condutor — Falta comprovar: 1 documento faltando ou vencido" in texts(at, "warning")
    docs = next(d.value.to_string() for d in at.dataframe if "Requisito" in d.value.columns
                and d.value["Requisito"].str.startswith("Documento").any())
    assert "? Falta comprovar" in docs and "Documento não apresentado: Comprovação de local para guarda" in docs
    assert "art. 8º, III" in docs
    offered = [c.label for c in at.checkbox if c.key.startswith("drivers_doc_form_")]
    assert offered == ["Comprovação de local para guarda do veículo"]  # only what is missing
    at.checkbox(key="drivers_doc_form_garage").check()
    at.button(key="FormSubmitter:drivers_doc_form-Lançar os documentos marcados").click()
    at.run()
    assert not at.exception
    assert "Condutor: atende a todos os requisitos" in texts(at, "success")
    assert not [c for c in at.checkbox if c.key.startswith("drivers_doc_form_")]  # issue 22 item 4: no document twice
    assert "Todos os documentos exigidos estão no cadastro e válidos" in " ".join(c.value for c in at.caption)


def test_a_drivers_documents_are_launched_together_or_not_at_all(db):
    """Issue 22 item 4: the documents handed in are ticked in one form and launched with one click; a
    bad date keeps every document out, its error under its own row, what was typed kept."""
    cpf, _ = register(db, "matupa", missing=("garage", "residence"))
    at = page("drivers.py", "matupa")
    at.selectbox(key="drivers_open").set_value(registry.driver_record(db, "matupa", cpf)["id"]).run()
    assert {c.key for c in at.checkbox if c.key.startswith("drivers_doc_form_")} == {
        "drivers_doc_form_garage", "drivers_doc_form_residence"}
    before = db["driver_documents"].count_documents({"driver_cpf": cpf})
    at.checkbox(key="drivers_doc_form_garage").check()
    at.checkbox(key="drivers_doc_form_residence").check()
    at.date_input(key="drivers_doc_form_residence_issued_on").set_value(TODAY + timedelta(days=3))
    submit = "FormSubmitter:drivers_doc_form-Lançar os documentos marcados"
    at.button(key=submit).click().run()
    assert not at.exception
    assert db["driver_documents"].count_documents({"driver_cpf": cpf}) == before  # none of the two
    assert any("não pode ser posterior a hoje" in c.value for c in at.caption), [c.value for c in at.caption]
    assert at.checkbox(key="drivers_doc_form_garage").value  # what was typed is kept
    at.date_input(key="drivers_doc_form_residence_issued_on").set_value(TODAY)
    at.button(key=submit).click().run()
    assert db["driver_documents"].count_documents({"driver_cpf": cpf}) == before + 2
    assert "Condutor: atende a todos os requisitos" in texts(at, "success")


def test_request_approve_inspect_pay_and_issue(db):
    set_fee(db, "chapada")
    cpf, plate = register(db, "chapada")
    at = page("authorizations.py")
    at.selectbox(key="auth_new_driver").set_value(registry.driver_record(db, "chapada", cpf)["id"]).run()
    at.selectbox(key="auth_new_plate").set_value(plate).run()
    at.button(key="auth_new_submit").click().run()
    assert f"Requerimento protocolado sob o nº 0001/{TODAY.year}." in texts(at, "success")
    assert "Condutor: atende" in texts(at, "success") and "Veículo: atende" in texts(at, "success")
    at.button(key="auth_approve").click().run()
    assert "Aprovado. Apresentar o veículo para vistoria até" in texts(at, "success")
    auth = at.session_state["auth_open"]

    insp = page("inspections.py")
    insp.selectbox(key="insp_auth").set_value(auth).run()
    for box in insp.checkbox:
        box.check()
    insp.text_input(key="insp_inspector").input("João Vistoriador")
    insp.button[0].click().run()
    assert "Vistoria aprovada. Situação: Aguardando pagamento da taxa." in texts(insp, "success")
    insp.button(key="insp_next").click().run()  # issue 22 item 5: the step issues the fee DAM itself
    assert authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)["fee_dam"]["number"]

    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert "aguardando pagamento" in texts(at, "info")  # the DAM issued from Vistorias, with its PDF
    assert "Baixar o DAM (PDF)" in [b.proto.label for b in at.get("download_button")]
    bill = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)["fee_dam"]
    pay = page("dams.py")  # paid at the DAM page, the clerk is told what the payment produced (issue 22 item 5)
    pay.selectbox(key="dams_open").select(bill["dam_id"]).run()
    pay.text_input(key="dams_pay_bank").input("Caixa")
    next(b for b in pay.button if b.label == "Registrar pagamento").click().run()
    assert not pay.exception
    assert f"Autorização nº 0001/{TODAY.year} expedida: em «Abrir a autorização» baixe o selo e o certificado." \
        in texts(pay, "success")
    assert "Abrir a autorização (selo e certificado)" in [b.label for b in pay.button]
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert not at.exception
    assert f"Ativa até 31/12/{TODAY.year}" in " ".join(m.value for m in at.markdown)
    assert [m.value for m in at.metric][0] == f"0001/{TODAY.year}"


def test_refusal_on_the_authorization_screen_cites_the_article(db):
    auth = requested(db, "chapada", vehicle={"model_year": TODAY.year - 11})
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert at.button(key="auth_approve").disabled
    at.button(key="auth_refuse").click().run()
    at.button(key="auth_refuse_yes").click().run()  # a refusal ends the request: it is confirmed first
    assert "Indeferido: Veículo com 11 anos; o máximo é 10 (Decreto 06/2026 (Chapada dos Guimarães), art. 14, III" \
        in texts(at, "success")


def test_fee_without_parameter_shows_the_missing_parameter(db):
    auth = inspected(db, "matupa")
    at = page("authorizations.py", "matupa")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert "Parâmetro 'authorization_fee' sem valor em vigor" in texts(at, "error")
    assert not [b for b in at.button if b.key == "auth_issue_dam"]


def test_failed_inspection_shows_pendencias_and_the_deadline(db):
    auth = requested(db, "matupa")
    authorizations.approve(db, ACTORS["matupa"], "matupa", auth, TODAY - timedelta(days=1))
    at = page("inspections.py", "matupa")
    at.selectbox(key="insp_auth").set_value(auth).run()
    items = [box for box in at.checkbox if (box.key or "").startswith("insp_item_")]  # the checklist's items
    for box in items[:-1]:
        box.check()
    at.text_input(key="insp_inspector").input("Vistoriador")
    at.button[0].click().run()
    assert "Vistoria reprovada — Pendência: Emplacado no Município de Matupá" in texts(at, "error")
    assert "Prazo para sanar: até" in texts(at, "error")
    assert "Baixar laudo da vistoria (PDF)" in [b.proto.label for b in at.get("download_button")]


def test_pendencias_lists_the_late_presentation(db):
    auth = requested(db, "chapada", protocol=TODAY - timedelta(days=20))
    authorizations.approve(db, ACTORS["chapada"], "chapada", auth, TODAY - timedelta(days=15))
    at = page("pendencias.py")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["Tipo"]) == ["Vistoria"] and table.iloc[0]["Atrasada"] == "Sim"
    assert "art. 13" in table.iloc[0]["Fundamento legal"]


@pytest.mark.parametrize("sanction, word", [(None, "válida"), ("suspended", "suspensa"), ("cassada", "cassada")])
def test_public_check_shows_the_status_and_only_the_first_name(db, sanction, word):
    from rules.ridehailing.concepts import EventKind

    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    payments.record_payment(db, ACTORS["chapada"], "chapada", bill["id"], TODAY, bill["amount"], "Caixa")
    if sanction:
        authorizations.record_sanction(db, ACTORS["chapada"], "chapada", auth, EventKind(sanction), TODAY,
                                    TODAY + timedelta(days=30) if sanction == "suspended" else None)
    doc = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)
    driver = registry.driver_record(db, "chapada", doc["driver_cpf"])
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["t"] = public_check.token_for("chapada", auth)
    at.run()
    assert not at.exception
    shown = " ".join([texts(at, "success"), texts(at, "error")] + [m.value for m in at.metric])
    assert word in shown
    assert driver["name"].split()[0] in shown and driver["name"] not in shown and driver["cpf"] not in shown


def test_public_check_refuses_a_forged_token(db):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    token = public_check.token_for("chapada", "0" * 24)
    at.query_params["t"] = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    at.run()
    assert "Link de verificação inválido" in texts(at, "error")


def test_short_fee_payment_keeps_the_authorization_awaiting_and_offers_the_complement(db):
    from decimal import Decimal

    set_fee(db, "matupa")
    auth = inspected(db, "matupa")
    bill = fees.issue_fee_dam(db, ACTORS["matupa"], "matupa", auth, TODAY)
    payments.record_payment(db, ACTORS["matupa"], "matupa", bill["id"], TODAY, Decimal("150.00"), "Caixa")
    at = page("authorizations.py", "matupa")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert not at.exception
    assert "Aguardando pagamento da taxa" in " ".join(m.value for m in at.markdown)
    warning = texts(at, "warning")
    assert f"DAM {bill['number']} da taxa pago a menor" in warning
    assert "devido R$ 180,00, pago R$ 150,00, falta R$ 30,00" in warning and "art. 9º" in warning
    assert at.button(key="auth_issue_dam").label == "Emitir DAM complementar de R$ 30,00"
    at.button(key="auth_issue_dam").click().run()
    assert "emitido" in texts(at, "success")
    assert "DAM complementar nº" in texts(at, "info")


def test_inspections_page_calls_an_extraordinary_vistoria_and_offers_the_notice(db):
    set_fee(db, "matupa")
    auth = inspected(db, "matupa")
    bill = fees.issue_fee_dam(db, ACTORS["matupa"], "matupa", auth, TODAY)
    payments.record_payment(db, ACTORS["matupa"], "matupa", bill["id"], TODAY, bill["amount"], "Caixa")
    at = page("inspections.py", "matupa")
    at.selectbox(key="insp_call_auth").set_value(auth)
    at.text_input(key="insp_call_note").input("Denúncia de passageiro")
    next(b for b in at.button if b.label == "Convocar para vistoria extraordinária").click().run()
    assert not at.exception
    assert "Convocação registrada: comparecer até" in texts(at, "success")
    assert at.selectbox(key="insp_notice").value == auth
    assert "Baixar notificação de convocação (PDF)" in [b.proto.label for b in at.get("download_button")]


def test_fee_paid_above_the_amount_issues_and_shows_the_alert(db):
    from decimal import Decimal

    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    payments.record_payment(db, ACTORS["chapada"], "chapada", bill["id"], TODAY, Decimal("200.00"), "Caixa")
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert not at.exception
    assert f"Ativa até 31/12/{TODAY.year}" in " ".join(m.value for m in at.markdown)
    assert f"Taxa paga com alertas — DAM {bill['number']}: Valor pago R$ 200,00 difere do valor do DAM R$ 180,00 " \
           "(R$ 20,00 a maior)" in texts(at, "warning")


def test_a_suspended_authorization_offers_the_renewal(db):
    """Neither act forbids renewing during a suspension (CG art. 9 §2; MP art. 3 §ú; LEITURAS §7)."""
    from rules.ridehailing.concepts import EventKind

    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    payments.record_payment(db, ACTORS["chapada"], "chapada", bill["id"], TODAY, bill["amount"], "Caixa")
    authorizations.record_sanction(db, ACTORS["chapada"], "chapada", auth, EventKind.SUSPENDED, TODAY,
                                   TODAY + timedelta(days=30))
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    next(b for b in at.button if b.label == "Registrar pedido de renovação").click().run()
    assert not at.exception, at.exception
    assert "Pedido de renovação registrado." in texts(at, "success")
    assert fees.pending_renewal(authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth))


def test_a_request_missing_documents_leads_to_the_drivers_page_where_they_are_entered(db):
    """Issue 22 item 4: the "documentos faltando" verdict of a request opens the driver's record."""
    from seed.ridehailing import DOCUMENTS

    auth = requested(db, "chapada", missing=tuple(DOCUMENTS["chapada"][:2]))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = ACTORS["chapada"], "chapada"
    at.session_state["auth_goto"] = auth
    at.switch_page("app_pages/authorizations.py").run()
    assert "Condutor — Falta comprovar: 2 documentos faltando ou vencidos" in texts(at, "warning")
    cpf = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)["driver_cpf"]
    at.button(key="auth_driver_verdict_to_docs").click().run()
    assert not at.exception
    assert at.session_state["drivers_open"] == registry.driver_record(db, "chapada", cpf)["id"]
    assert [t.value for t in at.title][-1] == "Condutores"
    assert "Documentos" in [t.label for t in at.tabs]  # the driver's page, its documents' tab first


def test_the_vistorias_list_opens_in_its_registers_order(db):
    register(db, "chapada")
    at = page("inspections.py")
    assert at.selectbox(key="inspections_list_sort").value == "performed_on"  # the order its index serves


def test_the_copies_a_candidate_sent_on_the_portal_are_on_the_drivers_page(db, today):
    from services.ridehailing import applications
    from tests.application_support import candidate, fill

    person = candidate("chapada")
    fill(db, person)
    applications.submit(db, person.actor)
    at = page("drivers.py", "chapada")
    at.selectbox(key="drivers_open").set_value(registry.driver_record(db, "chapada", person.document)["id"]).run()
    assert not at.exception
    docs = next(d.value for d in at.dataframe if "Cópia enviada pelo portal" in d.value.columns)
    assert docs["Cópia enviada pelo portal"].str.startswith("cnh.pdf").any()
    labels = [b.label for b in at.get("download_button") if b.label.startswith("Baixar")]
    assert "Baixar CNH categoria B ou superior: cnh.pdf (48 bytes)" in labels and len(labels) == 8  # CG art. 12, I–VIII
