"""Issue 36: a driver activates the account and logs in on a phone, in a real browser (Chromium), with the
code e-mailed by the panel to a real SMTP server; the pages work without JavaScript and keep the basics of
WCAG 2.1 AA (every field labelled, errors tied to their field, a skip link first, visible focus).

axe-core runs on every portal page in tests/test_browser_portal_a11y.py (its copy bundled in
axe-playwright-python, nothing fetched from the network)."""
from __future__ import annotations

from tests import portal_support as support
from tests.browser_support import chromium, require_chromium

PASSWORD = "minha-senha-forte"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True,
         "java_script_enabled": False, "locale": "pt-BR"}
UNLABELLED = """() => [...document.querySelectorAll('input:not([type=hidden]), select')]
    .filter(el => !el.labels || el.labels.length === 0).map(el => el.name)"""
BROKEN_REFERENCES = """() => [...document.querySelectorAll('[aria-describedby]')]
    .flatMap(el => el.getAttribute('aria-describedby').split(' ').filter(id => !document.getElementById(id)))"""


def check_accessible_basics(page) -> None:
    assert page.locator("html").get_attribute("lang") == "pt-BR"
    assert page.evaluate(UNLABELLED) == []
    assert page.evaluate(BROKEN_REFERENCES) == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll


def test_a_driver_activates_the_account_and_logs_in_on_a_phone_without_javascript(db, monkeypatch):
    require_chromium()
    with support.smtp_server(monkeypatch) as inbox, support.portal_server(db) as url, chromium() as browser:
        cpf = support.driver(db)
        context = browser.new_context(**PHONE)
        page = context.new_page()
        page.goto(url + "/entrar")
        check_accessible_basics(page)
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.textContent") == "Pular para o conteúdo"
        assert page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle") == "solid"

        page.get_by_role("link", name="Primeiro acesso: ativar a conta").click()
        page.get_by_label("Município").select_option(label="Chapada dos Guimarães")
        page.get_by_label("CPF ou CNPJ").fill(cpf)
        page.get_by_role("button", name="Enviar código").click()
        page.get_by_text("enviamos a esse e-mail um código").wait_for()
        code = inbox.last_code(support.DRIVER_EMAIL)

        page.get_by_label("Código recebido por e-mail").fill(code)
        page.get_by_label("Nova senha", exact=True).fill(PASSWORD)
        page.get_by_label("Repita a nova senha").fill(PASSWORD)
        page.get_by_role("button", name="Ativar a conta").click()  # without the consent: refused, tied to it
        error = page.locator("#consent-erro")
        assert "aviso de privacidade" in error.inner_text()
        assert "consent-erro" in page.locator("#consent").get_attribute("aria-describedby")
        check_accessible_basics(page)

        page.get_by_label("Código recebido por e-mail").fill(code)
        page.get_by_label("Nova senha", exact=True).fill(PASSWORD)
        page.get_by_label("Repita a nova senha").fill(PASSWORD)
        page.get_by_label("Li o aviso de privacidade").check()
        page.get_by_role("button", name="Ativar a conta").click()
        page.get_by_text("Conta ativada.").wait_for()

        page.get_by_label("Senha").fill(PASSWORD)
        page.get_by_role("button", name="Entrar").click()
        page.get_by_role("heading", name="Início").wait_for()
        assert page.get_by_role("heading", name="Domicílio eletrônico").is_visible()
        name = db["drivers"].find_one({"cpf": cpf})["name"]
        assert name in page.locator("main").inner_text()
        check_accessible_basics(page)

        page.get_by_role("button", name="Sair").click()
        page.get_by_text("Você saiu do portal.").wait_for()
        page.goto(url + "/inicio")
        assert page.url.endswith("/entrar")
        context.close()
