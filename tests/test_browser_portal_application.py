"""Issue 38 item 1 in a real browser (Chromium, a phone, no JavaScript): a driver candidate with a portal account
applies for the authorization — their data, the vehicle, the documents' copies —, is told the article of the
document still missing when sending, sends it once complete and gets the protocol; the clerk approves it and
the person's page shows the approval and where and until when to present the vehicle for the vistoria."""
from __future__ import annotations

from tests import portal_support as support
from tests.application_support import PDF, approve, candidate, documents_form, driver_form, vehicle_form
from tests.browser_support import chromium, require_chromium
from tests.ridehailing_data import ACTORS
from tests.test_browser_portal import PHONE
from tests.test_browser_portal_dams import check_page

PASSWORD = "senha-do-candidato-1"
EMAIL = "candidato@exemplo.com.br"
MISSING = "Falta: Documento não apresentado: Certidão negativa de antecedentes criminais (Decreto 06/2026 " \
          "(Chapada dos Guimarães), art. 12, III)"


def fill_form(page, values: dict[str, str]) -> None:
    """Type each value in its field as a person does: a choice picked, a text typed."""
    for name, value in values.items():
        field = page.locator(f"#{name}")
        if not field.count():
            continue
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)


def send_documents(page, texts: dict[str, str], files: dict[str, tuple[bytes, str]]) -> None:
    for name, value in texts.items():
        page.locator(f"#{name}").fill(value)
    for name, (data, file_name) in files.items():
        page.locator(f"#{name}").set_input_files({"name": file_name, "mimeType": "application/pdf", "buffer": data})
    page.get_by_role("button", name="Salvar os documentos").click()


def sign_up(page, url: str, inbox, person) -> None:
    """The candidate opens their own account on the portal (/cadastro), proving the e-mail with the code."""
    page.goto(url + "/cadastro")
    page.get_by_label("Município").select_option(label="Chapada dos Guimarães")
    page.get_by_label("Candidato a condutor (quero me credenciar)").check()
    page.get_by_label("CPF ou CNPJ").fill(person.document)
    page.get_by_label("Nome completo").fill(person.name)
    page.get_by_label("E-mail").fill(EMAIL)
    page.get_by_role("button", name="Criar conta e receber o código").click()
    page.get_by_label("Código recebido por e-mail").fill(inbox.last_code(EMAIL))
    page.get_by_label("Município").select_option(label="Chapada dos Guimarães")
    page.get_by_label("Condutor", exact=True).check()
    page.get_by_label("CPF ou CNPJ").fill(person.document)
    page.get_by_label("Nova senha", exact=True).fill(PASSWORD)
    page.get_by_label("Repita a nova senha").fill(PASSWORD)
    page.get_by_label("Li o aviso de privacidade").check()
    page.get_by_role("button", name="Ativar a conta").click()
    page.get_by_text("Conta ativada").wait_for()


def test_a_candidate_applies_is_told_the_missing_article_completes_it_and_sees_the_approval(db, today, monkeypatch):
    require_chromium()
    person = candidate("chapada")
    with support.smtp_server(monkeypatch) as inbox, support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        sign_up(page, url, inbox, person)
        support.portal_login(page, url, person.document, PASSWORD, as_kind="Condutor")
        page.get_by_role("link", name="Pedir a autorização (credenciamento) e acompanhar o pedido").click()
        check_page(page)
        page.get_by_role("link", name="Seus dados").click()
        fill_form(page, {**driver_form(person), "cnh_valid_until": "31/02/2031"})
        page.get_by_role("button", name="Salvar").click()
        assert page.locator("#cnh_valid_until").input_value() == "31/02/2031"  # kept as typed, error beside it
        assert "data inválida" in page.locator("#cnh_valid_until-erro").inner_text()
        check_page(page)
        fill_form(page, driver_form(person))
        page.get_by_role("button", name="Salvar").click()
        page.get_by_role("link", name="Veículo").click()
        fill_form(page, vehicle_form(person))
        page.get_by_role("button", name="Salvar").click()
        page.get_by_role("link", name="Documentos").click()
        check_page(page)
        texts, files = documents_form("chapada", missing=("criminal",))
        send_documents(page, texts, files)
        page.get_by_role("button", name="Enviar o pedido").click()
        assert "ainda não pode ser enviado" in page.locator("#mensagem").inner_text()
        assert "Falta: Certidão negativa de antecedentes criminais (Decreto 06/2026 (Chapada dos Guimarães), " \
               "art. 12, III)" in page.locator("main").inner_text()
        page.get_by_role("link", name="Documentos").click()
        assert MISSING in page.locator("#doc-criminal").inner_text()  # beside the document's field
        send_documents(page, {}, {"criminal-file": (PDF, "certidao.pdf")})
        page.get_by_role("button", name="Enviar o pedido").click()
        page.get_by_role("heading", name="Protocolo 0001/2026").wait_for()
        assert "Pedido enviado: protocolo 0001/2026" in page.locator("main").inner_text()
        check_page(page)

        approve(db, ACTORS["chapada"], "chapada", "0001/2026", today.value)
        page.reload()
        steps = page.locator("ol.passos").inner_text()
        assert "Pedido aprovado em 02/03/2026" in steps and "até 09/03/2026" in steps and "art. 13" in steps
        assert "Aguardando vistoria" in page.locator("main").inner_text()
        context.close()
