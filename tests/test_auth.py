"""Login, lockout after five wrong passwords for 15 minutes, and roles enforced inside services."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from services.shared import (
    accounts,
    clock,
    custom_fields,
    entities,
    entity_lists,
    explorer,
    parameters,
    schema,
    sessions,
)
from services.shared.errors import Conflict, PermissionDenied, ValidationFailed
from services.shared.sessions import AccountLocked, InvalidCredentials
from tests import figures
from tests.conftest import GABINETE, SECRETARIA_CG, TI


@pytest.fixture
def user(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], "senha-forte-1")
    return "maria.silva"


def test_right_password_gives_the_actor_with_role_and_municipalities(db, user):
    actor = sessions.authenticate(db, "Maria.Silva ", "senha-forte-1")
    assert (actor.username, actor.role, actor.municipalities) == ("maria.silva", "secretaria", ("chapada",))


def test_password_is_never_stored_in_clear(db, user):
    doc = db["users"].find_one({"username": user})
    assert "senha-forte-1" not in str(doc) and doc["password_hash"].startswith("$2")
    assert "senha-forte-1" not in str(list(db["audit"].find({})))


def test_unknown_user_inactive_user_and_wrong_password_get_the_same_message(db, user):
    accounts.create_user(db, TI, "inativa", "Inativa", "secretaria", ["chapada"], "senha-forte-1")
    accounts.update_user(db, TI, "inativa", active=False)
    messages = []
    for username, password in [("ninguem", "senha-forte-1"), ("inativa", "senha-forte-1"), (user, "errada")]:
        with pytest.raises(InvalidCredentials) as refused:
            sessions.authenticate(db, username, password)
        messages.append(refused.value.message)
    assert messages == ["Usuário ou senha incorretos."] * 3


@pytest.mark.parametrize("username", ["ninguem", "inativa", "nome inválido!"])
def test_unknown_or_inactive_user_costs_one_check_against_the_dummy_hash(db, monkeypatch, username):
    accounts.create_user(db, TI, "inativa", "Inativa", "secretaria", ["chapada"], "senha-forte-1")
    accounts.update_user(db, TI, "inativa", active=False)
    checks = []
    real = sessions._check_password
    monkeypatch.setattr(sessions, "_check_password", lambda *args: checks.append(args[1]) or real(*args))
    with pytest.raises(InvalidCredentials):
        sessions.authenticate(db, username, "senha-forte-1")
    assert checks == [sessions._dummy_hash()]
    assert checks[0].startswith(f"$2b${sessions.BCRYPT_ROUNDS:02d}$")


def test_five_wrong_passwords_lock_even_the_right_one_for_15_minutes(db, user, monkeypatch):
    start = clock.now_utc()  # a fixed clock: on a loaded machine a bcrypt check can take over a second
    monkeypatch.setattr(clock, "now_utc", lambda: start)
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            sessions.authenticate(db, user, "errada")
    with pytest.raises(AccountLocked):
        sessions.authenticate(db, user, "errada")
    with pytest.raises(AccountLocked):
        sessions.authenticate(db, user, "senha-forte-1")
    monkeypatch.setattr(clock, "now_utc", lambda: start + timedelta(minutes=14, seconds=59))
    with pytest.raises(AccountLocked):
        sessions.authenticate(db, user, "senha-forte-1")
    monkeypatch.setattr(clock, "now_utc", lambda: start + timedelta(minutes=15, seconds=1))
    assert sessions.authenticate(db, user, "senha-forte-1").username == user


def test_four_failures_then_success_resets_the_count(db, user):
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            sessions.authenticate(db, user, "errada")
    sessions.authenticate(db, user, "senha-forte-1")
    for _ in range(4):
        with pytest.raises(InvalidCredentials):
            sessions.authenticate(db, user, "errada")
    with pytest.raises(AccountLocked):
        sessions.authenticate(db, user, "errada")


def test_ti_unlocks_a_locked_account(db, user):
    for _ in range(5):
        with pytest.raises((InvalidCredentials, AccountLocked)):
            sessions.authenticate(db, user, "errada")
    accounts.update_user(db, TI, user, unlock=True)
    assert sessions.authenticate(db, user, "senha-forte-1").username == user


def test_deactivated_user_cannot_log_in(db, user):
    accounts.update_user(db, TI, user, active=False)
    with pytest.raises(InvalidCredentials):
        sessions.authenticate(db, user, "senha-forte-1")


def test_gabinete_write_is_refused_by_the_service_itself(db):
    with pytest.raises(PermissionDenied):
        entities.create(db, GABINETE, "taxpayers", "chapada", {"name": "X"})


def test_secretaria_cannot_act_outside_its_municipalities(db):
    with pytest.raises(PermissionDenied, match="município"):
        entity_lists.list_page(db, SECRETARIA_CG, "taxpayers", "matupa", schema.ListQuery())


@pytest.mark.parametrize("call", [
    lambda db, who: accounts.create_user(db, who, "novo", "Novo", "ti", ["chapada"], "1234567890"),
    lambda db, who: parameters.add_version(db, who, "chapada", "upfm_value", clock.today(), 1, "Decreto"),
    lambda db, who: custom_fields.add_custom_field(db, who, "taxpayers", "chapada", "Apelido", "text"),
], ids=["create user", "add parameter", "add custom field"])
def test_admin_services_refuse_secretaria_and_gabinete(db, call):
    for who in (SECRETARIA_CG, GABINETE):
        with pytest.raises(PermissionDenied):
            call(db, who)


def test_first_ti_user_only_while_none_exists(db):
    accounts.create_first_ti(db, "admin", "Administrador", "senha-forte-1", ["chapada"])
    with pytest.raises(Conflict):
        accounts.create_first_ti(db, "admin2", "Outro", "senha-forte-2", ["chapada"])


@pytest.mark.parametrize("password,refused", [("123456789", True), ("1234567890", False)], ids=["9 chars", "10 chars"])
def test_password_has_at_least_ten_characters(db, user, password, refused):
    if refused:
        with pytest.raises(ValidationFailed, match="10 caracteres"):
            accounts.create_user(db, TI, "curta", "Curta", "secretaria", ["chapada"], password)
        with pytest.raises(ValidationFailed, match="10 caracteres"):
            accounts.update_user(db, TI, user, password=password)
    else:
        accounts.create_user(db, TI, "curta", "Curta", "secretaria", ["chapada"], password)
        assert sessions.authenticate(db, "curta", password).username == "curta"


def test_ti_of_one_municipality_does_not_see_another_in_audit_or_explorer(db):
    from services.shared import audit_log
    from services.shared.auth import Actor

    ti_mp = Actor("ti.mp", "TI Matupá", "ti", ("matupa",))
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada",
                    {"name": "Só Chapada", "document": "52998224725", "kind": "pf", "address": "Rua 1"})
    rows, _ = audit_log.search(db, ti_mp, limit=1000)
    assert rows and all(r["municipality"] in ("matupa", None) for r in rows)
    docs, _ = explorer.browse(db, ti_mp, "taxpayers", None)
    assert all(d["municipality"] == "matupa" for d in docs)
    with pytest.raises(PermissionDenied):
        explorer.browse(db, ti_mp, "taxpayers", "chapada")


@pytest.mark.parametrize("password", [
    "ç" * 50,  # 100 bytes in UTF-8
    "senha🔒🔑🔒🔑🔒🔑🔒🔑🔒🔑🔒🔑🔒🔑🔒🔑🔒🔑🔒🔑",  # emoji: 4 bytes each
    "x" * 10_000,
], ids=["100 bytes", "emoji", "10k characters"])
def test_any_password_length_is_kept_and_checked_in_full(db, password):
    accounts.create_user(db, TI, "longa", "Longa", "secretaria", ["chapada"], password)
    assert sessions.authenticate(db, "longa", password).username == "longa"
    with pytest.raises(InvalidCredentials):
        sessions.authenticate(db, "longa", password[:-1] + "!")
    accounts.update_user(db, TI, "longa", password=password + "2")
    assert sessions.authenticate(db, "longa", password + "2").username == "longa"


def test_a_plain_bcrypt_hash_made_before_still_logs_in_and_is_upgraded(db, user):
    import bcrypt

    legacy = bcrypt.hashpw(b"painel2026", bcrypt.gensalt(4)).decode()
    db["users"].update_one({"username": user}, {"$set": {"password_hash": legacy}, "$unset": {"hash_scheme": ""}})
    with pytest.raises(InvalidCredentials):
        sessions.authenticate(db, user, "x" * 100)
    assert sessions.authenticate(db, user, "painel2026").username == user
    doc = db["users"].find_one({"username": user})
    assert doc["hash_scheme"] == sessions.HASH_SCHEME and doc["password_hash"] != legacy
    assert sessions.authenticate(db, user, "painel2026").username == user


def test_sixteen_parallel_wrong_passwords_get_at_most_five_checks_and_lock(db, user, monkeypatch):
    import threading

    checks = []
    real = sessions._check_password
    monkeypatch.setattr(sessions, "_check_password", lambda *args: checks.append(1) or real(*args))
    start = threading.Barrier(16)
    outcomes = []

    def attempt():
        start.wait()
        try:
            sessions.authenticate(db, user, "errada")
        except (InvalidCredentials, AccountLocked) as refused:
            outcomes.append(type(refused))

    threads = [threading.Thread(target=attempt) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 16 and len(checks) <= sessions.MAX_FAILED_LOGINS
    assert db["users"].find_one({"username": user})["locked_until"] is not None
    with pytest.raises(AccountLocked):
        sessions.authenticate(db, user, "senha-forte-1")
    assert len(checks) <= sessions.MAX_FAILED_LOGINS
    figures.concurrency("logins errados", 16, sum(1 for o in outcomes if o is AccountLocked))


def test_a_locked_account_gets_no_password_check(db, user, monkeypatch):
    for _ in range(sessions.MAX_FAILED_LOGINS):
        with pytest.raises((InvalidCredentials, AccountLocked)):
            sessions.authenticate(db, user, "errada")
    monkeypatch.setattr(sessions, "_check_password", lambda *args: pytest.fail("password checked while locked"))
    with pytest.raises(AccountLocked):
        sessions.authenticate(db, user, "senha-forte-1")


def audit_actions(db, since: int) -> Counter:
    return Counter(r["action"] for r in list(db["audit"].find({}))[since:])


def test_login_failures_lock_and_success_are_audited_once_each(db, user):
    count = db["audit"].count_documents({})
    with pytest.raises(InvalidCredentials):
        sessions.authenticate(db, "ninguem", "senha-forte-1")
    sessions.authenticate(db, user, "senha-forte-1")
    for _ in range(sessions.MAX_FAILED_LOGINS):
        with pytest.raises((InvalidCredentials, AccountLocked)):
            sessions.authenticate(db, user, "errada")
    assert audit_actions(db, count) == Counter(login_failed=6, login=1, lock=1)
    entry = db["audit"].find_one({"action": "login_failed", "username": "ninguem"})
    assert entry["municipality"] is None
