"""The public verification of a document's authentication code (issue 37): ``/verificar``.

The QR printed on every document opens ``/verificar?codigo=XXXXXXXXXXXX``: the page answers at once for
that code (a GET, rate-limited) and offers the form to confer a PDF's bytes too (a POST with its CSRF
token, rate-limited per IP address and per code). It reads only ``services.shared.verification``, which
returns what a stranger may see; it shares nothing with the staff panel's session and needs no login.
"""
from __future__ import annotations

from typing import Any

from pymongo.database import Database
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal import web
from services.shared import uploads, verification
from services.shared.errors import ValidationFailed
from services.shared.uploads import shown_limit

TITLE = "Verificar a autenticidade de um documento"
FORM_OVERHEAD = 16 * 1024  # bytes of the form around the file (boundaries, the code, the CSRF token)


def routes(db: Database) -> list[Route]:
    """The verification page (GET: the form, answered at once when the QR gave the code; POST: the form)."""

    def page(request: Request, status: int = 200, **context: Any) -> Response:
        return web.render(request, "verificar.html", status, title=TITLE,
                          limit=shown_limit(verification.UPLOAD_KIND), **context)

    async def answer(request: Request, code: str, pdf: bytes) -> Response:
        await web.limit(request, db, "verificar", code.strip().upper())
        try:
            result = await run_in_threadpool(verification.verify, db, code, pdf or None)
        except ValidationFailed as problem:
            return page(request, 400, values={"codigo": code}, errors=problem.errors,
                        message="Corrija os campos indicados.")
        if not result.code:
            return page(request, 400, values={"codigo": code}, message="Corrija os campos indicados.",
                        errors={"codigo": "Código inválido: são 12 letras e números, como ABCD-EFGH-JKLM "
                                          "(sem as letras O e I e sem os números 0 e 1)."})
        return page(request, values={"codigo": result.code}, result=result)

    async def verify(request: Request) -> Response:
        if request.method == "GET":
            code = request.query_params.get("codigo", "")[:web.MAX_FORM_FIELD]
            return await answer(request, code, b"") if code else page(request)
        values, pdf = await web.form_with_file(request, "pdf")
        return await answer(request, values.get("codigo", ""), pdf)

    # the portal's forms are capped at 64 KB (portal/app.py); this one carries a PDF up to its upload limit
    cap = uploads.max_bytes(verification.UPLOAD_KIND) + FORM_OVERHEAD
    return [Route("/verificar", verify, methods=["GET", "POST"], max_body_size=cap)]
