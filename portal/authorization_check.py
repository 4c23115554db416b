"""The passenger's check of a ride-hailing authorization: ``/autorizacao?t=TOKEN``, the page the QR code of
the sticker and of the certificate opens (``services.ridehailing.public_check.check_url`` prints
``PAINEL_PORTAL_URL/?t=TOKEN``; the portal's ``/`` with ``t`` sends it here, so the printed link stays short).

It answers what the staff panel's "Verificação pública" answers a stranger, through the same service
(``public_check.check``): the live status (válida, suspensa, vencida, cassada, revogada…), the plate, the
vehicle, the number and validity, the driver's first name and the ouvidoria's phone. A forged, altered or
unknown token gets one and the same pt-BR page (404), so the answer tells nothing about which it was. A GET,
rate-limited per IP address and per token (``web.LIMITS["autorizacao"]``); no login, no JavaScript.
"""
from __future__ import annotations

from urllib.parse import quote

from pymongo.database import Database
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import web
from services.ridehailing import public_check
from services.shared import clock
from services.shared.errors import ServiceError

PATH = "/autorizacao"
PARAM = "t"  # the token's query parameter, the same in the panel's old links (``/?t=``) and here
TITLE = "Verificação de autorização"
NOT_FOUND = ("Não encontramos uma autorização para este link. Confira se leu o QR Code do selo oficial, colado "
             "no vidro do veículo, ou do certificado de autorização.")


def token_of(request: Request) -> str:
    return request.query_params.get(PARAM, "")[:web.MAX_FORM_FIELD].strip()


def short_link(request: Request) -> Response:
    """The portal's ``/?t=TOKEN`` (the link printed in the QR code) → this page."""
    return RedirectResponse(f"{PATH}?{PARAM}={quote(token_of(request), safe='')}", status_code=303)


def routes(db: Database) -> list[Route]:
    """The check page on ``db``."""

    async def check(request: Request) -> Response:
        token = token_of(request)
        if not token:
            return web.render(request, "autorizacao.html", 404, title=TITLE, message=NOT_FOUND)
        await web.limit(request, db, "autorizacao", token.partition(".")[0][:64])
        today = clock.today()
        try:
            result = await run_in_threadpool(public_check.check, db, token, today)
        except ServiceError:  # InvalidToken and NotFound alike: the same page
            return web.render(request, "autorizacao.html", 404, title=TITLE, message=NOT_FOUND)
        return web.render(request, "autorizacao.html", title=TITLE, result=result, today=f"{today:%d/%m/%Y}")

    return [Route(PATH, check)]
