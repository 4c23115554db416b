"""The QR code leads where the panel really is (issue 11, item 15), and the public page names the
ouvidoria phone.

Streamlit's test runner sends no Host header nor browser URL, so the choice of address is tested
with the inputs ``ui.links.public_base_url`` reads from Streamlit; the browser test of the
ride-hailing flow reads the QR of a downloaded sticker against the address the browser used.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from services.dam import payments
from services.ridehailing import fees, public_check
from services.shared import clock, config
from tests.ridehailing_data import ACTORS, inspected, set_fee

ROOT = Path(__file__).resolve().parent.parent
TODAY = clock.today()


@pytest.fixture
def unset(monkeypatch):
    monkeypatch.delenv("PAINEL_PUBLIC_URL", raising=False)


def test_painel_public_url_wins_over_what_the_browser_used(monkeypatch):
    monkeypatch.setenv("PAINEL_PUBLIC_URL", "https://painel.chapada.mt.gov.br/")
    assert config.public_base_url("http://10.0.0.5:8765/autorizacoes", host="10.0.0.5:8765",
                                  server_port=8765) == "https://painel.chapada.mt.gov.br"


def test_unset_the_address_the_browser_used_with_its_port(unset):
    assert config.public_base_url("http://192.168.0.10:8765/autorizacoes", server_port=8501) == \
        "http://192.168.0.10:8765"
    assert config.public_base_url("https://painel.example.org/painel/autorizacoes",
                                  base_path="/painel/") == "https://painel.example.org/painel"


def test_unset_without_the_browser_url_the_host_header_and_the_proxy_scheme(unset):
    assert config.public_base_url(None, host="painel.local:8765", scheme="https") == "https://painel.local:8765"
    assert config.public_base_url(None, host="painel.local:8765") == "http://painel.local:8765"


def test_unset_with_no_request_the_server_configured_port(unset):
    assert config.public_base_url(server_address="localhost", server_port=8765) == "http://localhost:8765"
    assert config.public_base_url(server_address="painel.lan", server_port=8765, base_path="painel", tls=True) == \
        "https://painel.lan:8765/painel"


def test_the_page_helper_reads_the_port_the_server_runs_on(unset):
    from ui import links

    before = st_config.get_option("server.port")
    st_config.set_option("server.port", 8765)
    try:
        base = links.public_base_url()
    finally:
        st_config.set_option("server.port", before)
    assert base == "http://localhost:8765"
    assert public_check.check_url("chapada", "abc", base).startswith("http://localhost:8765/?t=")


def test_the_public_page_shows_the_ouvidoria_phone_next_to_the_verdict(db):
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
