"""Issue 36 item 2 in a real browser (Chromium, no JavaScript): the clerk delivers an auto's decision to the
driver's electronic domicile, the driver opens it on the portal, and the case counts the appeal term from
that day (CG Decreto 06/2026 art. 25 §1–2; docs/LEITURAS.md, seção 7, leitura 29)."""
from __future__ import annotations

from datetime import timedelta

from services.ridehailing.enforcement import autos, decision_notice, documents, process
from services.shared import clock, mail, parameters, regulated_access
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.enforcement_support import decided, driver, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_bookings_charges import pdf_text
from tests.test_browser_portal import PHONE

CG = ACTORS["chapada"]
PASSWORD = "minha-senha-forte"


class _Days:  # the real clock (the portal's session cookie must not expire in the browser): days go back
    def __init__(self, value):
        self.value = value

    def set(self, day):
        self.value = max(self.value, day)


def test_a_decision_opened_on_the_portal_starts_the_appeal_term_on_the_case(db, monkeypatch):
    require_chromium()
    today = clock.today()
    cpf, _ = driver(db, "chapada", seed=61)
    db["drivers"].update_one({"cpf": cpf}, {"$set": {"email": support.DRIVER_EMAIL}})
    days = _Days(today - timedelta(days=70))
    auto_id = lavrado(db, days, "chapada", "CG-29-I", days.value, cpf)
    decided_on = decided(db, days, "chapada", auto_id, days.value - timedelta(days=0))
    with support.smtp_server(monkeypatch) as inbox:
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        mail.send_pending(db)
        regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL),
                                  PASSWORD, True)
        decision_notice.notify_decision(db, CG, "chapada", auto_id)  # by the clerk, from the case
        assert process.process_status(db, CG, "chapada", auto_id, today)["appeal_deadline"] is None
        mail.send_pending(db)
        (alert,) = [m for m in inbox.to(support.DRIVER_EMAIL) if "domic" in m.get_payload(decode=True).decode()]
    number = autos._load(db, "chapada", auto_id)["number"]
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        support.portal_login(page, url, cpf, PASSWORD)
        page.get_by_role("link", name=f"Decisão do Auto de Infração nº {number}").click()
        page.get_by_role("button", name="Abrir a mensagem").click()
        page.get_by_role("link", name="Baixar a notificação (PDF)").wait_for()
        context.close()
    term = parameters.calendar(db, "chapada", today).add_days(today, 30)
    state = process.process_status(db, CG, "chapada", auto_id, today)
    assert state["appeal_deadline"] == term and term > decided_on + timedelta(days=30)
    case = pdf_text(documents.case_file_pdf(db, CG, "chapada", auto_id, today))
    assert f"aberta em {today:%d/%m/%Y}" in case and "contado da ciência da decisão" in case
    assert term.strftime("%d/%m/%Y") in case
