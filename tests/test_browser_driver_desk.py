"""Issue 38 item 1 in a real browser (Chromium, no JavaScript, a phone's viewport): a driver files the defence
to their auto on the portal with an attachment, inside the term the page shows, and the clerk's case screen
(the Streamlit page "Autos de infração") shows it joined with its date and time and the attachment."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services import store
from services.ridehailing.enforcement import autos
from services.setup import bootstrap
from services.shared import clock, regulated_accounts
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.enforcement_support import driver, lavrado, notified
from tests.ridehailing_data import ACTORS
from tests.test_browser_portal import PHONE

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "senha-de-demonstracao"
PDF = b"%PDF-1.4\n% razoes da defesa\n"


def test_a_driver_files_a_defence_with_an_attachment_and_the_clerk_sees_it_joined(db, today):
    require_chromium()
    now = clock.to_local(clock.now_utc()).date()  # the juntada's time is the real one: the days around it too
    cpf, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-29-I", now - timedelta(days=10), cpf)
    last = notified(db, today, "chapada", auto_id, now - timedelta(days=10))
    today.set(now)
    bootstrap.mark_store(db, "demo")
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)
    number = autos._load(db, "chapada", auto_id)["number"]
    with support.portal_server(db) as url, chromium() as browser:
        page = browser.new_context(**PHONE).new_page()
        support.portal_login(page, url, cpf, PASSWORD)
        page.get_by_role("link", name="Meus autos de infração: defesa e recurso").click()
        page.get_by_role("link", name=f"Auto nº {number}").click()
        page.get_by_text(f"Prazo até {last:%d/%m/%Y}").wait_for()
        page.get_by_role("button", name="Enviar a defesa").click()  # nothing typed: refused under the field
        page.locator("#summary-erro").wait_for()
        page.get_by_label("Resumo das razões").fill("Não estava no local: estava em consulta médica.")
        page.get_by_label("Anexo 1").set_input_files(files=[{"name": "atestado.pdf", "mimeType": "application/pdf",
                                                           "buffer": PDF}])
        page.get_by_role("button", name="Enviar a defesa").click()
        page.get_by_text("Defesa juntada ao processo.").wait_for()
        joined = page.get_by_role("heading", name="Defesa juntada em").inner_text()
        assert f"{now:%d/%m/%Y} às " in joined and "pelo portal" in joined
        assert "Anexo: atestado.pdf" in page.content() and "Enviar a defesa" not in page.content()

    stored = autos._load(db, "chapada", auto_id)["defence"]
    assert stored["via"] == "portal" and store.get_file(db, stored["attachments"][0]["sha256"]) == PDF
    at = AppTest.from_file(str(ROOT / "app_pages" / "autos.py"), default_timeout=60)
    at.session_state["actor"] = ACTORS["chapada"]
    at.session_state["municipality"] = "chapada"
    at.session_state["autos_open"] = auto_id
    at.run()
    assert not at.exception, at.exception
    shown = " | ".join(m.value for m in at.markdown)
    assert f"Juntada em {clock.to_local(stored['filed_at']):%d/%m/%Y às %H:%M}, pelo portal" in shown
    assert "estava em consulta médica" in shown
    assert any("Anexo: atestado.pdf" in str(b.proto.label) for b in at.get("download_button"))
