"""Autos against someone outside the drivers register (transporte ilegal, CG Decreto 06/2026 art. 30;
MP Lei 1.552/2025 art. 27), typed on the auto or found by a platform list's reconciliation, and drafts
discarded with their reason (issue 23, items 1 and 2)."""
from __future__ import annotations

import random
from datetime import date

import pytest

from seed.people import cpf
from services.dam import dams
from services.ridehailing.enforcement import autos, documents, lavratura, lists, penalties
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared.errors import Conflict, ValidationFailed
from tests.enforcement_support import definitive, driver, set_upfm
from tests.ridehailing_data import ACTORS

CG, MP = ACTORS["chapada"], ACTORS["matupa"]
STRANGER = cpf(random.Random(4242))


def typed(municipality: str, code: str, **changes) -> dict:
    """An auto's values as a clerk types them for someone without a register."""
    return {"target_kind": "unregistered", "offender_name": "Marcos Sem Cadastro",
            "driver_cpf": f"{STRANGER[:3]}.{STRANGER[3:6]}.{STRANGER[6:9]}-{STRANGER[9:]}", "plate": "qwe-4r56",
            "infraction_code": code, "facts": "Transportava passageiro cobrando a corrida sem autorização",
            "committed_on": date(2026, 3, 2), "auto_on": date(2026, 3, 2), "time": "10:30",
            "place": "Rodoviária, embarque na plataforma 2", "agent_registration": "AF-0042", **changes}


@pytest.mark.parametrize("municipality, code", [
    pytest.param("chapada", "CG-30", id="CG art. 30: transporte ilegal"),
    pytest.param("matupa", "MP-27", id="MP art. 27: transporte ilegal"),
])
def test_an_auto_against_someone_outside_the_register_keeps_the_identification_typed(db, today, municipality, code):
    set_upfm(db)
    auto_id = lavratura.lavrar(db, ACTORS[municipality], municipality, AutoInput(**typed(municipality, code)))
    doc = autos.get(db, ACTORS[municipality], municipality, auto_id)
    assert (doc["number"], doc["target_kind"], doc["offender_name"], doc["offender_document"], doc["driver_cpf"],
            doc["plate"], doc["place"]) == ("0001/2026", "unregistered", "Marcos Sem Cadastro", STRANGER, STRANGER,
                                            "QWE4R56", "Rodoviária, embarque na plataforma 2")
    assert doc["severity"] == "gravíssima" and doc["infraction_code"] == code
    pdf = documents.auto_pdf(db, ACTORS[municipality], municipality, auto_id)
    assert pdf.startswith(b"%PDF")


@pytest.mark.parametrize("changes, field, words", [
    pytest.param({"driver_cpf": "123.456.789-00"}, "driver_cpf", "CPF", id="CPF with wrong check digits"),
    pytest.param({"driver_cpf": ""}, "driver_cpf", "obrigatório", id="CPF missing"),
    pytest.param({"offender_name": "  "}, "offender_name", "obrigatório", id="name missing"),
    pytest.param({"plate": "12"}, "plate", "Placa", id="plate not a plate"),
    pytest.param({"plate": ""}, "plate", "obrigatório", id="plate missing"),
    pytest.param({"infraction_code": "CG-29-IV"}, "infraction_code", "transporte ilegal",
                 id="CG art. 23: a duty of the authorized driver is not charged to a stranger"),
])
def test_the_identification_of_someone_outside_the_register_is_checked_field_by_field(db, today, changes, field,
                                                                                       words):
    set_upfm(db)
    with pytest.raises(ValidationFailed) as caught:
        lavratura.lavrar(db, CG, "chapada", AutoInput(**typed("chapada", "CG-30", **changes)))
    assert words in caught.value.errors[field]
    assert db[autos.COLLECTION].count_documents({}) == 0


def test_a_cpf_of_the_register_is_charged_as_its_driver(db, today):
    registered, _ = driver(db, "chapada", seed=5)
    with pytest.raises(ValidationFailed) as caught:
        lavratura.lavrar(db, CG, "chapada", AutoInput(**typed("chapada", "CG-30", driver_cpf=registered)))
    assert "autue-o como condutor" in caught.value.errors["driver_cpf"]



# ---- a draft discarded with its reason ----

def test_a_draft_is_discarded_with_its_reason_audited_and_kept(db, today):
    set_upfm(db)
    draft = lavratura.draft_auto(db, CG, "chapada", AutoInput(**{
        k: v for k, v in typed("chapada", "CG-30").items()
        if k in ("target_kind", "offender_name", "driver_cpf", "plate", "infraction_code", "facts")}))
    with pytest.raises(ValidationFailed) as caught:
        lavratura.discard_draft(db, CG, "chapada", draft, reason=" ")
    assert "Motivo do descarte" in caught.value.errors["reason"]
    lavratura.discard_draft(db, CG, "chapada", draft, reason="Falso positivo: a plataforma já o descredenciou")
    doc = autos.get(db, CG, "chapada", draft)
    assert (doc["status"], doc["stage"], doc["stage_label"], doc["discard"]["reason"], doc["discard"]["by"]) == (
        "descartado", "descartado", "Rascunho descartado", "Falso positivo: a plataforma já o descredenciou",
        CG.username)
    assert doc["events"][-1]["action"] == "discard"
    entry = db["audit"].find_one({"action": "discard", "doc_id": draft})
    assert entry["changes"]["status"] == {"before": "rascunho", "after": "descartado"}
    assert "Falso positivo" in entry["note"]
    with pytest.raises(Conflict):
        lavratura.lavrar(db, CG, "chapada", AutoInput(committed_on=date(2026, 3, 2), time="10:30", place="Centro",
                                                      agent_registration="AF-0042"), draft)
    with pytest.raises(Conflict):
        lavratura.discard_draft(db, CG, "chapada", draft, reason="De novo")
    assert [r.stage for r in lists.list_autos(db, CG, "chapada", "", "descartado")] == ["Rascunho descartado"]


def test_a_lavrado_auto_is_not_discarded_it_ends_by_its_decision(db, today):
    set_upfm(db)
    auto_id = lavratura.lavrar(db, CG, "chapada", AutoInput(**typed("chapada", "CG-30")))
    with pytest.raises(Conflict) as caught:
        lavratura.discard_draft(db, CG, "chapada", auto_id, reason="Engano")
    assert "só um rascunho" in caught.value.message


def test_a_second_illegal_transport_by_the_same_cpf_is_recurrence_with_the_seizure(db, today):
    """CG art. 30 §ú: the recurrence of transporte ilegal adds the seizure of the vehicle; the person
    outside the register is the same offender by CPF (LEITURAS §7)."""

    set_upfm(db)
    first = lavratura.lavrar(db, CG, "chapada", AutoInput(**typed("chapada", "CG-30")))
    counts_from = definitive(db, today, "chapada", first, date(2026, 3, 2))
    second = lavratura.lavrar(db, CG, "chapada", AutoInput(**typed("chapada", "CG-30", plate="BRA2E19",
                                                                  committed_on=counts_from, auto_on=counts_from)))
    shown = autos.get(db, CG, "chapada", second)
    assert shown["recurrent"] and shown["recurrence_of"]["id"] == first
    assert "apreensão do veículo até a regularização" in shown["measures"]


# ---- where someone outside the register is notified and billed (issue 35 item 2) ----

def _fine_dam(db, today, municipality: str, auto_id: str) -> dict:
    """The auto notified, its defence period run out, the fine upheld and final (no appeal in its term,
    LEITURAS §7 leitura 25): its fine's DAM as issued."""
    definitive(db, today, municipality, auto_id, date(2026, 3, 2))
    dam = penalties.issue_fine_dam(db, ACTORS[municipality], municipality, auto_id)
    return dams.get(db, ACTORS[municipality], municipality, dam["id"])


def _pdf_text(pdf: bytes) -> str:
    import io

    from pypdf import PdfReader

    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).split())


@pytest.mark.parametrize("municipality, code", [("chapada", "CG-30"), ("matupa", "MP-27")])
def test_the_address_typed_is_kept_on_the_auto_printed_on_the_notice_and_billed_on_the_fine_dam(db, today,
                                                                                                 municipality, code):
    set_upfm(db)
    address = "Rua das Palmeiras, 120, Bairro Bom Jardim, Cuiabá-MT"
    auto_id = lavratura.lavrar(db, ACTORS[municipality], municipality, AutoInput(**typed(
        municipality, code, offender_address=address, offender_phone="(65) 99988-7766",
        offender_email="Marcos@Exemplo.com.br")))
    doc = autos.get(db, ACTORS[municipality], municipality, auto_id)
    assert (doc["driver_address"], doc["driver_phone"], doc["driver_email"]) == (
        address, "65999887766", "marcos@exemplo.com.br")
    notice = _pdf_text(documents.notification_pdf(db, ACTORS[municipality], municipality, auto_id, "condutor"))
    assert "Rua das Palmeiras, 120" in notice and "notificação por edital" not in notice
    dam = _fine_dam(db, today, municipality, auto_id)
    assert (dam["taxpayer_name"], dam["taxpayer_document"], dam["taxpayer_address"]) == (
        "Marcos Sem Cadastro", STRANGER, address)


@pytest.mark.parametrize("municipality, code, article", [
    pytest.param("chapada", "CG-30", "art. 25, §1º, II", id="CG art. 25 §1 II: publicação no Diário Oficial"),
    pytest.param("matupa", "MP-27", "art. 21, §1º", id="MP art. 21 §1: edital no órgão oficial"),
])
def test_with_no_address_the_notice_goes_by_edital_and_the_fine_dam_is_still_issued(db, today, municipality, code,
                                                                                    article):
    set_upfm(db)
    auto_id = lavratura.lavrar(db, ACTORS[municipality], municipality, AutoInput(**typed(municipality, code)))
    notice = _pdf_text(documents.notification_pdf(db, ACTORS[municipality], municipality, auto_id, "condutor"))
    assert "Endereço desconhecido — notificação por edital (" in notice and article in notice
    assert "esta notificação é feita por edital" in notice
    dam = _fine_dam(db, today, municipality, auto_id)
    assert dam["taxpayer_address"] == "Endereço desconhecido — notificação por edital"
    assert dam["taxpayer_document"] == STRANGER


@pytest.mark.parametrize("changes, field, words", [
    pytest.param({"offender_phone": "9999"}, "offender_phone", "Telefone: telefone inválido", id="phone without DDD"),
    pytest.param({"offender_email": "marcos@"}, "offender_email", "E-mail: e-mail inválido", id="e-mail"),
])
def test_a_wrong_phone_or_e_mail_is_refused_under_its_field(db, today, changes, field, words):
    set_upfm(db)
    with pytest.raises(ValidationFailed) as caught:
        lavratura.lavrar(db, CG, "chapada", AutoInput(**typed("chapada", "CG-30", **changes)))
    assert words in caught.value.errors[field]
    assert db[autos.COLLECTION].count_documents({}) == 0


def test_a_draft_from_a_platform_list_takes_the_address_when_it_is_lavrado(db, today):
    """The platform's list has no address (CG art. 5 VIII): the clerk types it with the draft's lavratura."""
    set_upfm(db)
    draft = lavratura.draft_auto(db, CG, "chapada", AutoInput(**{
        k: v for k, v in typed("chapada", "CG-30").items()
        if k in ("target_kind", "offender_name", "driver_cpf", "plate", "infraction_code", "facts")}))
    assert autos.get(db, CG, "chapada", draft)["driver_address"] == ""
    lavratura.lavrar(db, CG, "chapada", AutoInput(committed_on=date(2026, 3, 2), time="10:30", place="Centro",
                                                  agent_registration="AF-0042", offender_address="Rua A, 1, Centro"),
                     draft)
    assert autos.get(db, CG, "chapada", draft)["driver_address"] == "Rua A, 1, Centro"
    assert _fine_dam(db, today, "chapada", draft)["taxpayer_address"] == "Rua A, 1, Centro"
