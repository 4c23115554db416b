"""Nothing technical or English reaches a user: parameter names, UTC instants, Streamlit's defaults."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services import store
from services.shared import accounts
from services.shared.parameter_labels import LABELS, label
from tests.conftest import TI

ROOT = Path(__file__).resolve().parent.parent


def parameter_names_in_code() -> set[str]:
    """Every parameter the services read by a named constant (``FEE_PARAMETER = "authorization_fee"``)."""
    names = set()
    for path in (ROOT / "services").rglob("*.py"):
        names |= set(re.findall(r'^[A-Z_]*(?:PARAMETER|FEE|CODE|IDENTIFIER|HOLIDAYS|OUVIDORIA|PIX_[A-Z_]+|PRICE_TABLE)'
                                r' = "([a-z_]+)"', path.read_text(), re.M))
    return names


@pytest.mark.parametrize("name", sorted(parameter_names_in_code()))
def test_every_parameter_the_code_reads_has_a_portuguese_label(name):
    assert name in LABELS and label(name) != name


def test_the_stored_parameters_all_have_labels(db):
    stored = set(db["parameters"].distinct("name"))
    assert stored and not [n for n in stored if n not in LABELS]


def test_every_parameter_of_the_demo_store_and_every_revenue_code_has_a_label(demo_db):
    """Issue 22 item 9: no raw name (dam_late_fine_daily_percent, dam_revenue_code_*) on Parâmetros."""
    from rules.dam.parameters import revenue_code_parameter
    from services.dam.dams import REVENUE_KINDS

    stored = set(demo_db["parameters"].distinct("name"))
    assert stored and [n for n in sorted(stored) if label(n) == n] == []
    assert [k for k in REVENUE_KINDS if label(revenue_code_parameter(k)) == revenue_code_parameter(k)] == []


def test_the_data_explorer_shows_instants_in_cuiaba_time(db):
    accounts.create_user(db, TI, "maria.silva", "Maria Silva", "secretaria", ["chapada"], "senha-forte-1")
    db["users"].update_one({"username": "maria.silva"},
                           {"$set": {"created_at": store.encode(datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc))}})
    at = AppTest.from_file(str(ROOT / "app_pages" / "explorer.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, "chapada"
    at.run()
    at.selectbox(key="explorer_collection").set_value("users").run()
    assert not at.exception
    at.toggle(key="explorer_only_here").set_value(False).run()
    assert not at.exception, at.exception
    cells = at.dataframe[0].value["Criado em"].tolist()
    assert "01/12/2026 11:00" in cells
    assert not any("+00:00" in str(c) for c in cells)


def test_an_audit_link_names_the_key_that_opens_its_record_on_the_page():
    """Item 10 of the everyday-use issue: "Abrir registro" in the audit log opens the record itself."""
    from ui import navigation

    for collection, key in navigation.OPEN_KEYS.items():
        link = navigation.record_link(collection, "abc123", "abc123")
        path, record_id = link.lstrip("/").split("?id=")
        assert navigation.linked_record(path, record_id) == (key, "abc123"), collection
    assert navigation.linked_record("drivers", None) is None
    assert navigation.record_link("users", "6b0eda18d64f38ea51d1deec", "maria.silva") == "/users?id=maria.silva"
    # no page opens one inspection or one custom field: no link that would open nothing
    assert navigation.record_link("inspections", "abc123", "EAA3Y37") is None
    assert navigation.record_link("custom_fields", "abc123") is None


@pytest.mark.parametrize(("page", "key", "ident", "opened"), [
    ("app_pages/users.py", "users_edit_target", "maria.silva", "maria.silva"),
    ("app_pages/parameters.py", "params_name", "upfm_value", "upfm_value"),
    ("app_pages/users.py", "users_edit_target", "de.outro.municipio", None),
], ids=["user", "parameter", "user not listed"])
def test_an_audit_link_by_key_opens_the_user_or_the_parameter(db, page, key, ident, opened):
    from seed.municipalities import seed_demo_parameters
    from services.shared import accounts
    from tests.test_pages_smoke import app_as

    seed_demo_parameters(db)
    for username in ("ana.souza", "maria.silva"):  # the list would show ana.souza first
        accounts.create_user(db, TI, username, username.title(), "secretaria", ["chapada"], "senha-forte-1")
    at = app_as(TI)
    at.query_params["id"] = ident
    at.switch_page(page).run()
    assert not at.exception
    value = at.selectbox(key=key).value
    assert value == opened if opened else value != ident


def test_every_action_the_demo_records_reads_in_portuguese_in_the_audit_log(demo_db):
    """Item 10: the register names each action in pt-BR ("Lavratura de auto de infração"), never an
    identifier ("lavrar", "platform_issqn") — over every action and collection the demo writes
    (``seed_demo``, conftest ``demo_store``)."""
    from services.shared import audit_log

    db = demo_db
    pairs = {(e["action"], e["collection"]) for e in db["audit"].find({}, {"action": 1, "collection": 1})}
    assert len(pairs) > 40
    named = set(audit_log.VERBS) | set(audit_log.SESSION_ACTIONS)
    technical = {f"{action}/{collection}": audit_log.action_label(action, collection) for action, collection in pairs
                 if (action not in named and (action, collection) not in audit_log.ACTION_LABELS)
                 or audit_log.entity_label(collection) == collection}
    assert technical == {}


def test_every_field_the_demo_changes_has_a_label_in_the_audit_log(demo_db):
    """Item 10: changed fields by their label ("Pago em"), not the identifier ("paid_on"), over the demo
    store (``seed_demo``, conftest ``demo_store``)."""
    from services.shared import audit_log

    db = demo_db
    raw = {f"{e['collection']}.{name}" for e in db["audit"].find({}, {"changes": 1, "collection": 1})
           for name in (e.get("changes") or {}) if audit_log.field_label(e["collection"], name) == name}
    assert raw == set()


def test_record_words_agree_with_the_registers_gender():
    """Issue 22 item 9: "Nova vistoria", "Plataforma salva", "Novo condutor" — never "Novo(a)", "salvo(a)"."""
    from services.shared import entities

    assert (entities.spec("inspections").new_label, entities.spec("platforms").saved) == ("Nova vistoria", "salva")
    assert (entities.spec("drivers").new_label, entities.spec("drivers").saved) == ("Novo condutor", "salvo")
    sources = [p for d in ("app_pages", "ui") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    assert [str(p.relative_to(ROOT)) for p in sources if "(a)" in p.read_text()] == []


# "atrasada(s)", "DAM(s)", "mês(es)", "item(ns)", "removido(a)": a count or a gender left to the reader
PSEUDO_PLURAL = re.compile(r"[^\W\d_]\((?:s|es|ns|is|ões|ães|a|as)\)")


def texts_of(path: Path) -> list[tuple[int, str]]:
    """The literal texts of a module (the literal parts of its f-strings), docstrings left out."""
    import ast

    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_pseudo_plural_reaches_a_user():
    """Issue 35 item 10: "2 atrasadas", "1 atrasada" (babel's pt-BR plural, ``rules.fmt.count``) — never
    "2 atrasada(s)" — in every text the pages, the services and the rules write."""
    sources = [p for d in ("app_pages", "ui", "services", "rules") for p in (ROOT / d).rglob("*.py")]
    found = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p in sources + [ROOT / "app.py"]
             for line, text in texts_of(p) if PSEUDO_PLURAL.search(text)]
    assert found == []


@pytest.mark.parametrize(("count", "expected"), [
    (0, "0 atrasadas"), (1, "1 atrasada"), (2, "2 atrasadas"), (1234, "1.234 atrasadas")],
    ids=["zero takes the plural in Brazilian usage", "one", "two", "thousands"])
def test_a_count_takes_the_plural_of_pt_br(count, expected):
    from rules import fmt

    assert fmt.count(count, "atrasada", "atrasadas") == expected
