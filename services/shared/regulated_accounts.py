"""The accounts of the portal's people, apart from staff users: a driver (their CPF), a platform's authorized
person ("agente autorizado": the platform's CNPJ and the person's CPF), each in one municipality with the
ride-hailing module, and a resident or entity ("requerente": a CPF, or a CNPJ and its representative's CPF) in
any municipality, who asks for the municipality's services (machinery, public forms of defined registers).

They log in on the public portal (``portal/``), never on the staff panel, and their actor has the role
``regulado``, which :func:`services.shared.auth.authorize` refuses for every staff permission. An account
stands only while the register stands behind it: a driver in the register of drivers, or a person the
secretariat lists as authorized by a platform of the register (:func:`authorize_agent`,
:func:`revoke_agent`). E-mails go only to the address on file in the register, never to one typed in —
except for an account the person opened themself (``self_registered``: a requerente, or a driver candidate
the driver register does not hold yet), whose e-mail is the one they typed and proved with the code. Once the
register holds that CPF, the register's e-mail rules (:func:`register_entry`).

Here: the secretariat's services (the list of authorized persons, the credenciamento de ofício that
sends the activation code) and what both sides share; the person's own steps (code, activation, login,
reset, sessions) are in ``services.shared.regulated_access``.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pymongo.database import Database

from services import store
from services.shared import audit, clock, fields, mail, sessions
from services.shared.auth import REGULATED_ROLE, Actor, authorize
from services.shared.boundary import checked
from services.shared.errors import NotFound, PermissionDenied, ValidationFailed
from services.store import decode, encode, ensure_indexes, insert_one

ACCOUNTS = "regulated_accounts"
AGENTS = "platform_agents"
DRIVER, PLATFORM, REQUESTER = "condutor", "plataforma", "requerente"
KINDS = {DRIVER: "Condutor", PLATFORM: "Plataforma (agente autorizado)", REQUESTER: "Cidadão ou entidade"}
SELF_SIGN_UP = (DRIVER, REQUESTER)  # who may open their own account on the portal
RIDE_HAILING_KINDS = (DRIVER, PLATFORM)  # only where the municipality runs the ride-hailing module
ACTIVATION, RESET = "ativacao", "senha"
CODE_MINUTES = 30
CODE_ATTEMPTS = 5
MIN_PASSWORD_LENGTH = 10
LGPD_VERSION = "2026-12-01"
PORTAL_NAME = "portal de serviços da prefeitura"
NOT_REMOVED = {"removed": {"$exists": False}}
INDEXES = {
    ACCOUNTS: [([("municipality", 1), ("kind", 1), ("document", 1), ("person_cpf", 1)],
                {"unique": True, "name": "u_regulated_account"})],
    AGENTS: [([("municipality", 1), ("cnpj", 1), ("cpf", 1)], {"unique": True, "name": "u_platform_agent"})],
}


@dataclass(frozen=True)
class Person:
    """A regulated person logged in (or being identified): whose records they may see, and as whom the
    audit names them. ``document`` is the driver's CPF or the platform's CNPJ."""

    municipality: str
    kind: str
    document: str
    person_cpf: str
    name: str

    @property
    def actor(self) -> Actor:
        return Actor(username_of(self.kind, self.document, self.person_cpf), self.name, REGULATED_ROLE,
                     (self.municipality,))


def prepare(db: Database) -> None:
    ensure_indexes(db, INDEXES)


def username_of(kind: str, document: str, person_cpf: str) -> str:
    """How the audit log names a regulated person: ``condutor:CPF``, ``plataforma:CNPJ:CPF``,
    ``requerente:CPF`` or ``requerente:CNPJ:CPF`` (an entity and its representative)."""
    return f"{kind}:{document}" if person_cpf in ("", document) else f"{kind}:{document}:{person_cpf}"


def addressee(actor: Actor) -> tuple[str, str, str] | None:
    """(municipality, kind, CPF/CNPJ) whose records a regulated actor (:attr:`Person.actor`) may see —
    the driver, or the platform its agent speaks for —; None for anyone else (staff included)."""
    own = tuple(actor.municipalities)
    kind, _, rest = actor.username.partition(":")
    if actor.role != REGULATED_ROLE or len(own) != 1 or kind not in KINDS or not rest:
        return None
    return own[0], kind, rest.split(":")[0]


def is_regulated(actor: Actor) -> bool:
    """Whether the actor is a person of the public portal (role ``regulado``), not staff."""
    return getattr(actor, "role", None) == REGULATED_ROLE


def authorize_regulated(actor: Actor, municipality: str, kind: str) -> None:
    """Before anything is looked up: the regulated actor is a person of ``kind`` (a driver, a platform) of
    ``municipality``, else PermissionDenied — then :func:`require_own` on the record it names."""
    whose = addressee(actor)
    if whose is None or whose[0] != municipality or whose[1] != kind:
        raise PermissionDenied("Esta conta do portal não tem acesso a este serviço.")


def require_own(actor: Actor, municipality: str, kind: str, document: str, missing: str) -> None:
    """A regulated actor reaches only a record of its own (``addressee(actor)`` is the record's owner, in
    the record's municipality); anything else is ``NotFound(missing)`` — the same words as for a record
    that does not exist, so another's code tells nothing. The clerk's services call it after loading
    the record, in place of the staff permission, when :func:`is_regulated` (issue 38)."""
    if addressee(actor) != (municipality, kind, document):
        raise NotFound(missing)


def agent_cpf(actor: Actor) -> str:
    """The CPF of the platform's authorized person a regulated actor is (``plataforma:CNPJ:CPF``); "" for a
    driver or anyone else."""
    whose = addressee(actor)
    parts = actor.username.split(":")
    return parts[2] if whose and whose[1] == PLATFORM and len(parts) == 3 else ""


def authorized_cpfs(db: Database, municipality: str, cnpj: str) -> frozenset[str]:
    """The CPFs of the persons a platform authorizes now (active in the secretariat's list): who may sign
    what it sends (CG Decreto 06/2026 art. 11 §3; MP Lei 1.552/2025 art. 4 §3)."""
    return frozenset(d["cpf"] for d in db[AGENTS].find({"municipality": municipality, "cnpj": cnpj, "active": True},
                                                       {"cpf": 1}))


def identity(kind: object, document: object, person_cpf: object = "") -> tuple[str, str, str]:
    """(kind, document, person's CPF) in their stored form, or ValidationFailed with pt-BR messages per field.
    A requerente's document is a CPF or, with 14 digits, an entity's CNPJ (then ``person_cpf`` is its
    representative's)."""
    errors: dict[str, str] = {}
    if kind not in KINDS:
        raise ValidationFailed({"kind": "Escolha como você entra: condutor, plataforma ou cidadão/entidade."})
    company = kind == PLATFORM or (kind == REQUESTER and len(fields.digits(str(document or ""))) == 14)
    try:
        document = fields.parse("cnpj" if company else "cpf", str(document or ""))
    except ValueError as problem:
        errors["document"] = f"{'CNPJ' if company else 'CPF'}: {problem}."
    if not company:
        person_cpf = document if isinstance(document, str) else ""
    else:
        try:
            person_cpf = fields.parse("cpf", str(person_cpf or ""))
        except ValueError as problem:
            errors["person_cpf"] = f"CPF: {problem}."
    if errors:
        raise ValidationFailed(errors)
    return str(kind), str(document), str(person_cpf)


def check_municipality(db: Database, municipality: object, kind: str = DRIVER) -> str:
    """The code of a municipality where that kind of account exists (ride-hailing kinds only where the
    module runs), or ValidationFailed (nothing typed on the public portal reaches the store or the audit
    unless it names one)."""
    query: dict[str, Any] = {"code": municipality}
    if kind in RIDE_HAILING_KINDS:
        query["modules"] = "transporte"
    if not isinstance(municipality, str) or not municipality or db["municipalities"].find_one(query) is None:
        if isinstance(municipality, str) and municipality and db["municipalities"].find_one({"code": municipality}):
            raise ValidationFailed({"kind": "Este município não regula o transporte por aplicativo: entre como "
                                            "cidadão ou entidade."})
        raise ValidationFailed({"municipality": "Escolha o município."})
    return municipality


def register_entry(db: Database, municipality: str, kind: str, document: str, person_cpf: str,
                   account: dict | None = None) -> dict | None:
    """{"name", "email"} of the register's record behind the account, or None when the register no longer
    holds it (a driver removed, a platform removed, a person no longer authorized by the platform). An
    account the person opened themself stands on its own record while the register does not hold that
    CPF (``account``: the stored account when the caller has it, saving a read)."""
    if kind == PLATFORM:
        platform = db["platforms"].find_one({"municipality": municipality, "cnpj": document, **NOT_REMOVED})
        agent = db[AGENTS].find_one({"municipality": municipality, "cnpj": document, "cpf": person_cpf,
                                     "active": True})
        if platform is None or agent is None:
            return None
        return {"name": agent["name"], "email": agent.get("email") or "", "platform": platform["name"]}
    if kind == DRIVER:
        driver = db["drivers"].find_one({"municipality": municipality, "cpf": document, **NOT_REMOVED})
        if driver is not None:
            return {"name": driver["name"], "email": driver.get("email") or ""}
    own = account if account is not None else find_account(db, municipality, kind, document, person_cpf)
    if own is None or not own.get("self_registered"):
        return None
    return {"name": own["name"], "email": own.get("email") or ""}


def email_changed(doc: dict, entry: dict) -> bool:
    """True when an account the person opened themself proved an e-mail the register now differs from (the
    secretariat registered that CPF with another address): it must prove the register's one again."""
    return bool(doc.get("self_registered") and doc.get("email")
                and doc["email"].strip().lower() != (entry.get("email") or "").strip().lower())


def password_problem(password: object, kind: str, document: str, person_cpf: str) -> str | None:
    """Why a chosen password is refused (pt-BR), or None."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_LENGTH:
        return f"A senha deve ter ao menos {MIN_PASSWORD_LENGTH} caracteres."
    if fields.digits(password) in (document, person_cpf) and fields.digits(password) == password.strip():
        return "A senha não pode ser o seu CPF nem o CNPJ."
    return None


def contact(name: object, email: object, errors: dict[str, str] | None = None) -> tuple[str, str]:
    """(name, e-mail) of a person as typed, cleaned, or ValidationFailed with each field's pt-BR message
    (and any ``errors`` found before)."""
    errors = dict(errors or {})
    name = " ".join(str(name or "").split())
    if len(name) < 3 or len(name) > 120:
        errors["name"] = "Nome: informe o nome completo (ou a razão social da entidade)."
    try:
        email = fields.parse("email", str(email or ""))
    except ValueError as problem:
        errors["email"] = f"E-mail: {problem}."
    if errors:
        raise ValidationFailed(errors)
    return name, str(email)


def person_of(doc: dict) -> Person:
    return Person(doc["municipality"], doc["kind"], doc["document"], doc["person_cpf"], doc["name"])


def record(db: Database, who: Actor, doc: dict | None, action: str, note: str = "", municipality: str | None = None,
           after: dict | None = None) -> None:
    """One audit entry about a regulated account, with the person (or the clerk) as actor."""
    audit.record(db, who, doc["municipality"] if doc else municipality, action, ACCOUNTS,
                 doc["_id"] if doc else None, {}, after or {}, note)


def find_account(db: Database, municipality: str, kind: str, document: str, person_cpf: str) -> dict | None:
    return decode(db[ACCOUNTS].find_one({"municipality": municipality, "kind": kind, "document": document,
                                         "person_cpf": person_cpf}))


def ensure_account(db: Database, municipality: str, kind: str, document: str, person_cpf: str, name: str,
                   created_by: str, email: str | None = None) -> dict:
    """The account of that identity, made pending (no password) the first time; with ``email``, one the
    person opens themself (``self_registered``, that e-mail to be proved by the activation code)."""
    found = find_account(db, municipality, kind, document, person_cpf)
    if found is not None:
        return found
    own = {"self_registered": True, "email": email} if email else {}
    doc = {**own, "municipality": municipality, "kind": kind, "document": document, "person_cpf": person_cpf, "name": name,
           "status": "pendente", "password_hash": None, "hash_scheme": None, "failed_logins": 0, "locked_until": None,
           "session_generation": 0, "consent": None, "code": None, "created_at": clock.now_utc(),
           "created_by": created_by, "activated_at": None, "last_login": None}
    try:
        insert_one(db[ACCOUNTS], encode(doc))
    except store.DuplicateKeyError:
        pass  # made meanwhile by another request
    return find_account(db, municipality, kind, document, person_cpf) or doc


def send_code(db: Database, doc: dict, email: str, purpose: str, now: datetime) -> None:
    """A new one-time code for ``purpose`` on the account (kept only hashed, replacing any earlier one) and
    the e-mail carrying it to ``email`` in the outbox — both in the caller's unit of work."""
    code = f"{secrets.randbelow(10 ** 6):06d}"
    db[ACCOUNTS].update_one({"_id": doc["_id"]}, {"$set": encode({"code": {
        "purpose": purpose, "hash": sessions.hash_password(code), "expires_at": now + timedelta(minutes=CODE_MINUTES),
        "attempts": 0}})})
    what = "ativar sua conta" if purpose == ACTIVATION else "criar uma nova senha"
    body = (f"Olá, {doc['name']}.\n\nSeu código para {what} no {PORTAL_NAME} é: {code}\n\n"
            f"Ele vale por {CODE_MINUTES} minutos e só pode ser usado uma vez. Se você não pediu este código, "
            "ignore esta mensagem; ninguém terá acesso à sua conta sem ele.\n")
    mail.queue(db, doc["municipality"], email, f"Código de acesso ao {PORTAL_NAME}", body,
               purpose, secret=True)


# -- the secretariat's services ---------------------------------------------------------------------


@checked
def authorize_agent(db: Database, actor: Actor, municipality: str, cnpj: str, cpf: str, name: str, email: str) -> None:
    """List a person as authorized by a platform of the register (the e-mail on file for their codes)."""
    authorize(actor, "write", municipality)
    _kind, cnpj, cpf = identity(PLATFORM, cnpj, cpf)
    name, email = contact(name, email)
    if db["platforms"].find_one({"municipality": municipality, "cnpj": cnpj, **NOT_REMOVED}) is None:
        raise NotFound("Plataforma não encontrada no cadastro deste município.")
    key = {"municipality": municipality, "cnpj": cnpj, "cpf": cpf}
    values = {"name": name, "email": email, "active": True, "authorized_at": clock.now_utc(),
              "authorized_by": actor.username, "revoked_at": None}
    with store.transaction(db):
        db[AGENTS].update_one(key, {"$set": encode(values)}, upsert=True)
        stored = db[AGENTS].find_one(key)
        audit.record(db, actor, municipality, "create", AGENTS, stored["_id"], {}, {"cpf": cpf, "name": values["name"]})


@checked
def revoke_agent(db: Database, actor: Actor, municipality: str, cnpj: str, cpf: str) -> None:
    """The person is no longer authorized by the platform: their account stops logging in, and any open
    session of theirs ends at its next request."""
    authorize(actor, "write", municipality)
    _kind, cnpj, cpf = identity(PLATFORM, cnpj, cpf)
    stored = db[AGENTS].find_one({"municipality": municipality, "cnpj": cnpj, "cpf": cpf, "active": True})
    if stored is None:
        raise NotFound("Pessoa não encontrada entre as autorizadas pela plataforma.")
    with store.transaction(db):
        db[AGENTS].update_one({"_id": stored["_id"]},
                              {"$set": encode({"active": False, "revoked_at": clock.now_utc()})})
        db[ACCOUNTS].update_many({"municipality": municipality, "kind": PLATFORM, "document": cnpj, "person_cpf": cpf},
                                 {"$inc": {"session_generation": 1}})
        audit.record(db, actor, municipality, "revoked", AGENTS, stored["_id"], {"active": True}, {"active": False})


@checked
def platform_agents(db: Database, actor: Actor, municipality: str, cnpj: str) -> list[dict]:
    """The persons a platform authorized (active or not), by name, with their account's state."""
    authorize(actor, "read", municipality)
    cnpj = fields.digits(str(cnpj or ""))
    states = {doc["person_cpf"]: doc["status"] for doc in db[ACCOUNTS].find(
        {"municipality": municipality, "kind": PLATFORM, "document": cnpj}, {"person_cpf": 1, "status": 1})}
    words = {"ativa": "ativa", "pendente": "aguardando ativação"}
    return [{"cpf": agent["cpf"], "name": agent["name"], "email": agent["email"], "active": agent["active"],
             "account": words.get(states.get(agent["cpf"], ""), "sem conta")}
            for agent in db[AGENTS].find({"municipality": municipality, "cnpj": cnpj}).sort("name", 1)]


@checked
def portal_accounts(db: Database, actor: Actor, municipality: str) -> list[dict]:
    """The portal's accounts of the municipality (no password, no code): who, state, consent, last login."""
    authorize(actor, "read", municipality)
    rows = []
    for doc in db[ACCOUNTS].find({"municipality": municipality}, {"password_hash": 0, "code": 0}).sort("name", 1):
        doc = decode(doc)
        consent = doc.get("consent") or {}
        rows.append({"kind": doc["kind"], "document": doc["document"], "person_cpf": doc["person_cpf"],
                     "name": doc["name"], "status": doc["status"], "consent_at": consent.get("at"),
                     "consent_version": consent.get("version"), "last_login": doc.get("last_login"),
                     "locked_until": doc.get("locked_until")})
    return rows


@checked
def enroll(db: Database, actor: Actor, municipality: str, kind: str, document: str, person_cpf: str = "") -> None:
    """Credenciamento de ofício: the secretariat opens the account of a driver or an authorized person of
    the register and the activation code goes to the e-mail on file; the person then chooses a password."""
    authorize(actor, "write", municipality)
    kind, document, person_cpf = identity(kind, document, person_cpf)
    entry = register_entry(db, municipality, kind, document, person_cpf)
    if entry is None:
        raise NotFound("Não há no cadastro deste município um condutor ou agente autorizado com esses dados.")
    if not entry["email"]:
        raise ValidationFailed({"email": "O cadastro não tem e-mail: registre o e-mail antes de credenciar."})
    now = clock.now_utc()
    with store.transaction(db):
        doc = ensure_account(db, municipality, kind, document, person_cpf, entry["name"], actor.username)
        if doc["status"] == "ativa":
            raise ValidationFailed({"document": "Esta conta já está ativa; a pessoa pode pedir nova senha "
                                                "no portal."})
        send_code(db, doc, entry["email"], ACTIVATION, now)
        record(db, actor, doc, "enroll", "credenciamento de ofício; código enviado ao e-mail do cadastro")


def create_demo_account(db: Database, municipality: str, kind: str, document: str, person_cpf: str,
                        password: str, name: str = "", email: str = "") -> None:
    """A ready account with a known password, in a demonstration store only (``python -m seed --demo``);
    a requerente's (``name``, ``email``) as if the person had opened it."""
    meta = db["meta"].find_one({"_id": "store"})
    if not meta or meta.get("kind") != "demo":
        raise ValidationFailed({"store": "Contas de demonstração só num armazenamento de demonstração."})
    if kind == REQUESTER and name and email:
        ensure_account(db, municipality, kind, document, person_cpf, name, "carga de demonstração", email)
    entry = register_entry(db, municipality, kind, document, person_cpf)
    if entry is None:
        raise NotFound("Cadastro de demonstração ausente.")
    doc = ensure_account(db, municipality, kind, document, person_cpf, entry["name"], "carga de demonstração")
    if doc["status"] == "ativa":
        return
    now = clock.now_utc()
    update: dict[str, Any] = {"status": "ativa", "password_hash": sessions.hash_password(password),
                              "hash_scheme": sessions.HASH_SCHEME, "activated_at": now,
                              "consent": {"version": LGPD_VERSION, "at": now}}
    with store.transaction(db):
        db[ACCOUNTS].update_one({"_id": doc["_id"]}, {"$set": encode(update)})
        record(db, person_of(doc).actor, doc, "activate", "conta de demonstração")
