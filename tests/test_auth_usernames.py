"""Usernames (issue 20, defect 5 / deliverable 7): NFKC-normalised, one ASCII alphabet, no case.

A look-alike of an existing name (Cyrillic "а", dotless "ı", Greek "ο", Arabic-Indic digits) is
refused with a pt-BR message under ``username``; a compatibility form (fullwidth "ｓ") or another
case is the same user: refused as a duplicate at creation, the same account at login. Users stored
before the rule (mixed case) are brought to it at start-up, once.
"""
from __future__ import annotations

import pytest

from services.setup import bootstrap
from services.shared import accounts, sessions
from services.shared.errors import Conflict, ValidationFailed
from services.shared.sessions import InvalidCredentials
from tests.conftest import TI

PASSWORD = "senha-forte-1"
REAL = "secretaria.chapada"
LOOK_ALIKES = {
    "cyrillic a": "secret\u0430ria.chapada",
    "dotless i": "secretar\u0131a.chapada",
    "greek omicron": "secretaria.chapad\u03bf",
    "arabic-indic digit": "secretaria.chapada\u0663",
    "dotted capital I": "secretar\u0130a.chapada",
    "latin with accent": "secretária.chapada",
}


@pytest.fixture
def real(db):
    accounts.create_user(db, TI, REAL, "Ana Paula", "secretaria", ["chapada"], PASSWORD)
    return REAL


@pytest.mark.parametrize("name", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_a_look_alike_of_an_existing_user_cannot_be_created(db, real, name):
    with pytest.raises(ValidationFailed) as refused:
        accounts.create_user(db, TI, name, "Impostora", "secretaria", ["chapada"], PASSWORD)
    message = refused.value.errors["username"]
    assert "letras sem acento" in message and "não é permitido" in message
    assert [u["username"] for u in db["users"].find({})] == [REAL]


@pytest.mark.parametrize("name", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_a_look_alike_does_not_open_the_real_account(db, real, name):
    with pytest.raises(InvalidCredentials):
        sessions.login(db, name, PASSWORD)


@pytest.mark.parametrize("name", ["\uff53ecretaria.chapada", "Secretaria.Chapada", " SECRETARIA.CHAPADA "],
                         ids=["fullwidth s", "capitals", "upper with spaces"])
def test_another_case_or_a_compatibility_form_is_the_same_user(db, real, name):
    with pytest.raises(Conflict) as refused:
        accounts.create_user(db, TI, name, "Outra", "secretaria", ["chapada"], PASSWORD)
    assert refused.value.field == "username" and refused.value.message == f"Já existe o usuário '{REAL}'."
    assert db["users"].count_documents({}) == 1
    assert sessions.login(db, name, PASSWORD)[0].username == REAL


def test_a_new_user_is_stored_in_the_normal_form(db):
    accounts.create_user(db, TI, "Jo\uff33e-Lima_2", "José Lima", "secretaria", ["chapada"], PASSWORD)
    assert [u["username"] for u in db["users"].find({})] == ["jose-lima_2"]
    accounts.update_user(db, TI, "JOSE-LIMA_2", active=False)
    assert db["users"].find_one({"username": "jose-lima_2"})["active"] is False


@pytest.mark.parametrize("name, message", [
    ("", "Informe o usuário."),
    ("a" * 65, "O usuário pode ter até 64 caracteres."),
    ("maria silva", "Usuário: o caractere ' ' (U+0020) não é permitido"),
    ("maria\x00silva", "Usuário: o caractere U+0000 não é permitido"),
    (["maria"], "Usuário: informe um texto."),
])
def test_an_invalid_username_is_refused_in_portuguese(db, name, message):
    with pytest.raises(ValidationFailed) as refused:
        accounts.create_user(db, TI, name, "Maria", "secretaria", ["chapada"], PASSWORD)
    assert refused.value.errors["username"].startswith(message)
    assert db["users"].count_documents({}) == 0


def _legacy_user(db, username: str) -> None:
    """A user written before the rule, as an older version or an import stored it."""
    db["users"].insert_one({"username": username, "name": username, "role": "secretaria",
                            "municipalities": ["chapada"], "password_hash": sessions.hash_password(PASSWORD),
                            "hash_scheme": sessions.HASH_SCHEME, "active": True, "failed_logins": 0,
                            "locked_until": None, "session_generation": 0})


def test_start_up_brings_users_stored_before_the_rule_to_it_once(db):
    _legacy_user(db, "Maria.Souza")
    _legacy_user(db, "ana")
    _legacy_user(db, "Ana")  # would collide with "ana": left as it is, reported
    _legacy_user(db, "jo\u00e3o")  # outside the alphabet: left as it is, reported
    bootstrap.prepare(db)
    assert sorted(u["username"] for u in db["users"].find({})) == ["Ana", "ana", "jo\u00e3o", "maria.souza"]
    assert sessions.login(db, "Maria.Souza", PASSWORD)[0].username == "maria.souza"
    renames = list(db["audit"].find({"action": "update", "collection": "users"}))
    assert [r["changes"] for r in renames] == [{"username": {"before": "Maria.Souza", "after": "maria.souza"}}]
    assert accounts.unnormalised_usernames(db) == ["Ana", "jo\u00e3o"]
    bootstrap.prepare(db)  # idempotent
    assert db["audit"].count_documents({"action": "update", "collection": "users"}) == 1
