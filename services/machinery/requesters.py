"""The requester of a service booking (Decreto 017/2026, Nova Lacerda, art. 2) as the portal reaches it:
the entry of the register of requesters (``machinery_requesters``, the clerk's register, through
``services.shared.entities``), a request named by its protocol number, and what blocks a new request.

A clerk calls these for anyone (permission "read"/"write"); a resident or entity logged in on the portal
(an account of kind ``requerente``) reaches only their own CPF/CNPJ (``booking_requests.module_service``'s
``reach``): another's protocol and an unknown one are the same NotFound. An entry made by the person has
the standing "a_verificar": art. 2 §1 leaves the check of the standing to the Secretaria, never to the
person; an entry the clerk made keeps the standing the clerk recorded (the person changes only how to
reach them and where).

What blocks a new request (:func:`blockers`): art. 8 §4 (an overdue DAM of an earlier booking), art. 2 §1
(an overdue DAM of any other charge of the municipality, or the debt the Secretaria recorded), each with
the DAMs whose payment unblocks it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from pymongo.database import Database

from rules.fmt import day as show_day
from rules.machinery.prices import DECREE
from services.dam import charges
from services.machinery.booking_requests import REQUESTERS, REQUESTS, module_service, requester_document
from services.shared import clock, entities, fields
from services.shared.auth import Actor
from services.shared.errors import NotFound, ValidationFailed
from services.store import decode

SPEC = "machinery_requesters"
TO_CHECK = "a_verificar"
OWN_FIELDS = ("name", "address", "zone", "locality", "phone", "constitution_proof")
PROTOCOL = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")


@dataclass(frozen=True)
class OwedDam:
    """A DAM whose payment lifts a block: its number, what it charges, the amount open, the due date."""

    number: str
    description: str
    amount: Decimal
    due: date


@dataclass(frozen=True)
class Block:
    """Why a new request is not admitted now, the provision, and the DAMs that unblock it."""

    reason: str
    reference: str
    dams: tuple[OwedDam, ...] = ()


def _entry(db: Database, municipality: str, document: str) -> dict | None:
    raw = db[REQUESTERS].find_one({"municipality": municipality, "document": document,
                                   "removed": {"$exists": False}})
    if raw is None:
        return None
    doc = decode(raw)
    doc["id"] = str(doc.pop("_id"))
    return doc


@module_service("read", reach="document")
def requester_of(db: Database, actor: Actor, municipality: str, document: str) -> dict | None:
    """The register entry of a CPF/CNPJ (None when it has none yet)."""
    return _entry(db, municipality, fields.digits(document))


@module_service("write", reach="document")
def save_requester(db: Database, actor: Actor, municipality: str, document: str, values: dict[str, Any]) -> str:
    """Create or update the register entry of ``document`` with the person's own fields (name, address,
    zone and locality, phone, an entity's proof of constitution) and return its id. A new entry is a
    person (CPF) or an entity (CNPJ) with the standing "a verificar" (art. 2 §1: the Secretaria checks)."""
    document = fields.digits(document)
    own = {k: values[k] for k in OWN_FIELDS if k in values}
    found = _entry(db, municipality, document)
    if found is None:
        if len(document) not in (11, 14):
            raise ValidationFailed({"document": "Informe um CPF ou um CNPJ."})
        return entities.create_checked(db, actor, SPEC, municipality, {
            **own, "document": document, "kind": "pf" if len(document) == 11 else "entidade",
            "standing": TO_CHECK, "standing_checked_on": clock.today()})
    entities.update_checked(db, actor, SPEC, municipality, found["id"], own, expected_version=found.get("version", 0))
    return found["id"]


@module_service("read", reach="own")
def request_id_of(db: Database, actor: Actor, municipality: str, protocol: str) -> str:
    """The request of a protocol number ("0001/2026"); a resident reaches only their own."""
    match = PROTOCOL.fullmatch(str(protocol or ""))
    raw = db[REQUESTS].find_one({"municipality": municipality, "year": int(match[2]), "sequence": int(match[1])},
                                {"requester.document": 1}) if match else None
    own = requester_document(actor)
    if raw is None or (own is not None and fields.digits(raw["requester"].get("document", "")) != own):
        raise NotFound("Pedido não encontrado.")
    return str(raw["_id"])


def _owed(charge: dict) -> OwedDam:
    dam = charge.get("live_dam") or (charge["dams"][-1] if charge.get("dams") else {})
    return OwedDam(dam.get("number", ""), str(charge.get("description", "")).split(":")[0][:80], charge["open"],
                   charge["due_on"])


def blockers(db: Database, municipality: str, document: str, standing: str | None, on: date) -> list[Block]:
    """What keeps ``document`` from a new request on ``on`` (empty when nothing does), for a service that
    already authorized its caller: art. 8 §4, then art. 2 §1."""
    overdue = sorted(charges.overdue_of(db, municipality, fields.digits(document), on),
                     key=lambda c: (c["due_on"], c["id"]))
    mine = [c for c in overdue if (c.get("owner") or {}).get("collection") == REQUESTS]
    others = [c for c in overdue if c not in mine]
    found = []
    if mine:
        # Art. 8, §4: "o inadimplemento de qualquer parcela suspenderá novas solicitações até a regularização"
        found.append(Block("Há DAM vencido e não pago de um serviço anterior: novas solicitações ficam suspensas "
                           "até o pagamento.", f"{DECREE}, art. 8, §4", tuple(_owed(c) for c in mine)))
    if others:
        # Art. 2, §1: "desde que o interessado esteja adimplente com o Município"
        found.append(Block("Há débito vencido com o Município: a solicitação é admitida quando o interessado "
                           "está adimplente.", f"{DECREE}, art. 2, §1", tuple(_owed(c) for c in others)))
    if standing == "em_debito" and not others:
        found.append(Block("A Secretaria registrou débito com o Município em seu nome. Procure a Secretaria para "
                           "regularizar ou para um parcelamento (com as parcelas em dia a solicitação é admitida).",
                           f"{DECREE}, art. 2, §1"))
    return found


@module_service("read", reach="document")
def requester_blocks(db: Database, actor: Actor, municipality: str, document: str, on: date) -> list[Block]:
    """:func:`blockers` of a CPF/CNPJ, with the standing of its register entry."""
    entry = _entry(db, municipality, fields.digits(document)) or {}
    return blockers(db, municipality, document, entry.get("standing"), on)


def describe(blocks: list[Block]) -> str:
    """The blocks in one pt-BR sentence, for a refusal."""
    return " ".join(f"{b.reason} ({b.reference})" + (" DAMs: " + "; ".join(
        f"{d.number} ({d.description}), vencido em {show_day(d.due)}" for d in b.dams) + "." if b.dams else "")
        for b in blocks)

