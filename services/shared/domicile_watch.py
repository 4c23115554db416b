"""What the clerk's Início shows of the electronic domicile (issue 36 item 5): the messages whose e-mail
alert keeps failing ("bouncing": :data:`domicile_alerts.BOUNCING_ATTEMPTS` failed tries in a row) and the
notices still unopened whose tacit receipt is at most N days ahead — each row naming the record it
notifies, so the screen opens the case.

Flat whatever the store's size: each list is one indexed query on its own (the outbox by purpose,
municipality, state and tries; the messages by municipality and tacit day) with a count and the first
rows; only messages whose opening starts a term (``events.opened_categories``: the notification and the
decision of an auto) are watched for their tacit day.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bson import ObjectId
from pymongo.database import Database

from services.shared import domicile, domicile_alerts, events, fields, mail
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.store import decode, encode, parse_date

NEAR_TACIT_DAYS = 3  # an unopened notice is listed from this many days before its tacit receipt


@dataclass(frozen=True)
class Row:
    """One message on the Início: what, to whom, when, where its alert stands and the record it notifies."""

    title: str
    addressee: str  # "Condutor CPF …" / "Plataforma CNPJ …"
    delivered_on: date
    tacit_on: date
    alert: str
    record: tuple[str, str]  # (collection, id) of the case


@dataclass(frozen=True)
class Watch:
    bouncing: tuple[Row, ...]
    bouncing_total: int
    near_tacit: tuple[Row, ...]
    near_tacit_total: int
    days: int


def _row(db: Database, doc: dict) -> Row:
    ref = doc.get("ref") or {}
    kind = doc.get("kind")
    who = (f"Condutor CPF {fields.show('cpf', doc['document'])}" if kind == "condutor"
           else f"Plataforma CNPJ {fields.show('cnpj', doc['document'])}")
    return Row(doc["title"], who, parse_date(doc["delivered_on"]), parse_date(doc["tacit_on"]),
               domicile_alerts.line(db, doc), (str(ref.get("collection") or ""), str(ref.get("id") or "")))


def _bouncing(db: Database, municipality: str, shown: int) -> tuple[list[Row], int]:
    query = {"purpose": domicile_alerts.PURPOSE, "municipality": municipality,
             "status": {"$in": [mail.PENDING, mail.SENDING]}, "attempts": {"$gte": domicile_alerts.BOUNCING_ATTEMPTS}}
    ids = [i for i in db[mail.OUTBOX].distinct("ref.id", query) if isinstance(i, str)]
    if not ids:
        return [], 0
    oids = [ObjectId(i) for i in ids if ObjectId.is_valid(i)]
    rows = db[domicile.MESSAGES].find({"_id": {"$in": oids}, "municipality": municipality},
                                      {"pdf_sha256": 0}).sort([("key", 1)]).limit(shown)
    return [_row(db, decode(r)) for r in rows], len(oids)


def _near_tacit(db: Database, municipality: str, on: date, days: int, shown: int) -> tuple[list[Row], int]:
    query = {"municipality": municipality,
             "tacit_on": {"$gte": encode(on), "$lte": encode(on + timedelta(days=days))},
             "opened_at": None, "category": {"$in": list(events.opened_categories())}}
    total = db[domicile.MESSAGES].count_documents(query)
    rows = db[domicile.MESSAGES].find(query, {"pdf_sha256": 0}).sort([("tacit_on", 1)]).limit(shown) if total else []
    return [_row(db, decode(r)) for r in rows], total


@checked
def watch(db: Database, actor: Actor, municipality: str, on: date, days: int = NEAR_TACIT_DAYS,
          shown: int = 10) -> Watch:
    """The Início's rows of the domicile on ``on``: alerts bouncing, and notices unopened whose tacit
    receipt falls from ``on`` to ``days`` ahead (the first ``shown`` of each, with their counts)."""
    authorize(actor, "read", municipality)
    days = max(0, min(int(days), 30))
    bouncing, bouncing_total = _bouncing(db, municipality, shown)
    near, near_total = _near_tacit(db, municipality, on, days, shown)
    return Watch(tuple(bouncing), bouncing_total, tuple(near), near_total, days)
