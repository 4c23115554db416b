"""A field of kind "arquivo" on a register defined by TI (issue 35 item 13): a document or photo of the
record, through the one upload guard (size from PAINEL_REGISTER_FILE_MAX_MB, type from the content),
kept by the store's files, listed by name and size, downloadable by who reads the register, carried
by the definition's export and import, each change audited."""
from __future__ import annotations

import json

import pytest

from services.shared import audit_log, definition_transfer, definitions, entities, entity_files, entity_lists
from services.shared.auth import Actor
from services.shared.errors import PermissionDenied, ValidationFailed
from services.shared.record_files import Sent
from services.shared.schema import ListQuery
from services.store import connect
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP, TI, copy_store

TI_CG = Actor("ti.cg", "TI de Chapada", "ti", ("chapada",))
TI_MP = Actor("ti.mp", "TI de Matupá", "ti", ("matupa",))
NAME = "concessoes_cemiterio"
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def graves(**field) -> dict:
    return {"name": NAME, "label": "Concessão de cemitério", "label_plural": "Concessões de cemitério",
            "feminine": True, "read_roles": ["secretaria"], "write_roles": ["secretaria"],
            "municipalities": ["chapada"], "title_field": "titular",
            "fields": [{"name": "titular", "label": "Titular", "kind": "text", "required": True, "searchable": True},
                       {"name": "termo", "label": "Termo de concessão", "kind": "file", **field}]}


@pytest.fixture
def defined(db):
    definitions.define_register(db, TI_CG, "chapada", graves())
    return NAME


def test_ti_defines_a_file_field(db, defined):
    stored = definitions.definition(db, TI_CG, "chapada", NAME)
    assert stored["fields"][1]["kind"] == "file"


@pytest.mark.parametrize("flag", ["unique", "searchable", "filterable"])
def test_a_file_field_is_never_unique_searched_or_filtered(db, flag):
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", graves(required=True, **{flag: True}))
    assert "um campo de arquivo não pode ser único, de busca nem filtro" in refused.value.errors["fields.1.kind"]


def test_a_record_keeps_its_file_lists_it_and_gives_it_back(db, defined):
    record = entities.create(db, SECRETARIA_CG, NAME, "chapada",
                             {"titular": "Maria das Dores", "termo": Sent("C:\\docs\\termo 12.pdf", PDF)})
    doc = entities.get(db, SECRETARIA_CG, NAME, "chapada", record)
    assert doc["termo"]["name"] == "termo 12.pdf" and doc["termo"]["type"] == "pdf"
    assert doc["termo"]["size"] == len(PDF)
    (row,) = entity_lists.list_page(db, SECRETARIA_CG, NAME, "chapada", ListQuery()).rows
    shown = entities.spec_for(db, NAME, "chapada").field("termo").show(row["termo"])
    assert shown == f"termo 12.pdf ({len(PDF)} bytes)"
    assert f"termo 12.pdf ({len(PDF)} bytes)" in entity_files.export_csv(db, SECRETARIA_CG, NAME, "chapada",
                                                                        ListQuery()).decode()
    assert entity_files.record_file(db, SECRETARIA_CG, NAME, "chapada", record, "termo") == (
        "termo 12.pdf", "application/pdf", PDF)
    with pytest.raises(PermissionDenied):  # who does not read the register does not download its files
        entity_files.record_file(db, SECRETARIA_MP, NAME, "chapada", record, "termo")


def test_the_upload_guard_refuses_a_file_past_its_limit_or_of_another_type(db, defined, monkeypatch):
    with pytest.raises(ValidationFailed) as refused:
        entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("t.docx", b"PK\x03\x04")})
    assert refused.value.errors["termo"].startswith("Termo de concessão: O arquivo 't.docx' não é PDF, JPEG ou PNG")
    monkeypatch.setenv("PAINEL_REGISTER_FILE_MAX_MB", "0.00001")
    with pytest.raises(ValidationFailed, match="o limite para arquivos dos cadastros definidos"):
        entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF)})
    assert db[NAME].count_documents({}) == 0


def test_a_record_never_takes_a_stored_file_it_was_not_sent(db, defined):
    # pointing a record at another file of the store (an auto's evidence) would let its readers download it
    forged = {"name": "prova.pdf", "size": 10, "type": "pdf", "sha256": "0" * 64}
    with pytest.raises(ValidationFailed, match="envie o arquivo"):
        entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": forged})


def test_replacing_the_file_is_audited_by_name_and_size_and_leaves_it_as_is_otherwise(db, defined):
    record = entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF)})
    entities.update(db, SECRETARIA_CG, NAME, "chapada", record, {"titular": "Ana Lima"}, expected_version=1)
    assert entities.get(db, SECRETARIA_CG, NAME, "chapada", record)["termo"]["name"] == "termo.pdf"
    entities.update(db, SECRETARIA_CG, NAME, "chapada", record, {"termo": Sent("foto.png", PNG)},
                    expected_version=2)
    assert entity_files.record_file(db, SECRETARIA_CG, NAME, "chapada", record, "termo")[1:] == ("image/png", PNG)
    entries, _ = audit_log.search(db, TI, "chapada", collection=NAME)
    shown = [r["Alterações"] for r in audit_log.rows_shown(entries, db)]
    assert f"Termo de concessão: termo.pdf ({len(PDF)} bytes) → foto.png ({len(PNG)} bytes)" in shown
    assert f"Termo de concessão: — → termo.pdf ({len(PDF)} bytes)" in shown[-1]


def test_an_exported_list_reads_back_without_its_files_and_a_required_file_is_asked_of_each_row(db):
    definitions.define_register(db, TI_CG, "chapada", graves())
    entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF)})
    data = entity_files.export_csv(db, SECRETARIA_CG, NAME, "chapada", ListQuery())
    report = entity_files.import_csv(db, SECRETARIA_CG, NAME, "chapada", data)
    assert report.ok and report.rows == 1  # the file's column is not read: a CSV cell holds no file
    definition = definitions.definition(db, TI_CG, "chapada", NAME)
    definition["fields"][1]["required"] = True
    definitions.change_register(db, TI_CG, "chapada", NAME, definition, expected_version=definition["version"])
    report = entity_files.import_csv(db, SECRETARIA_CG, NAME, "chapada", data)
    assert [(e.line, e.message) for e in report.errors] == [(2, "Termo de concessão: campo obrigatório.")]


def test_the_files_travel_with_the_exported_records(db, defined, prepared_store, tmp_path):
    entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF)})
    entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Rui"})
    data = definition_transfer.export_register(db, TI_CG, "chapada", NAME, with_records=True)
    records = json.loads(data)["records"]
    assert records[0]["termo"]["name"] == "termo.pdf" and records[1]["termo"] is None
    other = connect(uri="", data_dir=str(copy_store(prepared_store, tmp_path / "other")))
    definition_transfer.import_register(other, TI_MP, "matupa", data)
    (kept,) = [r for r in entity_lists.list_all(other, SECRETARIA_MP, NAME, "matupa", ListQuery()) if r.get("termo")]
    assert entity_files.record_file(other, SECRETARIA_MP, NAME, "matupa", kept["id"], "termo") == (
        "termo.pdf", "application/pdf", PDF)


def test_a_damaged_file_in_an_import_is_named_and_nothing_is_written(db, defined):
    entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF)})
    document = json.loads(definition_transfer.export_register(db, TI_CG, "chapada", NAME, with_records=True))
    document["records"][0]["termo"]["content"] = "não é base64"
    plan = definition_transfer.check_import(db, TI_MP, "matupa", json.dumps(document).encode(), rename_to="copia")
    assert [p.where for p in plan.problems] == ["Registro 1"] and "Termo de concessão" in plan.problems[0].message


def test_an_export_past_the_import_limit_is_refused_at_export(db, defined, monkeypatch):
    entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF * 400)})
    monkeypatch.setenv("PAINEL_REGISTER_DEFINITION_MAX_MB", "0.01")
    with pytest.raises(ValidationFailed, match="exporte sem os registros"):
        definition_transfer.export_register(db, TI_CG, "chapada", NAME, with_records=True)
    assert definition_transfer.export_register(db, TI_CG, "chapada", NAME, with_records=False)


def test_the_record_page_shows_the_file_it_holds_with_its_download_and_an_upload_to_replace_it(db, defined):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    record = entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Ana", "termo": Sent("termo.pdf", PDF)})
    app = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)
    app.session_state["actor"], app.session_state["municipality"] = SECRETARIA_CG, "chapada"
    app.run()
    app.switch_page("app_pages/register_records.py")
    app.session_state["defined_register"] = NAME
    app.session_state[f"{NAME}_open"] = record
    app.run()
    assert not app.exception, app.exception
    assert f"Arquivo atual: termo.pdf ({len(PDF)} bytes)" in [c.value for c in app.caption]
    downloads = [e for e in app.get("download_button") if "Baixar termo de concessão" in str(e.proto.label)]
    assert [e.proto.label for e in downloads] == [f"Baixar termo de concessão: termo.pdf ({len(PDF)} bytes)"]
    edit = next(u for u in app.get("file_uploader") if u.key == f"{NAME}_form_{record}_termo_0")
    edit.set_value(("foto.png", PNG, "image/png"))
    next(b for b in app.button if b.label == "Salvar" and f"{NAME}_form_{record}" in str(b.form_id)).click()
    app.run()
    assert not app.exception, app.exception
    assert entities.get(db, SECRETARIA_CG, NAME, "chapada", record)["termo"]["name"] == "foto.png"


def test_the_clerk_saves_a_new_record_with_its_document_on_the_page(db, defined):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=60)
    app.session_state["actor"], app.session_state["municipality"] = SECRETARIA_CG, "chapada"
    app.run()
    app.switch_page("app_pages/register_records.py")
    app.session_state["defined_register"] = NAME
    app.run()
    app.text_input(key=f"{NAME}_form_new_titular").input("Maria das Dores")
    next(u for u in app.get("file_uploader") if u.key == f"{NAME}_form_new_termo_0").set_value(
        ("termo.pdf", PDF, "application/pdf"))
    next(b for b in app.button if b.label == "Salvar e novo").click()
    app.run()
    assert not app.exception, app.exception
    (saved,) = db[NAME].find({})
    assert (saved["titular"], saved["termo"]["name"], saved["termo"]["size"]) == ("Maria das Dores", "termo.pdf",
                                                                                  len(PDF))
    assert [u.key for u in app.get("file_uploader") if "_form_new_" in u.key] == [f"{NAME}_form_new_termo_1"]
