"""Issue 38 item 2 in a real browser (Chromium, a phone, no JavaScript): a driver logs in, finds the overdue
DAM in "Meus DAMs", asks its 2ª via by keyboard and downloads its PDF, which carries the new due date.

Accessibility: axe-core runs on these pages in tests/test_browser_portal_a11y.py; here each page also passes a
minimal set of checks in the browser — the page's language, every field labelled, every aria-describedby
pointing at an element, one h1 and no heading level skipped, no sideways scroll — and the 2ª via is asked
with the keyboard alone."""
from __future__ import annotations

import io

from pypdf import PdfReader

from services.dam import dams
from services.setup import bootstrap
from services.shared import regulated_accounts
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.test_browser_portal import PHONE, check_accessible_basics
from tests.test_own_dams import LATER, issue, rates  # noqa: F401  (rates: a fixture)
from tests.test_portal_dams import PASSWORD

HEADINGS = """() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map(h => Number(h.tagName[1]))"""


def check_page(page) -> None:
    check_accessible_basics(page)
    levels = page.evaluate(HEADINGS)
    assert levels[0] == 1 and levels.count(1) == 1, levels
    assert all(after - before <= 1 for before, after in zip(levels, levels[1:])), levels


def test_a_driver_asks_the_2a_via_of_an_overdue_dam_and_downloads_its_pdf(db, today, rates):  # noqa: F811
    require_chromium()
    cpf = support.driver(db)
    bootstrap.mark_store(db, "demo")
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)
    overdue = issue(db, cpf)
    issue(db, cpf, due=LATER.replace(month=5))
    today.set(LATER)
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE, accept_downloads=True)
        page = context.new_page()
        page.goto(url + "/consulta")
        check_page(page)
        page.get_by_role("button", name="Consultar").click()  # nothing typed: each error tied to its field
        assert "number-erro" in page.get_by_label("Número").get_attribute("aria-describedby")
        check_page(page)
        page.goto(url + "/entrar")
        page.get_by_label("Município").select_option(label="Chapada dos Guimarães")
        page.get_by_label("CPF ou CNPJ").fill(cpf)
        page.get_by_label("Senha").fill(PASSWORD)
        page.get_by_role("button", name="Entrar").click()
        page.get_by_role("link", name="Meus DAMs").click()
        check_page(page)
        row = page.get_by_role("row").filter(has_text=overdue["number"])
        assert "Vencido" in row.inner_text() and "R$ 100,00" in row.inner_text()
        row.get_by_role("link", name=overdue["number"]).click()
        check_page(page)

        page.get_by_role("button", name="Emitir a 2ª via").focus()
        page.keyboard.press("Enter")
        page.get_by_text("2ª via emitida").wait_for()
        check_page(page)
        new_number = page.locator("h1").inner_text().removeprefix("DAM ")
        assert new_number != overdue["number"] and "15/04/2026" in page.locator("main").inner_text()
        with page.expect_download() as download:
            page.get_by_role("link", name=f"Baixar o DAM {new_number} (PDF)").click()
        content = download.value.path().read_bytes()
        assert content.startswith(b"%PDF")
        text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(content)).pages)
        assert new_number in text and "15/04/2026" in text
        context.close()
    assert dams._load(db, "chapada", overdue["id"])["status"] == dams.CANCELLED
