"""Logins, passwords (bcrypt), lockout after failed logins, and the browser session with its cookie.

A login answers the same message at the same cost for an unknown user, an inactive one and a wrong
password. Failures are counted with an atomic increment *before* the password is checked, so
parallel attempts get at most ``MAX_FAILED_LOGINS`` checks before the lock holds. A browser session
keeps only the username, the user's session generation and the last activity; every request
re-reads the user (:func:`resume_session`), and a password, role, municipality or active change
bumps the generation (``services.shared.accounts``).

A login also opens a stored session (collection ``sessions``, keyed by the SHA-256 of a random
token) and hands the browser a signed cookie value ``token.expiry.signature``: a reload or a new tab
resumes from it (:func:`resume_cookie`). The cookie holds no password and nothing about the user;
a forged, expired, unknown or ended token is simply not a session. Logging out ends the stored
session, so a copied cookie is worthless afterwards.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import bcrypt
from pymongo import ReturnDocument
from pymongo.database import Database

from services import store
from services.shared import audit, auth, clock, config
from services.shared.auth import Actor
from services.shared.errors import ServiceError, ValidationFailed
from services.store import decode, encode, insert_one

MAX_FAILED_LOGINS = 5
LOCK_MINUTES = 15
BCRYPT_ROUNDS = 12
BCRYPT_MAX_BYTES = 72
# New hashes: bcrypt over base64(SHA-256(password)), so any length works (bcrypt refuses > 72 bytes).
# Hashes stored without ``hash_scheme`` are plain bcrypt of the UTF-8 password (made before).
HASH_SCHEME = "sha256-bcrypt"
WRONG_CREDENTIALS = "Usuário ou senha incorretos."
SESSIONS = "sessions"
SESSION_COOKIE = "painel_sessao"
# token.expiry.signature as _store_session writes it: URL-safe base64, an expiry of ASCII digits.
# Anything else (non-ASCII, "²", a 5.000-digit number, another count of parts) is no session.
COOKIE_FORM = re.compile(r"([A-Za-z0-9_-]{16,128})\.([0-9]{1,12})\.([A-Za-z0-9_-]{16,128})")


@dataclass(frozen=True)
class Session:
    """What a browser session keeps between requests; the actor is rebuilt from the store each time."""

    username: str
    generation: int
    last_seen: datetime
    token: str = ""  # the signed cookie value of the stored session ("" for a session without one)
    expires_at: datetime | None = None


class InvalidCredentials(ServiceError):
    pass


class AccountLocked(ServiceError):
    def __init__(self, until: datetime) -> None:
        local = clock.to_local(until)
        super().__init__(
            f"Conta bloqueada por excesso de tentativas até {local:%d/%m/%Y %H:%M}. "
            "Aguarde ou peça à TI para desbloquear."
        )
        self.until = until


class SessionEnded(ServiceError):
    """The session may not go on (idle too long, account deactivated or changed): log in again."""


# -- passwords ---------------------------------------------------------------------------------


def _utf8(password: str) -> bytes:
    return password.encode("utf-8", "surrogatepass")


def _prehash(password: str) -> bytes:
    return base64.b64encode(hashlib.sha256(_utf8(password)).digest())


def hash_password(password: str) -> str:
    """A bcrypt hash of the pre-hashed password (scheme ``HASH_SCHEME``)."""
    return bcrypt.hashpw(_prehash(password), bcrypt.gensalt(BCRYPT_ROUNDS)).decode()


def _check_password(password: str, stored_hash: str, scheme: str | None) -> bool:
    """One bcrypt check of ``password`` against a stored hash of either scheme."""
    secret = _prehash(password) if scheme == HASH_SCHEME else _utf8(password)
    if len(secret) > BCRYPT_MAX_BYTES:
        # A plain-bcrypt hash never held such a password: spend the same cost, then refuse.
        bcrypt.checkpw(_prehash(password), stored_hash.encode())
        return False
    try:
        return bcrypt.checkpw(secret, stored_hash.encode())
    except ValueError:
        return False


def check_password(password: str, stored_hash: str | None, scheme: str | None) -> bool:
    """One bcrypt check; with no stored hash (unknown account) the same cost is spent on a dummy."""
    if not stored_hash:
        _check_password(password, _dummy_hash(), HASH_SCHEME)
        return False
    return _check_password(password, stored_hash, scheme)


@functools.cache
def _dummy_hash() -> str:
    """A hash of a random password, made once per process: unknown users cost one check too."""
    return hash_password(secrets.token_hex(16))


# -- login -------------------------------------------------------------------------------------


def _actor(doc: dict) -> Actor:
    return Actor(doc["username"], doc["name"], doc["role"], tuple(doc.get("municipalities", [])))


def _stranger(username: str) -> Actor:
    """Who an audit entry names when no user matches (an invalid name is not stored as typed)."""
    return Actor(auth.normal_username(username) or "(inválido)", "(desconhecido)", "", ())


def authenticate(db: Database, username: str, password: str) -> Actor:
    """The actor for valid credentials; counts failures and locks after ``MAX_FAILED_LOGINS``."""
    return login(db, username, password)[0]


def _refuse_wrong_types(username: object, password: object) -> None:
    """A name or password that is not text is a malformed call, not a password attempt: refused
    before any lookup, so nothing is counted against the account and nothing is audited."""
    errors = {}
    if not isinstance(username, str):
        errors["username"] = "Usuário: informe um texto."
    if not isinstance(password, str):
        errors["password"] = "Senha: informe um texto."
    if errors:
        raise ValidationFailed(errors)


def login(db: Database, username: str, password: str) -> tuple[Actor, Session]:
    """Check credentials and open a session: the actor and what the browser session keeps.

    The name is looked up in its normal form (:func:`auth.normal_username`: NFKC, no case); a
    name outside the alphabet finds nobody and costs the same as an unknown one.
    """
    _refuse_wrong_types(username, password)
    users = db["users"]
    username = auth.normal_username(username) or ""
    now = clock.now_utc()
    doc = users.find_one({"username": username}) if username else None
    if doc is None or not doc.get("active", True):
        _check_password(password, _dummy_hash(), HASH_SCHEME)
        audit.record(db, _stranger(username), None, "login_failed", "users", doc and doc["_id"], {}, {},
                     "usuário inexistente ou inativo")
        raise InvalidCredentials(WRONG_CREDENTIALS)
    who = _actor(doc)
    claim = _claim_attempt(db, doc, now)
    if claim is None:
        until = decode(users.find_one({"_id": doc["_id"]}, {"locked_until": 1}).get("locked_until"))
        audit.record(db, who, None, "login_failed", "users", doc["_id"], {}, {}, "conta bloqueada")
        raise AccountLocked(until or now + timedelta(minutes=LOCK_MINUTES))
    if _check_password(password, doc["password_hash"], doc.get("hash_scheme")):
        return who, _open_session(db, doc, password, now)
    locked = claim["failed_logins"] >= MAX_FAILED_LOGINS
    until = decode(claim.get("locked_until"))
    with store.transaction(db):
        audit.record(db, who, None, "login_failed", "users", doc["_id"], {}, {}, "senha incorreta")
        if locked:
            audit.record(db, who, None, "lock", "users", doc["_id"], {}, {"locked_until": until})
    if locked:
        raise AccountLocked(until)
    raise InvalidCredentials(WRONG_CREDENTIALS)


def _claim_attempt(db: Database, doc: dict, now: datetime) -> dict | None:
    return claim_attempt(db, "users", doc, now)


def claim_attempt(db: Database, collection: str, doc: dict, now: datetime) -> dict | None:
    """Count one attempt atomically before its password check; None while the account is locked.

    The attempt that reaches ``MAX_FAILED_LOGINS`` sets the lock in the same update, and a right
    password on it clears the lock again. An expired lock restarts the count. ``collection`` holds
    the accounts (``users``; the portal's regulated accounts use the same lock).
    """
    users = db[collection]
    expired = {"$or": [
        {"locked_until": {"$ne": None, "$lte": encode(now)}},
        {"locked_until": None, "failed_logins": {"$gte": MAX_FAILED_LOGINS}},  # a count left without its lock
    ]}
    users.update_one({"_id": doc["_id"], **expired}, {"$set": {"failed_logins": 0, "locked_until": None}})
    below_last = {"$or": [{"failed_logins": {"$lt": MAX_FAILED_LOGINS - 1}}, {"failed_logins": {"$exists": False}}]}
    claim = users.find_one_and_update(
        {"_id": doc["_id"], **below_last}, {"$inc": {"failed_logins": 1}}, return_document=ReturnDocument.AFTER
    )
    if claim is None:
        claim = users.find_one_and_update(
            {"_id": doc["_id"], "failed_logins": MAX_FAILED_LOGINS - 1},
            {"$inc": {"failed_logins": 1}, "$set": {"locked_until": encode(now + timedelta(minutes=LOCK_MINUTES))}},
            return_document=ReturnDocument.AFTER,
        )
    return claim


def _open_session(db: Database, doc: dict, password: str, now: datetime) -> Session:
    """Reset the failure count, upgrade a plain-bcrypt hash, record the login."""
    update: dict[str, Any] = {"failed_logins": 0, "locked_until": None, "last_login": now}
    if doc.get("hash_scheme") != HASH_SCHEME:
        update.update(password_hash=hash_password(password), hash_scheme=HASH_SCHEME)
    with store.transaction(db):
        db["users"].update_one({"_id": doc["_id"]}, {"$set": encode(update)})
        audit.record(db, _actor(doc), None, "login", "users", doc["_id"], {}, {})
        return _store_session(db, doc["username"], doc.get("session_generation", 0), now)


# -- stored sessions and their cookie ----------------------------------------------------------


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _signature(token: str, expiry: int, purpose: bytes = b"painel-session-cookie") -> str:
    key = hmac.new(config.public_check_secret(), purpose, hashlib.sha256).digest()
    mac = hmac.new(key, f"{token}.{expiry}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _store_session(db: Database, username: str, generation: int, now: datetime) -> Session:
    """A new stored session and its signed cookie value, valid ``PAINEL_SESSION_HOURS`` at most."""
    token = secrets.token_urlsafe(32)
    expires_at = now + timedelta(hours=config.session_max_hours())
    insert_one(db[SESSIONS], encode({"_id": _digest(token), "username": username, "generation": generation,
                                     "created_at": now, "last_seen": now, "expires_at": expires_at,
                                     "ended_at": None}))
    expiry = int(expires_at.timestamp())
    return Session(username, generation, now, f"{token}.{expiry}.{_signature(token, expiry)}", expires_at)


def _token_of(cookie: str, now: datetime, purpose: bytes = b"painel-session-cookie") -> str | None:
    """The token of a well-signed, unexpired cookie value; None for anything else."""
    form = COOKIE_FORM.fullmatch(cookie) if isinstance(cookie, str) else None
    if form is None:
        return None
    token, expiry, signature = form[1], int(form[2]), form[3]
    if not hmac.compare_digest(signature, _signature(token, expiry, purpose)) or expiry <= now.timestamp():
        return None
    return token


def signed_token(expires_at: datetime, purpose: bytes) -> tuple[str, str]:
    """(the store key, the signed cookie value) of a new random session token for another entry point
    (the public portal signs with its own ``purpose``, so a panel cookie never opens a portal session)."""
    token = secrets.token_urlsafe(32)
    expiry = int(expires_at.timestamp())
    return _digest(token), f"{token}.{expiry}.{_signature(token, expiry, purpose)}"


def key_of_cookie(cookie: object, now: datetime, purpose: bytes) -> str | None:
    """The store key of a well-signed, unexpired cookie of ``purpose``; None for anything else."""
    token = _token_of(cookie, now, purpose) if isinstance(cookie, str) else None
    return _digest(token) if token else None


def _end_session(db: Database, session: Session, now: datetime) -> None:
    token = session.token.split(".")[0]
    if token:
        db[SESSIONS].update_one({"_id": _digest(token), "ended_at": None}, {"$set": {"ended_at": encode(now)}})


def resume(db: Database, session: Session, now: datetime) -> tuple[Actor, Session]:
    """The actor of a request of an open browser session, and the session with this activity.

    A session with a cookie is checked against its stored session (ended by a logout in another
    tab, past its expiry) and its idle time counts from the last request of any tab. Raises
    SessionEnded with the reason in pt-BR.
    """
    if not session.token:
        actor = resume_session(db, session.username, session.generation, session.last_seen, now)
        return actor, replace(session, last_seen=now)
    token = _token_of(session.token, now)
    stored = decode(db[SESSIONS].find_one({"_id": _digest(token)})) if token else None
    if stored is None or stored.get("ended_at") is not None:
        raise SessionEnded("Sua sessão foi encerrada; entre novamente.")
    try:
        actor = resume_session(db, stored["username"], stored["generation"], stored["last_seen"], now)
    except SessionEnded:
        _end_session(db, session, now)
        raise
    db[SESSIONS].update_one({"_id": stored["_id"]}, {"$set": {"last_seen": encode(now)}})
    return actor, replace(session, last_seen=now)


def resume_cookie(db: Database, cookie: str, now: datetime) -> tuple[Actor, Session] | None:
    """The actor and session a browser's cookie stands for, on a reload or a new tab.

    None for a forged, expired, unknown or ended cookie (the login page simply shows); raises
    SessionEnded when the session exists but may not go on (idle, user changed or deactivated).
    """
    token = _token_of(cookie, now)
    stored = decode(db[SESSIONS].find_one({"_id": _digest(token)})) if token else None
    if stored is None or stored.get("ended_at") is not None:
        return None
    session = Session(stored["username"], stored["generation"], stored["last_seen"], cookie, stored["expires_at"])
    return resume(db, session, now)


def resume_session(db: Database, username: str, generation: int, last_seen: datetime, now: datetime) -> Actor:
    """The actor of a request, rebuilt from the user as stored now (one read).

    Raises SessionEnded when the user no longer exists or is inactive, when their password, role
    or municipalities changed since the login (another generation), or after more than
    ``PAINEL_SESSION_IDLE_MINUTES`` without a request.
    """
    doc = db["users"].find_one({"username": username}, {"password_hash": 0})
    if doc is None or not doc.get("active", True):
        reason, message = "conta desativada", "Sua conta foi desativada; fale com a TI do município."
    elif doc.get("session_generation", 0) != generation:
        reason, message = "acesso alterado", "Sua senha ou seu acesso foi alterado; entre novamente."
    elif now - last_seen > timedelta(minutes=config.session_idle_minutes()):
        reason, message = "inatividade", "Sua sessão expirou por inatividade; entre novamente."
    else:
        return _actor(doc)
    who = _actor(doc) if doc else _stranger(username)
    audit.record(db, who, None, "session_expired", "users", doc and doc["_id"], {}, {}, reason)
    raise SessionEnded(message)


def logout(db: Database, actor: Actor, session: Session | None = None) -> None:
    """Record that the user left and end their stored session (its cookie no longer opens it)."""
    now = clock.now_utc()
    with store.transaction(db):
        if session is not None and session.token:
            _end_session(db, session, now)
        audit.record(db, actor, None, "logout", "users", None, {}, {})
