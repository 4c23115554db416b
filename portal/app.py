"""The portal's pages: sign-up, login, activation, password reset, logout and the home page ("Início").

Server-rendered HTML (Jinja2) with no JavaScript; each handler reads the form, checks the limits, calls a
service of ``services.shared.regulated_access`` in a worker thread and renders the answer. The identity
typed is a CPF (a driver, a resident) or a CNPJ plus the CPF of the person acting (a platform's authorized
person, an entity's representative), with the kind of access chosen ("Entrar como").
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime
from typing import Any

from pymongo.database import Database
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from portal import answers, authorization_check, inbox, verification, web
from portal import applications as portal_applications
from portal import bookings as portal_bookings
from portal import dams as portal_dams
from portal import driver_desk
from portal import status as portal_status
from portal import public_forms
from services.shared import fields, mail, municipalities, regulated_access
from services.shared import regulated_accounts as accounts
from services.shared.errors import NotFound, ServiceError, ValidationFailed

log = logging.getLogger("painel")
MAIL_LOOP_SECONDS = 60
BOTH = ["GET", "POST"]


SIGN_UP_KINDS = [(accounts.DRIVER, "Candidato a condutor (quero me credenciar)"),
                 (accounts.REQUESTER, "Cidadão ou entidade (pedir serviços da prefeitura)")]


def _municipalities(db: Database) -> list[tuple[str, str]]:
    return [(m.code, m.name) for m in municipalities.all_municipalities(db)]


def _identity(values: dict[str, str]) -> tuple[str, str, str, str]:
    """(municipality, kind, document, person's CPF) as typed; with no kind chosen, a CPF is a driver's and a
    CNPJ a platform's (the forms before the requerente had no choice)."""
    document = fields.digits(values.get("document", ""))
    kind = values.get("kind", "")
    if kind not in accounts.KINDS:
        kind = accounts.PLATFORM if len(document) == 14 else accounts.DRIVER
    return values.get("municipality", ""), kind, document, values.get("person_cpf", "")


def _account_key(values: dict[str, str]) -> str:
    municipality, kind, document, person_cpf = _identity(values)
    return f"{municipality}|{kind}|{document}|{fields.digits(person_cpf)}"


def _errors(problem: ServiceError) -> tuple[dict[str, str], str]:
    if isinstance(problem, ValidationFailed):
        return dict(problem.errors), "Corrija os campos indicados."
    return {}, problem.message


def build(db: Database) -> Any:
    """The portal as an ASGI application on ``db`` (security headers around everything)."""

    def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context.setdefault("kinds", list(accounts.KINDS.items()))
        return web.render(request, name, status, municipalities=_municipalities(db), **context)

    async def who(request: Request) -> accounts.Person | None:
        return await web.signed_in(request, db)

    async def home(request: Request) -> Response:
        if authorization_check.token_of(request):  # the short link of the sticker's QR code
            return authorization_check.short_link(request)
        return RedirectResponse("/inicio" if await who(request) else "/entrar", status_code=303)

    async def login(request: Request) -> Response:
        if request.method == "GET":
            return page(request, "entrar.html", title="Entrar")
        values = await web.form(request)
        await web.limit(request, db, "login", _account_key(values))
        try:
            _person, cookie, expires_at = await run_in_threadpool(
                regulated_access.login, db, *_identity(values), values.get("password", ""))
        except ServiceError as problem:
            errors, message = _errors(problem)
            return page(request, "entrar.html", 400, title="Entrar", errors=errors, message=message,
                        values={k: v for k, v in values.items() if k != "password"})
        response = RedirectResponse("/inicio", status_code=303)
        _set_session(request, response, cookie, expires_at)
        return response

    async def ask_code(request: Request) -> Response:
        purpose = accounts.ACTIVATION if request.url.path.startswith("/ativar") else accounts.RESET
        template = "pedir_codigo.html"
        title = "Ativar conta" if purpose == accounts.ACTIVATION else "Criar nova senha"
        if request.method == "GET":
            return page(request, template, title=title, purpose=purpose)
        values = await web.form(request)
        await web.limit(request, db, "codigo", _account_key(values))
        try:
            message = await run_in_threadpool(regulated_access.request_code, db, *_identity(values), purpose)
        except ServiceError as problem:
            errors, message = _errors(problem)
            return page(request, template, 400, title=title, purpose=purpose, errors=errors, message=message,
                        values=values)
        response = page(request, "codigo.html", title=title, purpose=purpose, notice=message,
                        values={k: values.get(k, "") for k in ("municipality", "kind", "document", "person_cpf")})
        response.background = BackgroundTask(mail.send_pending, db)  # after the answer: a slow server waits no one
        return response

    async def sign_up(request: Request) -> Response:
        title = "Criar conta"
        if request.method == "GET":
            return page(request, "cadastro.html", title=title, kinds=SIGN_UP_KINDS)
        values = await web.form(request)
        await web.limit(request, db, "codigo", _account_key(values))
        municipality, kind, document, person_cpf = _identity(values)
        try:
            message = await run_in_threadpool(regulated_access.sign_up, db, municipality, values.get("kind", ""),
                                              document, person_cpf, values.get("name", ""), values.get("email", ""))
        except ServiceError as problem:
            errors, message = _errors(problem)
            return page(request, "cadastro.html", 400, title=title, kinds=SIGN_UP_KINDS, errors=errors,
                        message=message, values=values)
        response = page(request, "codigo.html", title="Ativar conta", purpose=accounts.ACTIVATION, notice=message,
                        values={k: values.get(k, "") for k in ("municipality", "kind", "document", "person_cpf")})
        response.background = BackgroundTask(mail.send_pending, db)
        return response

    async def enter_code(request: Request) -> Response:
        purpose = accounts.ACTIVATION if request.url.path.startswith("/ativar") else accounts.RESET
        title = "Ativar conta" if purpose == accounts.ACTIVATION else "Criar nova senha"
        if request.method == "GET":
            return page(request, "codigo.html", title=title, purpose=purpose)
        values = await web.form(request)
        await web.limit(request, db, "senha", _account_key(values))
        kept = {k: values.get(k, "") for k in ("municipality", "kind", "document", "person_cpf")}
        if values.get("password", "") != values.get("password2", ""):
            return page(request, "codigo.html", 400, title=title, purpose=purpose, values=kept,
                        errors={"password2": "As duas senhas não são iguais."},
                        message="Corrija os campos indicados.")
        try:
            if purpose == accounts.ACTIVATION:
                await run_in_threadpool(regulated_access.activate, db, *_identity(values), values.get("code", ""),
                                        values.get("password", ""), values.get("consent") == "sim")
            else:
                await run_in_threadpool(regulated_access.reset_password, db, *_identity(values),
                                        values.get("code", ""), values.get("password", ""))
        except ServiceError as problem:
            errors, message = _errors(problem)
            return page(request, "codigo.html", 400, title=title, purpose=purpose, values=kept, errors=errors,
                        message=message)
        done = "Conta ativada." if purpose == accounts.ACTIVATION else "Senha alterada."
        return page(request, "entrar.html", title="Entrar", values=kept, notice=f"{done} Entre com a sua nova senha.")

    async def start(request: Request) -> Response:
        person = await who(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        names = dict(_municipalities(db))
        section = None
        if person.kind in accounts.RIDE_HAILING_KINDS:  # the domicile of the ride-hailing acts
            section = await run_in_threadpool(inbox.domicile_section, db, person)
        return page(request, "inicio.html", title="Início", person=person, kind=accounts.KINDS[person.kind],
                    municipality=names.get(person.municipality, person.municipality), document=_shown(person),
                    domicile=section, public_forms=await public_forms.has_forms(db, person),
                    machinery=await run_in_threadpool(portal_bookings.offered, db, person))

    async def mailbox(request: Request, code: str, action: str) -> Response:
        """A message of the person's domicile: opened by its form (POST), shown, or its PDF; another's
        code or a missing one is the same 404."""
        person = await who(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        if request.method == "POST":
            await web.form(request)
        try:
            if action == "abrir":
                await run_in_threadpool(inbox.open_message, db, person, code)
                return RedirectResponse(f"/domicilio/{code}", status_code=303)
            if action == "pdf":
                pdf = await run_in_threadpool(inbox.opened_pdf, db, person, code)
                if pdf is None:  # the PDF is the content: it is read once the message is opened
                    return RedirectResponse(f"/domicilio/{code}", status_code=303)
                return Response(pdf, media_type="application/pdf", headers={
                    "content-disposition": 'attachment; filename="notificacao.pdf"', "cache-control": "no-store"})
            shown = await run_in_threadpool(inbox.message, db, person, code)
        except NotFound:
            raise HTTPException(404) from None
        return page(request, "mensagem.html", title=shown["title"], item=shown)

    async def opening(request: Request) -> Response:
        return await mailbox(request, request.path_params["code"], "abrir")

    async def reading(request: Request) -> Response:
        return await mailbox(request, request.path_params["code"], "ver")

    async def document(request: Request) -> Response:
        return await mailbox(request, request.path_params["code"], "pdf")

    async def logout(request: Request) -> Response:
        await web.form(request)
        await run_in_threadpool(regulated_access.logout, db, request.cookies.get(web.SESSION_COOKIE))
        response = page(request, "entrar.html", title="Entrar", notice="Você saiu do portal.")
        response.delete_cookie(web.SESSION_COOKIE, path="/")
        return response

    async def privacy(request: Request) -> Response:
        return page(request, "privacidade.html", title="Aviso de privacidade", version=accounts.LGPD_VERSION)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette):
        task = asyncio.create_task(_mail_loop(db))
        try:
            yield
        finally:
            task.cancel()

    app = Starlette(
        routes=[
            Route("/", home), Route("/entrar", login, methods=BOTH), Route("/cadastro", sign_up, methods=BOTH),
            Route("/ativar", ask_code, methods=BOTH), Route("/ativar/codigo", enter_code, methods=BOTH),
            Route("/senha", ask_code, methods=BOTH), Route("/senha/codigo", enter_code, methods=BOTH),
            Route("/inicio", start), Route("/sair", logout, methods=["POST"]), Route("/privacidade", privacy),
            Route("/domicilio/{code}/abrir", opening, methods=["POST"]), Route("/domicilio/{code}", reading),
            Route("/domicilio/{code}/pdf", document),
            *portal_dams.routes(db), *portal_status.routes(db),
            *answers.routes(db),  # the data requests of a platform and their signed answers (issue 36 item 4)
            *verification.routes(db),  # the public verification of an issued document (issue 37)
            *authorization_check.routes(db),  # the passenger's check of an authorization (the sticker's QR)
            *portal_applications.routes(db),  # a driver candidate's application and its steps (issue 38 item 1)
            *portal_bookings.routes(db),  # a resident's or entity's requests for machinery services (issue 38 item 3)
            *public_forms.routes(db),  # the public forms of the registers TI defines (issue 38 item 4)
            *driver_desk.routes(db),  # the driver's renewal, data changes, defence and appeal (issue 38 item 1)
            Mount("/static", StaticFiles(directory=web.HERE / "static"), name="static"),
        ],
        exception_handlers={**{status: web.error_page for status in (400, 403, 404, 405, 429, 500)},
                            Exception: web.error_page},
        lifespan=lifespan,
        max_body_size=64 * 1024,
    )
    return web.SecurityHeaders(web.TooLargePage(app))


def _shown(person: accounts.Person) -> str:
    """The identity as the person knows it (CPF, or CNPJ and CPF), in Brazilian format."""
    if len(person.document) == 11:
        return f"CPF {fields.show('cpf', person.document)}"
    return f"CNPJ {fields.show('cnpj', person.document)} · CPF {fields.show('cpf', person.person_cpf)}"


def _set_session(request: Request, response: Response, cookie: str, expires_at: datetime) -> None:
    response.set_cookie(web.SESSION_COOKIE, cookie, expires=expires_at, httponly=True, samesite="lax",
                        secure=web.is_https(request), path="/")


async def _mail_loop(db: Database) -> None:
    """Send the outbox now and then (codes already go at once; this retries what failed)."""
    while True:
        try:
            await run_in_threadpool(mail.send_pending, db)
        except Exception:  # noqa: BLE001 — the loop outlives a store or server fault; the next round retries
            log.exception("Falha ao enviar os e-mails pendentes")
        await asyncio.sleep(MAIL_LOOP_SECONDS)
