"""Issue 36 item 4: the platform's list of drivers and vehicles (CG Decreto 06/2026 art. 5º VIII; MP Lei
1.552/2025 art. 5º IX) sent on the portal by its authorized person, signed like the trip files (a CSV/XLSX
with its detached ``.p7s``), verified under the municipality's trust anchors, then received exactly as the
clerk's import receives it: the same row checks, the same reconciliation (CG art. 30; MP art. 12 XXV) and
draft autos, the same audit, with the person as actor and the signer kept on the list."""
from __future__ import annotations

import random

import pytest
from bson import ObjectId

from seed.people import cpf
from services.ridehailing import data_answers, platform_lists
from services.ridehailing.enforcement import autos as enforcement
from services.shared import clock, entities, regulated_accounts
from services.shared.errors import PermissionDenied, ValidationFailed
from services.shared.regulated_accounts import Person
from tests import signing_support as signing
from tests.conftest import SECRETARIA_CG
from tests.portal_support import AGENT_CPF, PLATFORM_CNPJ
from tests.ridehailing_data import set_fee
from tests.test_platform_obligations import active, csv_file
from tests.test_signed_answers import OTHER_AGENT_CPF, agent, at, certs, platform_id, ready, stored_files  # noqa: F401

OTHER_CNPJ = "04252011000110"


def listed(db) -> list[dict[str, str]]:
    """A list with one driver authorized, one stranger outside the register and one driver with another
    vehicle: two hits of the reconciliation."""
    set_fee(db, "chapada")
    valid = active(db, "chapada", 11)
    other_car = active(db, "chapada", 13)
    stranger = cpf(random.Random(99))
    return [{"CPF": valid[0], "Placa": valid[1], "Nome": "Ana Regular"},
            {"CPF": stranger, "Placa": "XYZ9A87", "Nome": "Carla Sem Cadastro"},
            {"CPF": other_car[0], "Placa": "QWE4R56", "Nome": "Davi Outro Carro"}]


def written(db) -> tuple:
    """Everything a reception writes: lists, reconciliation drafts, reports, autos, audit entries, files."""
    return (db[platform_lists.LISTS].count_documents({}), db[platform_lists.DRAFTS].count_documents({}),
            db["platform_reports"].count_documents({}), db[enforcement.COLLECTION].count_documents({}),
            db["audit"].count_documents({}), stored_files(db))


def hits_of(db, list_id: str) -> list[tuple]:
    return [(d["line"], d["cpf"], d["plate"], d["name"], d["message"], d["reference"], d["status"], bool(d["auto_id"]))
            for d in platform_lists.drafts(db, SECRETARIA_CG, "chapada", list_id)]


def test_a_signed_list_is_received_and_reconciled_as_the_clerks_import_of_the_same_file(ready, certs):
    """CG art. 5º VIII and art. 30: the list sent on the portal gives the very report, drafts and draft autos
    the clerk's import of the same file gives; the list keeps who signed and who sent it."""
    data = csv_file(listed(ready))
    report = data_answers.send_driver_list(ready, agent(), data, "relacao.csv", signing.detached(certs["rita"], data),
                                           "relacao.csv.p7s")
    assert report.ok and (report.rows, report.hits) == (3, 2)
    doc = ready[platform_lists.LISTS].find_one({"_id": ObjectId(report.record_id)})
    assert doc["received_on"] == clock.today().isoformat() and doc["platform_cnpj"] == PLATFORM_CNPJ
    assert (doc["signature"]["signer_cpf"], doc["signature"]["sent_by"]) == (AGENT_CPF, AGENT_CPF)
    assert doc["signature"]["signature_sha"] and doc["created_by"] == agent().username
    entry = ready["audit"].find_one({"collection": platform_lists.LISTS, "doc_id": report.record_id})
    assert entry["username"] == agent().username and "pelo portal, assinada" in entry["note"]
    [received] = platform_lists.received_lists(ready, SECRETARIA_CG, "chapada")
    assert data_answers.list_channel(received).startswith("portal, assinada por RITA AGENTE (CPF ***.")
    [report_doc] = ready["platform_reports"].find({"platform_cnpj": PLATFORM_CNPJ, "kind": "lista"})

    clerk = platform_lists.receive_list(ready, SECRETARIA_CG, "chapada", platform_id(ready), clock.today(), data,
                                        "relacao.csv", commit=True)
    assert (clerk.ok, clerk.rows, clerk.hits, clerk.errors) == (report.ok, report.rows, report.hits, report.errors)
    assert hits_of(ready, clerk.record_id) == hits_of(ready, report.record_id)
    assert [h[6:] for h in hits_of(ready, report.record_id)] == [(platform_lists.AUTO_DRAFTED, True)] * 2
    assert ready[enforcement.COLLECTION].count_documents({"status": "rascunho"}) == 4  # two per reception
    assert ready["platform_reports"].count_documents({"kind": "lista"}) == 2 and report_doc["on"]
    clerks, portals = platform_lists.received_lists(ready, SECRETARIA_CG, "chapada")  # newest first
    assert (clerks["id"], portals["id"]) == (clerk.record_id, report.record_id)
    assert data_answers.list_channel(clerks) == "registrada pelo servidor"


def test_a_bad_row_is_reported_with_its_line_and_nothing_is_kept(ready, certs):
    rows = listed(ready)
    rows[1]["CPF"] = "123"
    data = csv_file(rows)
    before = written(ready)
    report = data_answers.send_driver_list(ready, agent(), data, "relacao.csv", signing.detached(certs["rita"], data),
                                           "relacao.csv.p7s")
    clerk = platform_lists.receive_list(ready, SECRETARIA_CG, "chapada", platform_id(ready), clock.today(), data,
                                        "relacao.csv")
    assert not report.ok and report.errors == clerk.errors and [e.line for e in report.errors] == [3]
    assert written(ready) == before


@pytest.mark.parametrize("case, field, words", [
    ("unsigned", "signature", "assinatura destacada"),
    ("tampered", "file", "adulterado"),
    ("signer not authorized", "file", "não está entre as pessoas autorizadas"),
    ("a signed pdf", "file", "não é um CSV"),  # the list is a table: a PDF, even signed, is none
])
def test_an_unsigned_or_tampered_list_is_refused_with_nothing_written(ready, certs, case, field, words):
    data = csv_file(listed(ready))
    name, p7s = "relacao.csv", signing.detached(certs["rita"], data)
    if case == "unsigned":
        p7s = None
    elif case == "tampered":
        data = data.replace(b"Ana Regular", b"Ana Irregular")
    elif case == "signer not authorized":
        p7s = signing.detached(certs["outsider"], data)
    else:
        data, name, p7s = signing.signed_pdf(certs["rita"]), "relacao.pdf", None
    before = written(ready)
    with pytest.raises(ValidationFailed) as refused:
        data_answers.send_driver_list(ready, agent(), data, name, p7s, "relacao.csv.p7s")
    assert words in refused.value.errors[field] and written(ready) == before


def test_a_person_of_another_platform_or_no_longer_authorized_is_refused(ready, certs):
    data = csv_file(listed(ready))
    entities.create(ready, SECRETARIA_CG, "platforms", "chapada", {
        "name": "Outra Plataforma Ltda", "cnpj": OTHER_CNPJ, "email": "c@outra.exemplo", "status": "ativo"})
    regulated_accounts.authorize_agent(ready, SECRETARIA_CG, "chapada", OTHER_CNPJ, OTHER_AGENT_CPF, "Otto",
                                       "otto@outra.exemplo")
    other = Person("chapada", "plataforma", OTHER_CNPJ, OTHER_AGENT_CPF, "Otto").actor
    before = written(ready)
    with pytest.raises(ValidationFailed) as refused:  # Rita signs for the platform Otto does not represent
        data_answers.send_driver_list(ready, other, data, "relacao.csv", signing.detached(certs["rita"], data), "r.p7s")
    assert "não está entre as pessoas autorizadas" in refused.value.errors["file"] and written(ready) == before
    regulated_accounts.revoke_agent(ready, SECRETARIA_CG, "chapada", PLATFORM_CNPJ, AGENT_CPF)  # audited
    before = written(ready)
    with pytest.raises(PermissionDenied):
        data_answers.send_driver_list(ready, agent(), data, "relacao.csv", signing.detached(certs["rita"], data),
                                      "relacao.csv.p7s")
    driver = Person("chapada", "condutor", AGENT_CPF, AGENT_CPF, "Rita").actor
    with pytest.raises(PermissionDenied):
        data_answers.send_driver_list(ready, driver, data, "relacao.csv", signing.detached(certs["rita"], data), "r")
    with pytest.raises(PermissionDenied):  # the clerk's service stays the staff's
        platform_lists.receive_list(ready, agent(), "chapada", platform_id(ready), clock.today(), data, "relacao.csv")
    assert written(ready) == before


def test_the_staff_screen_shows_the_list_came_through_the_portal_and_who_signed_it(ready, certs):
    from tests.test_page_platform_obligations import page

    data = csv_file(listed(ready))
    data_answers.send_driver_list(ready, agent(), data, "relacao.csv", signing.detached(certs["rita"], data), "r.p7s")
    platform_lists.receive_list(ready, SECRETARIA_CG, "chapada", platform_id(ready), clock.today(), data,
                                "relacao.csv", commit=True)
    at = page()
    assert not at.exception
    received = next(df.value for df in at.dataframe if "Canal" in df.value.columns)
    masked = f"***.{AGENT_CPF[3:6]}.{AGENT_CPF[6:9]}-**"
    assert received["Canal"].tolist() == ["registrada pelo servidor", f"portal, assinada por RITA AGENTE (CPF {masked})"]
