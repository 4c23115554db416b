"""Issue 36 item 4 on the portal, over real HTTP: the platform's authorized person sees the data requests of
their platform and answers one with a signed file; forged forms, another platform's request and a tampered
file are refused (CG Decreto 06/2026 art. 11 §2–3; MP Lei 1.552/2025 art. 4 §2–3)."""
from __future__ import annotations

import re
import secrets
from datetime import timedelta

from services.ridehailing import trip_data
from services.shared import clock, entities, trust_anchors
from tests import pki_support as pki
from tests import portal_support as support
from tests import signing_support as signing
from tests.conftest import SECRETARIA_CG, TI
from tests.test_portal_http import Client

PASSWORD = "minha-senha-forte"


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = secrets.token_hex(12)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    for name, (file_name, data) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{file_name}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def send(client: Client, path: str, csrf: str | None, files: dict[str, tuple[str, bytes]]):
    import urllib.error
    import urllib.request
    body, kind = multipart({"csrf": csrf} if csrf else {}, files)
    request = urllib.request.Request(client.url + path, data=body, headers={"content-type": kind})
    try:
        response = client.opener.open(request, timeout=60)
    except urllib.error.HTTPError as error:
        response = error
    return response.status, dict(response.headers), response.read().decode()


def platform_person_logged_in(db, monkeypatch, url: str) -> Client:
    support.activated_agent(db, monkeypatch, PASSWORD)
    client = Client(url)
    assert client.post("/entrar", {"municipality": "chapada", "document": support.PLATFORM_CNPJ,
                                   "person_cpf": support.AGENT_CPF, "password": PASSWORD})[0] == 303
    return client


def test_the_authorized_person_answers_with_a_signed_file_and_forgeries_are_refused(db, monkeypatch):
    ca = pki.make_ca()
    rita = pki.make_person(ca, "Rita Agente", support.AGENT_CPF)
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    with support.portal_server(db) as url:
        client = platform_person_logged_in(db, monkeypatch, url)
        platform_id = str(db["platforms"].find_one({"cnpj": support.PLATFORM_CNPJ})["_id"])
        trip_data.request_data(db, SECRETARIA_CG, "chapada", platform_id, "Apurar denúncia de embarque na via")
        status, _h, home = client.request("/inicio")
        assert status == 200 and 'href="/pedidos"' in home
        status, _h, listing = client.request("/pedidos")
        [code] = set(re.findall(r'href="/pedidos/([^"/]+)"', listing))
        request = db["platform_data_requests"].find_one({})
        assert str(request["_id"]) not in listing and "Aguardando resposta" in listing
        path = f"/pedidos/{code}/responder"
        good = signing.signed_pdf(rita)

        status, _h, body = send(client, path, None, {"file": ("resposta.pdf", good)})  # no CSRF token
        assert status == 403 and "Formulário expirado" in body
        status, _h, _b = send(client, path, "0" * 64, {"file": ("resposta.pdf", good)})  # a forged one
        assert status == 403
        assert db["platform_data_requests"].find_one({})["answered_at"] is None

        tampered = good + b"\n% acrescentado depois\n"
        status, _h, body = send(client, path, client.csrf(f"/pedidos/{code}"), {"file": ("resposta.pdf", tampered)})
        assert status == 400 and 'id="file-erro"' in body and "adulterado" in body
        assert "nada foi gravado" in body and db["platform_data_requests"].find_one({})["answered_at"] is None

        status, headers, _b = send(client, path, client.csrf(f"/pedidos/{code}"), {"file": ("resposta.pdf", good)})
        assert status == 303 and headers["location"] == f"/pedidos/{code}?enviado=1"
        status, _h, page = client.request(f"/pedidos/{code}?enviado=1")
        assert "Resposta recebida" in page and "Respondido no prazo" in page and "RITA AGENTE" in page
        assert db["platform_data_requests"].find_one({})["answer"]["signer_cpf"] == support.AGENT_CPF

        # another platform's request reads as a missing one (the same 404)
        entities.create(db, SECRETARIA_CG, "platforms", "chapada", {
            "name": "Outra Plataforma Ltda", "cnpj": "04252011000110", "email": "c@outra.exemplo", "status": "ativo"})
        other_id = str(db["platforms"].find_one({"cnpj": "04252011000110"})["_id"])
        trip_data.request_data(db, SECRETARIA_CG, "chapada", other_id, "Fiscalização",
                               clock.now_utc() - timedelta(hours=1))
        other_code = db["platform_data_requests"].find_one({"platform_id": other_id})["code"]
        missing = client.request("/pedidos/naoexiste123")
        foreign = client.request(f"/pedidos/{other_code}")
        assert foreign[0] == missing[0] == 404 and foreign[2] == missing[2]
        status, _h, _b = send(client, f"/pedidos/{other_code}/responder", client.csrf("/inicio"),
                              {"file": ("resposta.pdf", good)})
        assert status == 404 and db["platform_data_requests"].find_one({"platform_id": other_id})["answered_at"] is None


def test_a_file_over_its_limit_is_refused_in_portuguese_under_its_field(db, monkeypatch):
    monkeypatch.setenv("PAINEL_SIGNED_ANSWER_MAX_MB", "1")
    with support.portal_server(db) as url:
        client = platform_person_logged_in(db, monkeypatch, url)
        platform_id = str(db["platforms"].find_one({"cnpj": support.PLATFORM_CNPJ})["_id"])
        trip_data.request_data(db, SECRETARIA_CG, "chapada", platform_id, "Apurar denúncia de embarque na via")
        code = db["platform_data_requests"].find_one({})["code"]
        big = b"%PDF-1.7\n" + b"0" * (3 * 1024 * 1024)  # within the body's limit, past the file's
        status, _h, body = send(client, f"/pedidos/{code}/responder", client.csrf(f"/pedidos/{code}"),
                                {"file": ("grande.pdf", big)})
        assert status == 400 and 'id="file-erro"' in body and "o limite para respostas assinadas" in body
        assert db["platform_data_requests"].find_one({})["answered_at"] is None


def test_the_platform_sends_a_signed_trip_file_and_a_bad_row_is_shown_with_its_line(db, monkeypatch):
    from tests.test_platform_obligations import TRIP, csv_file

    ca = pki.make_ca()
    rita = pki.make_person(ca, "Rita Agente", support.AGENT_CPF)
    trust_anchors.add_anchors(db, TI, "chapada", ca.pem, "raiz.pem")
    when = clock.to_local(clock.now_utc() - timedelta(days=2))
    row = {**TRIP, "data_hora": f"{when:%d/%m/%Y} 08:10", "cpf_condutor": support.AGENT_CPF, "placa": "QBC1D23"}
    good, bad = csv_file([row]), csv_file([{**row, "mapa": ""}])
    with support.portal_server(db) as url:
        client = platform_person_logged_in(db, monkeypatch, url)
        assert send(client, "/viagens", None, {"file": ("v.csv", good)})[0] == 403
        status, _h, body = send(client, "/viagens", client.csrf("/viagens"),
                                {"file": ("v.csv", bad), "signature": ("v.csv.p7s", signing.detached(rita, bad))})
        assert status == 400 and "<td>2</td>" in body and "nada foi gravado" in body
        status, _h, body = send(client, "/viagens", client.csrf("/viagens"),
                                {"file": ("v.csv", good), "signature": ("v.csv.p7s", signing.detached(rita, good))})
        assert status == 200 and "Arquivo recebido: 1 viagem" in body
    assert db[trip_data.TRIPS].count_documents({}) == 1
