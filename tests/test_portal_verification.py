"""The portal's public verification page (issue 37, item 2): the QR's link answers at once, the form
confers a PDF's bytes, a POST without its CSRF token is refused, attempts are rate-limited, and the
page shows no personal data nor internal id; it works without JavaScript."""
from __future__ import annotations

import re
import secrets

import pytest

from portal import web
from services.dam import printing
from services.shared import authenticity
from tests import portal_support as support
from tests import test_dams_reissue as reissue_data
from tests.conftest import SECRETARIA_MP
from tests.test_portal_http import Client


@pytest.fixture
def portal(db):
    with support.portal_server(db) as url:
        yield url


@pytest.fixture
def dam(db, today):
    issued = reissue_data.issue(db)
    pdf = printing.pdf_batch(db, SECRETARIA_MP, "matupa", [issued["id"]])
    code = db[authenticity.COLLECTION].find_one({"ref.id": issued["id"]})["code"]
    return issued, pdf, code


def multipart(client: Client, fields: dict[str, str], pdf: bytes | None):
    """POST /verificar as a browser sends the form with a file (multipart/form-data)."""
    boundary = secrets.token_hex(8)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    if pdf is not None:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="pdf"; filename="dam.pdf"\r\n'
                     f'Content-Type: application/pdf\r\n\r\n'.encode() + pdf + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    import urllib.error
    import urllib.request
    request = urllib.request.Request(client.url + "/verificar", data=body,
                                     headers={"content-type": f"multipart/form-data; boundary={boundary}"})
    try:
        response = client.opener.open(request, timeout=30)
    except urllib.error.HTTPError as error:
        response = error
    return response.status, response.read().decode()


def test_the_qr_link_answers_what_the_document_is_without_personal_data(portal, dam):
    issued, _pdf, code = dam
    status, headers, html = Client(portal).request(f"/verificar?codigo={code.replace('-', '')}")
    assert status == 200 and "<script" not in html and 'name="viewport"' in html
    for shown in (code, "Documento de Arrecadação Municipal (DAM)", issued["number"], "Matupá", "válido",
                  "Prefeitura Municipal de Matupá"):
        assert shown in html
    for private in (issued["taxpayer_name"], "529.982.247-25", "52998224725", issued["id"], SECRETARIA_MP.name):
        assert private not in html


def test_the_form_confers_the_bytes_of_a_pdf_and_says_when_they_differ(portal, dam):
    _issued, pdf, code = dam
    client = Client(portal)
    token = client.csrf("/verificar")
    status, html = multipart(client, {"csrf": token, "codigo": code.lower()}, pdf)
    assert status == 200 and "é <strong>exatamente</strong> o documento emitido" in html
    changed = bytearray(pdf)
    changed[len(changed) // 2] ^= 0x01
    status, html = multipart(client, {"csrf": token, "codigo": code}, bytes(changed))
    assert status == 200 and "<strong>não é</strong> o documento emitido" in html
    status, html = multipart(client, {"csrf": token, "codigo": code}, b"not a pdf at all")
    assert status == 400 and "O arquivo" in html


def test_an_unknown_or_malformed_code_is_said_so(portal, dam):
    client = Client(portal)
    status, _headers, html = client.request("/verificar?codigo=ZZZZ-ZZZZ-ZZZZ")
    assert status == 200 and "Nenhum documento foi emitido" in html
    status, _headers, html = client.request("/verificar?codigo=O0O0")
    assert status == 400 and "Código inválido" in html


def test_a_post_without_its_csrf_token_is_refused(portal, dam):
    _issued, pdf, code = dam
    client = Client(portal)
    client.csrf("/verificar")  # the cookie, but not the form's token
    status, html = multipart(client, {"codigo": code}, pdf)
    assert status == 403 and code not in html


def test_the_attempts_are_rate_limited(portal, dam, monkeypatch):
    monkeypatch.setitem(web.LIMITS, "verificar", (100, 3, 15 * 60))
    client = Client(portal)
    statuses = [client.request("/verificar?codigo=ZZZZ-ZZZZ-ZZZZ")[0] for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert re.search("Muitas tentativas", client.request("/verificar?codigo=ZZZZ-ZZZZ-ZZZZ")[2])


def test_a_pdf_past_the_portals_form_cap_is_still_conferred(portal, dam):
    _issued, _pdf, code = dam
    client = Client(portal)
    big = b"%PDF-1.3\n" + b"0" * (300 * 1024)  # past the 64 KB of the portal's other forms
    status, html = multipart(client, {"csrf": client.csrf("/verificar"), "codigo": code}, big)
    assert status == 200 and "<strong>não é</strong> o documento emitido" in html
