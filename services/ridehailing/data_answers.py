"""A platform answers a data request on the portal with a signed file (issue 36 item 4; CG Decreto 06/2026
art. 11 §2–3; MP Lei 1.552/2025 art. 4 §2–3).

The platform's authorized person, logged in on the portal, sees the requests of their platform and
answers one by sending the file: a PDF signed in PAdES, or a CSV/XLSX with its detached signature
(``.p7s``). ``services.shared.signatures`` verifies it — signed by a person the platform authorizes now
(``regulated_accounts.authorized_cpfs``), under the municipality's trust anchors —; then, in one unit of
work, the original bytes (and the ``.p7s``) are kept (``store.put_file``), the request records who signed,
when, with which certificate, the verification's result, and the answer's instant: the upload, on time or
late against the 24 hours (``rules.ridehailing.obligations.data_request_late``; late is recorded as late,
never refused). A refused file leaves nothing stored. Staff read the answer on the request
(``trip_data.data_requests``) and download the original (:func:`answer_file`).

The same channel takes the files the platforms owe without a request, signed the same way (a CSV/XLSX with
its ``.p7s``): the trip data (:func:`send_trip_file`, through ``trip_data``'s import) and the periodic list of
drivers and vehicles (:func:`send_driver_list`, through ``platform_lists``' reception and reconciliation).

The regulated side names a request by its public ``code``; another platform's code reads as a missing
one. A person no longer authorized by the platform is refused.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pymongo.database import Database

from rules.fmt import day, moment
from rules.ridehailing import obligations as rule
from services import store
from services.ridehailing import platform_files, platform_lists, trip_data
from services.ridehailing.trip_data import REQUESTS
from services.shared import audit, clock, privacy, regulated_accounts, signatures
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, PermissionDenied
from services.store import decode, encode, parse_date

NOT_FOUND = "Pedido não encontrado."
NOT_AGENT = "Só uma pessoa autorizada pela plataforma responde aos pedidos de dados."
MAX_NAME = 200


@dataclass(frozen=True)
class OwnRequest:
    """A data request as the platform's person sees it on the portal."""

    code: str
    justification: str
    period: str
    notified_at: datetime
    deadline: datetime
    answered_at: datetime | None
    late: bool
    answer: dict | None

    @property
    def situation(self) -> str:
        if self.answered_at is not None:
            return "Respondido com atraso" if self.late else "Respondido no prazo"
        return "Prazo vencido: responda o quanto antes" if self.late else "Aguardando resposta"


def period_text(period_from: object, period_to: object) -> str:
    start, end = parse_date(period_from), parse_date(period_to)
    if start and end:
        return f"{day(start)} a {day(end)}"
    if start or end:
        return f"a partir de {day(start)}" if start else f"até {day(end)}"
    return "—"


def _platform_of(db: Database, actor: Actor) -> tuple[str, str, dict]:
    """(municipality, CNPJ, platform record) of an authorized person logged in, or PermissionDenied."""
    whose = regulated_accounts.addressee(actor)
    if whose is None or whose[1] != regulated_accounts.PLATFORM:
        raise PermissionDenied(NOT_AGENT)
    municipality, _kind, cnpj = whose
    if regulated_accounts.agent_cpf(actor) not in regulated_accounts.authorized_cpfs(db, municipality, cnpj):
        raise PermissionDenied(NOT_AGENT)
    platform = db["platforms"].find_one({"municipality": municipality, "cnpj": cnpj, **regulated_accounts.NOT_REMOVED})
    if platform is None:
        raise PermissionDenied(NOT_AGENT)
    return municipality, cnpj, platform


def _own(doc: dict, now: datetime) -> OwnRequest:
    doc = decode(doc)
    return OwnRequest(doc["code"], doc["justification"], period_text(doc.get("period_from"), doc.get("period_to")),
                      doc["notified_at"], doc["deadline_at"], doc.get("answered_at"),
                      rule.data_request_late(doc["notified_at"], doc.get("answered_at"), now), doc.get("answer"))


def _query(municipality: str, platform: dict) -> dict:
    return {"municipality": municipality, "platform_id": str(platform["_id"]), "code": {"$exists": True}}


@checked
def own_requests(db: Database, actor: Actor) -> list[OwnRequest]:
    """The data requests of the person's platform, newest first (open and answered)."""
    municipality, _cnpj, platform = _platform_of(db, actor)
    now = clock.now_utc()
    rows = db[REQUESTS].find(_query(municipality, platform)).sort([("notified_at", -1), ("_id", -1)]).limit(200)
    return [_own(d, now) for d in rows]


def _own_doc(db: Database, actor: Actor, code: str) -> tuple[str, str, dict]:
    municipality, cnpj, platform = _platform_of(db, actor)
    doc = db[REQUESTS].find_one({**_query(municipality, platform), "code": str(code)})
    if doc is None:  # another platform's request and a missing one read alike
        raise NotFound(NOT_FOUND)
    return municipality, cnpj, doc


@checked
def own_request(db: Database, actor: Actor, code: str) -> OwnRequest:
    """One data request of the person's platform, by its public code."""
    return _own(_own_doc(db, actor, code)[2], clock.now_utc())


@checked
def answer_request(db: Database, actor: Actor, code: str, data: bytes, file_name: str,
                   signature: bytes | None = None, signature_name: str = "") -> OwnRequest:
    """Answer a request with a signed file (see the module): verified, kept with its signature data, the
    answer's instant is now — on time or late against the 24 hours. A refusal stores nothing."""
    municipality, cnpj, doc = _own_doc(db, actor, code)
    if doc.get("answered_at") is not None:
        raise Conflict(f"Este pedido já foi respondido em {moment(clock.to_local(decode(doc['answered_at'])))}.")
    verified = signatures.verify(db, municipality, data, file_name, signature or None,
                                 authorized=regulated_accounts.authorized_cpfs(db, municipality, cnpj))
    now = clock.now_utc()
    notified = decode(doc["notified_at"])
    answer = {"file_name": str(file_name)[:MAX_NAME], "signature_name": str(signature_name or "")[:MAX_NAME],
              "answered_by": regulated_accounts.agent_cpf(actor), "answered_by_name": actor.name,
              "late": rule.data_request_late(notified, now, now), **verified.as_record()}
    with store.transaction(db):
        answer["file_sha"] = store.put_file(db, bytes(data), answer["file_name"])
        answer["signature_sha"] = store.put_file(db, bytes(signature), answer["signature_name"]) if signature else ""
        done = db[REQUESTS].update_one({"_id": doc["_id"], "version": doc["version"], "answered_at": None},
                                       {"$set": encode({"answered_at": now, "answer": answer}), "$inc": {"version": 1}})
        if not done.modified_count:
            raise Conflict("Este pedido já foi respondido; recarregue a página.")
        audit.record(db, actor, municipality, "answer", REQUESTS, doc["_id"], {"answered_at": None},
                     {"answered_at": now, "answer": answer},
                     note=f"Resposta assinada enviada pelo portal{' com atraso' if answer['late'] else ' no prazo'}")
    return own_request(db, actor, code)


@checked
def send_trip_file(db: Database, actor: Actor, data: bytes, file_name: str, signature: bytes | None = None,
                   signature_name: str = "") -> platform_files.FileReport:
    """The platform's trip data file (CG art. 11 §1º; MP art. 4º §1º) sent on the portal, signed as an answer
    is (a CSV/XLSX with its ``.p7s``): verified, then imported by ``trip_data``'s own import — every bad row
    reported with its line and nothing kept, the same file twice refused —, the batch recording the
    signature and the person who sent it."""
    municipality, cnpj, platform = _platform_of(db, actor)
    verified = signatures.verify(db, municipality, data, file_name, signature or None,
                                 authorized=regulated_accounts.authorized_cpfs(db, municipality, cnpj))
    signed = {**verified.as_record(), "signature_name": str(signature_name or "")[:MAX_NAME],
              "sent_by": regulated_accounts.agent_cpf(actor), "sent_by_name": actor.name}
    args = (db, actor, municipality, str(platform["_id"]), platform["name"], bytes(data), str(file_name)[:MAX_NAME])
    checked_rows = trip_data.import_checked(*args, False)
    if not checked_rows.ok:  # the rows first: a refused file keeps nothing, its .p7s included
        return checked_rows
    if signature:
        signed["signature_sha"] = store.put_file(db, bytes(signature), signed["signature_name"])
    return trip_data.import_checked(*args, True, signed)


@checked
def send_driver_list(db: Database, actor: Actor, data: bytes, file_name: str, signature: bytes | None = None,
                     signature_name: str = "") -> platform_files.FileReport:
    """The platform's list of drivers and vehicles (CG art. 5º VIII; MP art. 5º IX) sent on the portal, signed as
    a trip file is (a CSV/XLSX with its ``.p7s``): verified, then received by ``platform_lists``' own reception
    on today's date — the same row checks (every bad row with its line, nothing kept), the same reconciliation
    and draft autos, the same audit —, the list recording the signature and the person who sent it."""
    municipality, cnpj, platform = _platform_of(db, actor)
    verified = signatures.verify(db, municipality, data, file_name, signature or None,
                                 authorized=regulated_accounts.authorized_cpfs(db, municipality, cnpj))
    signed = {**verified.as_record(), "signature_name": str(signature_name or "")[:MAX_NAME],
              "sent_by": regulated_accounts.agent_cpf(actor), "sent_by_name": actor.name}
    args = (db, actor, municipality, platform, clock.today(), bytes(data), str(file_name)[:MAX_NAME])
    checked_rows = platform_lists.receive_checked(*args, False)
    if not checked_rows.ok:  # the rows first: a refused file keeps nothing, its .p7s included
        return checked_rows
    if signature:
        signed["signature_sha"] = store.put_file(db, bytes(signature), signed["signature_name"])
    return platform_lists.receive_checked(*args, True, signed)


def list_channel(doc: dict) -> str:
    """How a received list came (pt-BR, for the staff's screen): typed in by a clerk, or sent on the portal
    signed by whom."""
    signed = doc.get("signature")
    if not signed:
        return "registrada pelo servidor"
    cpf = f" (CPF {privacy.mask_cpf(signed['signer_cpf'])})" if signed.get("signer_cpf") else ""
    return f"portal, assinada por {signed.get('signer_name', '')}{cpf}"


@checked
def answer_file(db: Database, actor: Actor, municipality: str, request_id: str,
                part: str = "file") -> tuple[bytes, str]:
    """The original bytes the platform sent (``part="file"``) or its ``.p7s`` (``"signature"``), and its name."""
    authorize(actor, "read", municipality)
    doc = db[REQUESTS].find_one({"_id": platform_files.object_id(request_id, NOT_FOUND), "municipality": municipality})
    answer = (doc or {}).get("answer") or {}
    sha = answer.get("file_sha" if part == "file" else "signature_sha")
    if not sha:
        raise NotFound("Este pedido não tem arquivo de resposta.")
    return store.get_file(db, sha), answer["file_name" if part == "file" else "signature_name"]


def shown_answer(answer: dict) -> dict[str, str]:
    """The answer's signature data as the screens show them (pt-BR)."""
    signed = answer.get("signed_at")
    return {"Arquivo": answer["file_name"], "Assinatura": answer["kind"],
            "Assinado por": f"{answer['signer_name']} (CPF {privacy.mask_cpf(answer['signer_cpf'])})"
            if answer.get("signer_cpf") else answer["signer_name"],
            "Assinado em": moment(clock.to_local(signed)) if signed else "não informado no arquivo",
            "Certificado": f"nº {answer['cert_serial']}, emitido por {answer['cert_issuer']}, válido de "
                           f"{day(clock.to_local(answer['cert_valid_from']))} a {day(clock.to_local(answer['cert_valid_to']))}",
            "Verificação": f"{answer['result']} (em {moment(clock.to_local(answer['verified_at']))})",
            "Enviado por": answer.get("answered_by_name", "")}

