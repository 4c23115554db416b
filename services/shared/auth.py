"""Who acts and what they may do: roles, the actor every service call carries, and the permission check.

Roles: ``secretaria`` registers and issues; ``gabinete`` reads summaries only; ``ti`` manages
users, parameters, custom fields and reads the audit log. Every service that reads or writes
calls :func:`authorize`, so a page hidden from a role is also refused when called directly.
An actor works in a list of municipalities, or in every one (``*``). Logins and sessions are in
``services.shared.sessions``, the administration of users in ``services.shared.accounts``.
"""
from __future__ import annotations

from dataclasses import dataclass

from services.shared.errors import PermissionDenied

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

ALL_MUNICIPALITIES = "*"
MAX_USERNAME_LENGTH = 64


@dataclass(frozen=True)
class Actor:
    """Who acts: carried by every service call."""

    username: str
    name: str
    role: str
    municipalities: tuple[str, ...]

    def can(self, permission: str) -> bool:
        return permission in PERMISSIONS.get(self.role, set())


SYSTEM = Actor("sistema", "Sistema (carga inicial)", "ti", (ALL_MUNICIPALITIES,))


def authorize(actor: Actor, permission: str, municipality: str | None = None) -> None:
    """Refuse unless the actor's role has ``permission`` in ``municipality``."""
    if not actor.can(permission):
        raise PermissionDenied(f"O perfil '{actor.role}' não permite esta ação.")
    if municipality and not _covers(actor.municipalities, [municipality]):
        raise PermissionDenied("Você não tem acesso a este município.")


def _covers(own: tuple[str, ...] | list[str], wanted: list[str]) -> bool:
    """Whether municipalities ``own`` include every one of ``wanted`` (``*`` only from ``*``)."""
    return ALL_MUNICIPALITIES in own or all(code in own and code != ALL_MUNICIPALITIES for code in wanted)


def scope_of(actor: Actor) -> dict:
    """A query limiting documents to the actor's municipalities (and to none of another's)."""
    if "*" in actor.municipalities:
        return {}
    return {"$or": [{"municipality": {"$in": list(actor.municipalities)}}, {"municipality": None}]}


def _is_username(text: str) -> bool:
    """Letters, digits, dot or underscore, up to ``MAX_USERNAME_LENGTH`` characters."""
    return 0 < len(text) <= MAX_USERNAME_LENGTH and text.replace(".", "").replace("_", "").isalnum()
