"""The administration of user accounts (``ti``): create, change, unlock and list the users of one's
municipalities.

A ``ti`` user manages only users whose municipalities are all within their own, and only a ``ti``
with every municipality (``*``) grants ``*``. Passwords are kept only hashed
(:func:`services.shared.sessions.hash_password`); a password, role, municipality or active change
bumps the user's session generation, which ends their open sessions.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from pymongo.database import Database

from services import store
from services.shared import audit, auth, clock, list_counts, sessions
from services.shared.auth import (
    ALL_MUNICIPALITIES,
    ROLES,
    SYSTEM,
    Actor,
    authorize,
)
from services.shared.boundary import checked
from services.shared.errors import (
    Conflict,
    NotFound,
    PermissionDenied,
    ValidationFailed,
)
from services.store import DuplicateKeyError, decode, encode, insert_one

MIN_PASSWORD_LENGTH = 10
log = logging.getLogger("painel")


def _password_errors(password: str) -> str | None:
    if not isinstance(password, str):
        return "Senha: informe um texto."
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"A senha deve ter ao menos {MIN_PASSWORD_LENGTH} caracteres."
    return None


def _validate_user(username: str, name: str, role: str, municipalities: list[str], password: str | None) -> dict[str, str]:
    errors = {}
    if problem := auth.username_problem(username):
        errors["username"] = problem
    if not name.strip():
        errors["name"] = "Nome é obrigatório."
    if role not in ROLES:
        errors["role"] = "Perfil inválido."
    if not municipalities:
        errors["municipalities"] = "Escolha ao menos um município."
    if password is not None and (problem := _password_errors(password)):
        errors["password"] = problem
    return errors


def _may_grant(actor: Actor, municipalities: list[str]) -> None:
    if ALL_MUNICIPALITIES in municipalities and ALL_MUNICIPALITIES not in actor.municipalities:
        raise PermissionDenied("Só a TI com acesso a todos os municípios pode conceder acesso a todos.")
    if not auth._covers(actor.municipalities, list(municipalities)):
        raise PermissionDenied("Você só pode dar acesso aos municípios em que você atua.")


@checked
def create_user(
    db: Database, actor: Actor, username: str, name: str, role: str, municipalities: list[str], password: str
) -> str:
    """Create a user (``ti`` only, within the actor's municipalities); the password is kept only hashed."""
    authorize(actor, "admin")
    errors = _validate_user(username, name, role, municipalities, password)
    if errors:
        raise ValidationFailed(errors)
    _may_grant(actor, municipalities)
    doc = {
        "username": auth.normal_username(username),
        "name": name.strip(),
        "role": role,
        "municipalities": list(municipalities),
        "password_hash": sessions.hash_password(password),
        "hash_scheme": sessions.HASH_SCHEME,
        "active": True,
        "failed_logins": 0,
        "locked_until": None,
        "session_generation": 0,
        "created_at": clock.now_utc(),
    }
    public = {k: v for k, v in doc.items() if k not in ("password_hash", "hash_scheme", "session_generation")}
    with store.transaction(db):
        try:
            inserted = insert_one(db["users"], encode(doc))
        except DuplicateKeyError:
            raise Conflict(f"Já existe o usuário '{doc['username']}'.", field="username") from None
        audit.record(db, actor, None, "create", "users", inserted, {}, public)
    return str(inserted)


def _update_of(actor: Actor, doc: dict, changes: dict) -> dict:
    """The fields to set for ``changes`` on the user ``doc``, refused with a pt-BR message if not allowed."""
    update: dict[str, Any] = {}
    errors: dict[str, str] = {}
    if "name" in changes:
        if not str(changes["name"] or "").strip():
            errors["name"] = "Nome é obrigatório."
        update["name"] = str(changes["name"] or "").strip()
    if "role" in changes:
        if changes["role"] not in ROLES:
            errors["role"] = "Perfil inválido."
        update["role"] = changes["role"]
    if "municipalities" in changes:
        if not changes["municipalities"]:
            errors["municipalities"] = "Escolha ao menos um município."
        update["municipalities"] = list(changes["municipalities"] or [])
    if "active" in changes:
        update["active"] = bool(changes["active"])
    if changes.get("password") is not None:
        if problem := _password_errors(changes["password"]):
            errors["password"] = problem
    if errors:
        raise ValidationFailed(errors)
    if "municipalities" in update:
        _may_grant(actor, update["municipalities"])
    if doc["username"] == actor.username and (
        update.get("active") is False or update.get("role", doc["role"]) != doc["role"]
    ):
        raise PermissionDenied("Você não pode desativar nem mudar o perfil da sua própria conta; peça a outro usuário da TI.")
    if changes.get("unlock"):
        update.update(failed_logins=0, locked_until=None)
    if changes.get("password"):
        update.update(password_hash=sessions.hash_password(changes["password"]), hash_scheme=sessions.HASH_SCHEME)
    return update


def _ends_sessions(doc: dict, update: dict) -> bool:
    """Whether the change must end the user's open sessions."""
    return (
        "password_hash" in update
        or update.get("active") is False
        or update.get("role", doc["role"]) != doc["role"]
        or update.get("municipalities", doc.get("municipalities", [])) != doc.get("municipalities", [])
    )


@checked
def update_user(db: Database, actor: Actor, username: str, **changes: str | bool | list[str]) -> None:
    """Change name, role, municipalities, active flag, password, or unlock (``ti`` only, within scope)."""
    doc = managed_user(db, actor, username)
    update = _update_of(actor, doc, changes)
    if not update:
        return
    operation: dict[str, Any] = {"$set": encode(update)}
    if _ends_sessions(doc, update):
        operation["$inc"] = {"session_generation": 1}
    secret = ("password_hash", "hash_scheme")
    before = {k: doc.get(k) for k in update if k not in secret}
    after = {k: v for k, v in update.items() if k not in secret}
    if "password_hash" in update:
        before["password"], after["password"] = "(anterior)", "(alterada)"
    with store.transaction(db):
        db["users"].update_one({"_id": doc["_id"]}, operation)
        audit.record(db, actor, None, "update", "users", doc["_id"], before, after)


@checked
def list_users(db: Database, actor: Actor) -> list[dict]:
    """The users the actor may manage: those whose municipalities are all within the actor's."""
    return list(users_page(db, actor, limit=0).rows)


@dataclass(frozen=True)
class UsersPage:
    """A page of the users list, with how many users the search finds (up to the list's cap)."""

    rows: tuple[dict, ...]
    total: int


@checked
def users_page(db: Database, actor: Actor, search: str = "", skip: int = 0, limit: int = 25) -> UsersPage:
    """One page of :func:`list_users`, by username, of those whose username or name holds ``search``
    (any case): a count and a page of the username index, whatever the number of users."""
    authorize(actor, "admin")
    query = users_scope(db, actor)
    term = str(search or "").strip()
    if term:
        plain = {"$regex": re.escape(term), "$options": "i"}
        query = {"$and": [query, {"$or": [{"username": plain}, {"name": plain}]}]}
    rows = db["users"].find(query, {"password_hash": 0, "hash_scheme": 0}).sort("username", 1).skip(skip).limit(limit)
    return UsersPage(tuple(decode(r) for r in rows), list_counts.counted(db["users"], query))


@checked
def managed_user(db: Database, actor: Actor, username: str) -> dict:
    """The user ``username`` (without its password) if the actor manages it; else NotFound, as if there
    were no such user (a TI of one municipality learns nothing of the others' users)."""
    authorize(actor, "admin")
    key = auth.normal_username(username)
    doc = decode(db["users"].find_one({"username": key}, {"password_hash": 0, "hash_scheme": 0})) if key else None
    if doc is None or not auth._covers(actor.municipalities, doc.get("municipalities", [])):
        raise NotFound(f"Usuário '{username}' não encontrado entre os que você administra.")
    return doc


def users_scope(db: Database, actor: Actor) -> dict[str, Any]:
    """A query of the users whose municipalities are all within the actor's (every user for ``*``)."""
    if ALL_MUNICIPALITIES in actor.municipalities:
        return {}
    outside = [c for c in db["users"].distinct("municipalities") if c not in actor.municipalities]
    return {"municipalities": {"$nin": outside + [ALL_MUNICIPALITIES]}}


def create_first_ti(db: Database, username: str, name: str, password: str, municipalities: list[str]) -> str:
    """For a real deployment: the first ``ti`` user, allowed only while no ``ti`` user exists."""
    if db["users"].count_documents({"role": "ti"}) > 0:
        raise Conflict("Já existe um usuário de TI; crie os demais pelo painel.")
    return create_user(db, SYSTEM, username, name, "ti", municipalities, password)


def normalise_stored_usernames(db: Database) -> list[str]:
    """Bring users stored before the username rule to their normal form (start-up, idempotent).

    A stored name that differs from its normal form only by case or by NFKC (``Maria.Souza``) is
    renamed to it, with its open sessions and an audit entry. A name outside the alphabet, or one
    whose normal form another user already has, is left as it is (nobody can log in with it) and
    returned, for TI to recreate under a valid name.
    """
    for doc in list(db["users"].find({}, {"username": 1})):
        old, new = doc["username"], auth.normal_username(doc["username"])
        if new is None or new == old or store.exists(db["users"], {"username": new}):
            continue
        with store.transaction(db):
            db["users"].update_one({"_id": doc["_id"], "username": old}, {"$set": {"username": new}})
            db[sessions.SESSIONS].update_many({"username": old}, {"$set": {"username": new}})
            audit.record(db, SYSTEM, None, "update", "users", doc["_id"], {"username": old}, {"username": new},
                         "nome de usuário na forma normal")
    left = unnormalised_usernames(db)
    if left:
        log.warning("Usuários fora da regra de nomes (ninguém entra com eles; recrie-os com um nome válido): %s",
                    ", ".join(left))
    return left


def unnormalised_usernames(db: Database) -> list[str]:
    """The stored usernames that are not in their normal form (none once start-up renamed them)."""
    names = (doc["username"] for doc in db["users"].find({}, {"username": 1}))
    return sorted(name for name in names if auth.normal_username(name) != name)
