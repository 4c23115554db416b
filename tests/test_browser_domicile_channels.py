"""Issue 36, the electronic channel in a real browser (Chromium on a phone, no JavaScript): two autos notified
to the driver's electronic domicile — one delivered three days ago and opened today on the portal (the
defence term runs from the opening), one delivered sixteen days ago and never opened (it counts as received
on its tacit day, the 15th after the delivery, with no write). CG Decreto 06/2026 art. 25 §1 IV and §2;
Decreto 70.235/1972 art. 23 §2 III; docs/LEITURAS.md, seção 7, leitura 27."""
from __future__ import annotations

from datetime import timedelta

from rules import notice
from seed.timeline import on
from services.ridehailing.enforcement import autos, documents, electronic, process
from services.shared import clock, mail, parameters, regulated_access
from tests import portal_support as support
from tests.browser_support import chromium, require_chromium
from tests.enforcement_support import driver, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_bookings_charges import pdf_text
from tests.test_browser_decision_notice import PASSWORD, _Days
from tests.test_browser_portal import PHONE

CG = ACTORS["chapada"]


def test_opened_on_day_3_the_term_runs_from_day_3_and_never_opened_it_runs_from_the_tacit_day(db, monkeypatch):
    require_chromium()
    today = clock.today()
    cpf, _ = driver(db, "chapada", seed=71)
    db["drivers"].update_one({"cpf": cpf}, {"$set": {"email": support.DRIVER_EMAIL}})
    days = _Days(today - timedelta(days=30))
    opened_auto = lavrado(db, days, "chapada", "CG-29-I", today - timedelta(days=20), cpf)
    tacit_auto = lavrado(db, days, "chapada", "CG-29-I", today - timedelta(days=25), cpf)
    with support.smtp_server(monkeypatch) as inbox:
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        mail.send_pending(db)
        regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code(support.DRIVER_EMAIL),
                                  PASSWORD, True)
    with on(today - timedelta(days=16)):
        electronic.notify_by_domicile(db, CG, "chapada", tacit_auto)
    with on(today - timedelta(days=3)):
        electronic.notify_by_domicile(db, CG, "chapada", opened_auto)
    tacit_days = int(parameters.value(db, "chapada", notice.TACIT_DAYS, today))
    tacit_on = today - timedelta(days=16) + timedelta(days=tacit_days)
    numbers = {key: autos._load(db, "chapada", auto_id)["number"]
               for key, auto_id in (("opened", opened_auto), ("tacit", tacit_auto))}
    with support.portal_server(db) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        support.portal_login(page, url, cpf, PASSWORD)
        home = page.inner_text("main")
        assert f"{tacit_on:%d/%m/%Y}" in home and "tácita" in home  # the inbox says it counts as received
        page.get_by_role("link", name=f"Notificação do Auto de Infração nº {numbers['opened']}").click()
        page.get_by_role("button", name="Abrir a mensagem").click()
        page.get_by_role("link", name="Baixar a notificação (PDF)").wait_for()
        context.close()
    calendar = parameters.calendar(db, "chapada", today)
    defence_days = int(parameters.value(db, "chapada", "defence_period_days", today))
    opened = process.process_status(db, CG, "chapada", opened_auto, today)
    assert opened["defence_deadline"] == calendar.add_days(today, defence_days)  # from the opening, day 3
    never = process.process_status(db, CG, "chapada", tacit_auto, today)
    assert never["defence_deadline"] == calendar.add_days(tacit_on, defence_days)  # from the tacit day
    assert autos._load(db, "chapada", tacit_auto)["notification"]["received_on"] is None  # no write made it
    case = pdf_text(documents.case_file_pdf(db, CG, "chapada", opened_auto, today))
    assert f"aberta em {today:%d/%m/%Y}" in case
    tacit_case = pdf_text(documents.case_file_pdf(db, CG, "chapada", tacit_auto, today))
    assert f"{tacit_on:%d/%m/%Y}" in tacit_case and "tácita" in tacit_case
