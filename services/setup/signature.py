"""The municipality's digital signature, as TI sets it on the Implantação page (issue 37 item 3): its
ICP-Brasil A1 certificate (PKCS#12) and the kinds of document signed with it; the notice of its expiry
on Início. Where the password is kept and how documents are signed: ``services.shared.signing_keys`` and
``services.shared.pdf_signing``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from pymongo.database import Database

from rules import fmt
from services import store
from services.shared import audit, clock, municipalities, signing_keys, uploads
from services.shared.auth import Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import ValidationFailed
from services.shared.signing_keys import CERTIFICATE, KINDS, SIGNED_KINDS

UPLOAD_KIND = "certificate_a1"
NOT_SET = "não cadastrado"  # as services.setup.deployment lists it
NO_CERTIFICATE = "sem certificado: os documentos saem sem assinatura digital, com o código de autenticação"
NO_PASSWORD = "sem a senha do certificado"
EXPIRED = "vencido"


@dataclass(frozen=True)
class Certificate:
    """The certificate as the Implantação page shows it (never its password)."""

    holder: str
    cnpj: str
    issuer: str
    valid_from: datetime
    valid_until: datetime
    file_name: str
    uploaded_at: datetime
    uploaded_by: str
    kinds: tuple[str, ...]  # of KINDS, chosen by TI
    password_at: str  # where the password is read from; "" when nowhere


@dataclass(frozen=True)
class Notice:
    """Início's notice to TI about one municipality's certificate."""

    municipality: str
    name: str
    level: str  # signing_keys.WARNING or signing_keys.EXPIRED
    text: str


def password_at(code: str) -> str:
    """Where the password of ``code``'s certificate is read from, in pt-BR; "" when from nowhere."""
    if signing_keys.password_from_environment(code) is not None:
        return f"variável de ambiente {signing_keys.password_variable(code)}"
    if signing_keys.key_file(code).exists():
        return f"arquivo de chave {signing_keys.key_file(code).name} (permissão 0600) na pasta de dados"
    return ""


def password_from_environment(code: str) -> bool:
    """Whether the server gives the password (the page then does not ask for it)."""
    return signing_keys.password_from_environment(code) is not None


def _view(code: str, record: dict | None, kinds: tuple[str, ...]) -> Certificate | None:
    if record is None:
        return None
    record = store.decode(record)
    return Certificate(record["holder"], record["cnpj"], record["issuer"], record["valid_from"],
                       record["valid_until"], record["file_name"], record["uploaded_at"], record["uploaded_by"],
                       kinds, password_at(code))


@checked
def certificate(db: Database, actor: Actor, municipality: str) -> Certificate | None:
    """The municipality's certificate and the kinds it signs, None without one (``admin``)."""
    authorize(actor, "admin", municipality)
    return _view(municipality, *signing_keys.stored(db, municipality))


@checked
def set_certificate(db: Database, actor: Actor, municipality: str, data: bytes, filename: str,
                    password: str | None = None) -> Certificate:
    """Keep the A1 certificate once it opens with its password and is valid today; the password goes to
    the key file (never to the store) unless the server gives it by its variable; audited without it."""
    authorize(actor, "admin", municipality)
    uploads.check(UPLOAD_KIND, data, filename, field=signing_keys.FIELD)
    from_environment = signing_keys.password_from_environment(municipality)
    secret = from_environment if from_environment is not None else (password or "")
    if not secret:
        raise ValidationFailed({signing_keys.PASSWORD_FIELD: "Informe a senha do certificado."})
    _, cert, _ = signing_keys.open_a1(data, secret)
    found = signing_keys.describe(cert)
    signing_keys.check_valid(found, clock.now_utc())
    town = municipalities.get(db, municipality)
    if town.cnpj and found.cnpj and found.cnpj != town.cnpj:
        raise ValidationFailed({signing_keys.FIELD: f"O certificado é do CNPJ {fmt.cnpj(found.cnpj)}, mas o CNPJ da "
                                                    f"Prefeitura é {fmt.cnpj(town.cnpj)}; envie o certificado da "
                                                    "Prefeitura."})
    sha = store.put_file(db, data, filename or f"certificado_{municipality}.pfx")
    record = {"sha256": sha, "file_name": filename, "holder": found.holder, "cnpj": found.cnpj,
              "issuer": found.issuer, "serial": found.serial, "valid_from": found.valid_from,
              "valid_until": found.valid_until, "uploaded_at": clock.now_utc(), "uploaded_by": actor.username}
    before, kinds = signing_keys.stored(db, municipality)
    with store.transaction(db):
        db["municipalities"].update_one({"code": municipality}, {"$set": {CERTIFICATE: store.encode(record)}})
        audit.record(db, actor, municipality, "update", "municipalities", municipality,
                     {CERTIFICATE: _audited(before)}, {CERTIFICATE: _audited(store.encode(record))},
                     note=f"Certificado digital A1 enviado ({filename})")
    if from_environment is None:  # after the store took it: a failed write never leaves the old one a wrong key
        signing_keys.keep_password(municipality, secret)
    return _view(municipality, store.encode(record), kinds)


def _audited(record: dict | None) -> dict | None:
    """What the audit keeps of a certificate: who it names and until when — the file by its hash."""
    if record is None:
        return None
    return {k: record[k] for k in ("holder", "cnpj", "issuer", "valid_until", "sha256") if k in record}


@checked
def set_signed_kinds(db: Database, actor: Actor, municipality: str, kinds: Sequence[str]) -> tuple[str, ...]:
    """The kinds of document the municipality signs (any of ``KINDS``); audited."""
    authorize(actor, "admin", municipality)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValidationFailed({"kinds": f"Tipo de documento desconhecido: {', '.join(unknown)}."})
    chosen = [k for k in KINDS if k in kinds]
    _, before = signing_keys.stored(db, municipality)
    with store.transaction(db):
        db["municipalities"].update_one({"code": municipality}, {"$set": {SIGNED_KINDS: chosen}})
        audit.record(db, actor, municipality, "update", "municipalities", municipality,
                     {SIGNED_KINDS: list(before)}, {SIGNED_KINDS: chosen}, note="Documentos assinados digitalmente")
    return tuple(chosen)


def missing(db: Database, municipality: str) -> tuple[str, str] | None:
    """(what, why) for the Implantação list while the documents go out unsigned; None when they are signed."""
    record, _ = signing_keys.stored(db, municipality)
    if record is None:
        return f"Certificado digital A1 da Prefeitura ({NO_CERTIFICATE})", NOT_SET
    if store.decode(record)["valid_until"] <= clock.now_utc():
        return "Certificado digital A1 da Prefeitura vencido: os documentos saem sem assinatura digital", EXPIRED
    if not password_at(municipality):
        return (f"Senha do certificado digital A1 (defina {signing_keys.password_variable(municipality)} ou envie "
                "o certificado de novo com a senha)", NO_PASSWORD)
    return None


@checked
def expiry_notice(db: Database, actor: Actor, municipality: str, today: date) -> Notice | None:
    """Início: the notice when the municipality's certificate expires within 30 days or has expired
    (``admin``); one flat read of the municipality's document."""
    authorize(actor, "admin", municipality)
    doc = db["municipalities"].find_one({"code": municipality}, {"name": 1, f"{CERTIFICATE}.valid_until": 1})
    if not doc or not doc.get(CERTIFICATE):
        return None
    until = clock.local_date(store.decode(doc[CERTIFICATE]["valid_until"]))
    notice = signing_keys.expiry_notice(until, today)
    return Notice(municipality, doc["name"], *notice) if notice is not None else None
