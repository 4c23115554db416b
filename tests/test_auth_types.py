"""A login called with a wrong type (issue 20, defect 2, the login half).

A wrong type is not a password attempt: it gets a pt-BR ValidationFailed under its field, no
failed login is counted against the account, nothing is audited, and the right password still
opens it afterwards.
"""
from __future__ import annotations

import pytest

from services.shared import accounts, sessions
from services.shared.errors import ValidationFailed
from tests.conftest import TI

PASSWORD = "senha-forte-1"
WRONG = [{"$ne": None}, None, 123, ["senha-forte-1"], b"senha-forte-1", 1.5, True]
IDS = ["operator dict", "None", "int", "list", "bytes", "float", "bool"]


@pytest.fixture
def user(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], PASSWORD)
    return "maria.silva"


def _untouched(db) -> None:
    doc = db["users"].find_one({"username": "maria.silva"})
    assert doc["failed_logins"] == 0 and doc["locked_until"] is None
    assert db["audit"].count_documents({"action": {"$in": ["login_failed", "lock", "login"]}}) == 0


@pytest.mark.parametrize("password", WRONG, ids=IDS)
def test_a_password_of_a_wrong_type_is_refused_without_counting_an_attempt(db, user, password):
    for _ in range(sessions.MAX_FAILED_LOGINS + 1):
        with pytest.raises(ValidationFailed) as refused:
            sessions.login(db, user, password)
        assert refused.value.errors == {"password": "Senha: informe um texto."}
    _untouched(db)
    assert sessions.login(db, user, PASSWORD)[0].username == user


@pytest.mark.parametrize("username", WRONG, ids=IDS)
def test_a_username_of_a_wrong_type_is_refused_without_counting_an_attempt(db, user, username):
    with pytest.raises(ValidationFailed) as refused:
        sessions.login(db, username, PASSWORD)
    assert refused.value.errors == {"username": "Usuário: informe um texto."}
    _untouched(db)
