"""The status without an account ("Consultar um DAM ou pedido", ``/consulta``): a DAM's number and the
CPF/CNPJ of its taxpayer answer its status, due date and amount, and an overdue one gets its 2ª via (the
digitable line and the PIX code, as text); an authorization request's protocol and the driver's CPF answer
the request's status (``services.ridehailing.protocol_status``).

Rate-limited per IP address and per CPF/CNPJ (``web.LIMITS["consulta"]``), CSRF on both forms; a wrong
CPF/CNPJ, an unknown number and an unknown municipality get the same answer; nothing personal is shown
beyond what was typed (``services.dam.own_dams.lookup``: no name, no address, no PDF).
"""
from __future__ import annotations

from pymongo.database import Database
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal import web
from services.dam import own_dams
from services.ridehailing import protocol_status
from services.shared import fields, municipalities
from services.shared.errors import ServiceError

TITLE = "Consultar um DAM ou pedido"
NOT_FOUND = {
    "dam": ("Não encontramos um DAM com este número para este CPF ou CNPJ neste município. Confira o número "
            "impresso no DAM e o documento do contribuinte."),
    "protocolo": ("Não encontramos um pedido de autorização com este protocolo para este CPF neste município. "
                  "Confira o número do protocolo e o CPF do condutor."),
}
KEPT = ("municipality", "what", "number", "document")


def routes(db: Database) -> list[Route]:
    """The routes of the status page on ``db``."""

    async def page(request: Request, status: int = 200, **context) -> Response:
        places = await run_in_threadpool(lambda: [(m.code, m.name) for m in municipalities.all_municipalities(db)])
        return web.render(request, "consulta.html", status, title=TITLE, municipalities=places, **context)

    async def checked_form(request: Request) -> tuple[dict[str, str], dict[str, str]]:
        values = await web.form(request)
        values = {k: values.get(k, "").strip() for k in KEPT}
        values["what"] = values["what"] if values["what"] in NOT_FOUND else "dam"
        errors = {}
        if not values["number"]:
            errors["number"] = "Informe o número, como impresso no DAM ou no protocolo (por exemplo 0007/2026)."
        if len(fields.digits(values["document"])) not in (11, 14):
            errors["document"] = "Informe os 11 dígitos do CPF ou os 14 do CNPJ do contribuinte."
        if not errors:
            await web.limit(request, db, "consulta", f"{values['municipality']}|{fields.digits(values['document'])}")
        return values, errors

    async def consult(request: Request) -> Response:
        if request.method == "GET":
            return await page(request)
        values, errors = await checked_form(request)
        if errors:
            return await page(request, 400, values=values, errors=errors, message="Corrija os campos indicados.")
        if values["what"] == "protocolo":
            asked = await run_in_threadpool(protocol_status.request_status, db, values["municipality"],
                                            values["number"], values["document"])
            if asked is None:
                return await page(request, values=values, message=NOT_FOUND["protocolo"])
            return await page(request, values=values, asked=asked)
        found = await run_in_threadpool(own_dams.lookup, db, values["municipality"], values["number"],
                                        values["document"])
        if found is None:
            return await page(request, values=values, message=NOT_FOUND["dam"])
        return await page(request, values=values, dam=found)

    async def second_copy(request: Request) -> Response:
        values, errors = await checked_form(request)
        if errors:
            return await page(request, 400, values=values, errors=errors, message="Corrija os campos indicados.")
        try:
            new = await run_in_threadpool(own_dams.reissue_typed, db, values["municipality"], values["number"],
                                          values["document"])
        except ServiceError as problem:  # no longer overdue (already reissued), or the rates are missing
            return await page(request, 400, values=values, message=problem.message)
        if new is None:
            return await page(request, values=values, message=NOT_FOUND["dam"])
        return await page(request, values={**values, "number": new["number"]}, dam=new,
                    notice=f"2ª via emitida: DAM {new['number']}. Pague-a até o vencimento indicado.")

    return [Route("/consulta", consult, methods=["GET", "POST"]),
            Route("/consulta/2via", second_copy, methods=["POST"])]
