"""The trust anchors of the signatures the panel verifies (issue 36 item 4): the root certificates
(ICP-Brasil's, in production; the tests make their own CA) that TI uploads, one municipality at a time.

Per municipality, not for the whole install: who may change them is TI of that municipality (``admin``
there, as every other setting of TI), each change is audited in that municipality's log, and one
municipality's TI never changes what another trusts; ICP-Brasil's roots are the same everywhere, so
uploading them once per municipality costs a minute. A certificate is accepted as PEM (one or several
in one file) or DER, through the one upload boundary (``uploads.check("trust_anchor", ...)``), and only
if it is a CA certificate (basicConstraints cA). Removing one keeps its entry (``removed``), so the log
and the answers verified under it still name it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from bson import ObjectId
from bson.errors import InvalidId
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from pymongo.database import Database

from services import store
from services.shared import audit, clock, uploads
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import Conflict, NotFound, ValidationFailed
from services.store import decode, encode, insert_one

ANCHORS = "trust_anchors"
INDEXES = {ANCHORS: [([("municipality", 1), ("fingerprint", 1)], {"name": "i_trust_anchors"})]}
NO_ANCHORS = ("Nenhuma autoridade certificadora raiz foi cadastrada: a TI deve enviar as raízes da ICP-Brasil "
              "(página Implantação) antes que arquivos assinados possam ser aceitos.")


@dataclass(frozen=True)
class Anchor:
    id: str
    subject: str
    serial: str
    fingerprint: str
    not_before: datetime
    not_after: datetime
    added_at: datetime
    added_by: str


def prepare(db: Database) -> None:
    store.ensure_indexes(db, INDEXES)


def _certificates(data: bytes) -> list[x509.Certificate]:
    if b"-----BEGIN CERTIFICATE-----" in data:
        try:
            return x509.load_pem_x509_certificates(data)
        except ValueError:
            raise ValidationFailed({"file": "O arquivo PEM não contém um certificado legível."}) from None
    try:
        return [x509.load_der_x509_certificate(data)]
    except ValueError:
        raise ValidationFailed({"file": "O arquivo não é um certificado X.509 (PEM ou DER)."}) from None


def _is_ca(cert: x509.Certificate) -> bool:
    try:
        return bool(cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@checked
def add_anchors(db: Database, actor: Actor, municipality: str, data: bytes, file_name: str) -> list[str]:
    """Add the CA certificates of a PEM or DER file as trust anchors of ``municipality`` (TI, ``admin``);
    returns their subjects. A certificate already there is refused, as is one that is not a CA's."""
    authorize(actor, "admin", municipality)
    uploads.check("trust_anchor", data, file_name)
    certs = _certificates(bytes(data))
    rows = []
    for cert in certs:
        subject = cert.subject.rfc4514_string()
        if not _is_ca(cert):
            raise ValidationFailed({"file": f"O certificado «{subject}» não é de uma autoridade certificadora."})
        fingerprint = cert.fingerprint(hashes.SHA256()).hex()
        if store.exists(db[ANCHORS], {"municipality": municipality, "fingerprint": fingerprint, "removed": None}):
            raise Conflict(f"O certificado «{subject}» já está entre as raízes confiáveis.")
        rows.append({"municipality": municipality, "holder": subject, "serial": format(cert.serial_number, "X"),
                     "fingerprint": fingerprint, "not_before": _utc(cert.not_valid_before_utc),
                     "not_after": _utc(cert.not_valid_after_utc), "der": cert.public_bytes(serialization.Encoding.DER),
                     "file_name": file_name, "added_at": clock.now_utc(), "added_by": actor.username,
                     "removed": None})
    with store.transaction(db):
        for row in rows:
            anchor_id = insert_one(db[ANCHORS], encode(row))
            audit.record(db, actor, municipality, "create", ANCHORS, anchor_id, {},
                         {k: v for k, v in row.items() if k != "der"}, f"Raiz confiável adicionada: {row['holder']}")
    return [row["holder"] for row in rows]


def _anchor(doc: dict) -> Anchor:
    return Anchor(str(doc["_id"]), doc["holder"], doc["serial"], doc["fingerprint"], doc["not_before"],
                  doc["not_after"], doc["added_at"], doc["added_by"])


@checked
def anchors(db: Database, actor: Actor, municipality: str) -> list[Anchor]:
    """The trust anchors in force in ``municipality``, by subject."""
    authorize(actor, "admin", municipality)
    rows = db[ANCHORS].find({"municipality": municipality, "removed": None}, {"der": 0}).sort("holder", 1)
    return [_anchor(decode(d)) for d in rows]


@checked
def remove_anchor(db: Database, actor: Actor, municipality: str, anchor_id: str) -> None:
    """Stop trusting an anchor (kept, marked removed, audited): files signed under it are refused from now."""
    authorize(actor, "admin", municipality)
    try:
        oid = ObjectId(anchor_id)
    except (InvalidId, TypeError):
        raise NotFound("Certificado não encontrado.") from None
    doc = db[ANCHORS].find_one({"_id": oid, "municipality": municipality, "removed": None}, {"der": 0})
    if doc is None:
        raise NotFound("Certificado não encontrado.")
    removed = {"at": clock.now_utc(), "by": actor.username}
    with store.transaction(db):
        db[ANCHORS].update_one({"_id": oid}, {"$set": encode({"removed": removed})})
        audit.record(db, actor, municipality, "remove", ANCHORS, oid, {"removed": None}, {"removed": removed},
                     f"Raiz confiável retirada: {doc['holder']}")


def roots(db: Database, municipality: str) -> list[bytes]:
    """The DER of each anchor in force, for a service that has already authorized its actor (the
    verification of a signed file, ``services.shared.signatures``)."""
    return [bytes(d["der"]) for d in db[ANCHORS].find({"municipality": municipality, "removed": None}, {"der": 1})]
