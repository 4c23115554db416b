"""The data requests of a platform on the portal and their signed answers (issue 36 item 4; CG Decreto
06/2026 art. 11 §2–3; MP Lei 1.552/2025 art. 4 §2–3).

The platform's authorized person sees the requests of their platform (``/pedidos``), one request by its
public code (``/pedidos/<code>``), and answers it with a form that sends the signed file — a PDF with
PAdES, or a CSV/XLSX with its ``.p7s`` — (``POST /pedidos/<code>/responder``: CSRF-checked, rate-limited,
the files through the upload boundary inside ``services.ridehailing.data_answers``). A refused file is
shown again with the reason under its field and nothing stored; another platform's code, a missing one
and a driver reaching these pages all read as the same 404.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pymongo.database import Database
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import web
from rules.fmt import count, day, moment
from services.ridehailing import data_answers
from services.shared import clock, uploads
from services.shared.errors import NotFound, PermissionDenied, ServiceError, ValidationFailed
from services.shared.regulated_accounts import PLATFORM, Person

# the body of one answer: twice the file's and the .p7s's limits, so a file somewhat over its limit still
# reaches the upload boundary and is refused there in pt-BR under its field (a body past this gets a bare 413)
MAX_BODY = 2 * (uploads.max_bytes("signed_answer") + uploads.max_bytes("signature")) + 64 * 1024


TEMPLATE = "envio_assinado.html"
NOT_KEPT = "O arquivo não foi aceito; nada foi gravado."


@dataclass(frozen=True)
class SignedFilePage:
    """What differs between the pages of the signed files a platform owes: the address, the texts, the
    upload kind of the file and the service that receives it."""

    path: str
    title: str
    kind: str
    send: Callable[..., Any]
    intro: str
    file_label: str
    file_hint: str
    button: str
    missing: str
    bad_rows: str
    done: Callable[[Any], str]


def _shown(item: data_answers.OwnRequest) -> dict[str, Any]:
    answer = item.answer
    return {"code": item.code, "justification": item.justification, "period": item.period,
            "notified": moment(clock.to_local(item.notified_at)), "deadline": moment(clock.to_local(item.deadline)),
            "answered": moment(clock.to_local(item.answered_at)) if item.answered_at else "",
            "late": item.late, "situation": item.situation,
            "answer": data_answers.shown_answer(answer) if answer else None}


def routes(db: Database) -> list[Route]:
    """The routes of the data requests, to add to the portal's application."""

    async def platform_person(request: Request) -> Person | None:
        return await web.signed_in(request, db, PLATFORM)  # a driver has no data requests

    def shown_request(person: Person, code: str) -> dict[str, Any]:
        return _shown(data_answers.own_request(db, person.actor, code))

    async def listing(request: Request) -> Response:
        person = await platform_person(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        try:
            items = await run_in_threadpool(data_answers.own_requests, db, person.actor)
        except PermissionDenied:
            raise HTTPException(404) from None
        return web.render(request, "pedidos.html", title="Pedidos de dados", items=[_shown(i) for i in items])

    async def one(request: Request) -> Response:
        person = await platform_person(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        code = request.path_params["code"]
        try:
            item = await run_in_threadpool(shown_request, person, code)
        except (NotFound, PermissionDenied):
            raise HTTPException(404) from None
        notice = "Resposta recebida: a assinatura foi verificada e o arquivo foi guardado." \
            if request.query_params.get("enviado") == "1" and item["answer"] else None
        return web.render(request, "pedido.html", title="Pedido de dados", item=item, notice=notice,
                          limits={"file": uploads.shown_limit("signed_answer"),
                                  "signature": uploads.shown_limit("signature")})

    async def answer(request: Request) -> Response:
        person = await platform_person(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        code = request.path_params["code"]
        _texts, files = await web.form_with_files(request, max_files=2)
        await web.limit(request, db, "envio", person.actor.username)
        data, name = files.get("file", (b"", ""))
        signature, signature_name = files.get("signature", (b"", ""))
        try:
            await run_in_threadpool(data_answers.answer_request, db, person.actor, code, data, name,
                                    signature or None, signature_name)
        except (NotFound, PermissionDenied):
            raise HTTPException(404) from None
        except ServiceError as problem:
            try:
                item = await run_in_threadpool(shown_request, person, code)
            except (NotFound, PermissionDenied):
                raise HTTPException(404) from None
            errors = problem.errors if isinstance(problem, ValidationFailed) else {}
            if not data:
                errors = {"file": "Escolha o arquivo assinado."}
            return web.render(request, "pedido.html", 400, title="Pedido de dados", item=item, errors=errors,
                              message=NOT_KEPT if errors else problem.message,
                              limits={"file": uploads.shown_limit("signed_answer"),
                                      "signature": uploads.shown_limit("signature")})
        return RedirectResponse(f"/pedidos/{code}?enviado=1", status_code=303)

    def signed_file_page(page: SignedFilePage):
        """The page of a signed file the platform owes (CSV/XLSX + .p7s), sent to ``page.send`` — one handler
        for the trip data and the monthly list: CSRF, the ``envio`` limit, a refusal under its field, the
        rows with problems with their lines, nothing kept unless the whole file is."""
        async def handler(request: Request) -> Response:
            person = await platform_person(request)
            if person is None:
                return RedirectResponse("/entrar", status_code=303)
            limits = {"file": uploads.shown_limit(page.kind), "signature": uploads.shown_limit("signature")}
            context = {"title": page.title, "page": page, "limits": limits}
            if request.method == "GET":
                return web.render(request, TEMPLATE, **context)
            _texts, files = await web.form_with_files(request, max_files=2)
            await web.limit(request, db, "envio", person.actor.username)
            data, name = files.get("file", (b"", ""))
            signature, signature_name = files.get("signature", (b"", ""))
            if not data:
                return web.render(request, TEMPLATE, 400, errors={"file": page.missing}, message=NOT_KEPT, **context)
            try:
                report = await run_in_threadpool(page.send, db, person.actor, data, name, signature or None,
                                                 signature_name)
            except PermissionDenied:
                raise HTTPException(404) from None
            except ServiceError as problem:
                errors = problem.errors if isinstance(problem, ValidationFailed) else {}
                return web.render(request, TEMPLATE, 400, errors=errors,
                                  message=NOT_KEPT if errors else problem.message, **context)
            if not report.ok:
                return web.render(request, TEMPLATE, 400, rows=report.errors, message=page.bad_rows, **context)
            return web.render(request, TEMPLATE, notice=page.done(report), **context)
        return handler

    trips = signed_file_page(SignedFilePage(
        "/viagens", "Enviar dados de viagem", "trip_file", data_answers.send_trip_file,
        "Os dados das viagens realizadas no município (um CSV ou XLSX com uma viagem por linha, nas colunas do "
        "modelo da prefeitura), com a assinatura destacada (.p7s) feita com o certificado ICP-Brasil de uma pessoa "
        "autorizada pela plataforma.",
        "Arquivo de viagens", "CSV ou XLSX", "Enviar os dados de viagem", "Escolha o arquivo de viagens.",
        "O arquivo tem linhas com problemas; nada foi gravado. Corrija e envie de novo.",
        lambda report: f"Arquivo recebido: {count(report.rows, 'viagem', 'viagens')}. A assinatura foi verificada."))
    driver_list = signed_file_page(SignedFilePage(  # CG art. 5º VIII; MP art. 5º IX
        "/relacoes", "Enviar a relação de condutores e veículos", "platform_list", data_answers.send_driver_list,
        "A relação dos condutores e veículos que atuam pela plataforma no município (um CSV ou XLSX com as colunas "
        "CPF, Placa e Nome, uma pessoa e um veículo por linha), com a assinatura destacada (.p7s) feita com o "
        "certificado ICP-Brasil de uma pessoa autorizada pela plataforma. A prefeitura confere cada linha com o "
        "cadastro de autorizações.",
        "Arquivo da relação", "CSV ou XLSX com as colunas CPF, Placa e Nome", "Enviar a relação",
        "Escolha o arquivo da relação.",
        "A relação tem linhas com problemas; nada foi gravado. Corrija e envie de novo.",
        lambda report: f"Relação recebida em {day(clock.today())}: {count(report.rows, 'linha', 'linhas')}. "
                       "A assinatura foi verificada."))

    return [Route("/pedidos", listing), Route("/pedidos/{code}", one),
            Route("/pedidos/{code}/responder", answer, methods=["POST"], max_body_size=MAX_BODY),
            Route("/viagens", trips, methods=["GET", "POST"], max_body_size=MAX_BODY),
            Route("/relacoes", driver_list, methods=["GET", "POST"], max_body_size=MAX_BODY)]
