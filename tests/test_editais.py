"""The channel of each notice, the AR returned undelivered and the edital de notificação
(services/ridehailing/enforcement/channels.py, editais.py), on the real embedded store: CG Decreto 06/2026
art. 25 §1 II–IV and §2; MP Lei 1.552/2025 art. 21 §1–§2; docs/LEITURAS.md, seção 7, leitura 28."""
from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from rules import edital as edital_rules
from rules.params import ParameterVersion
from seed.people import cpf
from services.ridehailing.enforcement import (
    autos,
    channels,
    documents,
    edital_pdf,
    editais,
    lavratura,
    notices,
    process,
)
from services.ridehailing.enforcement.auto_input import AutoInput
from services.setup import bootstrap
from services.shared import domicile
from services.shared.errors import Conflict, ServiceError, ValidationFailed
from services.store import parse_date
from tests.authenticity_support import verified
from tests.enforcement_support import defence_deadline, driver, lavrado, set_upfm
from tests.ridehailing_data import ACTORS
from tests.test_bookings_charges import pdf_text

CG, MP = ACTORS["chapada"], ACTORS["matupa"]
AUTO_ON = date(2026, 3, 2)  # a Monday
CODE = {"chapada": "CG-30", "matupa": "MP-27"}


def stranger(db, today, municipality: str, seed: int, auto_on: date = AUTO_ON, address: str = "") -> str:
    """An auto of transporte ilegal against someone outside the register, with ``address`` (none: unknown)."""
    set_upfm(db)
    today.set(max(today.value, auto_on))
    number = cpf(random.Random(seed))
    return lavratura.lavrar(db, ACTORS[municipality], municipality, AutoInput(
        target_kind="unregistered", offender_name=f"Pessoa Sem Cadastro {seed}", driver_cpf=number, plate="QWE4R56",
        infraction_code=CODE[municipality], facts="Corrida cobrada sem autorização", committed_on=auto_on,
        auto_on=auto_on, time="10:30", place="Rodoviária", agent_registration="AF-0042", offender_address=address))


def posted(db, today, municipality: str, seed: int) -> str:
    """An auto against a registered driver (no domicile), its notice posted with AR on the day after."""
    number, _ = driver(db, municipality, seed=seed)
    auto_id = lavrado(db, today, municipality, "CG-29-I" if municipality == "chapada" else "MP-27", AUTO_ON, number)
    today.set(AUTO_ON + timedelta(days=1))
    process.notify(db, ACTORS[municipality], municipality, auto_id, method="post", sent_on=AUTO_ON + timedelta(days=1))
    return auto_id


def test_a_returned_ar_makes_the_auto_a_candidate_for_edital(db, today):
    auto_id = posted(db, today, "chapada", seed=31)
    assert channels.propose(db, CG, "chapada", auto_id)["channel"] == edital_rules.POSTAL
    assert editais.candidates(db, CG, "chapada") == []
    today.set(AUTO_ON + timedelta(days=9))
    with pytest.raises(ValidationFailed) as refused:
        channels.record_ar_returned(db, CG, "chapada", auto_id, returned_on=AUTO_ON + timedelta(days=8), reason="x")
    assert "reason" in refused.value.errors
    channels.record_ar_returned(db, CG, "chapada", auto_id, returned_on=AUTO_ON + timedelta(days=8), reason="mudou_se")
    proposal = channels.propose(db, CG, "chapada", auto_id)
    assert proposal["channel"] == edital_rules.EDITAL and "Mudou-se" in proposal["reason"]
    assert "art. 25, §1º, II" in proposal["reference"]
    (row,) = editais.candidates(db, CG, "chapada")
    assert row["auto_id"] == auto_id and row["why"] == "AR devolvido em 10/03/2026 (Mudou-se)"
    assert autos.get(db, CG, "chapada", auto_id)["stage"] == "aguardando_notificacao"  # no term started
    with pytest.raises(ServiceError, match="já foi registrado"):
        channels.record_ar_returned(db, CG, "chapada", auto_id, returned_on=AUTO_ON + timedelta(days=8),
                                    reason="recusado")


def test_only_a_posted_notice_without_receipt_can_have_its_ar_returned(db, today):
    auto_id = stranger(db, today, "chapada", seed=32)
    with pytest.raises(ServiceError, match="via postal"):
        channels.record_ar_returned(db, CG, "chapada", auto_id, returned_on=AUTO_ON, reason="mudou_se")
    posted_id = posted(db, today, "chapada", seed=33)
    with pytest.raises(ValidationFailed) as early:
        channels.record_ar_returned(db, CG, "chapada", posted_id, returned_on=AUTO_ON, reason="mudou_se")
    assert "returned_on" in early.value.errors


def test_the_edital_lists_the_autos_with_the_cpf_masked_and_is_numbered_per_municipality_and_year(db, today):
    unknown = stranger(db, today, "chapada", seed=41)
    known = stranger(db, today, "chapada", seed=42, address="Rua das Palmeiras, 120")
    assert channels.propose(db, CG, "chapada", unknown)["channel"] == edital_rules.EDITAL
    assert channels.propose(db, CG, "chapada", known)["channel"] == edital_rules.POSTAL
    returned = posted(db, today, "chapada", seed=43)
    today.set(AUTO_ON + timedelta(days=10))
    channels.record_ar_returned(db, CG, "chapada", returned, returned_on=today.value, reason="desconhecido")
    assert editais.to_publish_count(db, CG, "chapada") == 2
    first = editais.assemble(db, CG, "chapada", signer_name="Ana Souza", signer_role="Secretária de Finanças")
    assert first["number"] == "0001/2026" and {line["auto_id"] for line in first["lines"]} == {unknown, returned}
    assert editais.candidates(db, CG, "chapada") == [] and editais.to_publish_count(db, CG, "chapada") == 2
    text = editais.edital_text(db, CG, "chapada", first["id"])
    digits = cpf(random.Random(41))
    assert f"***.{digits[3:6]}.{digits[6:9]}-**" in text and digits not in text
    assert "EDITAL DE NOTIFICAÇÃO Nº 0001/2026" in text and "Pessoa Sem Cadastro 41" in text
    assert "Pessoa Sem Cadastro 42" not in text  # has an address: post first
    issued = edital_pdf.edital_pdf(db, CG, "chapada", first["id"])
    answer = verified(db, issued)  # issued with its authentication code (issue 37)
    assert (answer.kind, answer.same_bytes, answer.number) == ("Edital de notificação", True, "0001/2026")
    pdf = pdf_text(issued)
    assert "EDITAL DE NOTIFICAÇÃO Nº 0001/2026" in pdf and "Pessoa Sem Cadastro 41" in pdf and "Ana Souza" in pdf
    with pytest.raises(ServiceError, match="Nenhuma notificação"):
        editais.assemble(db, CG, "chapada", signer_name="Ana Souza", signer_role="Secretária")
    stranger(db, today, "chapada", seed=44, auto_on=today.value)
    assert editais.assemble(db, CG, "chapada", signer_name="Ana", signer_role="Secretária")["number"] == "0002/2026"
    stranger(db, today, "matupa", seed=45, auto_on=today.value)
    assert editais.assemble(db, MP, "matupa", signer_name="Rui", signer_role="Secretário")["number"] == "0001/2026"
    today.set(date(2027, 1, 4))
    stranger(db, today, "chapada", seed=46, auto_on=today.value)
    assert editais.assemble(db, CG, "chapada", signer_name="Ana", signer_role="Secretária")["number"] == "0001/2027"
    with pytest.raises(ValidationFailed) as unsigned:
        editais.assemble(db, CG, "chapada", signer_name=" ", signer_role="")
    assert set(unsigned.value.errors) == {"signer_name", "signer_role"}


def test_publication_notifies_every_listed_auto_and_the_defence_runs_from_the_publication(db, today):
    ids = [stranger(db, today, "chapada", seed=51), stranger(db, today, "chapada", seed=52)]
    today.set(AUTO_ON + timedelta(days=3))
    made = editais.assemble(db, CG, "chapada", signer_name="Ana Souza", signer_role="Secretária de Finanças")
    published_on = AUTO_ON + timedelta(days=9)  # Wednesday 11/03/2026
    today.set(published_on)
    with pytest.raises(ValidationFailed) as early:
        editais.record_publication(db, CG, "chapada", made["id"], edition="4.321", published_on=AUTO_ON)
    assert "published_on" in early.value.errors
    result = editais.record_publication(db, CG, "chapada", made["id"], edition="4.321", published_on=published_on)
    assert result["notified"] == [made["lines"][0]["number"], made["lines"][1]["number"]] and result["refused"] == []
    for auto_id in ids:
        doc = autos.get(db, CG, "chapada", auto_id)
        notice = doc["notification"]
        assert (notice["received_on"], notice["juntada_on"]) == (published_on, published_on)
        assert parse_date(notice["defence_deadline"]) == defence_deadline(db, "chapada", published_on)
        assert doc["stage"] == "prazo_defesa"
        state = process.process_status(db, CG, "chapada", auto_id, published_on)
        assert state["defence_deadline"] == defence_deadline(db, "chapada", published_on)
    case = pdf_text(documents.case_file_pdf(db, CG, "chapada", ids[0], published_on))
    assert (f"edital nº {made['number']}; publicado em 11/03/2026 (edição nº 4.321 do órgão oficial); "
            "notificado em 11/03/2026; juntada em 11/03/2026") in case
    assert editais.get(db, CG, "chapada", made["id"])["status_label"] == "Publicado"
    assert editais.to_publish_count(db, CG, "chapada") == 0
    with pytest.raises(Conflict, match="já foi publicado"):
        editais.record_publication(db, CG, "chapada", made["id"], edition="1", published_on=published_on)


def test_recorded_days_later_the_juntada_is_the_record_and_a_dated_delay_moves_the_notice(db, today):
    first = stranger(db, today, "chapada", seed=61)
    made = editais.assemble(db, CG, "chapada", signer_name="Ana", signer_role="Secretária")
    today.set(AUTO_ON + timedelta(days=5))
    editais.record_publication(db, CG, "chapada", made["id"], edition="10", published_on=AUTO_ON + timedelta(days=2))
    notice = autos.get(db, CG, "chapada", first)["notification"]
    assert (notice["received_on"], notice["juntada_on"]) == (AUTO_ON + timedelta(days=2), AUTO_ON + timedelta(days=5))
    assert parse_date(notice["defence_deadline"]) == defence_deadline(db, "chapada", AUTO_ON + timedelta(days=5))
    bootstrap.ensure_parameter(db, "chapada", ParameterVersion(edital_rules.EDITAL_DAYS, AUTO_ON + timedelta(days=6),
                                                               15, "Decreto de teste"))
    today.set(AUTO_ON + timedelta(days=6))
    second = stranger(db, today, "chapada", seed=62, auto_on=today.value)
    made = editais.assemble(db, CG, "chapada", signer_name="Ana", signer_role="Secretária")
    assert "15 dias corridos após a publicação deste edital" in editais.edital_text(db, CG, "chapada", made["id"])
    editais.record_publication(db, CG, "chapada", made["id"], edition="11", published_on=today.value)
    notice = autos.get(db, CG, "chapada", second)["notification"]
    assert notice["received_on"] == notice["juntada_on"] == today.value + timedelta(days=15)


def test_matupa_an_edital_published_after_the_90_days_voids_that_auto_only(db, today):
    old = stranger(db, today, "matupa", seed=71)
    today.set(AUTO_ON + timedelta(days=60))
    recent = stranger(db, today, "matupa", seed=72, auto_on=today.value)
    candidates = {row["auto_id"]: row for row in editais.candidates(db, MP, "matupa")}
    assert candidates[old]["limit"] == date(2026, 6, 1)  # 90 days from 02/03 → 31/05, a Sunday → 01/06
    made = editais.assemble(db, MP, "matupa", signer_name="Rui", signer_role="Secretário de Administração")
    published_on = date(2026, 6, 2)
    today.set(published_on)
    result = editais.record_publication(db, MP, "matupa", made["id"], edition="77", published_on=published_on)
    (refused,) = result["refused"]
    assert refused["number"] == autos.get(db, MP, "matupa", old)["number"] and "art. 21, §1º" in refused["reason"]
    voided = autos.get(db, MP, "matupa", old)
    assert (voided["status"], voided["stage"]) == ("nulo", "nulo") and "art. 21, §1º" in voided["void_reference"]
    assert autos.get(db, MP, "matupa", recent)["notification"]["received_on"] == published_on


def test_a_new_notice_keeps_the_returned_one_and_the_case_lists_both(db, today):
    auto_id = posted(db, today, "chapada", seed=81)
    today.set(AUTO_ON + timedelta(days=6))
    channels.record_ar_returned(db, CG, "chapada", auto_id, returned_on=today.value, reason="endereco_insuficiente")
    process.notify(db, CG, "chapada", auto_id, method="post", sent_on=today.value, received_on=today.value,
                   juntada_on=today.value)
    doc = autos.get(db, CG, "chapada", auto_id)
    rows = notices.notice_rows(doc, today.value)
    assert len(rows) == 2 and "AR devolvido em 08/03/2026 (Endereço insuficiente)" in rows[0][1]
    assert rows[1][1] == "enviada em 08/03/2026; AR recebido em 08/03/2026; juntada em 08/03/2026"
    assert editais.candidates(db, CG, "chapada") == []


def test_a_domicile_comes_first(db, today):
    auto_id = posted(db, today, "chapada", seed=91)
    number = autos.get(db, CG, "chapada", auto_id)["driver_cpf"]
    domicile.open_domicile(db, CG, "chapada", "condutor", number, "c@example.com")
    assert channels.propose(db, CG, "chapada", auto_id)["channel"] == edital_rules.ELECTRONIC


def test_an_auto_notified_otherwise_before_the_publication_is_left_out_of_it(db, today):
    """CG art. 25 §1: any lawful channel notifies; the first notice that reached the offender stands."""
    first, second = stranger(db, today, "chapada", seed=111), stranger(db, today, "chapada", seed=112)
    made = editais.assemble(db, CG, "chapada", signer_name="Ana", signer_role="Secretária")
    today.set(AUTO_ON + timedelta(days=3))
    process.notify(db, CG, "chapada", second, method="direct", sent_on=today.value, received_on=today.value,
                   juntada_on=today.value)
    result = editais.record_publication(db, CG, "chapada", made["id"], edition="12", published_on=today.value)
    assert result["notified"] == [autos.get(db, CG, "chapada", first)["number"]]
    assert result["refused"] == [{"number": autos.get(db, CG, "chapada", second)["number"],
                                  "reason": "Notificado por outra forma antes da publicação"}]
    assert autos.get(db, CG, "chapada", second)["notification"]["method"] == "direct"
