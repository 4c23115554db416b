"""A driver candidate's application on the portal ("Credenciamento", issue 38 item 1) and its later steps.

``/credenciamento``: the draft's three parts (``/credenciamento/dados``, ``/veiculo``, ``/documentos``), the
law's verdict on what was given, article by article, and the button that sends it; and the person's requests,
each at ``/credenciamento/<ano>/<número>`` (the protocol "0001/2026" is ``/credenciamento/2026/1``) with every
step the clerk moves it through and, once issued, the sticker and the certificate (PDF). Every POST checks
CSRF (``web.form`` / ``web.form_with_files``) and the ``credenciamento`` limit; what was typed is kept in the
draft and shown again with each error under its field. The services are ``services.ridehailing.applications``
and ``application_status`` (their one owner check reads ``Person.actor``); another's protocol and an unknown
one are the same 404, and a platform's person reaching these pages gets a 404 too.
"""
from __future__ import annotations

from typing import Any

from pymongo.database import Database
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import web
from services.ridehailing import application_status, applications
from services.shared import record_files, uploads
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.regulated_accounts import DRIVER, Person

TITLE = "Pedido de autorização (credenciamento)"
PARTS = {"dados": ("condutor", "Seus dados"), "veiculo": ("veiculo", "Veículo")}
SAVED = {"dados": "Seus dados foram salvos.", "veiculo": "Os dados do veículo foram salvos.",
         "documentos": "Os documentos foram salvos."}
KEPT = "O que você digitou foi guardado no rascunho. Corrija os campos indicados quando puder."
MAX_DOCUMENTS = 12  # copies in one form (the acts ask 8 and 9)
MAX_BODY = MAX_DOCUMENTS * uploads.max_bytes(record_files.KIND) + 64 * 1024
BOTH = ["GET", "POST"]


def _protocol(request: Request) -> str:
    return f"{request.path_params['numero']:04d}/{request.path_params['ano']}"


def routes(db: Database) -> list[Route]:
    """The routes of the driver's application, to add to the portal's application."""

    async def driver(request: Request) -> Person | None:
        return await web.signed_in(request, db, DRIVER)  # a platform's person has no application

    async def call(fn, *args: Any) -> Any:
        return await web.own(db, fn, *args)

    async def overview(request: Request, person: Person, status: int = 200, **context: Any) -> Response:
        view = await call(applications.application, person.actor)
        requests = await call(application_status.own_requests, person.actor)
        notice = SAVED.get(request.query_params.get("salvo", ""))
        context.setdefault("notice", notice)
        return web.render(request, "credenciamento.html", status, title=TITLE, view=view, requests=requests,
                          path_of=application_status.path_of, **context)

    async def start(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        return await overview(request, person)

    async def part(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        slug = request.url.path.rsplit("/", 1)[-1]
        which, heading = PARTS[slug]
        context = {"title": heading, "slug": slug}
        if request.method == "GET":
            view = await call(applications.application, person.actor)
            shown = view.driver if which == "condutor" else view.vehicle
            return web.render(request, "credenciamento_parte.html", part=shown, view=view, values=shown.values,
                              errors=shown.errors, **context)
        values = await web.form(request, max_fields=40)
        await web.limit(request, db, "credenciamento", person.actor.username)
        try:
            view = await call(applications.save_part, person.actor, which, values)
        except ServiceError as problem:
            view = await call(applications.application, person.actor)
            shown = view.driver if which == "condutor" else view.vehicle
            return web.render(request, "credenciamento_parte.html", 400, part=shown, view=view, values=values,
                              message=problem.message, **context)
        shown = view.driver if which == "condutor" else view.vehicle
        if shown.errors:
            return web.render(request, "credenciamento_parte.html", 400, part=shown, view=view, values=shown.values,
                              errors=shown.errors, message=KEPT, **context)
        return RedirectResponse(f"/credenciamento?salvo={slug}", status_code=303)

    async def documents(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        context = {"title": "Documentos", "limit": uploads.shown_limit(record_files.KIND)}
        if request.method == "GET":
            view = await call(applications.application, person.actor)
            return web.render(request, "credenciamento_documentos.html", view=view, **context)
        texts, files = await web.form_with_files(request, MAX_DOCUMENTS, max_fields=2 * MAX_DOCUMENTS + 1)
        await web.limit(request, db, "credenciamento", person.actor.username)
        try:
            view = await call(applications.save_documents, person.actor, texts, files)
        except ServiceError as problem:
            view = await call(applications.application, person.actor)
            return web.render(request, "credenciamento_documentos.html", 400, view=view, message=problem.message,
                              **context)
        if any(slot.errors for slot in view.documents):
            return web.render(request, "credenciamento_documentos.html", 400, view=view, message=KEPT, **context)
        return RedirectResponse("/credenciamento?salvo=documentos", status_code=303)

    async def send(request: Request) -> Response:
        await web.form(request)
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        await web.limit(request, db, "credenciamento", person.actor.username)
        try:
            protocol = await call(applications.submit, person.actor)
        except ValidationFailed as problem:
            return await overview(request, person, 400, missing=problem.errors.get("_form", "").split("; "),
                                  message="O pedido ainda não pode ser enviado: veja o que falta abaixo.")
        except ServiceError as problem:
            return await overview(request, person, 400, message=problem.message)
        return RedirectResponse(f"/credenciamento/{application_status.path_of(protocol)}?enviado=1", status_code=303)

    async def one(request: Request, message: str = "", status: int = 200) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        item = await call(application_status.own_request, person.actor, _protocol(request))
        notice = (f"Pedido enviado: protocolo {item.protocol}. Acompanhe aqui cada passo da análise."
                  if request.query_params.get("enviado") == "1" else None)
        return web.render(request, "credenciamento_pedido.html", status, title=f"Protocolo {item.protocol}", item=item,
                          path=application_status.path_of(item.protocol), notice=notice, message=message)

    async def printed(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        kind = request.path_params["documento"]
        try:
            content = await call(application_status.own_pdf, person.actor, _protocol(request), kind)
        except ServiceError as problem:  # not issued yet
            return await one(request, message=problem.message, status=400)
        name = f"{kind}-{_protocol(request).replace('/', '-')}.pdf"
        return Response(content, media_type="application/pdf", headers={
            "content-disposition": f'attachment; filename="{name}"', "cache-control": "no-store"})

    return [
        Route("/credenciamento", start), Route("/credenciamento/dados", part, methods=BOTH),
        Route("/credenciamento/veiculo", part, methods=BOTH),
        Route("/credenciamento/documentos", documents, methods=BOTH, max_body_size=MAX_BODY),
        Route("/credenciamento/enviar", send, methods=["POST"]),
        Route("/credenciamento/{ano:int}/{numero:int}", one),
        Route("/credenciamento/{ano:int}/{numero:int}/{documento:str}", printed),
    ]
