"""Issue 38 item 4 on the staff panel: TI opens a defined register to the public on "Cadastros definidos" (pt-BR
labels, the problem under the section), and the clerk's register screen says a record came from the portal,
with its protocol and its requester."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from services.shared import definitions, public_forms
from tests.conftest import SECRETARIA_CG
from tests.test_page_forms import ROOT
from tests.test_public_forms import ANA, NAME, TI_CG, good, opened, stalls


def ti_page(db_actor=TI_CG) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "register_definitions.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = db_actor, "chapada"
    return at.run()


def test_ti_marks_a_register_and_chooses_the_fields_the_public_fills(db):
    definitions.define_register(db, TI_CG, "chapada", stalls())
    at = ti_page()
    at.selectbox(key="regdef_choice").set_value(NAME).run()
    key = f"regdef_{NAME}_1"
    assert at.checkbox(key=f"{key}_public_open").label == "Recebe pedidos do público"
    fields = at.multiselect(key=f"{key}_public_fields")
    assert fields.label == "Campos que o público preenche" and fields.disabled
    at.checkbox(key=f"{key}_public_open").check().run()
    at.multiselect(key=f"{key}_public_fields").set_value(["titular"]).run()
    next(b for b in at.button if b.key == "regdef_save").click().run()
    assert not at.exception
    assert any("“Produto” é obrigatório" in e.value for e in at.error)  # under the section, nothing saved
    assert definitions.definition(db, TI_CG, "chapada", NAME)["public"] is None
    at.multiselect(key=f"{key}_public_fields").set_value(["titular", "produto", "foto"]).run()
    next(b for b in at.button if b.key == "regdef_save").click().run()
    assert not at.exception
    saved = definitions.definition(db, TI_CG, "chapada", NAME)
    assert (saved["version"], saved["public"]) == (2, {"open": True, "fields": ["titular", "produto", "foto"]})
    assert [f.name for f in public_forms.open_forms(db, ANA.actor)[0].fields] == ["titular", "produto", "foto"]


def test_the_clerks_screen_says_the_record_came_from_the_portal_with_its_requester(db):
    opened(db)
    protocol = public_forms.submit(db, ANA.actor, NAME, good())
    record = str(db[NAME].find_one({})["_id"])
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    app.session_state["actor"], app.session_state["municipality"] = SECRETARIA_CG, "chapada"
    app.run()
    app.switch_page("app_pages/register_records.py")
    app.session_state["defined_register"] = NAME
    app.session_state[f"{NAME}_open"] = record
    app.run()
    assert not app.exception, app.exception
    assert (f"Pedido feito pelo portal · protocolo {protocol} · requerente Ana Souza (CPF 529.982.247-25)"
            in [i.value for i in app.info])
    assert [m.value for m in app.metric][0] == "Protocolado"
