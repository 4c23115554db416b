"""Files of a service request (Decreto 017/2026, Nova Lacerda, art. 2 §4: the documents of the
protocol; the photos of the execution): kept with ``store.put_file``, listed on the request."""
from __future__ import annotations

from bson import ObjectId
from pymongo.database import Database

from services import store
from services.machinery import booking_requests
from services.machinery.booking_requests import REQUESTS
from services.shared import audit, clock, uploads
from services.shared.auth import Actor
from services.shared.errors import NotFound
from services.store import encode


@booking_requests.module_service("write", reach="request_id")
def add_attachment(db: Database, actor: Actor, municipality: str, request_id: str, data: bytes, name: str,
                   kind: str = "") -> str:
    """Keep a file of the request (store.put_file) and return its sha256; the upload guard checks its
    size (PAINEL_ATTACHMENT_MAX_MB) and that it is a PDF, JPEG or PNG first."""
    uploads.check("attachment", data, str(name or ""), field="data")
    booking_requests._load(db, municipality, request_id)
    digest = store.put_file(db, data, name)
    entry = {"sha256": digest, "name": name.strip() or digest[:12], "kind": kind.strip(),
             "added_at": clock.now_utc(), "by": actor.username}
    with store.transaction(db):
        db[REQUESTS].update_one({"_id": ObjectId(request_id)}, {"$push": {"attachments": encode(entry)},
                                                                "$inc": {"version": 1}})
        audit.record(db, actor, municipality, "attach", REQUESTS, request_id, {}, encode(entry))
    return digest


@booking_requests.module_service("read")
def attachment(db: Database, actor: Actor, municipality: str, request_id: str, sha256: str) -> bytes:
    """The bytes of one attachment of the request."""
    doc = booking_requests._load(db, municipality, request_id)
    if sha256 not in [a["sha256"] for a in doc.get("attachments", [])] + \
            list((doc.get("execution") or {}).get("photos", [])):
        raise NotFound("Anexo não encontrado neste pedido.")
    return store.get_file(db, sha256)
