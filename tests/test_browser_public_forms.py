"""Issue 38 item 4 in a real browser (Chromium, no JavaScript, a phone's screen): TI opens a defined register to
the public, a resident (requerente) on the portal opens its form, sends it with a mistake and is told under the
field (what was typed kept), fixes it, and the request is a record of the register in the first state of its flow,
as the clerk's own services read it, with a protocol number the person keeps."""
from __future__ import annotations

from services.shared import clock, definitions, entity_lists, flows
from services.shared.regulated_accounts import KINDS, REQUESTER
from services.shared.schema import ListQuery
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.conftest import SECRETARIA_CG
from tests.test_browser_portal import PHONE, check_accessible_basics
from tests.test_portal_public_forms import PASSWORD
from tests.test_public_forms import NAME, PDF, PUBLIC, TI_CG, stalls


def test_a_person_sends_a_public_form_fixes_a_mistake_and_the_clerk_finds_it_in_the_first_state(db):
    require_chromium()
    definitions.define_register(db, TI_CG, "chapada", stalls())
    loaded = definitions.definition(db, TI_CG, "chapada", NAME)  # TI marks it (the service the TI screen calls)
    definitions.change_register(db, TI_CG, "chapada", NAME, {**loaded, "public": {"open": True, "fields": PUBLIC}},
                                expected_version=loaded["version"])
    with support.portal_server(db) as url, chromium() as browser:
        cpf = "39053344705"  # a resident with an account opened on the portal (sign-up done)
        support.ready_account(db, "chapada", REQUESTER, cpf, "Dora Requerente", "dora@exemplo.com.br", PASSWORD)
        context = browser.new_context(**PHONE)
        page = context.new_page()
        support.portal_login(page, url, cpf, PASSWORD, as_kind=KINDS[REQUESTER])
        page.get_by_role("link", name="Fazer um pedido pelo portal").click()
        page.get_by_role("link", name="Banca da feira").click()
        page.get_by_role("heading", name="Banca da feira").wait_for()
        check_accessible_basics(page)
        page.get_by_label("Nome do titular").fill("Ana Souza")
        page.get_by_label("Foto da banca").set_input_files({"name": "banca.pdf", "mimeType": "application/pdf",
                                                            "buffer": PDF})
        page.get_by_role("button", name="Enviar o pedido").click()  # no product chosen

        error = page.locator("#produto-erro")
        assert error.inner_text() == "Produto: campo obrigatório."
        assert "produto-erro" in page.get_by_label("Produto").get_attribute("aria-describedby")
        assert page.get_by_label("Nome do titular").input_value() == "Ana Souza"
        assert db[NAME].count_documents({}) == 0
        check_accessible_basics(page)

        page.get_by_label("Produto").select_option(label="Hortaliças")
        page.get_by_label("Foto da banca").set_input_files({"name": "banca.pdf", "mimeType": "application/pdf",
                                                            "buffer": PDF})
        page.get_by_role("button", name="Enviar o pedido").click()
        protocol = f"0001/{clock.today().year}"
        page.get_by_text(f"Guarde o número do protocolo: {protocol}").wait_for()
        assert "Protocolado" in page.locator("main").inner_text()

        [record] = entity_lists.list_page(db, SECRETARIA_CG, NAME, "chapada", ListQuery()).rows
        assert (record["titular"], record["produto"], record["protocol"]) == ("Ana Souza", "Hortaliças", protocol)
        assert record["foto"]["name"] == "banca.pdf"
        assert (record["requester"]["kind"], record["requester"]["document"]) == (REQUESTER, cpf)
        status = flows.status(db, SECRETARIA_CG, "chapada", NAME, record["id"])
        assert status.state == "Protocolado"  # the flow's first state, as the clerk's screen shows it
        page.get_by_role("link", name="Voltar a meus pedidos").click()
        assert page.get_by_role("link", name=protocol).is_visible()
        context.close()
