"""Issue 36 item 2 on the portal: the driver's electronic domicile over real HTTP — the notice delivered by the
clerk listed on Início, shown without being opened, opened only by the person's own form (the opening is the
legal receipt, CG Decreto 06/2026 art. 25 §1 IV), its PDF read once opened, and nobody else's message reached."""
from __future__ import annotations

import re
from datetime import timedelta

from services.ridehailing.enforcement import autos, electronic
from services.shared import clock, mail, regulated_access
from tests import portal_support as support
from tests.conftest import SECRETARIA_CG
from tests.enforcement_support import driver, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_portal_http import Client

PASSWORD = "minha-senha-forte"


class _Now:  # the real clock: the portal's session cookie must not expire in the test's browser
    value = clock.today()

    def set(self, day):
        pass


def test_the_driver_opens_the_notice_in_the_portal_and_the_defence_term_starts(db, monkeypatch):
    today = clock.today()
    cpf, _plate = driver(db, "chapada", seed=11)
    auto_id = lavrado(db, _Now(), "chapada", "CG-29-I", today - timedelta(days=1), cpf)
    db["drivers"].update_one({"cpf": cpf}, {"$set": {"email": "condutor@example.com"}})
    with support.smtp_server(monkeypatch) as inbox:  # the activation opens the domicile
        regulated_access.request_code(db, "chapada", "condutor", cpf, "", "ativacao")
        assert mail.send_pending(db) == 1
        regulated_access.activate(db, "chapada", "condutor", cpf, "", inbox.last_code("condutor@example.com"),
                                  PASSWORD, True)
    electronic.notify_by_domicile(db, ACTORS["chapada"], "chapada", auto_id)
    with support.portal_server(db) as url:
        client = Client(url)
        assert client.post("/entrar", {"municipality": "chapada", "document": cpf, "password": PASSWORD})[0] == 303
        _status, _h, home = client.request("/inicio")
        number = autos.get(db, SECRETARIA_CG, "chapada", auto_id)["number"]
        assert number in home and "Aguardando ciência" in home
        [code] = set(re.findall(r'href="/domicilio/([^"/]+)"', home))
        message_id = db["domicile_messages"].find_one({})["_id"]
        assert str(message_id) not in home  # the page names the message by its public code only

        status, _h, page = client.request(f"/domicilio/{code}")  # seeing the page is not opening it
        assert status == 200 and "Abrir a mensagem" in page
        assert client.request(f"/domicilio/{code}/pdf")[0] == 303  # no content before the opening
        assert autos.get(db, SECRETARIA_CG, "chapada", auto_id)["stage"] == "aguardando_ciencia"
        assert client.request(f"/domicilio/{code}/abrir", {"csrf": "0" * 64})[0] == 403  # a forged form

        status, headers, _body = client.post(f"/domicilio/{code}/abrir", {}, form_page=f"/domicilio/{code}")
        assert status == 303 and headers["location"] == f"/domicilio/{code}"
        opened = autos.get(db, SECRETARIA_CG, "chapada", auto_id)
        assert opened["stage"] != "aguardando_ciencia" and opened["notification"]["received_on"] == today
        with client.opener.open(f"{url}/domicilio/{code}/pdf", timeout=30) as response:
            assert response.headers["content-type"] == "application/pdf" and response.read().startswith(b"%PDF")

        stranger = Client(url)  # not logged in: the login page; a made-up code: the same 404 as another's
        assert stranger.request(f"/domicilio/{code}")[0] == 303
        status, _h, body = client.request("/domicilio/naoexiste123")
        assert status == 404 and "Página não encontrada" in body
