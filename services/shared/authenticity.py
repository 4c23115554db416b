"""The authentication code of every PDF the panel issues, and the record of what was issued.

A document is issued through :func:`issue` (one document) or :func:`issue_many` (a batch of DAMs in one
file, a stamp per page): a code of 12 characters from an alphabet without 0/O/1/I (``ABCD-EFGH-JKLM``,
60 bits, a clash refused by the unique index on ``code`` and drawn again), the renderer draws the stamp
(:mod:`services.shared.pdf.stamp`) with it, the final bytes pass through :func:`_finish` (where the
municipality's signature is applied) and are kept in the store's files (``store.put_file``: the key is
their SHA-256). The record in ``issued_documents`` says what the document is, never who it is about:
kind, number, municipality, issue time (UTC), issuer (the staff user's name or "Sistema", and the role),
the record it was made from (collection and id, internal), its status and the SHA-256 of every file it
was issued in.

What is printed stays true (issue 37, item 4). A kind is either *issued once* (:data:`ONCE`): printing it
again returns the same bytes under the same code while the record it shows has not changed (the
``fingerprint`` of the data printed, the letterhead and links apart); once it changed, the reprint is a
new code that supersedes the earlier one, printed "2ª via de <código>", and the earlier is marked
``substituido``. Or it is a *snapshot* (the case file, the week board, the management report, dated
the day they are drawn): each print is a new document with its own code. :func:`mark` records a DAM
cancelled, a DAM replaced by its 2ª via or an authorization revoked on the documents made from it.
"""
from __future__ import annotations

import hashlib
import secrets
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, is_dataclass
from datetime import date, datetime, time
from typing import Any

from pymongo.database import Database

from services import store
from services.shared import clock, config, pdf_signing
from services.shared.auth import Actor
from services.shared.pdf.stamp import Stamp
from services.store import DuplicateKeyError, decode, encode, ensure_indexes

COLLECTION = "issued_documents"
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # 32 signs, no 0/O/1/I: read aloud and typed without doubt
GROUPS, GROUP = 3, 4
ATTEMPTS = 5  # plans of one print before a clash is an error (each clash means another print got there first)
CURRENT = "current"  # on a valid document of a kind issued once: its kind and record, unique (two first prints)
INDEXES = {COLLECTION: [([("code", 1)], {"unique": True, "name": "u_issued_code"}),
                        ([("municipality", 1), ("ref.collection", 1), ("ref.id", 1), ("kind", 1)],
                         {"name": "i_issued_ref"}),
                        ([(CURRENT, 1)], {"unique": True, "name": "u_issued_current",
                                          "partialFilterExpression": {CURRENT: {"$exists": True}}})]}
VALID, REPLACED, CANCELLED, REVOKED = "valido", "substituido", "cancelado", "revogado"
STATUSES = {VALID: "Válido", REPLACED: "Substituído", CANCELLED: "Cancelado", REVOKED: "Revogado"}
ONCE, SNAPSHOT = "once", "snapshot"
KINDS: dict[str, tuple[str, str]] = {  # kind: (what it is, in pt-BR; once or snapshot)
    "dam": ("Documento de Arrecadação Municipal (DAM)", ONCE),
    "selo": ("Selo de identificação do veículo", ONCE),
    "certificado": ("Certificado de autorização", ONCE),
    "convocacao": ("Notificação de convocação para vistoria extraordinária", ONCE),
    "laudo": ("Laudo de vistoria", ONCE),
    "auto": ("Auto de infração", ONCE),
    "notificacao": ("Notificação do auto de infração", ONCE),
    "decisao": ("Notificação da decisão do auto de infração", ONCE),
    "processo": ("Processo administrativo do auto de infração", SNAPSHOT),
    "edital": ("Edital de notificação", ONCE),
    "pedido_dados": ("Pedido de dados de viagem à plataforma", ONCE),
    "lembrete_renovacao": ("Lembrete de renovação da autorização", ONCE),
    "orcamento": ("Orçamento de serviço de máquinas", ONCE),
    "ordem_servico": ("Ordem de serviço de máquinas", ONCE),
    "recibo": ("Recibo de serviço de máquinas", ONCE),
    "extrato": ("Extrato de serviço de máquinas", ONCE),
    "quadro_semana": ("Quadro da semana das máquinas", SNAPSHOT),
    "relatorio_gestao": ("Relatório gerencial (Resumo)", SNAPSHOT),
}
IGNORED = frozenset({"head", "coat_of_arms", "check_url", "issued_on"})  # drawn, but not what the document says
_prepared: weakref.WeakSet = weakref.WeakSet()


def prepare(db: Database) -> None:
    """The unique index of the codes (idempotent; once per database handle)."""
    if db not in _prepared:
        ensure_indexes(db, INDEXES)
        _prepared.add(db)


def new_code() -> str:
    """A fresh code, "ABCD-EFGH-JKLM" (the unique index decides whether it is free)."""
    signs = "".join(secrets.choice(ALPHABET) for _ in range(GROUPS * GROUP))
    return "-".join(signs[i:i + GROUP] for i in range(0, len(signs), GROUP))


def normal_code(typed: str) -> str:
    """A code as typed ("abcd efgh-jklm", "ABCDEFGHJKLM") in its printed form, or "" when it is not one."""
    signs = "".join(ch for ch in str(typed or "").upper()[:40] if ch.isalnum())
    if len(signs) != GROUPS * GROUP or any(ch not in ALPHABET for ch in signs):
        return ""
    return "-".join(signs[i:i + GROUP] for i in range(0, len(signs), GROUP))


def page_url() -> str:
    """The public page where a code is conferred: the portal's /verificar (PAINEL_PORTAL_URL, by default
    the portal's local port) — the public side, never the staff panel."""
    return f"{config.portal_url()}/verificar"


def stamp_of(code: str, via: str = "") -> Stamp:
    """The stamp of ``code``: the page, the QR's link with the code and the 2ª via line."""
    return Stamp(code, page_url(), f"{page_url()}?codigo={code.replace('-', '')}", via)


def fingerprint(content: Any) -> str:
    """SHA-256 of what a document says: the print data without the letterhead and the links."""
    def plain(value: Any) -> Any:
        if is_dataclass(value) and not isinstance(value, type):
            return (type(value).__name__,
                    tuple((f.name, plain(getattr(value, f.name))) for f in fields(value) if f.name not in IGNORED))
        if isinstance(value, (list, tuple)):
            return tuple(plain(v) for v in value)
        if isinstance(value, dict):
            return tuple(sorted((str(k), plain(v)) for k, v in value.items()))
        return value
    return hashlib.sha256(repr(plain(content)).encode("utf-8", "surrogatepass")).hexdigest()


def _finish(db: Database, municipality: str, kind: str, pdf: bytes) -> bytes:
    """The last step of every issued PDF before it is hashed and kept: the municipality's PAdES signature
    when it has an A1 certificate and TI chose ``kind`` (``pdf_signing.sign_if_chosen``; signed last, so
    the stamp is inside what is signed and the SHA-256 kept is of the signed bytes)."""
    return pdf_signing.sign_if_chosen(db, municipality, kind, pdf)


@dataclass(frozen=True)
class Item:
    """One document to issue: its kind, number (as printed), the record it is made from and its data."""

    kind: str
    number: str
    ref: tuple[str, str]          # (collection, id) of the record, internal
    content: Any                  # the print data (fingerprinted)
    supersedes: tuple[str, str] | None = None  # another record whose documents this one replaces (2ª via DAM)
    variant: str = ""             # two documents of a kind from one record (the notification to each recipient)


def _issuer(actor: Actor | None) -> tuple[str, str]:
    if actor is None or actor.username == "sistema":
        return "Sistema", "sistema"
    return actor.name or actor.username, actor.role


def _current(db: Database, municipality: str, items: Sequence[Item]) -> dict[tuple[str, str, str, str], dict]:
    """The valid record of each item's (kind, collection, id), read with one query."""
    ids = sorted({str(item.ref[1]) for item in items})
    query = {"municipality": municipality, "ref.id": {"$in": ids} if len(ids) > 1 else ids[0],
             "status": VALID, "kind": {"$in": sorted({item.kind for item in items})}}
    found: dict[tuple[str, str, str, str], dict] = {}
    for doc in db[COLLECTION].find(query):
        found[(doc["kind"], doc["ref"]["collection"], doc["ref"]["id"], doc["ref"].get("variant", ""))] = doc
    return found


def issue(db: Database, actor: Actor | None, municipality: str, item: Item,
          render: Callable[[Stamp], bytes]) -> bytes:
    """The PDF of one document: the bytes issued before when its data has not changed (a kind issued
    once), else drawn by ``render(stamp)`` under a new code, finished, kept and recorded."""
    return issue_many(db, actor, municipality, [item], lambda stamps: render(stamps[0]))


def issue_many(db: Database, actor: Actor | None, municipality: str, items: Sequence[Item],
               render: Callable[[list[Stamp]], bytes]) -> bytes:
    """One PDF of several documents (a page or more each, in order), each with its own stamp: a
    document already issued with the same data keeps its code; the file's SHA-256 is added to the
    record of every document in it. A single document issued before is returned as its kept bytes."""
    if not items:
        raise ValueError("no document to issue")
    if unknown := [item.kind for item in items if item.kind not in KINDS]:
        raise ValueError(f"unknown document kind {unknown[0]!r}")
    prepare(db)
    clashes = 0
    while True:
        plans = _plans(db, municipality, items)
        if isinstance(plans, bytes):  # a single document issued before, unchanged: its kept bytes
            return plans
        pdf = _finish(db, municipality, items[0].kind, render([plan.stamp for plan in plans]))
        try:
            _record(db, actor, municipality, plans, pdf)
            return pdf
        except DuplicateKeyError:  # another print of the same document got there first (or a code drawn
            clashes += 1           # twice, about one in 2^60): plan again from what is now recorded
            if clashes == ATTEMPTS:
                raise


def _plans(db: Database, municipality: str, items: Sequence[Item]) -> list[_Plan] | bytes:
    current = _current(db, municipality, items)
    plans: list[_Plan] = []
    for item in items:
        mark_ = fingerprint(item.content)
        key = (item.kind, item.ref[0], str(item.ref[1]), item.variant)
        before = current.get(key) if KINDS[item.kind][1] == ONCE else None
        if before is not None and before.get("fingerprint") == mark_:
            if len(items) == 1 and before.get("single"):
                return store.get_file(db, before["single"])
            plans.append(_Plan(item, before["code"], before, mark_, reused=True))
        else:
            plans.append(_Plan(item, new_code(), before, mark_, reused=False))
    return plans


@dataclass(frozen=True)
class _Plan:
    """How one document of a file is issued: its code, the record it supersedes or reuses."""

    item: Item
    code: str
    before: dict | None   # the valid record of the same document (reused, or superseded)
    mark: str             # fingerprint of its data
    reused: bool

    @property
    def stamp(self) -> Stamp:
        if self.reused:
            return stamp_of(self.code, _via_text(self.before or {}))
        return stamp_of(self.code, f"2ª via de {self.before['code']}" if self.before else "")


def _via_text(doc: dict) -> str:
    return f"2ª via de {doc['replaces']}" if doc.get("replaces") else ""


def _record(db: Database, actor: Actor | None, municipality: str, plans: list[_Plan], pdf: bytes) -> None:
    now = clock.now_utc()
    issuer, role = _issuer(actor)
    single = len(plans) == 1
    with store.transaction(db):
        digest = store.put_file(db, pdf, "documento.pdf")
        kept = [plan.code for plan in plans if plan.reused]
        for plan in plans:
            if plan.reused:
                continue
            before, item = plan.before, plan.item
            key = "|".join((municipality, item.kind, item.ref[0], str(item.ref[1]), item.variant))
            if before is not None:  # first, so the unique current key is free for the new one
                _set_status(db, {"$or": [{"_id": before["_id"]}, {CURRENT: key}]}, REPLACED, plan.code, now)
            elif item.supersedes is not None:  # a 2ª via DAM names the code of the DAM it replaces
                collection, record = item.supersedes
                db[COLLECTION].update_many(
                    {"municipality": municipality, "ref.collection": collection, "ref.id": str(record),
                     "status": {"$in": [VALID, REPLACED]}, "replaced_by": {"$in": ["", None]}},
                    {"$set": encode({"status": REPLACED, "replaced_by": plan.code, "status_at": now}),
                     "$unset": {CURRENT: ""}})
            once = {CURRENT: key} if KINDS[item.kind][1] == ONCE else {}
            store.insert_one(db[COLLECTION], encode({
                "code": plan.code, "municipality": municipality, "kind": item.kind, "number": item.number,
                "ref": {"collection": item.ref[0], "id": str(item.ref[1]), "variant": item.variant},
                "issued_at": now,
                "issuer": issuer, "issuer_role": role, "status": VALID, "fingerprint": plan.mark,
                "files": [digest], "single": digest if single else "",
                "replaces": before["code"] if before else "", "via": int(before.get("via", 1)) + 1 if before else 1,
                **once}))
        if kept:
            db[COLLECTION].update_many({"code": {"$in": kept}}, {"$addToSet": {"files": digest}})
            if single:
                db[COLLECTION].update_one({"code": kept[0], "single": ""}, {"$set": {"single": digest}})


def _set_status(db: Database, query: dict, status: str, by_code: str, now: Any, note: str = "") -> None:
    db[COLLECTION].update_many({**query, "status": VALID}, {"$set": encode(
        {"status": status, "replaced_by": by_code, "status_at": now, "status_note": note}),
        "$unset": {CURRENT: ""}})


def mark(db: Database, municipality: str, ref: tuple[str, str], status: str, *, by_code: str = "",
         note: str = "", kinds: Sequence[str] = (), on: date | None = None) -> None:
    """Mark the valid documents made from the record ``ref`` (of ``kinds``, or all) as ``status``
    (a DAM cancelled, replaced by its 2ª via, an authorization revoked), in the caller's unit of work.

    ``on`` later than today schedules it (a cassação takes effect the day its decision becomes final):
    the documents stand until that day and read as marked from it (:func:`_in_force`); the earliest
    scheduled day wins, and :func:`restore` drops it."""
    if status not in STATUSES:
        raise ValueError(status)
    query: dict[str, Any] = {"ref.collection": ref[0], "ref.id": str(ref[1])}
    if municipality:
        query["municipality"] = municipality
    if kinds:
        query["kind"] = {"$in": list(kinds)}
    if on is not None and on > clock.today():
        due = encode({"status": status, "on": on, "note": note, "by_code": by_code})
        db[COLLECTION].update_many({**query, "status": VALID, "$or": [{"scheduled": None},
                                                                     {"scheduled.on": {"$gt": due["on"]}}]},
                                   {"$set": {"scheduled": due}})
        return
    _set_status(db, query, status, by_code, clock.now_utc(), note)


def _in_force(doc: dict) -> dict:
    """A record as it stands today: a mark scheduled for a day that has come applies from that day."""
    due = doc.get("scheduled")
    on = store.parse_date(due.get("on")) if due else None
    if doc.get("status") != VALID or on is None or on > clock.today():
        return doc
    return {**doc, "status": due["status"], "replaced_by": due.get("by_code", ""), "status_note": due.get("note", ""),
            "status_at": datetime.combine(on, time.min, clock.LOCAL_TZ)}


def restore(db: Database, municipality: str, ref: tuple[str, str], status: str, *, note: str = "",
            kinds: Sequence[str] = ()) -> None:
    """Make the documents of the record ``ref`` (of ``kinds``, or all) that were marked ``status`` valid
    again (a revocation lifted by an appeal), in the caller's unit of work. They take no ``current`` key
    back (a later print may have one): the next print of a changed record replaces them with it."""
    query: dict[str, Any] = {"municipality": municipality, "ref.collection": ref[0], "ref.id": str(ref[1])}
    if kinds:
        query["kind"] = {"$in": list(kinds)}
    db[COLLECTION].update_many({**query, "status": status}, {"$set": encode(
        {"status": VALID, "replaced_by": "", "status_at": clock.now_utc(), "status_note": note})})
    db[COLLECTION].update_many({**query, "scheduled.status": status}, {"$unset": {"scheduled": ""}})


def documents_of(db: Database, municipality: str, refs: Sequence[tuple[str, str]]) -> list[dict]:
    """Every document issued from the records ``refs``, oldest first (a case file's list of its
    documents), for a service that has authorized its actor."""
    if not refs:
        return []
    query = {"municipality": municipality,
             "$or": [{"ref.collection": collection, "ref.id": str(record)} for collection, record in refs]}
    rows = [_in_force(decode(doc)) for doc in db[COLLECTION].find(query, {"fingerprint": 0, "files": 0, "single": 0})]
    return sorted(rows, key=lambda doc: (doc["issued_at"], doc["code"]))


def find(db: Database, code: str) -> dict | None:
    """The record of a printed code ("" or a code never issued: None)."""
    code = normal_code(code)
    if not code:
        return None
    prepare(db)
    doc = db[COLLECTION].find_one({"code": code})
    return _in_force(decode(doc)) if doc else None
