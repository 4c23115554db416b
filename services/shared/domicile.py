"""The electronic domicile (domicílio eletrônico) of those the acts regulate: the inbox of a driver (CPF)
or a platform (CNPJ) in a municipality, where the panel delivers its notices, each with its PDF.

CG Decreto 06/2026 art. 25 §1 IV ("por meio eletrônico, com prova de recebimento, mediante envio ao
domicílio tributário do sujeito passivo") and MP Lei 1.552/2025 art. 21 §1 ("por via eletrônica"); when
a delivered notice counts as received is ``rules/notice.py`` (Decreto 70.235/1972 art. 23 III, §2 III:
the first opening, or the tacit receipt N days after delivery).

The addressee is ``(municipality, kind, document)`` — kind ``condutor`` (CPF) or ``plataforma`` (CNPJ) —,
never an account id: accounts (the portal) link to a domicile by the document. A domicile exists once the
person activated an account (:func:`open_domicile`, called by the portal's activation). Staff deliver
and read the receipts (``write``/``read``); a regulated actor reads only their own inbox, and the one
place that says who that is, is :func:`addressee_of`.

Collections ``domiciles`` and ``domicile_messages``; every write is audited, in the caller's unit of
work; the inbox is read a page at a time by an index that starts with the addressee.
"""
from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.database import Database

from rules import notice
from services import store
from services.shared import audit, clock, domicile_alerts, events, parameters, regulated_accounts
from services.shared.audit_words import name_codes
from services.shared.auth import ALL_MUNICIPALITIES, REGULATED_ROLE, Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied, ValidationFailed
from services.store import decode, encode, ensure_indexes, insert_one

DOMICILES = "domiciles"
MESSAGES = "domicile_messages"
KINDS = {"condutor": ("CPF", 11), "plataforma": ("CNPJ", 14)}
PAGE = 20
INDEXES = {
    DOMICILES: [([("municipality", 1), ("kind", 1), ("document", 1)], {"unique": True, "name": "u_domicile"})],
    MESSAGES: [([("municipality", 1), ("kind", 1), ("document", 1), ("key", -1)], {"name": "i_domicile_inbox"}),
               ([("municipality", 1), ("ref.collection", 1), ("ref.id", 1)], {"name": "i_domicile_ref"}),
               ([("code", 1)], {"name": "i_domicile_code"}),
               ([("municipality", 1), ("tacit_on", 1)], {"name": "i_domicile_tacit"})],
}
NOT_FOUND = "Mensagem não encontrada."
name_codes("kind", {"condutor": "Condutor", "plataforma": "Plataforma"})  # the Auditoria names the codes
name_codes("receipt", notice.STATES)


def prepare(db: Database) -> None:
    """Indexes of the domicile and of its alerts in the outbox (idempotent; called at start by
    ``services.setup.bootstrap``)."""
    ensure_indexes(db, INDEXES)
    ensure_indexes(db, domicile_alerts.INDEXES)


def _document(kind: str, document: str) -> str:
    """The CPF or CNPJ as digits, refused in pt-BR when it is not one."""
    if kind not in KINDS:
        raise ValidationFailed({"kind": "Destinatário: condutor ou plataforma."})
    name, size = KINDS[kind]
    digits = "".join(c for c in document if c.isdigit())
    if len(digits) != size:
        raise ValidationFailed({"document": f"{name}: informe os {size} dígitos."})
    return digits


@checked
def addressee_of(actor: Actor) -> tuple[str, str, str]:
    """(municipality, kind, document) of a regulated actor — the ONE ownership check of the domicile: the
    person logged in on the portal (``regulated_accounts.addressee``: the driver, or the platform its
    authorized agent speaks for), in their one municipality. Staff roles are refused here: a staff
    person never reads an inbox as its owner."""
    whose = regulated_accounts.addressee(actor)
    if whose is None or whose[0] == ALL_MUNICIPALITIES:
        raise PermissionDenied("Só o próprio condutor ou plataforma acessa o seu domicílio eletrônico.")
    municipality, kind, document = whose
    try:
        return municipality, kind, _document(kind, document)
    except ValidationFailed:
        raise PermissionDenied("Só o próprio condutor ou plataforma acessa o seu domicílio eletrônico.") from None


def _owner_query(actor: Actor) -> dict:
    municipality, kind, document = addressee_of(actor)
    return {"municipality": municipality, "kind": kind, "document": document}


# ---- the domicile ----

@checked
def open_domicile(db: Database, actor: Actor, municipality: str, kind: str, document: str, email: str) -> dict:
    """Open (or reactivate) the domicile of ``(municipality, kind, document)``: by the person activating
    their account (the actor is that person) or by the secretariat (credenciamento de ofício, ``write``)."""
    if actor.role == REGULATED_ROLE:
        if addressee_of(actor) != (municipality, kind, _document(kind, document)):
            raise PermissionDenied("Só o próprio condutor ou plataforma acessa o seu domicílio eletrônico.")
    else:
        authorize(actor, "write", municipality)
    document = _document(kind, document)
    key = {"municipality": municipality, "kind": kind, "document": document}
    before = db[DOMICILES].find_one(key)
    now = clock.now_utc()
    with store.transaction(db):
        if before is None:
            doc = {**key, "email": email.strip(), "active": True, "opened_at": now, "opened_by": actor.username}
            doc_id = insert_one(db[DOMICILES], encode(doc))
            audit.record(db, actor, municipality, "open_domicile", DOMICILES, doc_id, {}, doc,
                         "Domicílio eletrônico aberto")
        else:
            doc = {**decode(before), "email": email.strip(), "active": True}
            doc_id = before["_id"]
            db[DOMICILES].update_one({"_id": doc_id}, {"$set": encode({"email": doc["email"], "active": True})})
            audit.record(db, actor, municipality, "open_domicile", DOMICILES, doc_id,
                         {"email": before.get("email"), "active": before.get("active")},
                         {"email": doc["email"], "active": True}, "Domicílio eletrônico reativado")
    return {k: v for k, v in doc.items() if k != "_id"}


@checked
def has_domicile(db: Database, actor: Actor, municipality: str, kind: str, document: str) -> bool:
    """Whether the addressee has an active domicile (the electronic channel is offered only then)."""
    authorize(actor, "read", municipality)
    return active(db, municipality, kind, document)


def active(db: Database, municipality: str, kind: str, document: str) -> bool:
    """:func:`has_domicile` for a service that has already authorized its actor."""
    try:
        document = _document(kind, document)
    except ValidationFailed:
        return False
    return store.exists(db[DOMICILES], {"municipality": municipality, "kind": kind, "document": document,
                                        "active": True})


# ---- delivering ----

@checked
def deliver(db: Database, actor: Actor, municipality: str, kind: str, document: str, *, title: str,
            category: str, pdf: bytes, ref: dict[str, str]) -> dict:
    """Deliver a notice with its PDF to the addressee's active domicile, now (UTC), in the caller's unit
    of work, audited; the message keeps the tacit days in force on the delivery day (a later version of
    the parameter applies to later deliveries). The e-mail alert (title and the portal's address only) is
    queued to the addresses on file in the same unit of work (``domicile_alerts``): its sending, or its
    failure, never touches the message. Returns the message with its receipt state."""
    authorize(actor, "write", municipality)
    document = _document(kind, document)
    home = db[DOMICILES].find_one({"municipality": municipality, "kind": kind, "document": document,
                                   "active": True}, {"email": 1})
    if home is None:
        raise ValidationFailed({"method": "O destinatário não tem domicílio eletrônico ativo."})
    if not title.strip() or not pdf:
        raise ValidationFailed({"title": "A mensagem precisa de título e do PDF."})
    now = clock.now_utc()
    delivered_on = clock.local_date(now)
    days = int(parameters.value(db, municipality, notice.TACIT_DAYS, delivered_on))
    oid = ObjectId()
    doc = {"_id": oid, "municipality": municipality, "kind": kind, "document": document, "title": title.strip(),
           "category": category, "ref": dict(ref), "delivered_at": now, "delivered_on": delivered_on,
           "tacit_days": days, "tacit_on": notice.tacit_on(delivered_on, days), "delivered_by": actor.username,
           "key": f"{now.isoformat()}|{oid}", "code": secrets.token_urlsafe(9)}
    with store.transaction(db):
        doc["pdf_sha256"] = store.put_file(db, bytes(pdf), f"{category}.pdf")
        to = domicile_alerts.recipients(db, municipality, kind, document, home.get("email") or "")
        doc["alert_ids"] = domicile_alerts.queue(db, municipality, oid, doc["title"], to)
        insert_one(db[MESSAGES], encode(doc))
        audit.record(db, actor, municipality, "deliver", MESSAGES, oid, {},
                     {k: v for k, v in doc.items() if k not in ("_id", "key", "code", "alert_ids")},
                     f"Entregue no domicílio eletrônico: {doc['title']}")
    return _plain(doc, delivered_on)


def _plain(doc: dict, on: date) -> dict:
    """A message as the screens read it, with its receipt as of ``on``."""
    doc = dict(doc)
    doc["id"] = str(doc.pop("_id"))
    doc.pop("key", None)
    doc.pop("alert_ids", None)  # the outbox's ids: staff read the alert by ``alert_line``
    for name in ("delivered_on", "tacit_on", "opened_on"):
        doc[name] = store.parse_date(doc.get(name))
    doc["receipt"] = receipt(doc, on)
    return doc


def receipt(message: dict, on: date) -> notice.Receipt:
    """Opened on, tacitly received on, or waiting, as of ``on`` (``rules/notice.py``)."""
    return notice.electronic_receipt(store.parse_date(message["delivered_on"]),
                                     store.parse_date(message.get("opened_on")), int(message["tacit_days"]), on)


def _oid(message_id: str) -> ObjectId:
    try:
        return ObjectId(message_id)
    except (InvalidId, TypeError):
        raise NotFound(NOT_FOUND) from None


@checked
def message(db: Database, actor: Actor, municipality: str, message_id: str) -> dict:
    """A delivered message as the staff see it on the case (delivery, opening, tacit receipt)."""
    authorize(actor, "read", municipality)
    raw = db[MESSAGES].find_one({"_id": _oid(message_id), "municipality": municipality})
    if raw is None:
        raise NotFound(NOT_FOUND)
    return _plain(decode(raw), clock.today())


@checked
def alert_line(db: Database, actor: Actor, municipality: str, message_id: str) -> str:
    """Where the message's e-mail alert stands, as the case shows it ("alerta por e-mail: enviado em …",
    "falhou (2 tentativas), nova tentativa em …")."""
    authorize(actor, "read", municipality)
    raw = db[MESSAGES].find_one({"_id": _oid(message_id), "municipality": municipality}, {"alert_ids": 1})
    if raw is None:
        raise NotFound(NOT_FOUND)
    return domicile_alerts.line(db, raw)


# ---- the addressee's side ----

@checked
def inbox(db: Database, actor: Actor, before: str = "", limit: int = PAGE) -> dict:
    """The regulated actor's own messages, newest first, one page (``limit`` up to 100) after the
    cursor ``before`` (the ``next`` of the previous page): an index range, whatever the inbox's size."""
    query = _owner_query(actor)
    limit = max(1, min(int(limit), 100))
    if before:
        query["key"] = {"$lt": before}
    fields = {"pdf_sha256": 0}
    rows = [decode(r) for r in db[MESSAGES].find(query, fields).sort([("key", -1)]).limit(limit + 1)]
    today = clock.today()
    items = [_plain(r, today) for r in rows[:limit]]
    return {"items": items, "next": rows[limit - 1]["key"] if len(rows) > limit else ""}


def _own_message(db: Database, actor: Actor, message_id: str) -> dict:
    raw = db[MESSAGES].find_one({"_id": _oid(message_id), **_owner_query(actor)})
    if raw is None:  # another's message and a missing one read alike: nothing leaks
        raise NotFound(NOT_FOUND)
    return decode(raw)


@checked
def open_message(db: Database, actor: Actor, message_id: str) -> dict:
    """The addressee opens their message: the FIRST opening is recorded (atomically: only where none
    is), audited with the person as actor, and the record it notifies is told in the same unit of work
    (``events.on_message_opened``); a later opening changes nothing."""
    doc = _own_message(db, actor, message_id)
    if doc.get("opened_at") is None:
        now = clock.now_utc()
        opened = {"opened_at": now, "opened_on": clock.local_date(now)}
        with store.transaction(db):
            result = db[MESSAGES].update_one({"_id": doc["_id"], "opened_at": {"$exists": False}},
                                             {"$set": encode(opened)})
            if result.modified_count == 1:
                doc.update(opened)
                audit.record(db, actor, doc["municipality"], "open_message", MESSAGES, doc["_id"],
                             {"opened_at": None}, opened, f"Mensagem aberta pelo destinatário: {doc['title']}")
                for handler in events.opened_handlers(doc["category"]):
                    handler(db, actor, _plain(doc, opened["opened_on"]))
            else:
                doc = _own_message(db, actor, message_id)
    return _plain(doc, clock.today())


@checked
def own_message(db: Database, actor: Actor, message_id: str) -> dict:
    """The addressee's own message as the inbox shows it, without opening it (:func:`open_message`)."""
    return _plain(_own_message(db, actor, message_id), clock.today())


@checked
def message_id_of(db: Database, actor: Actor, code: str) -> str:
    """The id of the addressee's own message whose public ``code`` (random, kept with it at delivery) a
    page shows in its place: the portal names no internal id. Another's code reads as a missing one."""
    raw = db[MESSAGES].find_one({"code": str(code), **_owner_query(actor)}, {"_id": 1})
    if raw is None:
        raise NotFound(NOT_FOUND)
    return str(raw["_id"])


@checked
def message_pdf(db: Database, actor: Actor, message_id: str) -> bytes:
    """The PDF of the addressee's own message (reading it is not the opening: :func:`open_message`)."""
    return store.get_file(db, _own_message(db, actor, message_id)["pdf_sha256"])


def refs_of(db: Database, municipality: str, collection: str, record_id: str) -> list[dict[str, Any]]:
    """The messages delivered about one record (e.g. an auto), oldest first, for a service that has
    already authorized its actor (the case's notices)."""
    rows = db[MESSAGES].find({"municipality": municipality, "ref.collection": collection, "ref.id": record_id},
                             {"pdf_sha256": 0}).sort([("key", 1)])
    today = clock.today()
    return [_plain(decode(r), today) for r in rows]
