"""Services of municipal machines and vehicles on the portal (issue 38 item 3; Decreto 017/2026, Nova Lacerda):
a resident or entity (account kind ``requerente``) asks for a service with the form of art. 2 §4, follows the
request — the quote, the DAMs to pay (on "Meus DAMs"), the place in the zone's queue, the days booked, the
statement after completion, the refusal and the credit to return — and sees what blocks a new request.

Every page calls the clerk's own services (``services.machinery``), which keep the person to their own
CPF/CNPJ: a page names a request by its protocol number (``/servicos/2026/1`` is protocol 0001/2026);
another's protocol and a missing one are the same 404. Pages exist only for a requerente of a municipality
that runs the module.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from pymongo.database import Database
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import booking_views as views
from portal import web
from services.machinery import (
    attachments,
    booking_requests,
    documents,
    ledger,
    localities,
    protocol,
    requesters,
    schedule,
)
from services.shared import clock, uploads
from services.shared.errors import NotFound, PermissionDenied, ServiceError, ValidationFailed
from services.shared.regulated_accounts import REQUESTER, Person

TEMPLATE_FORM = "servico_novo.html"
# the body of a request: its three files at the attachments' limit, and the texts
MAX_BODY = len(views.FILES) * uploads.max_bytes("attachment") + 64 * 1024
FIELD_OF = {"requester_id": "place", "zone": "place", "locality": "place", "name": "address", "document": "address",
            "claims": "criterion", "requested_on": "services", "agrees_payment_terms": "agrees",
            "liability_declaration": "liability", "environmental_licence": "licence"}


def offered(db: Database, person: Person | None) -> bool:
    """Whether the person reaches these pages: a requerente in a municipality that runs the module."""
    return person is not None and person.kind == REQUESTER and booking_requests.runs_module(db, person.municipality)


def routes(db: Database) -> list[Route]:
    """The routes of the service bookings, to add to the portal's application."""

    async def requester(request: Request) -> Person | None:
        person = await web.signed_in(request, db)
        if person is not None and not await run_in_threadpool(offered, db, person):
            raise HTTPException(404)  # a driver or a platform has no bookings: the page does not exist for them
        return person

    async def call(fn, person: Person, *args: Any) -> Any:
        return await web.own(db, fn, person.actor, person.municipality, *args)

    def overview(person: Person) -> dict[str, Any]:
        actor, mun, today = person.actor, person.municipality, clock.today()
        return {"requests": [views.listed(r) for r in booking_requests.list_requests(db, actor, mun, limit=50)],
                "blocks": views.blocks_shown(requesters.requester_blocks(db, actor, mun, person.document, today))}

    async def listing(request: Request) -> Response:
        person = await requester(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        shown = await call(lambda _db, _actor, _mun: overview(person), person)
        notice = "Pedido protocolado. Acompanhe abaixo." if request.query_params.get("novo") else None
        return web.render(request, "servicos.html", title="Serviços de máquinas e veículos", notice=notice, **shown)

    def form_context(person: Person) -> dict[str, Any]:
        actor, mun, today = person.actor, person.municipality, clock.today()
        entry = requesters.requester_of(db, actor, mun, person.document) or {}
        places = [(f"{r['Zona']}|{r['Localidade']}", f"{r['Zona']} — {r['Localidade']}")
                  for r in localities.in_force(db, actor, mun, today)]
        return {"places": places, "entity": len(person.document) == 14, "machines": views.MACHINES,
                "criteria": views.CRITERIA, "evidence": views.EVIDENCE, "files": views.FILES,
                "limit": uploads.shown_limit("attachment"),
                "blocks": views.blocks_shown(requesters.requester_blocks(db, actor, mun, person.document, today)),
                "known": {"address": entry.get("address") or "", "phone": entry.get("phone") or "",
                          "constitution_proof": entry.get("constitution_proof") or "",
                          "place": f"{entry.get('zone', '')}|{entry.get('locality', '')}" if entry else ""}}

    def file_problems(files: dict[str, tuple[bytes, str]], values: dict[str, str]) -> dict[str, str]:
        errors = {}
        for name, (data, filename) in files.items():
            if name in views.FILES:
                try:
                    uploads.check("attachment", data, filename, field=name)
                except ValidationFailed as refused:
                    errors.update(refused.errors)
        if values.get("criterion") and "evidence_file" not in files:
            errors["evidence_file"] = "Anexe o comprovante do desconto pedido (art. 7, §3)."
        return errors

    def ask(person: Person, values: dict[str, str], files: dict[str, tuple[bytes, str]]) -> str:
        """The register entry, the protocol, then the files: each step the clerk's own service."""
        actor, mun = person.actor, person.municipality
        problems = file_problems(files, values)
        form, errors = views.parse_form(values, "", clock.today())
        if errors or problems or form is None:
            raise ValidationFailed({**errors, **problems})
        zone, _, locality = values.get("place", "").partition("|")
        entry = {"name": person.name, "address": values.get("address", ""), "zone": zone, "locality": locality,
                 "phone": values.get("phone", "")}
        if len(person.document) == 14:
            entry["constitution_proof"] = values.get("constitution_proof", "")
        requester_id = requesters.save_requester(db, actor, mun, person.document, entry)
        rid = protocol.create_request(db, actor, mun, replace(form, requester_id=requester_id))
        for name, (data, filename) in files.items():
            if name in views.FILES:
                attachments.add_attachment(db, actor, mun, rid, data, filename, views.FILES[name])
        return booking_requests.get_request(db, actor, mun, rid)["protocol"]

    async def new(request: Request) -> Response:
        person = await requester(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        context = await call(lambda _db, _actor, _mun: form_context(person), person)
        title = "Pedir um serviço"
        if request.method == "GET":
            return web.render(request, TEMPLATE_FORM, title=title, values=context["known"], **context)
        values, files = await web.form_with_files(request, len(views.FILES), views.MAX_FIELDS)
        await web.limit(request, db, "servico", person.actor.username)
        try:
            number = await run_in_threadpool(ask, person, values, files)
        except (NotFound, PermissionDenied):
            raise HTTPException(404) from None
        except ServiceError as problem:
            errors = {FIELD_OF.get(k, k): v for k, v in problem.errors.items()} \
                if isinstance(problem, ValidationFailed) else {}
            return web.render(request, TEMPLATE_FORM, 400, title=title, values=values, errors=errors,
                              message="Corrija os campos indicados; os arquivos precisam ser escolhidos de novo."
                              if errors else problem.message, **context)
        return RedirectResponse(f"{views.request_path(number)}?novo=1", status_code=303)

    def one_request(person: Person, number: str) -> dict[str, Any]:
        actor, mun = person.actor, person.municipality
        rid = requesters.request_id_of(db, actor, mun, number)
        doc = booking_requests.get_request(db, actor, mun, rid)
        rows = ledger.request_charges(db, actor, mun, doc)
        place = schedule.queue_place(db, actor, mun, rid, clock.today())
        return views.request_shown(doc, rows, place)

    def number_of(request: Request) -> str:
        return f"{request.path_params['numero']:04d}/{request.path_params['ano']}"

    async def showing(request: Request) -> Response:
        person = await requester(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        item = await call(lambda _db, _actor, _mun: one_request(person, number_of(request)), person)
        notice = "Pedido protocolado. A Secretaria fará a vistoria, se necessária, e o orçamento." \
            if request.query_params.get("novo") else None
        return web.render(request, "servico.html", title=f"Pedido {item['protocol']}", item=item, notice=notice)

    async def statement(request: Request) -> Response:
        person = await requester(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)

        def pdf(_db, actor, mun) -> bytes | None:
            rid = requesters.request_id_of(db, actor, mun, number_of(request))
            if booking_requests.get_request(db, actor, mun, rid)["status"] != "concluido":
                return None  # the statement of what was done: after completion
            return documents.statement_pdf(db, actor, mun, rid)

        content = await call(pdf, person)
        if content is None:
            raise HTTPException(404)
        name = number_of(request).replace("/", "-")
        return Response(content, media_type="application/pdf", headers={
            "content-disposition": f'attachment; filename="extrato-{name}.pdf"', "cache-control": "no-store"})

    return [Route("/servicos", listing),
            Route("/servicos/novo", new, methods=["GET", "POST"], max_body_size=MAX_BODY),
            Route("/servicos/{ano:int}/{numero:int}", showing),
            Route("/servicos/{ano:int}/{numero:int}/extrato", statement)]

