"""Issue 35 item 9: the TI data explorer opens on an empty choice and speaks the Auditoria's words —
each register by its pt-BR name, each field by its label, stored codes and municipalities by their
names (never ``inspection_failed``, ``nova_lacerda``, ``booking_requests`` or ``live_dam``)."""
from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from services.shared import audit_log, explorer
from tests.conftest import TI

ROOT = Path(__file__).resolve().parent.parent
CODE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
# what may hold an underscore and is no code: a username ("carga.nova_lacerda"), a file's name
NOT_A_CODE = re.compile(r"\b[\w.]+\.(?:csv|png|jpg|pdf)\b|\b[a-z]+\.[a-z_]+\b")


def explorer_page(municipality: str = "nova_lacerda") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "explorer.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, municipality
    return at.run()


def test_the_explorer_opens_on_an_empty_choice_named_as_the_auditoria_names_registers(demo_db):
    at = explorer_page()
    assert not at.exception
    choice = at.selectbox(key="explorer_collection")
    assert choice.value is None and len(at.dataframe) == 0
    assert "Pedido de serviço" in choice.options and "Registro de auditoria" in choice.options
    assert [o for o in choice.options if CODE.search(o)] == []
    assert "Autorização" in choice.options and audit_log.entity_label("authorizations") == "Autorização"


def test_an_authorizations_events_and_municipality_read_in_portuguese(demo_db):
    at = explorer_page("chapada")
    at.selectbox(key="explorer_collection").set_value("authorizations").run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert "Município" in frame.columns and "municipality" not in frame.columns
    assert set(frame["Município"]) == {"Chapada dos Guimarães"}
    events = " ".join(frame["Eventos"])
    assert "Vistoria reprovada" in events or "Vistoria aprovada" in events
    assert "inspection_" not in events


def test_every_register_of_the_demo_shows_labels_and_no_stored_code(demo_db):
    """Over every register the explorer lists (the first 50 of each, every municipality): the headers
    are labels and no value is a stored code; the municipalities' register keeps its own code."""
    found = {}
    for collection in explorer.collections(demo_db):
        rows, _total = explorer.browse(demo_db, TI, collection, None, 0, 50)
        shown = explorer.shown_rows(demo_db, collection, rows)
        codes = {name for row in shown for name in row if CODE.search(name) or name.startswith("_")}
        for row in shown:
            for name, value in row.items():
                if not (collection == "municipalities" and name == "Código"):
                    codes |= set(CODE.findall(NOT_A_CODE.sub("", str(value))))
        if codes:
            found[collection] = sorted(codes)
    assert found == {}
    assert explorer.label("booking_requests") == "Pedido de serviço"
