"""Public forms of the registers TI defines without code (issue 38 item 4): what a person on the portal asks.

A defined register TI opened to the public (``services.shared.public_spec``: the key ``public`` of its
definition) is a form on the portal of each municipality that has it, while the register is active. A
person logged in there (any kind of regulated account) fills the fields TI chose; the request is a
record of the register made by the clerk's own service (``entities.create_checked``: the same
validation, the same upload guard for a file, the same audit, the person as actor) in the first state
of the register's flow, stamped with who asked (``requester``: kind, document, username, name,
channel) and a protocol number minted per municipality and year ("0007/2026"), never its id.

Whose requests these are is said in ONE place, :func:`_owner` (``regulated_accounts.addressee``: the
municipality, kind and CPF/CNPJ of the account). "Meus pedidos" lists them with the state of the flow
and the day of each move; another's protocol and a missing one read alike ("Pedido não encontrado.").
Staff roles are refused: they work on the register's own screen, which shows who asked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pymongo.database import Database

from services.shared import clock, definition_spec, entities, fields, numbers
from services.shared.auth import ALL_MUNICIPALITIES, Actor
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied, ValidationFailed
from services.shared.flow_spec import HISTORY, SINCE, STATE
from services.shared.public_spec import CHANNEL, PROTOCOL, PUBLIC, REQUESTER, public_fields
from services.shared.regulated_accounts import addressee
from services.shared.schema import EntitySpec, Field
from services.store import decode, transaction

NOT_FOUND = "Pedido não encontrado."
NO_FORM = "Formulário não encontrado ou não recebe mais pedidos."
REFUSED = "Só quem entrou no portal faz e acompanha os seus pedidos."
NOT_PUBLIC = "Este campo não é preenchido no portal."
REMOVED = "Retirado pela prefeitura"
COUNTER = "pedido_publico"  # numbers.next_number's kind: one sequence per municipality and year
NUMBER = re.compile(r"\s*(\d{1,6})\s*/\s*(\d{4})\s*")
OPEN = {"active": True, f"{PUBLIC}.open": True}


@dataclass(frozen=True)
class PublicForm:
    name: str  # the register's identifier (the form's address; never a record's id)
    label: str
    label_plural: str
    fields: tuple[Field, ...]  # the fields the public fills, in the register's order

    @property
    def has_files(self) -> bool:
        return any(f.kind == "file" for f in self.fields)


@dataclass(frozen=True)
class Step:
    day: date  # Cuiabá
    what: str  # "Pedido recebido" or the action's label
    state: str  # the state's label reached


@dataclass(frozen=True)
class OwnRequest:
    protocol: str
    register: str  # the register's singular label
    requested_on: date  # Cuiabá
    state: str  # the state's label now
    since: date | None
    steps: tuple[Step, ...]  # oldest first
    values: tuple[tuple[str, str], ...]  # (label, value as shown) of what the person filled


def _owner(actor: Actor) -> tuple[str, str, str]:
    """(municipality, kind, CPF/CNPJ) whose requests the actor makes and reads — the ONE ownership check of
    the public forms. A staff actor (no addressee) is refused."""
    whose = addressee(actor)
    if whose is None or whose[0] == ALL_MUNICIPALITIES or not whose[2]:
        raise PermissionDenied(REFUSED)
    return whose


def _form_of(db: Database, municipality: str, doc: dict) -> PublicForm:
    spec = entities.spec_for(db, doc["name"], municipality)
    by_name = {f.name: f for f in spec.fields}
    chosen = set(public_fields(doc))
    return PublicForm(doc["name"], doc["label"], doc["label_plural"],
                      tuple(f for f in spec.fields if f.name in chosen and f.name in by_name))


def _open_doc(db: Database, municipality: str, name: str) -> dict:
    doc = db[definition_spec.COLLECTION].find_one({"name": str(name), "municipalities": municipality, **OPEN})
    if doc is None:  # inactive, closed to the public, another municipality's or unknown: alike
        raise NotFound(NO_FORM)
    return decode(doc)


@checked
def open_forms(db: Database, actor: Actor) -> list[PublicForm]:
    """The forms open to the public in the person's municipality (active registers only), by name."""
    municipality, _kind, _document = _owner(actor)
    rows = db[definition_spec.COLLECTION].find({"municipalities": municipality, **OPEN}).sort("label_plural", 1)
    return [_form_of(db, municipality, decode(r)) for r in rows]


@checked
def public_form(db: Database, actor: Actor, name: str) -> PublicForm:
    """One open form of the person's municipality (NotFound otherwise)."""
    municipality, _kind, _document = _owner(actor)
    return _form_of(db, municipality, _open_doc(db, municipality, name))


@checked
def submit(db: Database, actor: Actor, name: str, values: dict[str, Any]) -> str:
    """Make the person's request: a record of the register through the clerk's own service, in the first
    state of its flow, with the person as requester. Returns its protocol number ("0007/2026").

    Refused with the messages under each field (``ValidationFailed``): a field the public does not fill
    (sent anyway), and whatever the clerk's validation refuses; nothing is kept and no number is spent."""
    municipality, kind, document = _owner(actor)
    form = _form_of(db, municipality, _open_doc(db, municipality, name))
    allowed = {f.name for f in form.fields}
    outside = {key: NOT_PUBLIC for key in values if key not in allowed}
    if outside:
        raise ValidationFailed(outside)
    requester = {"kind": kind, "document": document, "username": actor.username, "name": actor.name,
                 "channel": CHANNEL}
    with transaction(db):  # the number and the record commit together: a refusal gives the number back
        number = numbers.next_number(db, municipality, COUNTER, clock.today().year)
        entities.create_checked(db, actor, form.name, municipality, dict(values),
                                {REQUESTER: requester, PROTOCOL: number.text})
    return number.text


def _registers(db: Database, municipality: str) -> list[dict]:
    """The active registers of the municipality ever opened to the public (closed ones keep their requests)."""
    rows = db[definition_spec.COLLECTION].find({"municipalities": municipality, "active": True,
                                                 PUBLIC: {"$ne": None}})
    return [decode(r) for r in rows]


def _mine(municipality: str, kind: str, document: str) -> dict:
    return {"municipality": municipality, f"{REQUESTER}.kind": kind, f"{REQUESTER}.document": document}


@checked
def my_requests(db: Database, actor: Actor) -> list[OwnRequest]:
    """The person's requests in their municipality ("Meus pedidos"), newest first."""
    municipality, kind, document = _owner(actor)
    found = []
    for doc in _registers(db, municipality):
        spec = definition_spec.to_spec(doc)
        for record in db[doc["name"]].find(_mine(municipality, kind, document)).limit(500):
            found.append((record["created_at"], _own(spec, doc, decode(record))))
    return [item for _at, item in sorted(found, key=lambda pair: pair[0], reverse=True)]


@checked
def my_request(db: Database, actor: Actor, protocol: str) -> OwnRequest:
    """One of the person's requests by its protocol number; another's and a missing one read alike."""
    municipality, kind, document = _owner(actor)
    match = NUMBER.fullmatch(protocol or "")
    if not match:
        raise NotFound(NOT_FOUND)
    text = f"{int(match[1]):04d}/{match[2]}"
    for doc in _registers(db, municipality):
        record = db[doc["name"]].find_one({**_mine(municipality, kind, document), PROTOCOL: text})
        if record is not None:
            return _own(definition_spec.to_spec(doc), doc, decode(record))
    raise NotFound(NOT_FOUND)


def _local_day(moment: datetime | None) -> date | None:
    return clock.to_local(moment).date() if moment else None


def _own(spec: EntitySpec, doc: dict, record: dict) -> OwnRequest:
    """What the person reads of their request: no clerk's name, no clerk's note, no field they did not fill."""
    flow = spec.flow
    label = flow.label if flow else (lambda value: str(value or ""))
    initial = record.get(HISTORY, [{}])[0].get("from") if record.get(HISTORY) else record.get(STATE)
    steps = [Step(_local_day(record["created_at"]), "Pedido recebido", label(initial))]
    steps += [Step(_local_day(h.get("at")), str(h.get("action") or ""), label(h.get("to")))
              for h in record.get(HISTORY) or ()]
    shown = tuple((f.label, f.show(record.get(f.name)) or "—") for f in spec.fields
                  if f.name in set(public_fields(doc)))
    removed = bool(record.get("removed"))
    return OwnRequest(protocol=record[PROTOCOL], register=spec.label, requested_on=_local_day(record["created_at"]),
                      state=REMOVED if removed else label(record.get(STATE)), since=_local_day(record.get(SINCE)),
                      steps=tuple(steps), values=shown)


def requested_by(record: dict) -> str | None:
    """What the clerk's screen says of a record that came from the portal (None: typed by the clerk)."""
    who = record.get(REQUESTER)
    if not isinstance(who, dict):
        return None
    document = str(who.get("document") or "")
    shown = fields.show("cpf_cnpj", document) if len(document) in (11, 14) else document
    kind = "CNPJ" if len(document) == 14 else "CPF"
    return (f"Pedido feito pelo portal · protocolo {record.get(PROTOCOL, '—')} · requerente "
            f"{who.get('name') or '—'} ({kind} {shown})")
