"""The stickers printed before the public portal carry the panel's own address (``<panel>/?t=TOKEN``): the
panel still answers them, and its page names the ouvidoria phone. New stickers lead to the portal
(tests/test_portal_authorization_check.py, tests/test_ridehailing_documents.py).
"""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.dam import payments
from services.ridehailing import fees, public_check
from services.shared import clock
from tests.ridehailing_data import ACTORS, inspected, set_fee

ROOT = Path(__file__).resolve().parent.parent
TODAY = clock.today()


def test_an_old_stickers_link_to_the_panel_still_shows_the_verdict_and_the_ouvidoria_phone(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    payments.record_payment(db, ACTORS["chapada"], "chapada", bill["id"], TODAY, bill["amount"], "Caixa")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["t"] = public_check.token_for("chapada", auth)
    at.run()
    assert not at.exception
    assert "válida" in " ".join(s.value for s in at.success)
    assert "Ouvidoria do Município: **(65) 3301-1156**" in " ".join(i.value for i in at.info)
