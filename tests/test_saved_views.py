"""Saved views on a register's list (issue 24 item 3): the search, filters, order and columns saved by
name, for oneself or shared with the secretariat, opened from the list and from a link on Início;
refused in pt-BR when the name, a filter or a column is not the register's; audited."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from services.shared import entities, saved_views
from services.shared.auth import Actor
from services.shared.errors import Conflict, PermissionDenied, ValidationFailed
from services.shared.schema import ListQuery
from tests.conftest import SECRETARIA_CG
from tests.test_page_forms import ROOT, page

COLLEAGUE = Actor("sec2.cg", "Colega de Chapada", "secretaria", ("chapada",))
PEOPLE = [("Maria das Dores", "52998224725", "pf"), ("Mariana Cooperativa", "11222333000181", "pj"),
          ("José Ferreira", "11144477735", "pf")]


@pytest.fixture
def taxpayers(db):
    for name, document, kind in PEOPLE:
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada",
                        {"name": name, "document": document, "kind": kind, "address": "Rua A, 1"})
    return db


def save(db, actor=SECRETARIA_CG, name="PF Maria", shared=False, **query):
    query = ListQuery(**{"search": "Maria", "filters": {"kind": "pf"}, "sort": "name", **query})
    return saved_views.save_view(db, actor, "chapada", "taxpayers", name, query, ["name", "document"], shared)


def test_a_personal_view_is_its_owners_and_a_shared_one_everyones_in_the_municipality(taxpayers):
    db = taxpayers
    save(db)
    save(db, name="Pessoas jurídicas", shared=True, search="", filters={"kind": "pj"})
    mine = {v.name: v for v in saved_views.views(db, SECRETARIA_CG, "chapada", "taxpayers")}
    assert set(mine) == {"PF Maria", "Pessoas jurídicas"}
    assert (mine["PF Maria"].search, mine["PF Maria"].filters, mine["PF Maria"].columns) == (
        "Maria", {"kind": "pf"}, ("name", "document"))
    assert [v.name for v in saved_views.views(db, COLLEAGUE, "chapada")] == ["Pessoas jurídicas"]
    with pytest.raises(PermissionDenied):  # a view of Chapada is never read from Matupá's
        saved_views.views(db, Actor("sec.mp", "Matupá", "secretaria", ("matupa",)), "chapada")


def test_a_name_is_unique_per_person_and_among_the_shared_ones(taxpayers):
    db = taxpayers
    save(db)
    with pytest.raises(Conflict, match="Já existe uma visão sua chamada 'PF Maria'"):
        save(db)
    save(db, actor=COLLEAGUE)  # the colleague's own view may have the same name
    save(db, shared=True)
    with pytest.raises(Conflict, match="compartilhada"):
        save(db, actor=COLLEAGUE, shared=True)


@pytest.mark.parametrize(("changes", "field", "message"), [
    ({"name": " "}, "name", "nome de 1 a 60"),
    ({"name": "x" * 61}, "name", "nome de 1 a 60"),
    ({"filters": {"municipality": "matupa"}}, "municipality", "Filtro desconhecido"),
    ({"filters": {"kind": "alienígena"}}, "kind", "opção inválida"),
    ({"sort": "password"}, "sort", "Ordenação inválida"),
])
def test_a_view_the_register_cannot_answer_is_refused_in_portuguese(taxpayers, changes, field, message):
    name = changes.pop("name", "Visão")
    with pytest.raises(ValidationFailed) as refused:
        save(taxpayers, name=name, **changes)
    assert field in refused.value.errors and message in refused.value.errors[field]
    assert taxpayers[saved_views.COLLECTION].count_documents({}) == 0


def test_a_column_that_is_not_the_registers_is_refused(taxpayers):
    with pytest.raises(ValidationFailed) as refused:
        saved_views.save_view(taxpayers, SECRETARIA_CG, "chapada", "taxpayers", "Colunas", ListQuery(),
                              ["name", "password_hash"])
    assert "Coluna desconhecida" in refused.value.errors["columns"]


def test_only_the_owner_removes_a_personal_view_and_both_acts_are_audited(taxpayers):
    db = taxpayers
    view_id = save(db)
    with pytest.raises(PermissionDenied):
        saved_views.delete_view(db, COLLEAGUE, "chapada", view_id)
    saved_views.delete_view(db, SECRETARIA_CG, "chapada", view_id)
    assert saved_views.views(db, SECRETARIA_CG, "chapada") == []
    actions = [(e["action"], e["note"]) for e in db["audit"].find({"collection": saved_views.COLLECTION}).sort("at", 1)]
    assert actions == [("create", "Visão 'PF Maria' de contribuintes"), ("delete", "Visão 'PF Maria' excluída")]


def test_a_gabinete_cannot_share_a_view_with_the_secretariat(taxpayers):
    gabinete = Actor("gab", "Gabinete", "gabinete", ("chapada",))
    with pytest.raises(PermissionDenied):
        save(taxpayers, actor=gabinete, shared=True)


def shown(at) -> list[str]:
    return list(at.dataframe[0].value.columns)


def test_the_list_saves_the_view_it_shows_and_opens_it_again(taxpayers):
    at = page("taxpayers.py")
    key = "taxpayers_list"
    at.text_input(key=f"{key}_search").input("Maria")
    at.selectbox(key=f"{key}_f_kind").set_value("pf")
    for column in ("document", "district", "phone"):
        at.checkbox(key=f"{key}_col_{column}").uncheck()
    at.run()
    assert shown(at) == ["Nome / Razão social", "Tipo"] and len(at.dataframe[0].value) == 1
    at.text_input(key=f"{key}_view_title").input("PF Maria")
    at.button(key=f"{key}_view_submit").click().run()
    assert not at.exception
    assert "Visão 'PF Maria' salva" in " ".join(s.value for s in at.success)
    [view] = saved_views.views(taxpayers, SECRETARIA_CG, "chapada", "taxpayers")
    assert at.selectbox(key=f"{key}_view").value == view.id
    at.selectbox(key=f"{key}_view").set_value(None).run()  # the whole list again
    assert len(at.dataframe[0].value) == 3 and at.text_input(key=f"{key}_search").value == ""
    at.selectbox(key=f"{key}_view").set_value(view.id).run()
    assert at.text_input(key=f"{key}_search").value == "Maria" and at.selectbox(key=f"{key}_f_kind").value == "pf"
    assert shown(at) == ["Nome / Razão social", "Tipo"] and len(at.dataframe[0].value) == 1


def test_inicio_links_each_view_and_the_link_opens_the_list_with_it(taxpayers):
    view_id = save(taxpayers, name="PF Maria", shared=True)
    home = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    home.session_state["actor"], home.session_state["municipality"] = COLLEAGUE, "chapada"
    home.run()
    assert not home.exception, home.exception
    assert "Visões salvas" in [s.value for s in home.subheader]
    [link] = [e.proto for e in home.get("page_link") if e.proto.label == "PF Maria · compartilhada"]
    assert link.page.endswith("taxpayers") and f"visao={view_id}" in link.query_string
    at = page("taxpayers.py")  # as the link opens it: ?visao=<id>
    at.query_params["visao"] = view_id
    at.run()
    assert at.selectbox(key="taxpayers_list_view").value == view_id
    assert at.text_input(key="taxpayers_list_search").value == "Maria" and len(at.dataframe[0].value) == 1


def test_inicio_links_a_view_of_a_register_defined_by_ti_to_that_registers_address(db):
    from services.shared import definitions
    from tests.test_definitions import TI_CG, stalls

    definitions.define_register(db, TI_CG, "chapada", stalls())
    view_id = saved_views.save_view(db, SECRETARIA_CG, "chapada", "bancas_feira", "Hortifruti",
                                    ListQuery(filters={"setor": "Hortifruti"}), ["numero"], True)
    home = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    home.session_state["actor"], home.session_state["municipality"] = COLLEAGUE, "chapada"
    home.run()
    assert not home.exception, home.exception
    [link] = [e.proto for e in home.get("page_link") if e.proto.label == "Hortifruti · compartilhada"]
    assert link.page.endswith("cadastro_bancas_feira") and f"visao={view_id}" in link.query_string


def test_the_views_of_a_register_ti_deactivated_leave_the_lists_and_come_back_with_it(db):
    from services.shared import definitions
    from tests.test_definitions import TI_CG, stalls

    definitions.define_register(db, TI_CG, "chapada", stalls())
    saved_views.save_view(db, SECRETARIA_CG, "chapada", "bancas_feira", "Hortifruti",
                          ListQuery(filters={"setor": "Hortifruti"}), ["numero"], True)
    own = save(db, SECRETARIA_CG, name="PF Maria")
    definitions.set_active(db, TI_CG, "chapada", "bancas_feira", False, expected_version=1)
    assert [v.id for v in saved_views.views(db, COLLEAGUE, "chapada")] == []
    assert [v.id for v in saved_views.views(db, SECRETARIA_CG, "chapada")] == [own]
    definitions.set_active(db, TI_CG, "chapada", "bancas_feira", True, expected_version=2)
    assert [v.name for v in saved_views.views(db, COLLEAGUE, "chapada")] == ["Hortifruti"]
