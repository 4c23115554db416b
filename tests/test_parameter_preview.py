"""Issue 22 item 10: TI cannot break a parameter by accident. The form reads the value as the
parameter's own kind (no "Tipo do valor" to slip on), names the municipality it changes, and shows
the value in force today beside the new one, from when, and what is open — before "Confirmar"."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.dam import dams
from services.shared import parameters
from services.shared.errors import ValidationFailed
from tests.conftest import SECRETARIA_CG, TI

ROOT = Path(__file__).resolve().parent.parent


def versions(db) -> None:
    for name, value in (("upfm_value", Decimal("100.00")), ("ouvidoria_phone", "(65) 3301-0000")):
        db["parameters"].delete_many({"municipality": "chapada", "name": name})
        parameters.add_version(db, TI, "chapada", name, date(2026, 1, 1), value, "Decreto Municipal 1/2026")


def page(db, municipality: str = "chapada") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "parameters.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, municipality
    return at.run()


def fill(at: AppTest, name: str, value: str, act: str = "Decreto Municipal 20/2026") -> AppTest:
    at.selectbox(key="params_new_name").set_value(name)
    at.text_input(key="params_new_value").input(value)
    at.date_input(key="params_new_effective").set_value(date(2026, 4, 1))
    at.text_input(key="params_new_act").input(act)
    return next(b for b in at.button if b.label == "Revisar antes de gravar").click().run()


def markdown(at: AppTest) -> str:
    """The page's markdown as read (R$ is escaped so that it is not taken for LaTeX)."""
    return " | ".join(m.value for m in at.markdown).replace("\\$", "$")


def test_the_form_and_the_confirmation_name_the_municipality(db, today):
    versions(db)
    at = page(db)
    assert not at.exception
    assert "Nova versão — Chapada dos Guimarães" in [s.value for s in at.subheader]
    assert at.selectbox(key="params_new_name").label == "Parâmetro de Chapada dos Guimarães"
    at = fill(at, "upfm_value", "120,00")
    assert "#### Confirmar: Valor da UPFM (R$) de Chapada dos Guimarães" in markdown(at)
    assert [w.value.replace("\\$", "$") for w in at.warning] == ["Gravar a nova versão de 'Valor da UPFM (R$)' de Chapada dos Guimarães?"]
    # "R$" twice in one markdown text is a LaTeX formula in the browser ("Valor da UPFM (R$)': valor (R$)")
    texts = [e.value for kind in ("markdown", "caption", "warning") for e in getattr(at, kind)]
    assert [t for t in texts if re.search(r"(?<!\\)\$", t)] == []


def test_nothing_is_saved_before_confirmar_and_the_preview_shows_before_after_and_what_is_open(db, today):
    versions(db)
    dams.issue(db, SECRETARIA_CG, "chapada", taxpayer_name="João Pereira Lima", taxpayer_document="529.982.247-25",
               taxpayer_address="Rua A, 1", revenue_kind="outras", description="Taxa", legal_basis="CTM",
               amount=Decimal("10.00"), due=date(2026, 3, 20))
    at = fill(page(db), "upfm_value", "120,00")
    assert not at.exception
    shown = markdown(at)
    assert "**Em vigor hoje:** 120" not in shown
    assert "**Em vigor hoje:** 100 (desde 01/01/2026, Decreto Municipal 1/2026)" in shown
    assert "**Novo valor:** 120 a partir de 01/04/2026 (Decreto Municipal 20/2026)" in shown
    assert "multas fixadas em UPFM" in shown
    assert ("**Hoje em Chapada dos Guimarães:** 1 DAM emitido e não pago e 1 débito em aberto, "
            "do qual 1 vencido antes de 01/04/2026.") in shown
    assert db["parameters"].count_documents({"municipality": "chapada", "name": "upfm_value"}) == 1
    at.button(key="params_save_yes").click().run()
    assert not at.exception
    assert parameters.value(db, "chapada", "upfm_value", date(2026, 4, 1)) == Decimal("120.00")
    assert "Nova versão de 'Valor da UPFM (R$)' de Chapada dos Guimarães registrada." in at.success[0].value.replace("\\$", "$")


def test_cancelar_keeps_the_value_in_force_and_the_typed_form(db, today):
    versions(db)
    at = fill(page(db), "upfm_value", "120,00")
    at.button(key="params_save_no").click().run()
    assert not at.exception and "Confirmar:" not in markdown(at)
    assert at.text_input(key="params_new_value").value == "120,00"
    assert parameters.value(db, "chapada", "upfm_value", date(2026, 4, 1)) == Decimal("100.00")


def test_the_value_is_read_as_the_parameters_kind_with_no_kind_to_choose(db, today):
    # "Tipo do valor" let a money value be turned into a text; a phone typed with the default kind
    # (decimal) was refused as an invalid number
    versions(db)
    at = page(db)
    assert [r.label for r in at.radio] == []
    # no picker takes a typed name as a new parameter ("Add: UPFM" on Enter)
    assert [s.key for s in at.selectbox if s.proto.accept_new_options] == []
    at = fill(at, "ouvidoria_phone", "(65) 3301-1234")
    assert not at.exception and "Confirmar: Telefone da Ouvidoria de Chapada dos Guimarães" in markdown(at)
    at.button(key="params_save_yes").click().run()
    assert parameters.value(db, "chapada", "ouvidoria_phone", date(2026, 4, 1)) == "(65) 3301-1234"
    at = fill(at, "upfm_value", "cento e vinte")
    assert "Valor: valor inválido; use o formato 1.234,56." in [c.value.strip(":red[]") for c in at.caption]
    assert "Confirmar:" not in markdown(at)


def test_a_taken_date_is_refused_at_the_review_under_its_field(db, today):
    versions(db)
    at = page(db)
    at.date_input(key="params_new_effective").set_value(date(2026, 1, 1))
    at.selectbox(key="params_new_name").set_value("upfm_value")
    at.text_input(key="params_new_value").input("120,00")
    at.text_input(key="params_new_act").input("Decreto 2/2026")
    next(b for b in at.button if b.label == "Revisar antes de gravar").click().run()
    assert any("Já existe uma versão de 'Valor da UPFM (R$)' em vigor a partir de 01/01/2026" in c.value
               for c in at.caption)
    assert "Confirmar:" not in markdown(at)


def test_a_upfm_change_shows_the_fine_of_each_severity_at_the_new_value(db, today):
    versions(db)
    shown = markdown(fill(page(db), "upfm_value", "120,00"))
    assert "- Multa leve de infração em 01/04/2026: R$ 1.000,00 → **R$ 1.200,00**" in shown
    assert "- Multa gravíssima de infração em 01/04/2026: R$ 4.000,00 → **R$ 4.800,00**" in shown


def test_a_fine_above_its_cap_is_said_before_it_is_saved(db, today):
    for name, value in (("fine_grave", Decimal("500.00")), ("fine_cap_grave", Decimal("800.00"))):
        db["parameters"].delete_many({"municipality": "matupa", "name": name})
        parameters.add_version(db, TI, "matupa", name, date(2026, 1, 1), value, "Lei 1.552/2025")
    preview = parameters.preview(db, TI, "matupa", "fine_grave", date(2026, 4, 1), Decimal("900.00"), "Decreto 3/2026")
    (severity, before, after), = preview.fines
    assert (severity, before) == ("grave", "R$ 500,00") and after.startswith("recusada (Multa grave de R$")
    assert preview.municipality == "Matupá"


def test_a_parameter_never_set_is_offered_and_its_first_version_has_its_kind(db, today):
    # a new store leaves the UPFM unset (Implantação: "não cadastrado"); the picker, limited to the names
    # with versions, offered no way to set it
    db["parameters"].delete_many({"municipality": "chapada", "name": "upfm_value"})
    at = page(db)
    picker = at.selectbox(key="params_new_name")
    assert "Valor da UPFM (R$) — não cadastrado" in picker.options
    at = fill(at, "upfm_value", "120,00")
    assert "**Em vigor hoje:** nenhum valor em vigor hoje" in markdown(at)
    at.button(key="params_save_yes").click().run()
    assert parameters.value(db, "chapada", "upfm_value", date(2026, 4, 1)) == Decimal("120.00")


def test_the_first_version_of_a_listed_parameter_keeps_its_kind(db):
    db["parameters"].delete_many({"municipality": "chapada", "name": "upfm_value"})
    with pytest.raises(ValidationFailed) as refused:
        parameters.add_version(db, TI, "chapada", "upfm_value", date(2026, 1, 1), "cem reais", "Decreto 1/2026")
    assert refused.value.errors["value"].startswith("Valor: este parâmetro é um valor (R$) ou número decimal")


def test_implantacao_opens_parametros_of_each_municipality(db):
    """From Implantação, Matupá's values are set on Matupá's Parâmetros, whatever municipality the
    sidebar held."""
    from tests.test_pages_smoke import app_as

    at = app_as(TI, "chapada")
    at.switch_page("app_pages/deployment.py").run()
    assert not at.exception
    at.button(key="deployment_matupa_params").click().run()
    assert not at.exception
    assert at.session_state["municipality"] == "matupa"
    assert "Nova versão — Matupá" in [s.value for s in at.subheader]
