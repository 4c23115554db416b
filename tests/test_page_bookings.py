"""Machinery bookings screens of Nova Lacerda driven as a user would (AppTest)."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services import clock, parameters
from services.auth import Actor
from tests.conftest import TI

ROOT = Path(__file__).resolve().parent.parent
MUN = "nova_lacerda"
CLERK = Actor("secretaria.novalacerda", "Servidora de Nova Lacerda", "secretaria", (MUN,))


def page(name: str, actor: Actor = CLERK, municipality: str = MUN) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    return at.run()


def texts(at: AppTest, kind: str) -> str:
    return " | ".join(e.value for e in getattr(at, kind))


def frame_text(at: AppTest, column: str) -> str:
    """The text of the first table on screen with that column."""
    return next(d.value for d in at.dataframe if column in d.value.columns).to_string()


def test_price_table_update_is_previewed_then_saved(db):
    at = page("price_table.py", TI)
    assert not at.exception
    assert "Retroescavadeira" in frame_text(at, "Preço (R$)") and "R$ 300,00" in frame_text(at, "Preço (R$)")
    at.selectbox(key="prices_index").set_value("INPC")
    at.text_input(key="prices_variation").input("10")
    at.text_input(key="prices_period").input("03/2026 a 02/2027")
    at.text_input(key="prices_act").input("Decreto Municipal 40/2027")
    at.button[0].click().run()
    assert not at.exception
    preview = frame_text(at, "Novo preço")
    assert "R$ 330,00" in preview and "R$ 165,00" in preview and "R$ 4,95" in preview
    assert "nada foi gravado" in " ".join(m.value for m in at.markdown)
    assert len(parameters.book(db, MUN).history("public_price_table")) == 1
    at.button(key="prices_save").click().run()
    assert not at.exception
    assert "Nova versão registrada" in texts(at, "success")
    versions = parameters.book(db, MUN).history("public_price_table")
    assert [v.effective for v in versions] == [versions[0].effective, clock.today() + timedelta(days=1)]
    assert D(str(versions[1].value["01"])) == D("330.00")


def test_price_table_errors_show_under_their_fields(db):
    at = page("price_table.py", TI)
    at.text_input(key="prices_variation").input("abc")
    at.button[0].click().run()
    captions = " ".join(c.value for c in at.caption)
    assert "Informe a variação do índice" in captions
    assert "Informe o período de referência" in captions and "Informe o ato do Poder Executivo" in captions
    assert all("Novo preço" not in d.value.columns for d in at.dataframe)


def test_price_table_is_not_offered_where_the_module_is_off(db):
    at = page("price_table.py", TI, "chapada")
    assert texts(at, "error") == "O módulo de serviços de máquinas não está habilitado neste município."
