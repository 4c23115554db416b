"""Zonas e localidades (TI screen of Nova Lacerda's machinery module) driven as a user would (AppTest).

AppTest cannot type into an ``st.data_editor`` cell, so a test puts the typed rows where the page keeps
its draft (``localities_draft``) and drives everything else by its widgets."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.machinery import localities
from services.shared import clock
from services.shared.auth import Actor
from tests.conftest import GABINETE, TI

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
MUN = "nova_lacerda"
CLERK = Actor("secretaria.novalacerda", "Servidora de Nova Lacerda", "secretaria", (MUN,))
TYPED = [
    {"Ordem": 2, "Zona": "Zona Sul", "Localidade": "Linha 04", "Área": "rural"},
    {"Ordem": 1, "Zona": "Zona Urbana", "Localidade": "Centro", "Área": "urbana"},
]


def page(rows: list[dict], actor: Actor = TI) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "localities.py"), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = MUN
    at.session_state["localities_draft"] = rows
    at.run()
    assert not at.exception, at.exception
    return at


def review_and_confirm(at: AppTest, act: str) -> AppTest:
    at.text_input(key="localities_act").input(act)
    next(b for b in at.button if b.label == "Revisar antes de salvar").click().run()
    assert not at.exception, at.exception
    assert "Nada foi gravado ainda" in " ".join(w.value for w in at.warning)
    at.button(key="localities_save").click().run()
    assert not at.exception, at.exception
    return at


def captions(at: AppTest) -> str:
    return " | ".join(c.value for c in at.caption)


def test_ti_saves_a_new_version_with_two_zones_in_force_from_its_date(db):
    at = page(TYPED)
    assert "Não há lista de zonas e localidades em vigor" in " ".join(i.value for i in at.info)
    tomorrow = clock.today() + timedelta(days=1)
    at = review_and_confirm(at, "Portaria 12/2027")
    assert [s.value for s in at.success] == [
        f"Nova lista registrada com 2 localidades, em vigor a partir de {tomorrow:%d/%m/%Y}."]
    assert localities.localities(db, MUN, clock.today()) == []
    assert localities.localities(db, MUN, tomorrow) == [
        {"zone": "Zona Urbana", "locality": "Centro", "area": "urbana"},
        {"zone": "Zona Sul", "locality": "Linha 04", "area": "rural"},
    ]
    assert localities.zone_order(localities.localities(db, MUN, tomorrow)) == ["Zona Urbana", "Zona Sul"]


def test_a_version_in_force_today_is_the_list_shown(db):
    localities.set_localities(db, TI, MUN, clock.today(), [
        {"zone": "Zona Norte", "locality": "Assentamento Corixa", "area": "rural"}], "Portaria 1/2026")
    at = page([])
    table = at.dataframe[0].value
    assert list(table.columns) == ["Ordem", "Zona", "Localidade", "Área"]
    assert table.to_dict("records") == [{"Ordem": 1, "Zona": "Zona Norte", "Localidade": "Assentamento Corixa",
                                         "Área": "rural"}]


def test_a_line_without_area_shows_its_error_and_keeps_the_typed_rows(db):
    rows = [TYPED[0], {"Ordem": 3, "Zona": "Zona Norte", "Localidade": "Assentamento Corixa", "Área": None}]
    at = review_and_confirm(page(rows), "Portaria 12/2027")
    assert "Linha 2: informe a área (rural ou urbana)." in captions(at)
    assert not at.success
    editor = at.data_editor[0].value
    assert list(editor["Localidade"]) == ["Linha 04", "Assentamento Corixa"]
    assert list(editor["Zona"]) == ["Zona Sul", "Zona Norte"]
    assert localities.localities(db, MUN, clock.today() + timedelta(days=1)) == []


def test_a_save_without_act_shows_its_error_under_the_act(db):
    at = review_and_confirm(page(TYPED), "")
    assert "Informe o ato que fixou o valor (lei, decreto, portaria)." in captions(at)
    assert localities.localities(db, MUN, clock.today() + timedelta(days=1)) == []


@pytest.mark.parametrize("actor", [CLERK, GABINETE], ids=["secretaria", "gabinete"])
def test_secretaria_and_gabinete_cannot_open_it(db, actor):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = MUN
    at.run()
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("app_pages/localities.py")
    direct = page(TYPED, actor)
    assert [e.value for e in direct.error] == ["Seu perfil não tem acesso a esta página."]
    assert len(direct.data_editor) == 0


def test_the_service_refuses_a_date_before_today_and_a_repeated_locality(db):
    from services.machinery import localities
    from services.shared.errors import ValidationFailed

    rows = [*TYPED, {"Ordem": 3, "Zona": "zona sul", "Localidade": "linha 04", "Área": "rural"},
            {"Ordem": float("nan"), "Zona": None, "Localidade": float("nan"), "Área": None}]
    with pytest.raises(ValidationFailed) as refused:
        localities.save(db, TI, MUN, clock.today() - timedelta(days=1), rows, "Portaria 12/2027")
    assert set(refused.value.errors) == {"effective", "linha 3"}
    assert refused.value.errors["linha 3"] == "Linha 3: a localidade linha 04 da zona zona sul já está na linha 1."
    assert localities.save(db, TI, MUN, clock.today(), TYPED, "Portaria 12/2027") == 2


def test_an_order_that_is_not_a_number_is_refused_on_its_line(db):
    """'nan' or 'inf' typed in Ordem would break the schedule order (art. 3 §1): refused like any text."""
    from services.machinery import localities
    from services.shared.errors import ValidationFailed

    for typed in ("abc", "nan", "inf"):
        rows = [{**TYPED[0], "Ordem": typed}, TYPED[1]]
        with pytest.raises(ValidationFailed) as refused:
            localities.save(db, TI, MUN, clock.today(), rows, "Portaria 12/2027")
        assert "a ordem como número" in refused.value.errors["linha 1"], typed
