"""Issue 36 item 4 in a real browser (Chromium, a phone without JavaScript): the platform's authorized person
opens the data request on the portal, sends a tampered file and reads why it was refused under the field, then
sends the signed one and sees it accepted (CG Decreto 06/2026 art. 11 §2–3; MP Lei 1.552/2025 art. 4 §2–3)."""
from __future__ import annotations

from services.ridehailing import trip_data
from services.shared import trust_anchors
from tests import pki_support as pki
from tests import portal_support as support
from tests import signing_support as signing
from tests.browser_support import chromium, require_chromium
from tests.conftest import SECRETARIA_CG, TI
from tests.test_browser_portal import PHONE, check_accessible_basics

PASSWORD = "minha-senha-forte"


def test_the_authorized_person_sends_a_signed_answer_and_a_tampered_one_is_refused(db, monkeypatch):
    require_chromium()
    ca = pki.make_ca()
    good = signing.signed_pdf(pki.make_person(ca, "Rita Agente", support.AGENT_CPF))
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    support.activated_agent(db, monkeypatch, PASSWORD)
    platform_id = str(db["platforms"].find_one({"cnpj": support.PLATFORM_CNPJ})["_id"])
    trip_data.request_data(db, SECRETARIA_CG, "chapada", platform_id, "Apurar denúncia de embarque na via")
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        support.portal_login(page, url, support.PLATFORM_CNPJ, PASSWORD, support.AGENT_CPF)
        page.get_by_role("link", name="Pedidos de dados de viagem da prefeitura e respostas assinadas").click()
        page.get_by_role("link", name="Pedido entregue em").click()
        assert "Aguardando resposta" in page.locator("main").inner_text()
        check_accessible_basics(page)

        page.get_by_label("Arquivo assinado").set_input_files(
            {"name": "resposta.pdf", "mimeType": "application/pdf", "buffer": good + b"\n% acrescentado depois\n"})
        page.get_by_role("button", name="Enviar a resposta").click()
        error = page.locator("#file-erro")
        assert "adulterado" in error.inner_text()
        assert "file-erro" in page.locator("#file").get_attribute("aria-describedby")
        assert "nada foi gravado" in page.locator("#mensagem").inner_text()
        check_accessible_basics(page)
        assert db["platform_data_requests"].find_one({})["answered_at"] is None

        page.get_by_label("Arquivo assinado").set_input_files(
            {"name": "resposta.pdf", "mimeType": "application/pdf", "buffer": good})
        page.get_by_role("button", name="Enviar a resposta").click()
        page.get_by_text("Resposta recebida").wait_for()
        main = page.locator("main").inner_text()
        assert "Respondido no prazo" in main and "RITA AGENTE" in main and "PAdES" in main
        context.close()
    assert db["platform_data_requests"].find_one({})["answer"]["signer_cpf"] == support.AGENT_CPF
