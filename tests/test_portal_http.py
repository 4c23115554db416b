"""Issue 36, the public entry point, over real HTTP (uvicorn on a free localhost port, urllib): CSRF on
every form, rate limits, security headers, sessions, and pt-BR error pages with no trace nor internal id."""
from __future__ import annotations

import http.cookiejar
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request

import pytest

from portal import web
from services.shared import mail
from tests import portal_support as support

PASSWORD = "minha-senha-forte"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Client:
    """A browser without JavaScript: cookies kept, redirects seen (not followed)."""

    def __init__(self, url: str) -> None:
        self.url, self.jar = url, http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def request(self, path: str, data: dict | bytes | None = None, headers: dict | None = None):
        body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data
        req = urllib.request.Request(self.url + path, data=body, headers=headers or {})
        try:
            response = self.opener.open(req, timeout=30)
        except urllib.error.HTTPError as error:
            response = error
        return response.status, dict(response.headers), response.read().decode()

    def csrf(self, path: str) -> str:
        _status, _headers, html = self.request(path)
        return re.search(r'name="csrf" value="([0-9a-f]+)"', html)[1]

    def multipart(self, path: str, texts: dict[str, str], files: dict[str, tuple[bytes, str]],
                  form_page: str | None = None):
        """POST a multipart form as a browser sends files (``files``: field → (bytes, file name)), with the
        CSRF token of the form on ``form_page`` (the same path by default)."""
        boundary = secrets.token_hex(12)
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
                 for key, value in {"csrf": self.csrf(form_page or path), **texts}.items()]
        parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"; filename="{name}"\r\n'
                  f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n"
                  for key, (data, name) in files.items()]
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self.request(path, body, {"content-type": f"multipart/form-data; boundary={boundary}"})

    def post(self, path: str, data: dict, form_page: str | None = None):
        """POST ``data`` with the CSRF token of the form on ``form_page`` (the same path by default)."""
        return self.request(path, {"csrf": self.csrf(form_page or path), **data})


@pytest.fixture
def portal(db):
    with support.portal_server(db) as url:
        yield url


def test_every_page_carries_the_security_headers_and_pt_br(portal):
    client = Client(portal)
    for path in ("/entrar", "/ativar", "/senha", "/privacidade", "/pagina-que-nao-existe", "/static/portal.css"):
        _status, headers, body = client.request(path)
        lower = {k.lower(): v for k, v in headers.items()}
        assert lower["content-security-policy"].startswith("default-src 'self'"), path
        assert (lower["x-frame-options"], lower["x-content-type-options"]) == ("DENY", "nosniff"), path
        assert lower["referrer-policy"] == "same-origin" and "server" not in lower, path
        if path.endswith(".css"):
            continue
        assert '<html lang="pt-BR">' in body and 'href="#conteudo"' in body


def test_a_post_without_or_with_a_forged_csrf_token_is_refused(portal):
    client = Client(portal)
    client.request("/entrar")  # the CSRF cookie
    for path in ("/entrar", "/ativar", "/ativar/codigo", "/senha", "/senha/codigo", "/sair"):
        status, _headers, body = client.request(path, {"document": "52998224725", "password": "x"})
        assert status == 403 and "Formulário expirado" in body, path
        status, _headers, _body = client.request(path, {"csrf": "0" * 64, "document": "52998224725"})
        assert status == 403, path
    # a token of another browser (its own cookie) does not pass with this one's cookie
    other = Client(portal).csrf("/entrar")
    assert client.request("/entrar", {"csrf": other, "document": "52998224725"})[0] == 403


def test_the_404_and_the_500_show_no_trace_nor_internal_id(portal, db, monkeypatch):
    client = Client(portal)
    status, _headers, body = client.request("/inicio/6b0eda18d64f38ea51d1deec")
    assert status == 404 and "Página não encontrada" in body and "6b0eda18d64f38ea51d1deec" not in body

    def broken(*_args, **_kwargs):
        raise RuntimeError("falha interna em services/shared/segredo.py linha 42 _id=6b0eda18d64f38ea51d1deec")

    monkeypatch.setattr("services.shared.regulated_access.login", broken)
    status, _headers, body = client.post("/entrar", {"municipality": "chapada", "document": "52998224725",
                                                     "password": PASSWORD})
    assert status == 500 and "Algo deu errado" in body
    assert not re.search(r"Traceback|RuntimeError|segredo\.py|6b0eda18|File \"", body)


def test_a_body_past_the_forms_limit_gets_the_pt_br_page_not_starlettes_english(portal):
    """A phone that attaches a video where a photo goes: the body passes what the route reads, and
    Starlette answers it a bare "Content Too Large" in English; the person gets the portal's page."""
    client = Client(portal)
    status, headers, body = client.post("/entrar", {"document": "52998224725", "password": "x" * 100_000})
    assert status == 413 and "Content Too Large" not in body
    assert "Arquivos grandes demais" in body and "o limite de cada um está no formulário" in body
    assert '<html lang="pt-BR">' in body and {k.lower(): v for k, v in headers.items()}["x-frame-options"] == "DENY"


def test_too_many_logins_answer_429_in_portuguese(portal, monkeypatch):
    monkeypatch.setitem(web.LIMITS, "login", (100, 3, 900))
    client = Client(portal)
    answers = [client.post("/entrar", {"municipality": "chapada", "document": "52998224725", "password": "errada-123"})
               for _ in range(4)]
    assert [a[0] for a in answers] == [400, 400, 400, 429]
    status, headers, body = answers[-1]
    assert "Muitas tentativas" in body and int({k.lower(): v for k, v in headers.items()}["retry-after"]) > 0
    # per IP too: another account from the same address
    monkeypatch.setitem(web.LIMITS, "login", (4, 100, 900))
    assert client.post("/entrar", {"municipality": "chapada", "document": "11144477735", "password": "x"})[0] == 429


def test_too_many_code_requests_answer_429(portal, monkeypatch, db):
    monkeypatch.setitem(web.LIMITS, "codigo", (100, 2, 3600))
    client = Client(portal)
    statuses = [client.post("/ativar", {"municipality": "chapada", "document": "52998224725"})[0] for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_activation_login_session_cookie_and_logout_over_http(portal, db, monkeypatch):
    with support.smtp_server(monkeypatch) as inbox:
        cpf = support.driver(db)
        client = Client(portal)
        status, _h, body = client.post("/ativar", {"municipality": "chapada", "document": cpf})
        assert status == 200 and "enviamos" in body
        code = inbox.last_code(support.DRIVER_EMAIL)
    status, _h, body = client.post("/ativar/codigo", {"municipality": "chapada", "document": cpf, "code": code,
                                                       "password": PASSWORD, "password2": PASSWORD})
    assert status == 400 and 'aria-describedby="consent-dica consent-erro"' in body
    status, _h, body = client.post("/ativar/codigo", {"municipality": "chapada", "document": cpf, "code": code,
                                                       "password": PASSWORD, "password2": PASSWORD, "consent": "sim"})
    assert status == 200 and "Conta ativada" in body
    status, headers, _body = client.post("/entrar", {"municipality": "chapada", "document": cpf, "password": PASSWORD})
    assert status == 303 and headers["location"] == "/inicio"
    cookie = next(v for k, v in headers.items() if k.lower() == "set-cookie" and v.startswith(web.SESSION_COOKIE))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    status, _h, body = client.request("/inicio")
    assert status == 200 and "Domicílio eletrônico" in body and "CPF" in body
    assert str(db["regulated_accounts"].find_one({})["_id"]) not in body
    assert client.post("/sair", {}, form_page="/inicio")[0] == 200
    status, headers, _body = client.request("/inicio")
    assert status == 303 and headers["location"] == "/entrar"
    assert mail.send_pending(db) == 0


def test_a_wrong_password_shows_the_error_tied_to_the_form(portal):
    status, _h, body = Client(portal).post("/entrar", {"municipality": "chapada", "document": "123",
                                                        "password": "x"})
    assert status == 400
    assert 'id="document-erro"' in body and 'aria-describedby="document-dica document-erro"' in body


def test_the_portal_never_serves_the_staff_panel_and_its_first_visit_is_small(portal):
    client = Client(portal)
    for path in ("/_stcore/health", "/app.py", "/users", "/static/../app.py"):
        assert client.request(path)[0] == 404, path
    _status, _headers, html = client.request("/entrar")
    _status, _headers, css = client.request("/static/portal.css")
    assert len(html.encode()) + len(css.encode()) <= 150 * 1024 and "<script" not in html


def test_the_session_cookie_is_secure_over_https(portal, db):
    """Behind the municipality's HTTPS proxy (X-Forwarded-Proto from the local proxy) the cookies are Secure."""
    from services.shared import regulated_accounts

    cpf = support.driver(db)
    db["meta"].update_one({"_id": "store"}, {"$set": {"kind": "demo"}}, upsert=True)
    regulated_accounts.create_demo_account(db, "chapada", "condutor", cpf, cpf, PASSWORD)
    client = Client(portal)
    _status, headers, html = client.request("/entrar", headers={"X-Forwarded-Proto": "https"})
    csrf_cookie = next(v for k, v in headers.items() if k.lower() == "set-cookie")
    assert "Secure" in csrf_cookie
    token = re.search(r'name="csrf" value="([0-9a-f]+)"', html)[1]
    # the jar keeps a Secure cookie off plain http: the proxy's browser sends it over https, so does this test
    https = {"X-Forwarded-Proto": "https", "Cookie": csrf_cookie.split(";")[0]}
    status, headers, _body = client.request("/entrar", {"csrf": token, "municipality": "chapada", "document": cpf,
                                                        "password": PASSWORD}, headers=https)
    assert status == 303
    session = next(v for k, v in headers.items() if k.lower() == "set-cookie" and v.startswith(web.SESSION_COOKIE))
    assert "Secure" in session and "HttpOnly" in session


def test_a_municipality_that_is_not_one_of_the_portal_is_refused_before_the_store(portal, db):
    before = db["audit"].count_documents({})
    status, _h, body = Client(portal).post("/entrar", {"municipality": "x" * 400, "document": "52998224725",
                                                       "password": "qualquer-senha"})
    assert status == 400 and 'id="municipality-erro"' in body
    assert db["audit"].count_documents({}) == before
