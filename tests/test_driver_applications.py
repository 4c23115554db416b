"""A driver candidate applies for the ride-hailing authorization on the portal (issue 38 item 1): the draft
kept as typed, the law's verdict article by article before anything lands (the same rule set the clerk's
screen asks), the request protocoled into the clerk's queue with its documents, every later step on the
person's page, and another person's account reaching none of it."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from rules.ridehailing.lifecycle import Status
from seed.ridehailing import passing
from services.dam import payments
from services.ridehailing import (
    application_status,
    applications,
    authorizations,
    fees,
    inspections,
    work_queue,
)
from services.shared import clock, entity_files, entity_lists, regulated_access
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.shared.schema import ListQuery
from tests import portal_support as support
from tests.application_support import PDF, approve, candidate, driver_form, fill, vehicle_form
from tests.ridehailing_data import ACTORS, register, set_fee


def lines_of(view: applications.Application) -> list[str]:
    return [line.text for line in view.lines] + [line.text for s in view.documents for line in s.lines]


@pytest.mark.parametrize("municipality, change, expected", [
    pytest.param("matupa", {"missing": ("garage",)},
                 "Falta: Documento não apresentado: Comprovação de local para guarda do veículo (Lei 1.552/2025 "
                 "(Matupá), art. 8º, III)", id="MP art. 8 III: the garage proof not sent"),
    pytest.param("chapada", {"missing": ("criminal",)},
                 "Falta: Documento não apresentado: Certidão negativa de antecedentes criminais", id="CG art. 12 III"),
    pytest.param("matupa", {"driver": {"cnh_ear": False}}, "Não atende: CNH sem a observação EAR (Lei 1.552/2025 "
                 "(Matupá), art. 12, II)", id="MP art. 12 II: CNH without EAR"),
    pytest.param("matupa", {"driver": {"cnh_first_license": date(2025, 6, 1)}}, "exigem-se 2 anos de expedição",
                 id="MP art. 11 I: CNH issued less than 2 years ago"),
    pytest.param("chapada", {"driver": {"resides_in_municipality": False}}, "Não atende: Não reside no Município "
                 "(Decreto 06/2026 (Chapada dos Guimarães), art. 10, VI)", id="CG art. 10 VI: lives elsewhere"),
    pytest.param("chapada", {"driver": {"exclusive_platform_declaration": False}},
                 "Falta: Sem declaração de serviço exclusivo por plataforma", id="CG art. 10 II: no declaration"),
    pytest.param("chapada", {"vehicle": {"model_year": 2010}}, "o máximo é 10 (Decreto 06/2026 (Chapada dos "
                 "Guimarães), art. 14, III e parágrafo único)", id="CG art. 14 III: vehicle older than 10 years"),
    pytest.param("matupa", {"vehicle": {"garage_proof": False}}, "Falta: Sem comprovação de local de guarda",
                 id="MP art. 8 III: no garage declared"),
])
def test_the_law_answers_article_by_article_before_anything_lands(db, today, municipality, change, expected):
    person = candidate(municipality)
    view = fill(db, person, **change)
    assert any(expected in text for text in lines_of(view)), lines_of(view)
    assert db["drivers"].count_documents({"cpf": person.document}) == 0  # nothing lands while a draft
    assert db["authorizations"].count_documents({"driver_cpf": person.document}) == 0


def test_a_refusal_of_the_draft_is_the_one_the_clerk_reads_after_the_protocol(db, today):
    person = candidate("matupa")
    view = fill(db, person, driver={"cnh_ear": False})
    refused = [t.removeprefix("Não atende: ") for t in lines_of(view) if t.startswith("Não atende")]
    assert refused and view.complete  # complete yet refused: it may be sent, the clerk will refuse it
    protocol = applications.submit(db, person.actor)
    auth = db["authorizations"].find_one({"protocol": protocol, "municipality": "matupa"})
    reasons = authorizations.evaluate(db, ACTORS["matupa"], "matupa", str(auth["_id"])).reasons()
    assert set(refused) <= set(reasons)


def test_a_missing_document_keeps_the_draft_from_being_sent_with_its_article(db, today):
    person = candidate("matupa")
    fill(db, person, missing=("garage",))
    with pytest.raises(ValidationFailed) as refused:
        applications.submit(db, person.actor)
    assert "Falta: Comprovação de local para guarda do veículo (Lei 1.552/2025 (Matupá), art. 8º, III)" \
        in refused.value.errors["_form"]
    assert db["drivers"].count_documents({"cpf": person.document}) == 0


def test_the_draft_keeps_what_was_typed_with_each_error_under_its_field_and_is_completed_later(db, today):
    person = candidate("chapada")
    typed = {**driver_form(person), "cnh_valid_until": "31/02/2030", "phone": "123"}
    typed.pop("address")
    view = applications.save_part(db, person.actor, "condutor", typed)
    assert view.driver.values["cnh_valid_until"] == "31/02/2030" and view.driver.values["phone"] == "123"
    assert view.driver.errors["cnh_valid_until"].startswith("Validade da CNH: data inválida")
    assert view.driver.errors["phone"].startswith("Telefone: telefone inválido")
    assert "Endereço" in view.driver.missing and not view.complete
    again = applications.application(db, person.actor)  # the person comes back later
    assert again.driver.values == view.driver.values and again.started
    applications.save_part(db, person.actor, "condutor", driver_form(person))
    assert applications.application(db, person.actor).driver.complete


def test_a_copy_the_upload_guard_refuses_is_reported_under_its_field_and_the_kept_one_stays(db, today):
    person = candidate("chapada")
    fill(db, person)
    view = applications.save_documents(db, person.actor, {"cnh-issued_on": f"{today.value - timedelta(days=2):%d/%m/%Y}"},
                                       {"cnh-file": (b"MZ not a document", "cnh.exe")})
    [cnh] = [s for s in view.documents if s.code == "cnh"]
    assert cnh.errors["cnh-file"].startswith("Cópia não aceita") and cnh.sent.startswith("cnh.pdf")


def test_the_complete_application_lands_in_the_clerks_queue_with_its_documents(db, today):
    person = candidate("chapada")
    view = fill(db, person)
    assert view.complete, view.missing()
    protocol = applications.submit(db, person.actor)
    assert protocol == f"0001/{today.value.year}"
    clerk = ACTORS["chapada"]
    [item] = [p for p in work_queue.pendencias(db, clerk, "chapada", today.value) if p.protocol == protocol]
    assert item.driver_cpf == person.document
    docs = entity_lists.list_all(db, clerk, "driver_documents", "chapada",
                                 ListQuery(filters={"driver_cpf": person.document}))
    assert sorted(d["code"] for d in docs) == sorted(s.code for s in view.documents)
    name, mime, data = entity_files.record_file(db, clerk, "driver_documents", "chapada", docs[0]["id"], "file")
    assert data == PDF and mime == "application/pdf" and name.endswith(".pdf")
    audited = {e["action"] for e in db["audit"].find({"username": person.actor.username})}
    assert {"draft", "create", "requested"} <= audited  # the person is the actor of every write
    assert applications.application(db, person.actor).registered  # no second application
    with pytest.raises(Conflict):
        applications.submit(db, person.actor)
    [shown] = application_status.own_requests(db, person.actor)
    assert shown.protocol == protocol and shown.steps[-1].state == "atual" and "Em análise" in shown.steps[-1].text


def test_a_driver_already_in_the_register_is_sent_to_the_secretariat(db, today):
    cpf, _plate = register(db, "chapada")
    person = candidate("chapada")
    person = type(person)("chapada", person.kind, cpf, "", "Condutor cadastrado")
    with pytest.raises(Conflict, match="já está no cadastro de condutores"):
        applications.save_part(db, person.actor, "condutor", driver_form(person))


def test_a_plate_already_registered_is_an_error_under_the_plate(db, today):
    _cpf, plate = register(db, "chapada")
    person = candidate("chapada")
    view = applications.save_part(db, person.actor, "veiculo", {**vehicle_form(person), "plate": plate})
    assert view.vehicle.errors["plate"].startswith("Placa: já consta no cadastro")


def test_every_later_step_shows_on_the_persons_page_up_to_the_sticker(db, today):
    person = candidate("matupa")
    fill(db, person)
    protocol = applications.submit(db, person.actor)
    clerk, on = ACTORS["matupa"], today.value
    set_fee(db, "matupa")
    auth = approve(db, clerk, "matupa", protocol, on)
    shown = application_status.own_request(db, person.actor, protocol)
    assert "aprovado em 02/03/2026" in shown.steps[1].text
    assert "até 09/03/2026" in shown.steps[2].text and "art. 8º, §1º" in shown.steps[2].text
    inspections.record_inspection(db, clerk, "matupa", auth, on, passing("matupa"), "Vistoriador")
    dam = fees.issue_fee_dam(db, clerk, "matupa", auth, on)
    shown = application_status.own_request(db, person.actor, protocol)
    fee = shown.steps[3]
    assert fee.state == "atual" and fee.link == f"/dams/{on.year}/{int(dam['number'].split('/')[0])}"
    with pytest.raises(Exception, match="após o pagamento da taxa"):
        application_status.own_pdf(db, person.actor, protocol, "selo")
    payments.record_payment(db, clerk, "matupa", dam["id"], on, dam["amount"], "Banco do Brasil")
    shown = application_status.own_request(db, person.actor, protocol)
    assert shown.printable and shown.number and shown.status.startswith("Ativa")
    assert application_status.own_pdf(db, person.actor, protocol, "selo").startswith(b"%PDF")
    assert application_status.own_pdf(db, person.actor, protocol, "certificado").startswith(b"%PDF")


def test_a_refusal_shows_its_reasons_to_the_person(db, today):
    person = candidate("chapada")
    fill(db, person)
    protocol = applications.submit(db, person.actor)
    auth = db["authorizations"].find_one({"protocol": protocol})
    authorizations.refuse(db, ACTORS["chapada"], "chapada", str(auth["_id"]), today.value, "Documento ilegível")
    shown = application_status.own_request(db, person.actor, protocol)
    assert shown.status == "Indeferida" and shown.steps[1].state == "recusado"
    assert "Aptidão para a função não comprovada (atestado médico)" in shown.steps[1].text  # the clerk's reading
    assert "Documento ilegível" in shown.steps[1].text


def test_another_persons_account_reaches_none_of_the_first_ones_request(db, today):
    first, second = candidate("chapada", seed=11), candidate("chapada", seed=12)
    fill(db, first)
    protocol = applications.submit(db, first.actor)
    auth = db["authorizations"].find_one({"protocol": protocol})
    assert auth is not None
    for call in (lambda p: application_status.own_request(db, second.actor, p),
                 lambda p: application_status.own_pdf(db, second.actor, p, "selo")):
        with pytest.raises(NotFound) as theirs:
            call(protocol)
        with pytest.raises(NotFound) as unknown:
            call(f"0099/{today.value.year}")
        assert theirs.value.message == unknown.value.message
    assert application_status.own_requests(db, second.actor) == []
    assert not applications.application(db, second.actor).started  # the first one's draft is not theirs
    other_town = type(first)("matupa", first.kind, first.document, "", first.name)
    with pytest.raises(NotFound):
        application_status.own_request(db, other_town.actor, protocol)


def test_the_protocol_date_is_the_day_it_is_sent(db, today):
    person = candidate("chapada")
    fill(db, person)
    today.set(today.value + timedelta(days=1))
    protocol = applications.submit(db, person.actor)
    doc = db["authorizations"].find_one({"protocol": protocol})
    assert authorizations.status(db, ACTORS["chapada"], "chapada", str(doc["_id"]), clock.today()).status \
        is Status.REQUESTED
    assert application_status.own_request(db, person.actor, protocol).protocol_date == "03/03/2026"


def test_the_register_keeps_the_e_mail_the_account_proved_so_the_person_stays_logged_in(db, today):
    person = candidate("chapada")
    support.ready_account(db, "chapada", "condutor", person.document, person.name, "candidato@exemplo.com.br",
                          "senha-do-candidato-1")
    _person, cookie, _expires = regulated_access.login(db, "chapada", "condutor", person.document, "",
                                                       "senha-do-candidato-1")
    fill(db, person)
    applications.submit(db, person.actor)
    assert db["drivers"].find_one({"cpf": person.document})["email"] == "candidato@exemplo.com.br"
    assert regulated_access.resume(db, cookie) is not None  # the register now holds the CPF, same e-mail
