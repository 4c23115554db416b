"""The passenger's check of an authorization on the public portal (``/autorizacao``), over real HTTP: the
QR code of a new sticker leads to the portal (PAINEL_PORTAL_URL), never to the staff panel, and following it
answers the authorization's live status as the panel's public check did — the plate, the vehicle, the
validity and only the driver's first name; a forged link and an unknown one get the same pt-BR page; the
attempts are rate-limited; no JavaScript, no internal id."""
from __future__ import annotations

from datetime import timedelta

import pytest

from portal import web
from rules.ridehailing.concepts import EventKind
from services.dam import payments
from services.ridehailing import authorizations, documents, fees, public_check, registry
from services.shared import clock, fields
from tests import portal_support as support
from tests.ridehailing_data import ACTORS, inspected, set_fee
from tests.test_portal_http import Client
from tests.test_ridehailing_documents import qr

TODAY = clock.today()
CG = ACTORS["chapada"]


@pytest.fixture
def portal(db):
    with support.portal_server(db) as url:
        yield url


@pytest.fixture
def issued(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    bill = fees.issue_fee_dam(db, CG, "chapada", auth, TODAY)
    payments.record_payment(db, CG, "chapada", bill["id"], TODAY, bill["amount"], "Caixa")
    return auth


def follow(client: Client, link: str) -> tuple[int, str]:
    """Open ``link`` (an address of the portal) as a phone does after reading the QR: one redirect followed."""
    assert link.startswith(client.url + "/")
    status, headers, html = client.request(link.removeprefix(client.url))
    if status == 303:
        location = {k.lower(): v for k, v in headers.items()}["location"]
        status, _headers, html = client.request(location.removeprefix(client.url))
    return status, html


def test_the_qr_of_a_new_sticker_leads_to_the_portal_which_answers_the_status(db, portal, issued, tmp_path,
                                                                                monkeypatch):
    monkeypatch.setenv("PAINEL_PORTAL_URL", portal + "/")
    monkeypatch.setenv("PAINEL_PUBLIC_URL", "https://painel.chapada.mt.gov.br")  # the staff panel: not printed
    doc = authorizations.get_authorization(db, CG, "chapada", issued)
    driver = registry.driver_record(db, "chapada", doc["driver_cpf"])
    for build in (documents.sticker_pdf, documents.certificate_pdf):
        link = qr(build(db, CG, "chapada", issued), tmp_path)
        assert link == f"{portal}/?t={public_check.token_for('chapada', issued)}"
        status, html = follow(Client(portal), link)
        assert status == 200 and "<script" not in html and 'name="viewport"' in html and 'lang="pt-BR"' in html
        assert f"Autorização {doc['number']} <strong>válida</strong> até 31/12/{TODAY.year}" in html
        assert f"<dd>{fields.show('plate', doc['plate'])}</dd>" in html and "Ouvidoria do Município: <strong>(65) 3301-1156</strong>" in html
        assert f"<dd>{driver['name'].split()[0]}</dd>" in html
        for private in (driver["name"], driver["cpf"], issued, doc["driver_cpf"]):
            assert private not in html


@pytest.mark.parametrize("sanction, until, shown", [
    (EventKind.SUSPENDED, 30, "Autorização <strong>suspensa</strong>. Suspensa até "),
    (EventKind.REVOKED, None, "Autorização <strong>revogada</strong>. Revogada em "),
    (EventKind.CASSADA, None, "Autorização <strong>cassada</strong>. Cassada em "),
])
def test_a_suspended_revoked_or_cassada_authorization_says_so(db, portal, issued, sanction, until, shown):
    authorizations.record_sanction(db, CG, "chapada", issued, sanction, TODAY,
                                   TODAY + timedelta(days=until) if until else None)
    status, _headers, html = Client(portal).request(f"/autorizacao?t={public_check.token_for('chapada', issued)}")
    assert status == 200 and shown in html and "<strong>válida</strong>" not in html


def test_a_forged_link_and_an_unknown_authorization_get_the_same_page(db, portal, issued):
    client = Client(portal)
    token = public_check.token_for("chapada", issued)
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    unknown = public_check.token_for("chapada", "0" * 24)  # genuinely signed, but no such authorization
    answers = {client.request(f"/autorizacao?t={t}")[::2] for t in (forged, unknown, "nada", "")}
    assert len(answers) == 1
    (status, html), = answers
    assert status == 404 and "Não encontramos uma autorização para este link" in html and 'lang="pt-BR"' in html
    assert "Traceback" not in html and "0" * 24 not in html


def test_the_short_link_on_the_portals_home_sends_to_the_check_and_home_stays_as_it_was(portal, issued):
    client = Client(portal)
    token = public_check.token_for("chapada", issued)
    status, headers, _html = client.request(f"/?t={token}")
    assert status == 303 and {k.lower(): v for k, v in headers.items()}["location"] == f"/autorizacao?t={token}"
    status, headers, _html = client.request("/")
    assert status == 303 and {k.lower(): v for k, v in headers.items()}["location"] == "/entrar"


def test_the_checks_are_rate_limited_with_a_pt_br_page(portal, issued, monkeypatch):
    monkeypatch.setitem(web.LIMITS, "autorizacao", (100, 3, 15 * 60))
    client = Client(portal)
    path = f"/autorizacao?t={public_check.token_for('chapada', issued)}"
    assert [client.request(path)[0] for _ in range(4)] == [200, 200, 200, 429]
    status, headers, html = client.request(path)
    assert status == 429 and "Muitas tentativas" in html and 'lang="pt-BR"' in html
    assert int({k.lower(): v for k, v in headers.items()}["retry-after"]) > 0
