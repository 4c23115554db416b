"""Issue 36 item 4 on the portal, over real HTTP: the platform's authorized person sends the list of drivers
and vehicles (CG Decreto 06/2026 art. 5º VIII; MP Lei 1.552/2025 art. 5º IX) signed on ``/relacoes``; a form
without its CSRF token, a file signed by another platform's person and a bad row are refused, the bad row
shown with its line, and nothing is recorded; the list lands on the person's own platform (the page takes
no platform: it is the session's)."""
from __future__ import annotations

import random

from seed.people import cpf
from services.ridehailing import platform_lists
from services.shared import entities, regulated_accounts, trust_anchors
from tests import pki_support as pki
from tests import portal_support as support
from tests import signing_support as signing
from tests.conftest import SECRETARIA_CG, TI
from tests.test_platform_obligations import csv_file
from tests.test_portal_answers import platform_person_logged_in, send

OTHER_CNPJ, OTTO_CPF = "04252011000110", "39053344705"


def test_the_platform_sends_its_signed_list_and_forgeries_and_bad_rows_are_refused(db, monkeypatch):
    ca = pki.make_ca()
    rita, otto = pki.make_person(ca, "Rita Agente", support.AGENT_CPF), pki.make_person(ca, "Otto Agente", OTTO_CPF)
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    rows = [{"CPF": cpf(random.Random(5)), "Placa": "ABC1D23", "Nome": "Ana Listada"},
            {"CPF": cpf(random.Random(6)), "Placa": "DEF4G56", "Nome": "Bruno Listado"}]
    good, bad = csv_file(rows), csv_file([rows[0], {**rows[1], "Placa": "placa?"}])
    with support.portal_server(db) as url:
        client = platform_person_logged_in(db, monkeypatch, url)
        status, _h, home = client.request("/inicio")
        assert status == 200 and 'href="/relacoes"' in home
        signed = {"file": ("relacao.csv", good), "signature": ("relacao.csv.p7s", signing.detached(rita, good))}

        assert send(client, "/relacoes", None, signed)[0] == 403  # no CSRF token
        assert send(client, "/relacoes", "0" * 64, signed)[0] == 403  # a forged one

        status, _h, body = send(client, "/relacoes", client.csrf("/relacoes"),
                                {"file": ("relacao.csv", bad), "signature": ("r.p7s", signing.detached(rita, bad))})
        assert status == 400 and "<td>3</td><td>Placa</td>" in body and "nada foi gravado" in body

        # another platform's authorized person signs: refused
        entities.create(db, SECRETARIA_CG, "platforms", "chapada", {
            "name": "Outra Plataforma Ltda", "cnpj": OTHER_CNPJ, "email": "c@outra.exemplo", "status": "ativo"})
        regulated_accounts.authorize_agent(db, SECRETARIA_CG, "chapada", OTHER_CNPJ, OTTO_CPF, "Otto Agente",
                                           "otto@outra.exemplo")
        status, _h, body = send(client, "/relacoes", client.csrf("/relacoes"),
                                {"file": ("relacao.csv", good), "signature": ("r.p7s", signing.detached(otto, good))})
        assert status == 400 and 'id="file-erro"' in body and "não está entre as pessoas autorizadas" in body
        assert db[platform_lists.LISTS].count_documents({}) == 0 and db["platform_reports"].count_documents({}) == 0

        status, _h, body = send(client, "/relacoes", client.csrf("/relacoes"), signed)
        assert status == 200 and "Relação recebida em" in body and "2 linhas" in body
    [received] = db[platform_lists.LISTS].find({})
    assert (received["platform_cnpj"], received["row_count"]) == (support.PLATFORM_CNPJ, 2)
    assert received["signature"]["signer_cpf"] == support.AGENT_CPF
