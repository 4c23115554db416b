"""The registered driver's desk on the portal (issue 38 item 1): the renewal of their authorization, the
report of a change of their data or vehicle, and the defence or appeal to their autos de infração.

Every page is a driver's only (a platform's person gets 404, like an unknown page) and every write is the
clerk's own service with the person as actor: ``own_authorizations.renew`` (``fees.request_renewal`` and
``fees.issue_fee_dam``), ``changes.record_change`` and ``process.file_defence`` / ``file_appeal``, which
check the owner, the window and the term. Pages name an authorization by its protocol and an auto by its
number (``/autos/2026/7`` is auto 0007/2026), never by an id; another's and a missing one are the same 404.
A refused form comes back with what was typed and each message under its field.
"""
from __future__ import annotations

from typing import Any

from pymongo.database import Database
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from portal import web
from rules.fmt import day, moment
from services.ridehailing import changes, own_authorizations, registry
from services.ridehailing.enforcement import documents, own_autos, process
from services.shared import clock, entities, fields, uploads
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.regulated_accounts import DRIVER, Person

MAX_FILES = 3  # attachments of one defence or appeal
MAX_TEXT = 500  # characters of the summary typed on the portal (the full text goes as an attachment)
FILING_BODY = MAX_FILES * uploads.max_bytes("evidence") + 64 * 1024
CHANGE_BODY = 2 * uploads.max_bytes("data_change_proof") + 64 * 1024


def _number(request: Request) -> str:
    return f"{request.path_params['numero']:04d}/{request.path_params['ano']}"


def _filings(item: dict) -> list[dict]:
    """The defence and the appeal as the person's page shows them (when joined, in time or not)."""
    shown = []
    for key, label in (("defence", "Defesa"), ("appeal", "Recurso")):
        filing = item.get(key)
        if filing:
            shown.append({"label": label, "joined": documents.joined_text(filing), "summary": filing["summary"],
                          "late": filing.get("late"), "files": [a["name"] for a in filing.get("attachments", [])]})
    return shown


def _change_options(subjects: list[dict]) -> list[tuple[str, str]]:
    """(value, label) of every datum the person may report: of their record and of each vehicle."""
    labels = {c: {f.name: f.label for f in entities.spec(c).fields} for c in changes.PORTAL_FIELDS}
    return [(f"{s['key']}:{name}", f"{s['label']} — {labels[s['collection']][name]}")
            for s in subjects for name in changes.PORTAL_FIELDS[s["collection"]]]


def routes(db: Database) -> list[Route]:
    """The routes of the driver's desk on ``db``."""

    async def driver(request: Request) -> Person | None:
        return await web.signed_in(request, db, DRIVER)  # no authorization, data or autos of a driver otherwise

    async def call(fn, *args: Any, **kwargs: Any) -> Any:
        return await web.own(db, fn, *args, **kwargs)

    # ---- renewal ----

    async def renewal(request: Request, message: str = "", status: int = 200) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        items = await call(own_authorizations.own_authorizations, person.actor)
        notice = "Renovação pedida. O DAM da taxa está em Meus DAMs." if request.query_params.get("pedida") else ""
        return web.render(request, "condutor_renovacao.html", status, title="Renovação da autorização",
                          items=[_authorization(i) for i in items], notice=notice, message=message)

    async def renew(request: Request) -> Response:
        await web.form(request)
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        await web.limit(request, db, "envio", person.actor.username)
        try:
            await call(own_authorizations.renew, person.actor, _number(request))
        except ServiceError as problem:  # the window not open yet, expired, the fee not set…
            return await renewal(request, message=problem.message, status=400)
        return RedirectResponse("/renovacao?pedida=1", status_code=303)

    # ---- data changes ----

    async def data_changes(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        subjects = await call(changes.own_subjects, person.actor)
        context = {"title": "Alteração de dados", "options": _change_options(subjects),
                   "limit": uploads.shown_limit("data_change_proof"),
                   "article": registry.rules_of(person.municipality).ref("data_change")}
        if request.method == "POST":
            texts, files = await web.form_with_files(request, max_files=1)
            await web.limit(request, db, "envio", person.actor.username)
            errors, message = await report(person, subjects, texts, files.get("proof"))
            if errors or message:
                return await listed(request, person, 400, values=texts, errors=errors, message=message, **context)
            return RedirectResponse("/alteracoes?enviada=1", status_code=303)
        notice = "Alteração comunicada. A secretaria confere o comprovante e atualiza o cadastro." \
            if request.query_params.get("enviada") else ""
        return await listed(request, person, 200, notice=notice, **context)

    async def listed(request: Request, person: Person, status: int, **context: Any) -> Response:
        reported = await call(changes.own_changes, person.actor)
        return web.render(request, "condutor_alteracoes.html", status, reported=[_reported(c) for c in reported],
                          **context)

    async def report(person: Person, subjects: list[dict], texts: dict, proof: tuple[bytes, str] | None
                     ) -> tuple[dict, str]:
        key, _, name = texts.get("what", "").partition(":")
        subject = next((s for s in subjects if s["key"] == key), None)
        if subject is None or name not in changes.PORTAL_FIELDS[subject["collection"]]:
            return {"what": "Escolha o dado que mudou."}, ""
        try:
            changed_on = fields.parse_date_input(texts.get("changed_on", ""))
        except ValueError:
            changed_on = None
        try:
            await call(changes.record_change, person.actor, person.municipality, subject["collection"], subject["id"],
                       {name: texts.get("value", "")}, changed_on, None, expected_version=0,
                       proof=(proof[1], proof[0]) if proof else None)
        except ValidationFailed as problem:
            errors = {("what" if k == "field" else k): v for k, v in problem.errors.items()}
            if "changed_on" in errors and texts.get("changed_on", "").strip() and changed_on is None:
                errors["changed_on"] = "Data da alteração: use dd/mm/aaaa."
            return errors, ""
        except ServiceError as problem:
            return {}, problem.message
        return {}, ""

    # ---- autos: defence and appeal ----

    async def auto_list(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        items = await call(own_autos.own_autos, person.actor)
        return web.render(request, "condutor_autos.html", title="Meus autos de infração",
                          items=[_auto(i) for i in items])

    async def one_auto(request: Request, status: int = 200, **context: Any) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        item = await call(own_autos.own_auto, person.actor, _number(request))
        joined = "Recurso juntado ao processo." if item.get("appeal") else "Defesa juntada ao processo."
        notice = joined if request.query_params.get("juntada") else ""
        return web.render(request, "condutor_auto.html", status, title=f"Auto de infração nº {item['number']}",
                          item=_auto(item), filings=_filings(item), notice=notice,
                          limit=uploads.shown_limit("evidence"), max_files=MAX_FILES, max_text=MAX_TEXT, **context)

    async def file(request: Request) -> Response:
        person = await driver(request)
        if person is None:
            return RedirectResponse("/entrar", status_code=303)
        texts, files = await web.form_with_files(request, max_files=MAX_FILES)
        await web.limit(request, db, "envio", person.actor.username)
        item = await call(own_autos.own_auto, person.actor, _number(request))
        summary = texts.get("summary", "").strip()
        if len(summary) > MAX_TEXT:
            return await one_auto(request, 400, values=texts, errors={
                "summary": f"Resumo: até {MAX_TEXT} caracteres; anexe o texto completo em PDF."})
        attachments = [(name, data) for key, (data, name) in sorted(files.items()) if key.startswith("anexo")]
        service = process.file_appeal if item["term"].kind == "recurso" else process.file_defence
        try:
            await call(service, person.actor, person.municipality, item["id"], filed_on=clock.today(),
                       by=person.name, summary=summary, attachments=attachments)
        except ValidationFailed as problem:
            errors = {("anexo1" if k == "attachments" else k): v for k, v in problem.errors.items()}
            return await one_auto(request, 400, values=texts, errors=errors,
                                  message="Nada foi juntado; corrija o indicado.")
        except ServiceError as problem:  # the term over (with the day it ended), or no filing admitted now
            return await one_auto(request, 400, values=texts, message=problem.message)
        return RedirectResponse(f"/autos/{request.path_params['ano']}/{request.path_params['numero']}?juntada=1",
                                status_code=303)

    return [
        Route("/renovacao", renewal), Route("/renovacao/{ano:int}/{numero:int}", renew, methods=["POST"]),
        Route("/alteracoes", data_changes, methods=["GET", "POST"], max_body_size=CHANGE_BODY),
        Route("/autos", auto_list), Route("/autos/{ano:int}/{numero:int}", one_auto),
        Route("/autos/{ano:int}/{numero:int}/juntar", file, methods=["POST"], max_body_size=FILING_BODY),
    ]


def _authorization(item: dict) -> dict:
    window, today = item["window"], item["today"]
    state = ""
    if window is not None and not item["pending_renewal"]:
        state = "antes" if today < window.opens else ("atrasada" if window.late(today) else "aberta")
    sequence, year = item["protocol"].split("/")
    return {"protocol": item["protocol"], "number": item["number"], "plate": fields.show("plate", item["plate"] or ""),
            "status": item["status"], "valid_until": day(item["valid_until"]) if item["valid_until"] else "",
            "window": window, "state": state, "pending": item["pending_renewal"], "fee": item["fee"],
            "why_not": window.not_open_text() if window is not None and state == "antes" else "",
            "last_day": day(window.last_day) if window else "", "reference": window.reference if window else "",
            "path": f"/renovacao/{year}/{int(sequence)}"}


def _reported(change: changes.DataChange) -> dict:
    return {"what": change.fields_text, "changed_on": day(change.changed_on),
            "reported": moment(clock.to_local(change.reported_at)) if change.reported_at else
            (day(change.reported_on) if change.reported_on else "não comunicada"),
            "verdict": change.finding.message, "reference": change.finding.reference, "in_time": change.finding.ok,
            "state": _change_state(change)}


def _change_state(change: changes.DataChange) -> str:
    if change.closed_on:
        return f"Encerrada em {day(change.closed_on)}: {change.closing_note}"
    return "Aguardando a conferência da secretaria" if change.pending else "Cadastro atualizado"


def _auto(item: dict) -> dict:
    term = item["term"]
    number, year = item["number"].split("/")
    return {**{k: item[k] for k in ("number", "infraction", "reference", "severity", "stage")},
            "committed_on": day(item["committed_on"]) if item["committed_on"] else "",
            "path": f"/autos/{year}/{int(number)}", "term": term,
            "deadline": day(term.deadline) if term.deadline else "",
            "closed": own_autos.closed_text(term) if term.kind and not term.open else ""}
