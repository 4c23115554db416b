"""Issue 38 item 3 in a real browser (Chromium, a phone, no JavaScript): a resident of Nova Lacerda logs in with
the account she opened, asks for 5 loads of earth with the BPC discount (Decreto 017/2026 art. 2 §4, art. 7,
Anexo II) sending the receipt, the clerk makes the quote and issues the DAM (the clerk's services), she sees the
quote in R$ and her DAM, the payment is recorded by the money loop, and she sees her place in the zone's queue
and then the day booked."""
from __future__ import annotations

from datetime import timedelta

from services.machinery import booking_requests, payment, quotes, schedule
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.test_bookings import CLERK, MONDAY, NL, nl, pay, upfront  # noqa: F401  (nl: a fixture)
from tests.test_browser_portal import PHONE
from tests.test_browser_portal_dams import check_page

JOANA = "98765432100"
PASSWORD = "senha-da-joana-1"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def test_a_resident_asks_five_loads_with_bpc_pays_the_dam_and_sees_the_queue_and_the_day(db, nl, today):
    require_chromium()
    support.ready_account(db, NL, "requerente", JOANA, "Joana Nova", "joana@exemplo.com.br", PASSWORD)
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        support.portal_login(page, url, JOANA, PASSWORD, as_kind="Cidadão ou entidade", municipality="Nova Lacerda")
        page.get_by_role("link", name="Pedir um serviço").click()
        check_page(page)
        page.get_by_label("Documento de identificação apresentado").fill("RG 1234567 SSP/MT")
        page.get_by_label("Endereço").fill("Lote 7, Assentamento Bandeira")
        page.get_by_label("Zona e localidade").select_option(label="Zona Norte — Assentamento Bandeira")
        page.get_by_label("Comprovante de residência ou sede", exact=True).fill("Conta de energia 03/2026")
        page.get_by_label("Cargas de terra ou cascalho (item 12)").fill("5")
        page.get_by_label("Para que é o serviço (justificativa)").fill("Cascalhar a entrada do lote")
        page.get_by_label("Licença ambiental ou origem autorizada do material").fill("Cascalheira municipal, LO 12/2026")
        page.get_by_label("Critério do desconto").select_option(label="Recebimento do Benefício de Prestação "
                                                                      "Continuada (BPC)")
        page.get_by_label("Comprovante apresentado").select_option(label="Comprovante de recebimento do BPC")
        page.get_by_label("Número ou referência do comprovante").fill("NB 123.456.789-0")
        page.get_by_label("Arquivo do comprovante do desconto").set_input_files(
            {"name": "bpc.png", "mimeType": "image/png", "buffer": PNG})
        page.get_by_label("V – Declaro concordar").check()
        page.get_by_role("button", name="Protocolar o pedido").click()
        # the liability declaration left out: refused under its field, the rest kept as typed
        assert "art. 2, §4, VI" in page.locator("#liability-erro").inner_text()
        assert page.get_by_label("Endereço").input_value() == "Lote 7, Assentamento Bandeira"
        check_page(page)
        page.get_by_label("VI – Declaro assumir").check()
        page.get_by_label("Arquivo do comprovante do desconto").set_input_files(
            {"name": "bpc.png", "mimeType": "image/png", "buffer": PNG})
        page.get_by_role("button", name="Protocolar o pedido").click()
        page.get_by_role("heading", name="Pedido 0001/2026").wait_for()
        check_page(page)
        assert "Aguardando orçamento" in page.locator("main").inner_text()

        [row] = booking_requests.list_requests(db, CLERK, NL)  # in the clerk's list, with the receipt
        doc = booking_requests.get_request(db, CLERK, NL, row["id"])
        assert doc["attachments"][0]["name"] == "bpc.png" and doc["discount_claims"][0]["criterion"] == "BPC"
        quotes.make_quote(db, CLERK, NL, row["id"], MONDAY)
        [full] = upfront(payment.issue_payment(db, CLERK, NL, row["id"], MONDAY))
        page.reload()
        text = page.locator("main").inner_text()
        assert "R$ 750,00" in text and "R$ 525,00" in text and "total R$ 225,00" in text
        page.get_by_role("link", name="pagar").click()
        page.get_by_role("heading", name=f"DAM {full['dam_number']}").wait_for()
        assert "R$ 225,00" in page.locator("main").inner_text()

        pay(db, full["dam_id"])  # the bank's payment, recorded by the money loop
        page.go_back()
        page.reload()
        assert "Posição 1 de 1 na fila da Zona Norte" in page.locator("main").inner_text()
        schedule.book(db, CLERK, NL, row["id"], MONDAY + timedelta(days=2), [(nl["truck"], nl["pedro"])])
        page.reload()
        check_page(page)
        assert "Dia marcado: 08/04/2026" in page.locator("main").inner_text()
        context.close()
