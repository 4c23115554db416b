"""Entity specs drive form, list, export, import and validation; custom fields per municipality."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.shared import custom_fields, entities, entity_files, entity_lists, schema
from services.shared.errors import Conflict, ValidationFailed
from services.shared.schema import Field, ListQuery
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP, TI

ROOT = Path(__file__).resolve().parent.parent
TAXPAYER = {"name": "Rosa Amaral", "document": "52998224725", "kind": "pf", "address": "Rua C, 3"}


@pytest.fixture
def nickname_field(monkeypatch):
    """A field added to the taxpayers spec in code, as a developer would."""
    spec = schema.SPECS["taxpayers"]
    extended = replace(spec, fields=spec.fields + (Field("nickname", "Apelido", searchable=True),))
    monkeypatch.setitem(schema.SPECS, "taxpayers", extended)
    return extended


def page_with(actor, municipality="chapada") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages/taxpayers.py"), default_timeout=60)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    return at.run()


def test_a_field_added_to_a_spec_appears_in_validation_list_export_and_import(db, nickname_field):
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {**TAXPAYER, "nickname": "Rosinha"})
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["nickname"] == "Rosinha"
    page = entity_lists.list_page(db, SECRETARIA_CG, "taxpayers", "chapada", ListQuery(search="rosinha"))
    assert [r["id"] for r in page.rows] == [doc_id]
    csv_text = entity_files.export_csv(db, SECRETARIA_CG, "taxpayers", "chapada", ListQuery(search="rosinha")).decode("utf-8-sig")
    header, row = csv_text.splitlines()[:2]
    assert "Apelido" in header.split(";") and "Rosinha" in row.split(";")
    upload = "Nome / Razão social;CPF/CNPJ;Tipo;Endereço;Apelido\nLia Paz;111.444.777-35;Pessoa física;Rua D, 4;Lia\n"
    report = entity_files.import_csv(db, SECRETARIA_CG, "taxpayers", "chapada", upload.encode(), commit=True)
    assert report.ok and report.inserted == 1
    page = entity_lists.list_page(db, SECRETARIA_CG, "taxpayers", "chapada", ListQuery(search="Lia"))
    assert page.rows[0]["nickname"] == "Lia"


def test_a_field_added_to_a_spec_appears_in_the_form_and_the_list_screen(db, nickname_field):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {**TAXPAYER, "nickname": "Rosinha"})
    at = page_with(SECRETARIA_CG)
    assert not at.exception
    assert "Apelido" in [t.label for t in at.text_input]
    assert "Apelido" in list(at.dataframe[0].value.columns)


def test_form_keeps_what_was_typed_and_shows_the_error_next_to_the_field(db):
    at = page_with(SECRETARIA_CG)
    prefix = "taxpayers_form_new"
    at.text_input(key=f"{prefix}_name").input("Pedro Lima")
    at.text_input(key=f"{prefix}_document").input("529.982.247-26")
    at.text_input(key=f"{prefix}_address").input("Rua E, 5")
    at.get("form_submit_button")[-1].click().run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any("CPF/CNPJ: CPF ou CNPJ inválido" in c for c in captions)
    assert any("Tipo: campo obrigatório" in c for c in captions)
    assert at.text_input(key=f"{prefix}_name").value == "Pedro Lima"
    assert at.text_input(key=f"{prefix}_document").value == "529.982.247-26"
    assert db["taxpayers"].count_documents({"name": "Pedro Lima"}) == 0


def test_validation_inside_the_service_refuses_bad_values(db):
    with pytest.raises(ValidationFailed) as error:
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {"name": "", "document": "123"})
    assert set(error.value.errors) == {"name", "document", "kind", "address"}


def test_unique_document_per_municipality(db):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    with pytest.raises(Conflict, match="CPF/CNPJ"):
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    entities.create(db, SECRETARIA_MP, "taxpayers", "matupa", TAXPAYER)


def test_list_is_filtered_sorted_and_paginated_in_the_store(db):
    for index in range(30):
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {
            "name": f"Pessoa {index:02d}", "document": _cpf(index), "kind": "pj" if index % 3 == 0 else "pf",
            "address": "Rua F, 6"})
    page = entity_lists.list_page(db, SECRETARIA_CG, "taxpayers", "chapada",
                                  ListQuery(filters={"kind": "pj"}, sort="name", descending=True, page=2, per_page=4))
    assert page.total == 10 and page.pages == 3
    assert [r["name"] for r in page.rows] == ["Pessoa 15", "Pessoa 12", "Pessoa 09", "Pessoa 06"]


def test_export_is_exactly_what_the_filter_shows(db):
    for index in range(6):
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {
            "name": f"Export {index}", "document": _cpf(index), "kind": "pj" if index < 2 else "pf", "address": "R"})
    lines = entity_files.export_csv(db, SECRETARIA_CG, "taxpayers", "chapada",
                                    ListQuery(filters={"kind": "pj"})).decode("utf-8-sig").splitlines()
    assert len(lines) == 3 and all("Pessoa jurídica" in line for line in lines[1:])


def test_import_dry_run_reports_every_bad_row_and_writes_nothing(db):
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    upload = ("Nome / Razão social;CPF/CNPJ;Tipo;Endereço\n"
              "Boa;111.444.777-35;Pessoa física;Rua 1\n"
              ";111.444.777-36;Pessoa física;Rua 2\n"
              "Repetida;529.982.247-25;Pessoa física;Rua 3\n"
              "Dupla;111.444.777-35;Alienígena;Rua 4\n")
    report = entity_files.import_csv(db, SECRETARIA_CG, "taxpayers", "chapada", upload.encode(), commit=True)
    problems = {(e.line, e.field) for e in report.errors}
    assert problems == {(3, "Nome / Razão social"), (3, "CPF/CNPJ"), (4, "CPF/CNPJ"), (5, "Tipo")}
    assert report.inserted == 0 and db["taxpayers"].count_documents({}) == 1


@pytest.mark.parametrize("data,message", [
    (b"", "vazio"),
    ("Nome / Razão social;CPF/CNPJ\nJosé;1\n".encode("latin-1"), "UTF-8"),
], ids=["empty file", "latin-1 file"])
def test_import_refuses_an_unreadable_file_with_a_message(db, data, message):
    with pytest.raises(ValidationFailed, match=message):
        entity_files.import_csv(db, SECRETARIA_CG, "taxpayers", "chapada", data)


def test_import_reports_a_value_repeated_inside_the_file(db):
    upload = ("Nome / Razão social;CPF/CNPJ;Tipo;Endereço\n"
              "Uma;111.444.777-35;Pessoa física;Rua 1\nOutra;111.444.777-35;Pessoa física;Rua 2\n")
    report = entity_files.import_csv(db, SECRETARIA_CG, "taxpayers", "chapada", upload.encode())
    assert [(e.line, e.message) for e in report.errors] == [(3, "repetido na linha 2 do arquivo")]


def test_custom_field_is_stored_and_shown_for_its_municipality_only(db):
    custom_fields.add_custom_field(db, TI, "taxpayers", "chapada", "Inscrição municipal", "text", required=True)
    with pytest.raises(ValidationFailed, match="Inscrição municipal"):
        entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    doc_id = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {**TAXPAYER, "cf_inscricao_municipal": "123"})
    assert entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", doc_id)["cf_inscricao_municipal"] == "123"
    entities.create(db, SECRETARIA_MP, "taxpayers", "matupa", TAXPAYER)
    labels_cg = [t.label for t in page_with(SECRETARIA_CG).text_input]
    labels_mp = [t.label for t in page_with(SECRETARIA_MP, "matupa").text_input]
    assert "Inscrição municipal *" in labels_cg and "Inscrição municipal *" not in labels_mp
    export = entity_files.export_csv(db, SECRETARIA_CG, "taxpayers", "chapada", ListQuery()).decode("utf-8-sig")
    assert "Inscrição municipal" in export.splitlines()[0] and "123" in export


def _cpf(seed: int) -> str:
    import random

    from seed.people import cpf

    return cpf(random.Random(seed))


def test_ride_hailing_services_register_their_specs_on_import():
    """A script or job that imports only the ride-hailing services finds its registers."""
    import subprocess
    import sys

    code = "from services.ridehailing import registry\nfrom services.shared.schema import SPECS\nprint(sorted(SPECS))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    assert {"drivers", "vehicles", "authorizations"} <= set(eval(out))
