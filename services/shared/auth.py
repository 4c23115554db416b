"""Who acts and what they may do: roles, the actor every service call carries, and the permission check.

Roles: ``secretaria`` registers and issues; ``gabinete`` reads summaries only; ``ti`` manages
users, parameters, custom fields and reads the audit log. Every service that reads or writes
calls :func:`authorize`, so a page hidden from a role is also refused when called directly.
An actor works in a list of municipalities, or in every one (``*``). Logins and sessions are in
``services.shared.sessions``, the administration of users in ``services.shared.accounts``.
"""
from __future__ import annotations

import string
import unicodedata
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
    # a driver or a platform's authorized person, logged in on the public portal: no staff permission at all
    "regulado": set(),
}
REGULATED_ROLE = "regulado"

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
    """Refuse unless the actor's role has ``permission`` in ``municipality``; a regulated person (the
    public portal's ``regulado``) is refused every staff permission, whatever the municipality."""
    if getattr(actor, "role", None) == REGULATED_ROLE:
        raise PermissionDenied("Esta conta de acesso externo não tem acesso aos serviços da prefeitura.")
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


USERNAME_CHARACTERS = frozenset(string.ascii_letters + string.digits + "._-")
USERNAME_ALPHABET = "use só letras sem acento (a a z), números, ponto, hífen ou sublinhado"


def _username(text: object) -> tuple[str | None, str | None]:
    """(the normal form, None) of a valid username, or (None, the pt-BR reason it is not one)."""
    if not isinstance(text, str):
        return None, "Usuário: informe um texto."
    if len(text) > 16 * MAX_USERNAME_LENGTH:  # before NFKC, which may grow a text
        return None, f"O usuário pode ter até {MAX_USERNAME_LENGTH} caracteres."
    name = unicodedata.normalize("NFKC", text).strip()
    if not name:
        return None, "Informe o usuário."
    if len(name) > MAX_USERNAME_LENGTH:
        return None, f"O usuário pode ter até {MAX_USERNAME_LENGTH} caracteres."
    bad = next((c for c in name if c not in USERNAME_CHARACTERS), None)
    if bad is not None:
        shown = f"'{bad}' (U+{ord(bad):04X})" if bad.isprintable() else f"U+{ord(bad):04X}"
        return None, f"Usuário: o caractere {shown} não é permitido; {USERNAME_ALPHABET}."
    return name.lower(), None


def normal_username(text: object) -> str | None:
    """The one form a username is stored, looked up and compared in; None for an invalid name.

    NFKC first (a fullwidth "ｓ" is an "s"), then trimmed; the result must be ASCII letters,
    digits, ``.``, ``_`` or ``-`` (so a Cyrillic "а", a dotless "ı", a Greek "ο" or an Arabic-Indic
    digit, which NFKC keeps, are refused, not mistaken for a Latin letter), then lowercase: the
    stored name is its own case-insensitive key and the unique index on ``username`` holds for it.
    """
    return _username(text)[0]


def username_problem(text: object) -> str | None:
    """Why ``text`` is not a valid username (pt-BR), or None."""
    return _username(text)[1]
