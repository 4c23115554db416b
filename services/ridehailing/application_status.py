"""The driver's own requests on the portal ("Credenciamento"): every step the clerk moves them through, read
from the same authorization record and fold the clerk's screen shows (``authorization_records.state_of``).

Protocol received, under analysis, approved (the vehicle to be shown for the vistoria within the act's days, at
the Secretaria) or refused (with the reasons recorded), the vistoria and a convocation (its deadline), the fee
DAM (its public number, for "Meus DAMs"), and the authorization issued (the sticker and the certificate: the
same documents the clerk prints, ``documents.issued_pdf_checked``). A request is named by its protocol
("0001/2026"), never by its id; another's protocol and an unknown one are the same NotFound. Only the driver of
the request reaches it (``applications.applicant``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from pymongo.database import Database

from rules import fmt
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from services.ridehailing import documents, fees, registry
from services.ridehailing.applications import applicant
from services.shared import clock, fields, municipalities
from services.shared.auth import Actor
from services.shared.boundary import checked
from services.shared.errors import NotFound
from services.store import decode, parse_date

NOT_FOUND = "Pedido não encontrado."
PROTOCOL = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")
PRINTS = {"selo": "selo", "certificado": "certificado"}


@dataclass(frozen=True)
class Step:
    """One step of the request as the person reads it: done, the current one, or still ahead."""

    title: str
    text: str
    state: str  # "feito", "atual", "depois" or "recusado"
    link: str = ""
    link_text: str = ""


@dataclass(frozen=True)
class OwnRequest:
    protocol: str
    protocol_date: str
    plate: str
    status: str
    number: str
    steps: tuple[Step, ...]
    printable: bool  # the sticker and the certificate can be printed


def _path(protocol: str) -> str:
    sequence, year = protocol.split("/")
    return f"{year}/{int(sequence)}"


def _own(db: Database, actor: Actor, protocol: str) -> tuple[str, dict]:
    municipality, cpf = applicant(actor)
    match = PROTOCOL.fullmatch(protocol or "")
    if not match:
        raise NotFound(NOT_FOUND)
    raw = db["authorizations"].find_one({"municipality": municipality, "driver_cpf": cpf,
                                         "protocol": f"{int(match[1]):04d}/{match[2]}"})
    if raw is None:  # another's protocol and an unknown one read alike
        raise NotFound(NOT_FOUND)
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    return municipality, doc


def _events(doc: dict, kind: EventKind) -> list[dict]:
    return [e for e in doc.get("events", []) if e["kind"] == kind.value]


def _steps(db: Database, municipality: str, doc: dict, on: date) -> tuple[tuple[Step, ...], str, bool]:
    scope = registry.Scope(db, municipality)
    state = scope.state(doc, on)
    rules, status = scope.rules, state.status
    town = municipalities.get(db, municipality)
    place = ", ".join(p for p in (town.secretariat, town.address) if p)
    steps = [Step("Protocolo recebido", f"Pedido protocolado em {fmt.day(parse_date(doc['protocol_date']))} com o "
                                        f"número {doc['protocol']}.", "feito")]
    decided = _events(doc, EventKind.APPROVED) or _events(doc, EventKind.REFUSED) or _events(doc, EventKind.CANCELLED)
    if status is Status.REQUESTED:
        steps.append(Step("Análise", "Em análise pela Secretaria: os seus dados, o veículo e os documentos são "
                                     "conferidos com a lei.", "atual"))
        return tuple(steps), state.label, False
    if status is Status.REFUSED:
        reasons = doc.get("refusal_reasons") or [decided[-1].get("note", "")] if decided else []
        steps.append(Step("Análise", f"Pedido indeferido em {fmt.day(parse_date(decided[-1]['on']))}. Motivos: "
                                     + "; ".join(r for r in reasons if r) + ".", "recusado"))
        return tuple(steps), state.label, False
    if status is Status.CANCELLED:
        steps.append(Step("Análise", "Protocolo cancelado pela Secretaria: " + (decided[-1].get("note") or ""),
                          "recusado"))
        return tuple(steps), state.label, False
    approved = _events(doc, EventKind.APPROVED)
    steps.append(Step("Análise", f"Pedido aprovado em {fmt.day(parse_date(approved[0]['on']))}.", "feito"))
    steps.append(_inspection(doc, state, status, place, rules.ref("presentation")))
    steps.append(_fee(db, doc, status))
    issued = bool(doc.get("number"))
    if issued:
        until = f", válida até {fmt.day(state.valid_until)}" if state.valid_until else ""
        steps.append(Step("Autorização expedida", f"Autorização nº {doc['number']}{until}. Situação: {state.label}. "
                                                  "Imprima o selo e o certificado abaixo.", "feito"))
    else:
        steps.append(Step("Autorização expedida", "O selo e o certificado saem após o pagamento da taxa.", "depois"))
    return tuple(steps), state.label, issued


def _inspection(doc: dict, state, status: Status, place: str, reference: str) -> Step:
    called = _events(doc, EventKind.INSPECTION_CALLED)
    passed, failed = _events(doc, EventKind.INSPECTION_PASSED), _events(doc, EventKind.INSPECTION_FAILED)
    if status is Status.AWAITING_INSPECTION:
        return Step("Vistoria do veículo", f"Apresente o veículo para a vistoria em {place} até "
                                           f"{fmt.day(state.deadline)} ({reference}).", "atual")
    if status is Status.BLOCKED:
        pendings = failed[-1].get("note") if failed else ""
        return Step("Vistoria do veículo", f"Vistoria com pendências ({pendings}): sane-as e apresente o veículo "
                                           f"em {place} até {fmt.day(state.deadline)}.", "atual")
    if called and (not passed or parse_date(called[-1]["on"]) > parse_date(passed[-1]["on"])):
        convocation = called[-1].get("convocation") or {}
        deadline = parse_date(convocation.get("deadline"))
        return Step("Vistoria do veículo", f"Convocação para vistoria nº {convocation.get('number', '')}: apresente "
                                           f"o veículo em {place} até {fmt.day(deadline) if deadline else '—'}.",
                    "atual")
    if passed:
        return Step("Vistoria do veículo", f"Vistoria aprovada em {fmt.day(parse_date(passed[-1]['on']))}.", "feito")
    return Step("Vistoria do veículo", f"Apresente o veículo para a vistoria em {place}.", "depois")


def _fee(db: Database, doc: dict, status: Status) -> Step:
    bill = fees.bill_of(db, doc)
    if doc.get("number") or (bill and bill.paid):
        return Step("Taxa", "Taxa paga.", "feito")
    if bill and bill.live:
        number = str(bill.live["number"])
        return Step("Taxa", f"DAM {number} de {fmt.brl(bill.live['amount'])}, com vencimento em "
                            f"{fmt.day(parse_date(bill.live['due_on']))}.", "atual",
                    f"/dams/{_path(number)}", f"Ver e pagar o DAM {number}")
    if status is Status.AWAITING_FEE:
        return Step("Taxa", "Vistoria aprovada: a Secretaria emite o DAM da taxa, que aparecerá aqui e em "
                            "Meus DAMs.", "atual")
    return Step("Taxa", "Após a vistoria aprovada, a Secretaria emite o DAM da taxa.", "depois")


def _shown(db: Database, municipality: str, doc: dict) -> OwnRequest:
    steps, label, issued = _steps(db, municipality, doc, clock.today())
    return OwnRequest(doc["protocol"], fmt.day(parse_date(doc["protocol_date"])), fields.show("plate", doc["plate"]),
                      label, doc.get("number") or "", steps, issued)


@checked
def own_requests(db: Database, actor: Actor) -> list[OwnRequest]:
    """The person's authorization requests, newest first."""
    municipality, cpf = applicant(actor)
    rows = db["authorizations"].find({"municipality": municipality, "driver_cpf": cpf}).sort("protocol_date", -1)
    found = []
    for raw in rows.limit(50):
        doc = decode(raw)
        doc["id"] = str(doc.pop("_id"))
        found.append(_shown(db, municipality, doc))
    return found


@checked
def own_request(db: Database, actor: Actor, protocol: str) -> OwnRequest:
    """One of the person's requests by its protocol ("0001/2026"), with every step."""
    municipality, doc = _own(db, actor, protocol)
    return _shown(db, municipality, doc)


@checked
def own_pdf(db: Database, actor: Actor, protocol: str, kind: str) -> bytes:
    """The sticker (``kind`` "selo") or the certificate ("certificado") of the person's issued authorization:
    the same document the clerk prints (issued once, with its verification code)."""
    municipality, doc = _own(db, actor, protocol)
    if kind not in PRINTS:
        raise NotFound(NOT_FOUND)
    return documents.issued_pdf_checked(db, actor, municipality, doc["id"], PRINTS[kind])


def path_of(protocol: str) -> str:
    """The portal's address of a request ("0001/2026" → "2026/1")."""
    return _path(protocol)
