"""The public forms of the registers TI defines without code, on the portal (issue 38 item 4).

``/formularios``: the forms open in the person's municipality; ``/formularios/<register>``: one form, its
fields drawn from their kinds (text, number, date, list, yes/no, file) and sent to
``services.shared.public_forms.submit`` — the clerk's own validation, the messages under each field and
what was typed kept when refused (a file is chosen again), a file through the upload boundary —;
``/solicitacoes`` ("Meus pedidos") and ``/solicitacoes/<ano>/<numero>``: the person's requests by their
protocol number, never an id, with the state of the flow. Another's protocol and a missing one are the
same 404, as is a form that is closed, inactive or of another municipality.
"""
from __future__ import annotations

from typing import Any

from pymongo.database import Database
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import web
from rules.fmt import day
from services.shared import public_forms, uploads
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.public_spec import MAX_FILES
from services.shared.record_files import KIND, Sent
from services.shared.regulated_accounts import Person

# the body of one request: each of its files may pass its limit somewhat and still reach the upload
# boundary, which refuses it in pt-BR under its field (a body past this gets a bare 413)
MAX_BODY = MAX_FILES * 2 * uploads.max_bytes(KIND) + 64 * 1024
REFUSED = "Corrija os campos indicados."
INPUTS = {"int": ("text", "numeric"), "money": ("text", "decimal"), "cpf": ("text", "numeric"),
          "cnpj": ("text", "numeric"), "cpf_cnpj": ("text", "numeric"), "phone": ("tel", "tel"),
          "email": ("email", "email"), "date": ("date", "")}
HINTS = {"money": "Em reais, ex.: 1.234,56.", "cpf": "Só números ou com pontos e traço.",
         "cnpj": "Só números ou com pontos, barra e traço.", "cpf_cnpj": "CPF ou CNPJ, só números ou formatado.",
         "phone": "Com DDD, ex.: (65) 99999-0000.", "plate": "Ex.: ABC1D23."}


async def has_forms(db: Database, person: Person) -> bool:
    """Whether Início shows the section of the public forms (at least one open in the municipality)."""
    return bool(await run_in_threadpool(public_forms.open_forms, db, person.actor))


def _widget(f: Any) -> dict[str, Any]:
    """How the template draws a field: its kind of input and its hint."""
    kind = "file" if f.kind == "file" else "select" if f.kind == "choice" else "yesno" if f.kind == "bool" \
        else "textarea" if f.kind == "textarea" else "input"
    typed, inputmode = INPUTS.get(f.kind, ("text", ""))
    hint = f.help or HINTS.get(f.kind, "")
    if f.kind == "textarea":  # the portal reads at most this of a field: the browser stops the typing there
        hint = " ".join(part for part in (hint, f"Até {web.MAX_FORM_FIELD} caracteres.") if part)
    if f.kind == "file":
        hint = f"PDF, JPEG ou PNG, {uploads.shown_limit(KIND)}." + (f" {f.help}" if f.help else "")
    return {"name": f.name, "label": f.label, "required": f.required, "widget": kind, "type": typed,
            "inputmode": inputmode, "hint": hint, "choices": f.choices,
            "maxlength": web.MAX_FORM_FIELD if f.kind in ("text", "textarea") else None}


def _shown(item: public_forms.OwnRequest) -> dict[str, Any]:
    year, sequence = item.protocol.split("/")[1], item.protocol.split("/")[0]
    return {"protocol": item.protocol, "path": f"/solicitacoes/{year}/{int(sequence)}", "register": item.register,
            "requested_on": day(item.requested_on), "state": item.state,
            "since": day(item.since) if item.since else "", "values": item.values,
            "steps": [{"day": day(s.day), "what": s.what, "state": s.state} for s in item.steps]}


def routes(db: Database) -> list[Route]:
    """The routes of the public forms and of "Meus pedidos"."""

    async def person_of(request: Request) -> Person | None:
        return await web.signed_in(request, db)

    async def call(fn, *args: Any) -> Any:  # closed, another municipality's, another's: a missing page
        return await web.own(db, fn, *args)

    async def listing(request: Request) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        forms = await call(public_forms.open_forms, person.actor)
        return web.render(request, "formularios.html", title="Pedidos à prefeitura", forms=forms)

    async def filling(request: Request) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        name = request.path_params["name"]
        form = await call(public_forms.public_form, person.actor, name)
        context = {"title": form.label, "form": form, "fields": [_widget(f) for f in form.fields]}
        if request.method == "GET":
            return web.render(request, "formulario.html", **context)
        texts, files = await web.form_with_files(request, max_files=MAX_FILES)
        await web.limit(request, db, "formulario", person.actor.username)
        values: dict[str, Any] = dict(texts)
        values.update({key: Sent(file_name, data) for key, (data, file_name) in files.items()})
        try:
            protocol = await call(public_forms.submit, person.actor, name, values)
        except ServiceError as problem:
            errors = problem.errors if isinstance(problem, ValidationFailed) else {}
            shown = {f["name"] for f in context["fields"]}
            others = [text for key, text in errors.items() if key not in shown]
            message = " ".join([REFUSED, *others]) if errors else problem.message
            return web.render(request, "formulario.html", 400, errors=errors, message=message, values=texts,
                              **context)
        sequence, year = protocol.split("/")
        return RedirectResponse(f"/solicitacoes/{year}/{int(sequence)}?novo=1", status_code=303)

    async def mine(request: Request) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        items = await call(public_forms.my_requests, person.actor)
        return web.render(request, "solicitacoes.html", title="Meus pedidos", items=[_shown(i) for i in items])

    async def one(request: Request) -> Response:
        person = await person_of(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        protocol = f"{request.path_params['numero']:04d}/{request.path_params['ano']}"
        item = _shown(await call(public_forms.my_request, person.actor, protocol))
        notice = f"Pedido recebido. Guarde o número do protocolo: {item['protocol']}." \
            if request.query_params.get("novo") == "1" else None
        return web.render(request, "solicitacao.html", title=f"Pedido {item['protocol']}", item=item, notice=notice)

    return [Route("/formularios", listing),
            Route("/formularios/{name}", filling, methods=["GET", "POST"], max_body_size=MAX_BODY),
            Route("/solicitacoes", mine), Route("/solicitacoes/{ano:int}/{numero:int}", one)]
