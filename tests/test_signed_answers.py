"""Issue 36 item 4: a data request delivered to the platform's electronic domicile, the 24 hours counted from
the delivery, and the answer sent on the portal as a file the panel verifies as digitally signed (CG Decreto
06/2026 art. 11 §2–3; MP Lei 1.552/2025 art. 4 §2–3), under the trust anchors TI uploads."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from rules import signatures as signer_rules
from services.ridehailing import data_answers, trip_data
from services.shared import audit_log, clock, domicile, regulated_accounts, trust_anchors
from services.shared.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from services.shared.regulated_accounts import Person
from tests.authenticity_support import verified
from tests import pki_support as pki
from tests import signing_support as signing
from tests.conftest import SECRETARIA_CG, TI
from tests.portal_support import AGENT_CPF, PLATFORM_CNPJ, platform_with_agent

OTHER_AGENT_CPF = "39053344705"  # valid check digits, invented
OUTSIDER_CPF = "11144477735"
START = datetime.now(timezone.utc).replace(microsecond=0)  # the certificates are valid around the real now


@pytest.fixture(scope="module")
def certs():
    ca = pki.make_ca()
    return {"ca": ca, "other_ca": pki.make_ca("AC Desconhecida"),
            "rita": pki.make_person(ca, "Rita Agente", AGENT_CPF),
            "otto": pki.make_person(ca, "Otto Agente", OTHER_AGENT_CPF),
            "outsider": pki.make_person(ca, "Pessoa Estranha", OUTSIDER_CPF),
            "expired": pki.make_person(ca, "Rita Agente", AGENT_CPF, days=10, not_before=START - timedelta(days=40))}


@pytest.fixture
def at(monkeypatch):
    """Set the panel's instant (now_utc and today agree)."""
    def move(moment: datetime) -> None:
        monkeypatch.setattr(clock, "now_utc", lambda: moment)
        monkeypatch.setattr(clock, "today", lambda: clock.local_date(moment))
    move(START)
    return move


def agent(cpf: str = AGENT_CPF) -> object:
    return Person("chapada", "plataforma", PLATFORM_CNPJ, cpf, "Rita Agente").actor


def platform_id(db) -> str:
    return str(db["platforms"].find_one({"cnpj": PLATFORM_CNPJ})["_id"])


@pytest.fixture
def ready(db, at, certs):
    """A platform of Chapada with its authorized person, its domicile open and the test root uploaded by TI."""
    platform_with_agent(db)
    domicile.open_domicile(db, SECRETARIA_CG, "chapada", "plataforma", PLATFORM_CNPJ, "contato@plataforma.exemplo")
    trust_anchors.add_anchors(db, TI, "chapada", certs["ca"].pem, "raiz.pem")
    return db


def requested(db) -> data_answers.OwnRequest:
    trip_data.request_data(db, SECRETARIA_CG, "chapada", platform_id(db), "Apurar denúncia de embarque na via",
                           START - timedelta(days=3), period_from=START.date() - timedelta(days=7),
                           period_to=START.date() - timedelta(days=1))
    [own] = data_answers.own_requests(db, agent())
    return own


def test_the_request_is_delivered_to_the_domicile_and_the_24_hours_run_from_the_delivery(ready):
    """CG art. 11 §2º; MP art. 4º §2º: the clerk's typed instant gives way to the delivery's, to the minute."""
    own = requested(ready)
    [message] = domicile.inbox(ready, agent())["items"]
    assert message["category"] == trip_data.CATEGORY and "24 horas" in message["title"]
    assert message["delivered_at"] == START and own.notified_at == START
    assert own.deadline == START + timedelta(hours=24)
    [row] = trip_data.data_requests(ready, SECRETARIA_CG, "chapada")
    assert row.channel == trip_data.DOMICILE_CHANNEL and row.notified_at == START
    pdf = domicile.message_pdf(ready, agent(), message["id"])
    answer = verified(ready, pdf)  # issued with its authentication code (issue 37)
    assert (answer.kind, answer.same_bytes, answer.valid) == ("Pedido de dados de viagem à plataforma", True, True)


def test_without_a_domicile_the_request_keeps_the_instant_the_clerk_typed(db, at):
    platform_with_agent(db)
    typed = START - timedelta(hours=2)
    trip_data.request_data(db, SECRETARIA_CG, "chapada", platform_id(db), "Fiscalização", typed)
    [row] = trip_data.data_requests(db, SECRETARIA_CG, "chapada")
    assert row.notified_at == typed and row.channel == "registrado pelo servidor"
    assert db["domicile_messages"].count_documents({}) == 0


@pytest.mark.parametrize("after, late, situation", [
    (timedelta(hours=23, minutes=59), False, "Respondido no prazo"),  # CG art. 11 §2º: within 24 h
    (timedelta(hours=24, minutes=1), True, "Respondido com atraso"),  # late is recorded, never refused
])
def test_a_signed_pdf_answered_against_the_24_hours_from_the_delivery(ready, at, certs, after, late, situation):
    own = requested(ready)
    at(START + after)
    data = signing.signed_pdf(certs["rita"])
    answered = data_answers.answer_request(ready, agent(), own.code, data, "resposta.pdf")
    assert (answered.answered_at, answered.late) == (START + after, late)
    [row] = trip_data.data_requests(ready, SECRETARIA_CG, "chapada")
    assert row.situation == situation
    answer = row.answer
    assert (answer["signer_name"], answer["signer_cpf"], answer["kind"]) == ("RITA AGENTE", AGENT_CPF, "PAdES (assinatura no PDF)")
    assert answer["cert_issuer"] == "AC Raiz de Teste do Painel" and answer["result"].startswith("válida")
    assert answer["cert_serial"] == format(certs["rita"].cert.serial_number, "X")
    assert data_answers.answer_file(ready, SECRETARIA_CG, "chapada", row.id) == (data, "resposta.pdf")
    assert "Assinado por" in data_answers.shown_answer(answer)
    [entry], _count = audit_log.search(ready, TI, "chapada", action="answer")
    assert entry["username"] == f"plataforma:{PLATFORM_CNPJ}:{AGENT_CPF}"  # the person who sent it, audited
    with pytest.raises(Conflict):  # answered once
        data_answers.answer_request(ready, agent(), own.code, data, "resposta.pdf")


def test_a_csv_with_its_detached_signature_is_kept_byte_for_byte_with_the_p7s(ready, certs):
    own = requested(ready)
    data = signing.TRIPS_CSV + b"2026-03-01 10:00;Centro;Rodoviaria;12;4,5;link;52998224725;ABC1D23;18,50;base;5\n"
    p7s = signing.detached(certs["otto"], data)  # another person the platform authorizes may sign
    regulated_accounts.authorize_agent(ready, SECRETARIA_CG, "chapada", PLATFORM_CNPJ, OTHER_AGENT_CPF, "Otto Agente",
                                       "otto@plataforma.exemplo")
    data_answers.answer_request(ready, agent(), own.code, data, "viagens.csv", p7s, "viagens.csv.p7s")
    [row] = trip_data.data_requests(ready, SECRETARIA_CG, "chapada")
    assert row.answer["signer_cpf"] == OTHER_AGENT_CPF and row.answer["kind"] == "CMS destacada (.p7s)"
    assert data_answers.answer_file(ready, SECRETARIA_CG, "chapada", row.id) == (data, "viagens.csv")
    assert data_answers.answer_file(ready, SECRETARIA_CG, "chapada", row.id, "signature") == (p7s, "viagens.csv.p7s")


def stored_files(db) -> list[str]:
    from services import store
    return store.list_files(db)


def _inside_a_stream(pdf: bytes) -> int:
    return pdf.index(b"stream") + 12


def _cases(certs) -> dict:
    csv = signing.TRIPS_CSV
    good = signing.signed_pdf(certs["rita"])
    return {
        "unsigned": (signing.plain_pdf(), None, "file", "não tem assinatura digital"),
        "one byte changed": (signing.changed_byte(good, _inside_a_stream(good)), None, "file", "adulterado"),
        "bytes appended": (good + b"\n% acrescentado depois da assinatura\n", None, "file", "adulterado"),
        "csv changed after signing": (csv + b"x", signing.detached(certs["rita"], csv), "file", "adulterado"),
        "csv without its p7s": (csv, None, "signature", "assinatura destacada (.p7s)"),
        "untrusted CA": (signing.signed_pdf(pki.make_person(certs["other_ca"], "Rita Agente", AGENT_CPF)), None,
                         "file", "autoridade certificadora confiável"),
        "expired certificate": (signing.signed_pdf(certs["expired"]), None, "file", "não estava válido na data"),
        "signer not authorized": (signing.signed_pdf(certs["outsider"]), None, "file",
                                  "não está entre as pessoas autorizadas"),
    }


@pytest.mark.parametrize("case", ["unsigned", "one byte changed", "bytes appended", "csv changed after signing",
                                  "csv without its p7s", "untrusted CA", "expired certificate",
                                  "signer not authorized"])
def test_a_refused_file_says_why_under_its_field_and_leaves_nothing(ready, certs, case):
    own = requested(ready)
    data, p7s, field, words = _cases(certs)[case]
    before = (ready["platform_data_requests"].find_one({}), ready["audit"].count_documents({}), stored_files(ready))
    with pytest.raises(ValidationFailed) as refused:
        data_answers.answer_request(ready, agent(), own.code, data, "resposta.pdf" if p7s is None and
                                    data.startswith(b"%PDF") else "viagens.csv", p7s, "viagens.csv.p7s")
    assert words in refused.value.errors[field]
    after = (ready["platform_data_requests"].find_one({}), ready["audit"].count_documents({}), stored_files(ready))
    assert after == before


def test_a_signer_no_longer_authorized_is_refused_and_so_is_the_person(ready, certs):
    own = requested(ready)
    regulated_accounts.authorize_agent(ready, SECRETARIA_CG, "chapada", PLATFORM_CNPJ, OTHER_AGENT_CPF, "Otto Agente",
                                       "otto@plataforma.exemplo")
    regulated_accounts.revoke_agent(ready, SECRETARIA_CG, "chapada", PLATFORM_CNPJ, OTHER_AGENT_CPF)
    with pytest.raises(ValidationFailed) as refused:
        data_answers.answer_request(ready, agent(), own.code, signing.signed_pdf(certs["otto"]), "resposta.pdf")
    assert "não está entre as pessoas autorizadas" in refused.value.errors["file"]
    regulated_accounts.revoke_agent(ready, SECRETARIA_CG, "chapada", PLATFORM_CNPJ, AGENT_CPF)
    with pytest.raises(PermissionDenied):
        data_answers.own_requests(ready, agent())
    with pytest.raises(PermissionDenied):
        data_answers.answer_request(ready, agent(), own.code, signing.signed_pdf(certs["rita"]), "resposta.pdf")


def test_another_platforms_request_reads_as_a_missing_one(ready):
    own = requested(ready)
    from services.shared import entities
    entities.create(ready, SECRETARIA_CG, "platforms", "chapada", {
        "name": "Outra Plataforma Ltda", "cnpj": "04252011000110", "email": "c@outra.exemplo", "status": "ativo"})
    regulated_accounts.authorize_agent(ready, SECRETARIA_CG, "chapada", "04252011000110", OTHER_AGENT_CPF, "Otto",
                                       "otto@outra.exemplo")
    other = Person("chapada", "plataforma", "04252011000110", OTHER_AGENT_CPF, "Otto").actor
    assert data_answers.own_requests(ready, other) == []
    for code in (own.code, "nao-existe"):
        with pytest.raises(NotFound) as missing:
            data_answers.own_request(ready, other, code)
        assert missing.value.message == data_answers.NOT_FOUND
    driver = Person("chapada", "condutor", AGENT_CPF, AGENT_CPF, "Rita").actor
    with pytest.raises(PermissionDenied):
        data_answers.own_requests(ready, driver)


def test_without_trust_anchors_every_signed_file_is_refused_saying_ti_must_upload_the_roots(db, at, certs):
    platform_with_agent(db)
    domicile.open_domicile(db, SECRETARIA_CG, "chapada", "plataforma", PLATFORM_CNPJ, "contato@plataforma.exemplo")
    own = requested(db)
    with pytest.raises(ValidationFailed) as refused:
        data_answers.answer_request(db, agent(), own.code, signing.signed_pdf(certs["rita"]), "resposta.pdf")
    assert "a TI deve enviar as raízes da ICP-Brasil" in refused.value.errors["file"]


def test_ti_uploads_pem_or_der_roots_per_municipality_and_removes_them(db, at, certs):
    assert trust_anchors.add_anchors(db, TI, "chapada", certs["ca"].der, "raiz.cer") == [
        certs["ca"].cert.subject.rfc4514_string()]
    with pytest.raises(Conflict):
        trust_anchors.add_anchors(db, TI, "chapada", certs["ca"].pem, "raiz.pem")
    with pytest.raises(ValidationFailed) as refused:  # a person's certificate is no anchor
        trust_anchors.add_anchors(db, TI, "chapada", certs["rita"].pem, "pessoa.pem")
    assert "não é de uma autoridade certificadora" in refused.value.errors["file"]
    with pytest.raises(ValidationFailed):
        trust_anchors.add_anchors(db, TI, "chapada", b"nada disso", "x.pem")
    assert trust_anchors.roots(db, "matupa") == []  # per municipality
    [anchor] = trust_anchors.anchors(db, TI, "chapada")
    trust_anchors.remove_anchor(db, TI, "chapada", anchor.id)
    assert trust_anchors.anchors(db, TI, "chapada") == [] and trust_anchors.roots(db, "chapada") == []
    with pytest.raises(PermissionDenied):
        trust_anchors.add_anchors(db, SECRETARIA_CG, "chapada", certs["ca"].pem, "raiz.pem")


@pytest.mark.parametrize("other_name, common_name, cpf", [
    # DOC-ICP-04 7.1.2.3: otherName 2.16.76.1.3.1 = birth (8) + CPF (11) + NIS + RG + issuer
    ("01011980" + "52998224725" + "0" * 11 + "0" * 15 + "SSPMT ", "RITA AGENTE:52998224725", "52998224725"),
    ("01011980" + "52998224725", "RITA AGENTE", "52998224725"),  # no CN suffix: the otherName is enough
    ("", "RITA AGENTE:52998224725", "52998224725"),  # no otherName: the CN's ":CPF" suffix
    ("01011980" + "0" * 11, "RITA AGENTE:52998224725", "52998224725"),  # zeros are no CPF
    ("", "PLATAFORMA DE TESTE LTDA:11444777000161", ""),  # an e-CNPJ names no person (CG art. 11 §3)
    ("", "RITA AGENTE", ""),  # neither: no signer CPF, so nobody authorized matches (CG art. 11 §3)
])
def test_the_signer_cpf_of_an_icp_brasil_certificate(other_name, common_name, cpf):
    assert signer_rules.signer_cpf(other_name, common_name) == cpf
    assert signer_rules.may_sign(cpf, frozenset({"52998224725"})) == bool(cpf)


def test_a_signed_trip_file_goes_through_the_trip_import_and_keeps_its_signature(ready, certs):
    """CG art. 11 §1º; MP art. 4º §1º: the same channel takes the trip files, signed as the answers are."""
    from tests.test_platform_obligations import TRIP, csv_file

    when = clock.to_local(START - timedelta(days=2))
    rows = [{**TRIP, "data_hora": f"{when:%d/%m/%Y} 08:10", "cpf_condutor": AGENT_CPF, "placa": "QBC1D23"}]
    bad = csv_file([{**rows[0], "mapa": ""}])
    report = data_answers.send_trip_file(ready, agent(), bad, "viagens.csv", signing.detached(certs["rita"], bad),
                                         "viagens.csv.p7s")
    assert not report.ok and report.errors[0].line == 2  # the import's own check, line by line
    files = stored_files(ready)
    data = csv_file(rows)
    with pytest.raises(ValidationFailed) as refused:  # unsigned: refused before the import
        data_answers.send_trip_file(ready, agent(), data, "viagens.csv")
    assert "assinatura destacada" in refused.value.errors["signature"]
    assert ready[trip_data.TRIPS].count_documents({}) == 0 and stored_files(ready) == files
    report = data_answers.send_trip_file(ready, agent(), data, "viagens.csv", signing.detached(certs["rita"], data),
                                         "viagens.csv.p7s")
    assert report.ok and report.rows == 1 and ready[trip_data.TRIPS].count_documents({}) == 1
    batch = ready[trip_data.TRIP_IMPORTS].find_one({})
    assert batch["signature"]["signer_cpf"] == AGENT_CPF and batch["created_by"] == f"plataforma:{PLATFORM_CNPJ}:{AGENT_CPF}"
    with pytest.raises(trip_data.TripsAlreadyImported):
        data_answers.send_trip_file(ready, agent(), data, "viagens.csv", signing.detached(certs["rita"], data), "x.p7s")
