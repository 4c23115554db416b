"""A TI user manages only users within their own municipalities, and cannot lock themselves out."""
from __future__ import annotations

import pytest

from services.shared import accounts, auth, sessions
from services.shared.auth import Actor
from services.shared.errors import NotFound, PermissionDenied, ValidationFailed
from tests.conftest import TI

TI_MATUPA = Actor("ti.matupa", "TI de Matupá", "ti", ("matupa",))
PASSWORD = "senha-forte-1"


@pytest.fixture
def users(db):
    accounts.create_user(db, TI, "ti.matupa", "TI de Matupá", "ti", ["matupa"], PASSWORD)
    accounts.create_user(db, TI, "secretaria.chapada", "Ana", "secretaria", ["chapada"], PASSWORD)
    accounts.create_user(db, TI, "secretaria.matupa", "Carlos", "secretaria", ["matupa"], PASSWORD)
    accounts.create_user(db, TI, "gabinete", "Gabinete", "gabinete", ["chapada", "matupa"], PASSWORD)
    accounts.create_user(db, auth.SYSTEM, "ti.geral", "TI geral", "ti", ["*"], PASSWORD)


@pytest.mark.parametrize("target", ["secretaria.chapada", "gabinete", "ti.geral"])
@pytest.mark.parametrize("changes", [
    {"password": "tomada-de-conta-1"}, {"active": False}, {"unlock": True}, {"role": "gabinete"},
], ids=["password", "deactivate", "unlock", "role"])
def test_ti_of_one_municipality_cannot_manage_a_user_of_another(db, users, target, changes):
    before = db["users"].find_one({"username": target})
    with pytest.raises(NotFound):
        accounts.update_user(db, TI_MATUPA, target, **changes)
    assert db["users"].find_one({"username": target}) == before
    if "password" in changes:
        with pytest.raises(sessions.InvalidCredentials):
            sessions.authenticate(db, target, changes["password"])


def test_ti_of_one_municipality_manages_users_of_their_own(db, users):
    accounts.update_user(db, TI_MATUPA, "secretaria.matupa", password="nova-senha-12")
    assert sessions.authenticate(db, "secretaria.matupa", "nova-senha-12").username == "secretaria.matupa"


@pytest.mark.parametrize("municipalities,refused", [
    (["matupa"], False),
    (["chapada"], True),
    (["matupa", "chapada"], True),
    (["*"], True),
], ids=["own", "other", "own and other", "all"])
def test_ti_creates_users_only_within_their_municipalities(db, users, municipalities, refused):
    create = lambda: accounts.create_user(db, TI_MATUPA, "novo.user", "Novo", "secretaria", municipalities, PASSWORD)  # noqa: E731
    if refused:
        with pytest.raises(PermissionDenied):
            create()
        assert db["users"].find_one({"username": "novo.user"}) is None
    else:
        create()
        assert db["users"].find_one({"username": "novo.user"})["municipalities"] == municipalities


def test_only_a_ti_with_every_municipality_grants_every_municipality(db, users):
    with pytest.raises(PermissionDenied, match="todos os municípios"):
        accounts.create_user(db, TI, "quase.tudo", "Quase", "ti", ["*"], PASSWORD)
    geral = sessions.authenticate(db, "ti.geral", PASSWORD)
    accounts.create_user(db, geral, "tudo", "Tudo", "ti", ["*"], PASSWORD)
    assert db["users"].find_one({"username": "tudo"})["municipalities"] == ["*"]


def test_ti_cannot_widen_a_user_beyond_their_municipalities(db, users):
    with pytest.raises(PermissionDenied):
        accounts.update_user(db, TI_MATUPA, "secretaria.matupa", municipalities=["matupa", "chapada"])
    with pytest.raises(PermissionDenied):
        accounts.update_user(db, TI_MATUPA, "secretaria.matupa", municipalities=["*"])
    assert db["users"].find_one({"username": "secretaria.matupa"})["municipalities"] == ["matupa"]


def test_update_refuses_an_unknown_role(db, users):
    with pytest.raises(ValidationFailed, match="Perfil inválido"):
        accounts.update_user(db, TI, "secretaria.matupa", role="superadmin")
    assert db["users"].find_one({"username": "secretaria.matupa"})["role"] == "secretaria"


@pytest.mark.parametrize("changes", [{"active": False}, {"role": "secretaria"}], ids=["deactivate", "demote"])
def test_nobody_locks_themselves_out(db, users, changes):
    with pytest.raises(PermissionDenied, match="sua própria conta"):
        accounts.update_user(db, TI_MATUPA, "ti.matupa", **changes)
    doc = db["users"].find_one({"username": "ti.matupa"})
    assert doc["active"] and doc["role"] == "ti"


def test_the_list_shows_only_manageable_users(db, users):
    seen = [u["username"] for u in accounts.list_users(db, TI_MATUPA)]
    assert seen == ["secretaria.matupa", "ti.matupa"]
    three = {u["username"] for u in accounts.list_users(db, TI)}
    assert {"gabinete", "secretaria.chapada", "secretaria.matupa", "ti.matupa"} <= three
    assert "ti.geral" not in three  # '*' is more than the three named municipalities
    assert "ti.geral" in {u["username"] for u in accounts.list_users(db, auth.SYSTEM)}


def test_the_users_page_shows_and_offers_only_the_actors_municipalities(db, users):
    from streamlit.testing.v1 import AppTest

    from tests.test_pages_smoke import ROOT

    at = AppTest.from_file(str(ROOT / "app_pages/users.py"), default_timeout=60)
    at.session_state["actor"] = TI_MATUPA
    at.session_state["municipality"] = "matupa"
    at.run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["Usuário"]) == ["secretaria.matupa", "ti.matupa"]
    assert at.multiselect(key="users_new_muns").options == ["Matupá"]
    assert at.selectbox(key="users_edit_target").options == ["secretaria.matupa", "ti.matupa"]


def test_the_users_list_is_read_a_page_at_a_time_and_searched_in_the_store(db, users):
    """Issue 21: the list of users is paged by the store (25 a page), counted, and searched by
    username or name in any case, still within the TI's municipalities."""
    for n in range(30):
        accounts.create_user(db, TI_MATUPA, f"fiscal{n:02d}.matupa", f"Fiscal Número {n:02d}", "secretaria",
                             ["matupa"], PASSWORD)
    first = accounts.users_page(db, TI_MATUPA, "", 0, 25)
    assert first.total == 32 and len(first.rows) == 25
    assert [u["username"] for u in first.rows][:2] == ["fiscal00.matupa", "fiscal01.matupa"]
    last = accounts.users_page(db, TI_MATUPA, "", 25, 25)
    assert [u["username"] for u in last.rows] == [*(f"fiscal{n}.matupa" for n in range(25, 30)),
                                                  "secretaria.matupa", "ti.matupa"]
    assert "password_hash" not in first.rows[0]
    by_name = accounts.users_page(db, TI_MATUPA, "número 07")
    assert [u["username"] for u in by_name.rows] == ["fiscal07.matupa"] and by_name.total == 1
    assert accounts.users_page(db, TI_MATUPA, "carlos").total == 1  # secretaria.matupa, by name
    assert accounts.users_page(db, TI_MATUPA, "ana").total == 0  # secretaria.chapada: another municipality
    assert accounts.users_page(db, TI_MATUPA, "fiscal.*").total == 0  # the search is text, not a pattern


def test_a_user_is_opened_by_a_link_only_when_the_ti_manages_it(db, users):
    assert accounts.managed_user(db, TI_MATUPA, "secretaria.matupa")["name"] == "Carlos"
    with pytest.raises(NotFound):
        accounts.managed_user(db, TI_MATUPA, "secretaria.chapada")
    assert "password_hash" not in accounts.managed_user(db, TI, "gabinete")


def test_the_users_page_pages_its_list_and_opens_a_linked_user_off_the_page(db, users):
    from streamlit.testing.v1 import AppTest

    from tests.test_pages_smoke import ROOT

    for n in range(30):
        accounts.create_user(db, TI_MATUPA, f"fiscal{n:02d}.matupa", f"Fiscal {n:02d}", "secretaria", ["matupa"],
                             PASSWORD)
    at = AppTest.from_file(str(ROOT / "app_pages/users.py"), default_timeout=60)
    at.session_state["actor"] = TI_MATUPA
    at.session_state["municipality"] = "matupa"
    at.session_state["users_edit_target"] = "ti.matupa"  # "Abrir registro" from the audit log: on page 2
    at.run()
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == 25 and "32 usuários · 2 páginas" in " ".join(m.value for m in at.markdown)
    assert at.selectbox(key="users_edit_target").value == "ti.matupa"
    at.number_input(key="users_list_page").set_value(2).run()
    assert list(at.dataframe[0].value["Usuário"]) == [*(f"fiscal{n}.matupa" for n in range(25, 30)),
                                                      "secretaria.matupa", "ti.matupa"]
    at.text_input(key="users_search").set_value("fiscal 07").run()
    assert list(at.dataframe[0].value["Usuário"]) == ["fiscal07.matupa"]
