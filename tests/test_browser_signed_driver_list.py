"""Issue 36 item 4 in a real browser (Chromium, a phone without JavaScript): the platform's authorized person
sends the list of drivers and vehicles on the portal (CG Decreto 06/2026 art. 5º VIII; MP Lei 1.552/2025 art. 5º
IX), reads a bad row with its line, then sends the signed list and sees it received."""
from __future__ import annotations

import random

from seed.people import cpf
from services.ridehailing import platform_lists
from services.shared import trust_anchors
from tests import pki_support as pki
from tests import portal_support as support
from tests import signing_support as signing
from tests.browser_support import chromium, require_chromium
from tests.conftest import TI
from tests.test_browser_portal import PHONE, check_accessible_basics
from tests.test_platform_obligations import csv_file

PASSWORD = "minha-senha-forte"


def test_the_authorized_person_sends_the_signed_list_and_reads_a_bad_row_with_its_line(db, monkeypatch):
    require_chromium()
    ca = pki.make_ca()
    rita = pki.make_person(ca, "Rita Agente", support.AGENT_CPF)
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    support.activated_agent(db, monkeypatch, PASSWORD)
    rows = [{"CPF": cpf(random.Random(5)), "Placa": "ABC1D23", "Nome": "Ana Listada"}]
    good, bad = csv_file(rows), csv_file([rows[0], {**rows[0], "Placa": "placa?"}])
    signed = {data: signing.detached(rita, data) for data in (good, bad)}  # before Playwright's loop runs
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        support.portal_login(page, url, support.PLATFORM_CNPJ, PASSWORD, support.AGENT_CPF)
        page.get_by_role("link", name="Enviar a relação de condutores e veículos (arquivo assinado)").click()
        check_accessible_basics(page)

        def send(data: bytes) -> None:
            page.get_by_label("Arquivo da relação").set_input_files(
                {"name": "relacao.csv", "mimeType": "text/csv", "buffer": data})
            page.get_by_label("Assinatura destacada (.p7s)").set_input_files(
                {"name": "relacao.csv.p7s", "mimeType": "application/pkcs7-signature",
                 "buffer": signed[data]})
            page.get_by_role("button", name="Enviar a relação").click()

        send(bad)
        cells = page.get_by_role("table", name="Linhas com problemas").locator("tbody td").all_inner_texts()
        assert cells[:2] == ["3", "Placa"] and cells[2]  # the line, the column and why, in pt-BR
        assert "nada foi gravado" in page.locator("#mensagem").inner_text()
        check_accessible_basics(page)
        assert db[platform_lists.LISTS].count_documents({}) == 0

        send(good)
        page.get_by_text("Relação recebida em").wait_for()
        assert "1 linha" in page.locator("main").inner_text()
        context.close()
    [received] = db[platform_lists.LISTS].find({})
    assert received["signature"]["signer_cpf"] == support.AGENT_CPF and received["row_count"] == 1
