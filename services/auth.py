"""Users, passwords (bcrypt), lockout after failed logins, roles and the permission check.

Roles: ``secretaria`` registers and issues; ``gabinete`` reads summaries only; ``ti`` manages
users, parameters, custom fields and reads the audit log. Every service that reads or writes
calls :func:`authorize`, so a page hidden from a role is also refused when called directly.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import bcrypt
from pymongo.database import Database

from services import audit, clock
from services.errors import Conflict, PermissionDenied, ServiceError, ValidationFailed
from services.store import DuplicateKeyError, decode, encode, insert_one

ROLES = {
    "secretaria": "Secretaria (cadastros e emissões)",
    "gabinete": "Gabinete do Prefeito (somente leitura)",
    "ti": "TI municipal (usuários, parâmetros, auditoria)",
}

PERMISSIONS = {
    "secretaria": {"read", "write", "summary"},
    "gabinete": {"summary"},
    "ti": {"read", "summary", "admin"},
}

MAX_FAILED_LOGINS = 5
LOCK_MINUTES = 15
MIN_PASSWORD_LENGTH = 8


@dataclass(frozen=True)
class Actor:
    """Who acts: carried by every service call."""

    username: str
    name: str
    role: str
    municipalities: tuple[str, ...]

    def can(self, permission: str) -> bool:
        return permission in PERMISSIONS.get(self.role, set())


SYSTEM = Actor("sistema", "Sistema (carga inicial)", "ti", ("*",))


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


def authorize(actor: Actor, permission: str, municipality: str | None = None) -> None:
    """Refuse unless the actor's role has ``permission`` in ``municipality``."""
    if not actor.can(permission):
        raise PermissionDenied(f"O perfil '{actor.role}' não permite esta ação.")
    if municipality and "*" not in actor.municipalities and municipality not in actor.municipalities:
        raise PermissionDenied("Você não tem acesso a este município.")


def hash_password(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt()).decode()


def _actor(doc: dict) -> Actor:
    return Actor(doc["username"], doc["name"], doc["role"], tuple(doc.get("municipalities", [])))


def authenticate(db: Database, username: str, password: str) -> Actor:
    """The actor for valid credentials; counts failures and locks after five in a row."""
    users = db["users"]
    username = username.strip().lower()
    doc = users.find_one({"username": username})
    now = clock.now_utc()
    if doc is None or not doc.get("active", True):
        raise InvalidCredentials("Usuário ou senha incorretos.")
    locked_until = decode(doc.get("locked_until"))
    if locked_until and locked_until > now:
        raise AccountLocked(locked_until)
    if bcrypt.checkpw(password.encode(), doc["password_hash"].encode()):
        users.update_one({"_id": doc["_id"]}, {"$set": {"failed_logins": 0, "locked_until": None, "last_login": now}})
        return _actor(doc)
    failures = (0 if locked_until else doc.get("failed_logins", 0)) + 1
    update: dict = {"failed_logins": failures, "locked_until": None}
    if failures >= MAX_FAILED_LOGINS:
        update["locked_until"] = now + timedelta(minutes=LOCK_MINUTES)
    users.update_one({"_id": doc["_id"]}, {"$set": encode(update)})
    if failures >= MAX_FAILED_LOGINS:
        audit.record(db, _actor(doc), None, "lock", "users", doc["_id"], {}, {"locked_until": update["locked_until"]})
        raise AccountLocked(update["locked_until"])
    raise InvalidCredentials(
        f"Usuário ou senha incorretos. Restam {MAX_FAILED_LOGINS - failures} tentativa(s) antes do bloqueio."
    )


def _validate_user(username: str, name: str, role: str, municipalities: list[str], password: str | None) -> dict[str, str]:
    errors = {}
    if not username.strip() or not username.replace(".", "").replace("_", "").isalnum():
        errors["username"] = "Usuário: use letras, números, ponto ou sublinhado."
    if not name.strip():
        errors["name"] = "Nome é obrigatório."
    if role not in ROLES:
        errors["role"] = "Perfil inválido."
    if not municipalities:
        errors["municipalities"] = "Escolha ao menos um município."
    if password is not None and len(password) < MIN_PASSWORD_LENGTH:
        errors["password"] = f"A senha deve ter ao menos {MIN_PASSWORD_LENGTH} caracteres."
    return errors


def create_user(
    db: Database, actor: Actor, username: str, name: str, role: str, municipalities: list[str], password: str
) -> str:
    """Create a user (``ti`` only). The password is stored only as a bcrypt hash."""
    authorize(actor, "admin")
    errors = _validate_user(username, name, role, municipalities, password)
    if errors:
        raise ValidationFailed(errors)
    doc = {
        "username": username.strip().lower(),
        "name": name.strip(),
        "role": role,
        "municipalities": list(municipalities),
        "password_hash": hash_password(password),
        "active": True,
        "failed_logins": 0,
        "locked_until": None,
        "created_at": clock.now_utc(),
    }
    try:
        inserted = insert_one(db["users"], encode(doc))
    except DuplicateKeyError:
        raise Conflict(f"Já existe o usuário '{doc['username']}'.", field="username") from None
    public = {k: v for k, v in doc.items() if k != "password_hash"}
    audit.record(db, actor, None, "create", "users", inserted, {}, public)
    return str(inserted)


def update_user(db: Database, actor: Actor, username: str, **changes) -> None:
    """Change name, role, municipalities, active flag, or unlock (``ti`` only)."""
    authorize(actor, "admin")
    doc = decode(db["users"].find_one({"username": username}))
    if doc is None:
        raise ServiceError(f"Usuário '{username}' não encontrado.")
    allowed = {"name", "role", "municipalities", "active"}
    update = {k: v for k, v in changes.items() if k in allowed}
    if changes.get("unlock"):
        update.update(failed_logins=0, locked_until=None)
    if changes.get("password"):
        if len(changes["password"]) < MIN_PASSWORD_LENGTH:
            raise ValidationFailed({"password": f"A senha deve ter ao menos {MIN_PASSWORD_LENGTH} caracteres."})
        update["password_hash"] = hash_password(changes["password"])
    db["users"].update_one({"_id": doc["_id"]}, {"$set": encode(update)})
    before = {k: doc.get(k) for k in update if k != "password_hash"}
    after = {k: v for k, v in update.items() if k != "password_hash"}
    if "password_hash" in update:
        before["password"], after["password"] = "(anterior)", "(alterada)"
    audit.record(db, actor, None, "update", "users", doc["_id"], before, after)


def list_users(db: Database, actor: Actor) -> list[dict]:
    authorize(actor, "admin")
    rows = db["users"].find({}, {"password_hash": 0}).sort("username", 1)
    return [decode(r) for r in rows]


def create_first_ti(db: Database, username: str, name: str, password: str, municipalities: list[str]) -> str:
    """For a real deployment: the first ``ti`` user, allowed only while no ``ti`` user exists."""
    if db["users"].count_documents({"role": "ti"}) > 0:
        raise Conflict("Já existe um usuário de TI; crie os demais pelo painel.")
    return create_user(db, SYSTEM, username, name, "ti", municipalities, password)
