"""What every page of the portal shares: templates, the CSRF token, cookies, rate limits, security headers
and the pt-BR error pages.

CSRF: a random token in an HttpOnly cookie and, in each form, its HMAC under the install's secret (a signed
double submit): every POST whose form token is missing or is not the HMAC of the cookie's token is refused
with 403 before anything else is read. Security headers are added by :class:`SecurityHeaders`, the
outermost layer, so the error pages carry them too.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from services.shared import config, rate_limits, regulated_access
from services.shared.errors import NotFound, PermissionDenied
from services.shared.regulated_accounts import Person

HERE = Path(__file__).resolve().parent
CSRF_COOKIE = "portal_csrf"
CSRF_FIELD = "csrf"
SESSION_COOKIE = "portal_sessao"
MAX_FORM_FIELD = 512  # characters: every field of these forms is short
# attempts per window, per IP address and per account (in the store: they hold across processes)
LIMITS: dict[str, tuple[int, int, int]] = {  # bucket: (per IP, per account, window in seconds)
    "login": (30, 10, 15 * 60),
    "codigo": (20, 5, 60 * 60),
    "senha": (20, 5, 60 * 60),
    "consulta": (60, 10, 15 * 60),  # the status of a DAM without an account: per IP, per CPF/CNPJ typed
    "formulario": (30, 20, 60 * 60),  # requests a person sends on the public forms (portal/public_forms.py)
    "envio": (30, 20, 60 * 60),  # signed files a platform's person sends (portal/answers.py)
    "verificar": (60, 20, 15 * 60),  # the public verification of a document's code (per IP, per code)
    "autorizacao": (60, 30, 15 * 60),  # the passenger's check of an authorization (per IP, per sticker)
    "credenciamento": (120, 60, 60 * 60),  # a driver's application saved and sent (portal/applications.py)
    "servico": (30, 10, 60 * 60),  # the requests for machinery services a resident sends (portal/bookings.py)
}
HEADERS = {
    "content-security-policy": "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}
TITLES = {
    400: ("Pedido inválido", "O formulário enviado não pôde ser lido. Volte, recarregue a página e tente "
                             "de novo."),
    403: ("Formulário expirado", "O formulário expirou ou não veio desta página. Volte, recarregue a página e "
                                 "tente de novo."),
    404: ("Página não encontrada", "Não encontramos esta página. Confira o endereço ou volte ao início."),
    405: ("Página não encontrada", "Não encontramos esta página. Confira o endereço ou volte ao início."),
    413: ("Arquivos grandes demais", "O envio passou do tamanho que este formulário aceita. Volte, troque os "
                                     "arquivos grandes por outros menores (o limite de cada um está no "
                                     "formulário) e envie de novo."),
    429: ("Muitas tentativas", "Foram feitas muitas tentativas em pouco tempo. Aguarde alguns minutos e tente "
                               "de novo."),
    500: ("Algo deu errado", "Não foi possível concluir o pedido. Tente de novo em alguns minutos; se continuar, "
                             "procure a secretaria da prefeitura."),
}

templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]),
                        trim_blocks=True, lstrip_blocks=True)


def _csrf_of(token: str) -> str:
    key = hmac.new(config.public_check_secret(), b"painel-portal-csrf", hashlib.sha256).digest()
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


def csrf_token(request: Request) -> str:
    """The form token of this browser's CSRF cookie (a new cookie is made when it has none)."""
    token = request.cookies.get(CSRF_COOKIE) or ""
    if len(token) < 32 or len(token) > 64:
        token = request.state.new_csrf = secrets.token_urlsafe(32)
    return _csrf_of(token)


def render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    context.setdefault("errors", {})
    context.setdefault("values", {})
    body = templates.get_template(name).render(request=request, csrf=csrf_token(request), **context)
    response = HTMLResponse(body, status_code=status, headers={"cache-control": "no-store"})
    new = getattr(request.state, "new_csrf", None)
    if new:
        response.set_cookie(CSRF_COOKIE, new, httponly=True, samesite="lax", secure=is_https(request), path="/")
    return response


def is_https(request: Request) -> bool:
    return request.url.scheme == "https"


async def form(request: Request, max_fields: int = 20) -> dict[str, str]:
    """The POSTed form as short texts, once its CSRF token is checked (403 otherwise)."""
    data = await request.form(max_files=0, max_fields=max_fields)
    token = request.cookies.get(CSRF_COOKIE) or ""
    sent = data.get(CSRF_FIELD)
    if not token or not isinstance(sent, str) or not hmac.compare_digest(sent, _csrf_of(token)):
        raise HTTPException(403)
    return {k: v[:MAX_FORM_FIELD] for k, v in data.items() if isinstance(v, str) and k != CSRF_FIELD}


async def form_with_files(request: Request, max_files: int,
                          max_fields: int = 20) -> tuple[dict[str, str], dict[str, tuple[bytes, str]]]:
    """A POSTed multipart form with up to ``max_files`` files and ``max_fields`` fields, once its CSRF token is
    checked (403 otherwise, before any file is handed on): its short texts, and each file field sent as (bytes,
    file name); the size of each file is the upload boundary's business (``services.shared.uploads``)."""
    data = await request.form(max_files=max_files, max_fields=max_fields)
    token = request.cookies.get(CSRF_COOKIE) or ""
    sent = data.get(CSRF_FIELD)
    if not token or not isinstance(sent, str) or not hmac.compare_digest(sent, _csrf_of(token)):
        raise HTTPException(403)
    texts = {k: v[:MAX_FORM_FIELD] for k, v in data.items() if isinstance(v, str) and k != CSRF_FIELD}
    files = {}
    for key, value in data.multi_items():
        if not isinstance(value, str) and value.filename:
            files[key] = (await value.read(), value.filename[:200])
    return texts, files


async def form_with_file(request: Request, name: str) -> tuple[dict[str, str], bytes]:
    """A POSTed multipart form with at most one file (the field ``name``): its short texts and the file's
    bytes (b"" when none was chosen), once its CSRF token is checked (403 otherwise)."""
    texts, files = await form_with_files(request, 1)
    return texts, files.get(name, (b"", ""))[0]


async def signed_in(request: Request, db: Any, *kinds: str) -> Person | None:
    """The person of the request's portal session (None when nobody is signed in). With ``kinds``, a person
    of another kind gets 404: the page does not exist for them (a platform's person has no application)."""
    person = await run_in_threadpool(regulated_access.resume, db, request.cookies.get(SESSION_COOKIE))
    if person is not None and kinds and person.kind not in kinds:
        raise HTTPException(404)
    return person


async def own(db: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(db, *args, **kwargs)`` in a worker thread; a record of someone else, or one the person may not
    reach, is answered as a missing page (404), the same as an unknown number."""
    try:
        return await run_in_threadpool(lambda: fn(db, *args, **kwargs))
    except (NotFound, PermissionDenied):
        raise HTTPException(404) from None


async def limit(request: Request, db: Any, bucket: str, account: str) -> None:
    """Count the attempt against the IP address and the account; 429 past either limit."""
    per_ip, per_account, window = LIMITS[bucket]
    ip = request.client.host if request.client else "?"
    allowed_ip = await run_in_threadpool(rate_limits.allow, db, f"{bucket}-ip", ip, per_ip, window)
    allowed = await run_in_threadpool(rate_limits.allow, db, f"{bucket}-conta", account, per_account, window)
    if not (allowed_ip and allowed):
        raise HTTPException(429, headers={"retry-after": str(rate_limits.seconds_left(window))})


async def error_page(request: Request, exc: Exception) -> Response:
    """The pt-BR page of an HTTP error or of an unexpected failure: no trace, no internal id."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    title, text = TITLES.get(status, TITLES[500])
    response = render(request, "erro.html", status=status, title=title, text=text)
    for key, value in (getattr(exc, "headers", None) or {}).items():
        response.headers[key] = value
    return response


class SecurityHeaders:
    """ASGI middleware around everything (the error pages included): the security headers on every
    response, and ``Secure`` on cookies set over HTTPS is left to :func:`render`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.decode().lower() not in HEADERS
                           and k.decode().lower() != "server"]
                headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                if scope.get("scheme") == "https":
                    headers.append((b"strict-transport-security", b"max-age=31536000"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class TooLargePage:
    """ASGI middleware: the bare "Content Too Large" that Starlette answers to a body past a route's
    ``max_body_size`` becomes the pt-BR error page (still 413), saying what to do."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = False

        async def checked(message: dict) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] == 413:
                refused = True  # its text body follows: the page goes instead
            elif not refused:
                await send(message)
            elif not message.get("more_body"):
                page = await error_page(Request(scope), HTTPException(413))
                await page(scope, receive, send)

        await self.app(scope, receive, checked)
