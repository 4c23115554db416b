"""The person's DAMs on the portal ("Meus DAMs"): the list a page at a time, one DAM with its digitable
line and PIX code, its PDF, and the 2ª via of an overdue one (a form: it issues a DAM).

The service is ``services.dam.own_dams`` (its one owner check reads ``Person.actor``); a page names a DAM
by its public number (``/dams/2026/0007`` is DAM 0007/2026), never by its id. Another's DAM and a missing
one are the same 404.
"""
from __future__ import annotations

from typing import Any

from pymongo.database import Database
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import web
from services.dam import own_dams
from services.shared.errors import ServiceError


def _number(request: Request) -> str:
    return f"{request.path_params['numero']:04d}/{request.path_params['ano']}"


def routes(db: Database) -> list[Route]:
    """The routes of "Meus DAMs" on ``db``."""

    async def person_of(request: Request):
        return await web.signed_in(request, db)

    async def call(fn, *args: Any) -> Any:
        return await web.own(db, fn, *args)

    async def listing(request: Request) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        before = request.query_params.get("antes", "")[:16]
        page = await call(own_dams.my_dams, person.actor, before)
        return web.render(request, "dams.html", title="Meus DAMs", page=page, first=not before)

    async def one(request: Request, notice: str = "", message: str = "", status: int = 200) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        dam = await call(own_dams.own_dam, person.actor, _number(request))
        return web.render(request, "dam.html", status, title=f"DAM {dam['number']}", dam=dam, notice=notice,
                          message=message)

    async def showing(request: Request) -> Response:
        notice = "2ª via emitida. Pague-a até o vencimento indicado." if request.query_params.get("nova") else ""
        return await one(request, notice=notice)

    async def second_copy(request: Request) -> Response:
        await web.form(request)
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        try:
            new = await call(own_dams.reissue_own, person.actor, _number(request))
        except ServiceError as problem:  # not overdue (any more), or the municipality's rates are missing
            return await one(request, message=problem.message, status=400)
        return RedirectResponse(f"/dams/{new['year']}/{new['sequence']}?nova=1", status_code=303)

    async def pdf(request: Request) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        try:
            content = await call(own_dams.own_pdf, person.actor, _number(request))
        except ServiceError as problem:  # a cancelled DAM is not printed
            return await one(request, message=problem.message, status=400)
        name = _number(request).replace("/", "-")
        return Response(content, media_type="application/pdf", headers={
            "content-disposition": f'attachment; filename="dam-{name}.pdf"', "cache-control": "no-store"})

    return [
        Route("/dams", listing), Route("/dams/{ano:int}/{numero:int}", showing),
        Route("/dams/{ano:int}/{numero:int}/2via", second_copy, methods=["POST"]),
        Route("/dams/{ano:int}/{numero:int}/pdf", pdf),
    ]
