"""Login, lockout after five wrong passwords for 15 minutes, and roles enforced inside services."""
from __future__ import annotations

from datetime import timedelta

import pytest

from services import auth, clock, entities, parameters
from services.auth import AccountLocked, InvalidCredentials
from services.errors import PermissionDenied
from tests.conftest import GABINETE, SECRETARIA_CG, TI


@pytest.fixture
def user(db):
    auth.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], "senha-forte-1")
    return "maria.silva"


def test_right_password_gives_the_actor_with_role_and_municipalities(db, user):
    actor = auth.authenticate(db, "Maria.Silva ", "senha-forte-1")
    assert (actor.username, actor.role, actor.municipalities) == ("maria.silva", "secretaria", ("chapada",))


def test_password_is_never_stored_in_clear(db, user):
    doc = db["users"].find_one({"username": user})
    assert "senha-forte-1" not in str(doc) and doc["password_hash"].startswith("$2")
    assert "senha-forte-1" not in str(list(db["audit"].find({})))


def test_wrong_password_says_how_many_attempts_remain(db, user):
    with pytest.raises(InvalidCredentials, match="Restam 4 tentativa"):
        auth.authenticate(db, user, "errada")


def test_unknown_user_gets_the_same_message(db):
    with pytest.raises(InvalidCredentials, match="Usuário ou senha incorretos"):
        auth.authenticate(db, "ninguem", "x")


def test_five_wrong_passwords_lock_even_the_right_one_for_15_minutes(db, user, monkeypatch):
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            auth.authenticate(db, user, "errada")
    with pytest.raises(AccountLocked):
        auth.authenticate(db, user, "errada")
    with pytest.raises(AccountLocked):
        auth.authenticate(db, user, "senha-forte-1")
    start = clock.now_utc()
    monkeypatch.setattr(clock, "now_utc", lambda: start + timedelta(minutes=14, seconds=59))
    with pytest.raises(AccountLocked):
        auth.authenticate(db, user, "senha-forte-1")
    monkeypatch.setattr(clock, "now_utc", lambda: start + timedelta(minutes=15, seconds=1))
    assert auth.authenticate(db, user, "senha-forte-1").username == user


def test_four_failures_then_success_resets_the_count(db, user):
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            auth.authenticate(db, user, "errada")
    auth.authenticate(db, user, "senha-forte-1")
    with pytest.raises(InvalidCredentials, match="Restam 4"):
        auth.authenticate(db, user, "errada")


def test_ti_unlocks_a_locked_account(db, user):
    for _ in range(5):
        with pytest.raises((InvalidCredentials, AccountLocked)):
            auth.authenticate(db, user, "errada")
    auth.update_user(db, TI, user, unlock=True)
    assert auth.authenticate(db, user, "senha-forte-1").username == user


def test_deactivated_user_cannot_log_in(db, user):
    auth.update_user(db, TI, user, active=False)
    with pytest.raises(InvalidCredentials):
        auth.authenticate(db, user, "senha-forte-1")


def test_gabinete_write_is_refused_by_the_service_itself(db):
    with pytest.raises(PermissionDenied):
        entities.create(db, GABINETE, "taxpayers", "chapada", {"name": "X"})


def test_secretaria_cannot_act_outside_its_municipalities(db):
    with pytest.raises(PermissionDenied, match="município"):
        entities.list_page(db, SECRETARIA_CG, "taxpayers", "matupa", entities.ListQuery())


@pytest.mark.parametrize("call", [
    lambda db, who: auth.create_user(db, who, "novo", "Novo", "ti", ["chapada"], "12345678"),
    lambda db, who: parameters.add_version(db, who, "chapada", "upfm_value", clock.today(), 1, "Decreto"),
    lambda db, who: entities.add_custom_field(db, who, "taxpayers", "chapada", "Apelido", "text"),
], ids=["create user", "add parameter", "add custom field"])
def test_admin_services_refuse_secretaria_and_gabinete(db, call):
    for who in (SECRETARIA_CG, GABINETE):
        with pytest.raises(PermissionDenied):
            call(db, who)


def test_first_ti_user_only_while_none_exists(db):
    auth.create_first_ti(db, "admin", "Administrador", "senha-forte-1", ["chapada"])
    with pytest.raises(auth.Conflict):
        auth.create_first_ti(db, "admin2", "Outro", "senha-forte-2", ["chapada"])


def test_short_password_is_refused(db):
    with pytest.raises(auth.ValidationFailed, match="8 caracteres"):
        auth.create_user(db, TI, "curta", "Curta", "secretaria", ["chapada"], "1234")


def test_ti_of_one_municipality_does_not_see_another_in_audit_or_explorer(db):
    from services import audit
    from services.auth import Actor

    ti_mp = Actor("ti.mp", "TI Matupá", "ti", ("matupa",))
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada",
                    {"name": "Só Chapada", "document": "52998224725", "kind": "pf", "address": "Rua 1"})
    rows, _ = audit.search(db, ti_mp, limit=1000)
    assert rows and all(r["municipality"] in ("matupa", None) for r in rows)
    docs, _ = entities.browse(db, ti_mp, "taxpayers", None)
    assert all(d["municipality"] == "matupa" for d in docs)
    with pytest.raises(PermissionDenied):
        entities.browse(db, ti_mp, "taxpayers", "chapada")
