"""Definitions travel (issue 24 item 5): a defined register and its records exported from one store and
municipality and imported into another, checked whole before anything is written."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services.shared import definition_transfer, definitions, entities, entity_lists, municipalities
from services.shared.auth import Actor
from services.shared.errors import PermissionDenied, ValidationFailed
from services.shared.schema import ListQuery
from services.store import connect
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP, copy_store
from tests.test_definitions import TI_CG, stalls

ROOT = Path(__file__).resolve().parent.parent
TI_MP = Actor("ti.mp", "TI de Matupá", "ti", ("matupa",))
TAXPAYER = {"name": "João Teste", "document": "52998224725", "kind": "pf", "address": "Rua B, 2"}
FIRST = {"numero": "B-01", "titular": "529.982.247-25", "setor": "Hortifruti", "area": "12", "taxa": "45,50",
         "desde": "2026-01-05", "telefone": "(65) 99999-0000", "email": "ana@exemplo.com",
         "contribuinte": "52998224725"}
SECOND = {"numero": "B-02", "titular": "111.444.777-35", "setor": "Artesanato", "taxa": "1.234,56"}


@pytest.fixture
def source(db):
    """Chapada's stalls in the source store: two records kept, one removed by mistake."""
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    definitions.define_register(db, TI_CG, "chapada", stalls(removable=True))
    for values in (FIRST, SECOND):
        entities.create(db, SECRETARIA_CG, "bancas_feira", "chapada", values)
    wrong = entities.create(db, SECRETARIA_CG, "bancas_feira", "chapada", {"numero": "B-99", "titular": "529.982.247-25"})
    entities.remove(db, SECRETARIA_CG, "bancas_feira", "chapada", wrong, "Digitada em duplicidade", expected_version=1)
    return db


@pytest.fixture
def target(prepared_store, tmp_path):
    """A fresh store (another deployment) where Matupá has the taxpayer the stalls refer to."""
    other = connect(uri="", data_dir=str(copy_store(prepared_store, tmp_path / "other")))
    entities.create(other, SECRETARIA_MP, "taxpayers", "matupa", TAXPAYER)
    return other


def written(db, *registers: str) -> tuple[int, ...]:
    return (db["register_definitions"].count_documents({}), db["audit"].count_documents({}),
            *(db[r].count_documents({}) for r in registers))


def exported(db, name="bancas_feira", with_records=True) -> dict:
    return json.loads(definition_transfer.export_register(db, TI_CG, "chapada", name, with_records=with_records))


def as_file(document: dict) -> bytes:
    return json.dumps(document).encode()


def test_a_register_and_its_records_travel_to_another_store_and_municipality(source, target):
    data = definition_transfer.export_register(source, TI_CG, "chapada", "bancas_feira", with_records=True)
    document = json.loads(data)
    assert (document["painel"], document["format"], document["municipality"], document["exported_by"]) == \
        ("cadastro-definido", 1, "chapada", "ti.cg")
    assert [r["numero"] for r in document["records"]] == ["B-01", "B-02"]  # the removed one stays home
    assert (document["records"][0]["taxa"], document["records"][0]["desde"]) == ("45.50", "2026-01-05")
    plan = definition_transfer.check_import(target, TI_MP, "matupa", data)
    assert (plan.name, plan.label_plural, plan.fields, plan.records, plan.source, plan.applicable) == \
        ("bancas_feira", "Bancas da feira", 9, 2, "chapada", True)

    assert definition_transfer.import_register(target, TI_MP, "matupa", data) == "bancas_feira"
    before = definitions.definition(source, TI_CG, "chapada", "bancas_feira")
    after = definitions.definition(target, TI_MP, "matupa", "bancas_feira")
    assert after["fields"] == before["fields"] and after["municipalities"] == ["matupa"]
    assert after["fields"][2]["choices"] == [["Hortifruti", "Hortifruti"], ["Artesanato", "Artesanato"],
                                             ["Alimentação", "Alimentação"]]
    assert after["fields"][8]["refers_to"] == ["taxpayers", "document"]
    rows = entity_lists.list_all(target, SECRETARIA_MP, "bancas_feira", "matupa", ListQuery(sort="numero"))
    kept = [{k: r.get(k) for k in FIRST} for r in rows]
    assert kept == [
        {"numero": "B-01", "titular": "52998224725", "setor": "Hortifruti", "area": 12, "taxa": Decimal("45.50"),
         "desde": date(2026, 1, 5), "telefone": "65999990000", "email": "ana@exemplo.com",
         "contribuinte": "52998224725"},
        {"numero": "B-02", "titular": "11144477735", "setor": "Artesanato", "area": None, "taxa": Decimal("1234.56"),
         "desde": None, "telefone": None, "email": None, "contribuinte": None}]
    [entry] = target["audit"].find({"action": "import"})
    source_name = municipalities.get(target, "chapada").name
    assert entry["municipality"] == "matupa" and entry["changes"]["quantity"]["after"] == 2
    assert f"exportado de {source_name} em " in entry["note"] and "por ti.cg, com 2 registros" in entry["note"]
    assert target["bancas_feira"].index_information()["u_bancas_feira_numero"]["unique"]
    with pytest.raises(Exception, match="Já existe banca da feira"):  # the register's unique index, made after
        entities.create(target, SECRETARIA_MP, "bancas_feira", "matupa", {"numero": "B-01", "titular": "529.982.247-25"})


def test_without_records_only_the_definition_travels(source, target):
    document = exported(source, with_records=False)
    assert "records" not in document and document["definition"]["label"] == "Banca da feira"
    definition_transfer.import_register(target, TI_MP, "matupa", as_file(document))
    assert target["bancas_feira"].count_documents({}) == 0
    assert [r.name for r in definitions.readable_registers(target, SECRETARIA_MP, "matupa")] == ["bancas_feira"]


def test_every_editable_key_travels_whatever_it_is(source, target, monkeypatch):
    """A key added to the form later (a status flow) is carried without the transfer naming it."""
    monkeypatch.setattr(definitions, "EDITABLE", (*definitions.EDITABLE, "nota"))
    source["register_definitions"].update_one({"name": "bancas_feira"}, {"$set": {"nota": {"de": "teste"}}})
    document = exported(source)
    assert document["definition"]["nota"] == {"de": "teste"}
    definition_transfer.import_register(target, TI_MP, "matupa", as_file(document))
    assert target["register_definitions"].find_one({"name": "bancas_feira"})["nota"] == {"de": "teste"}


def _refused(db, municipality, data, registers=("bancas_feira",), actor=TI_MP, **rename) -> list[str]:
    """The plan's problems, checking that the import itself is refused and writes nothing."""
    before = written(db, *registers)
    plan = definition_transfer.check_import(db, actor, municipality, data, rename.get("rename_to"))
    with pytest.raises(ValidationFailed) as refused:
        definition_transfer.import_register(db, actor, municipality, data, **rename)
    assert "Nada foi importado" in refused.value.errors["data"]
    assert written(db, *registers) == before and not plan.applicable
    return [f"{p.where}: {p.message}" for p in plan.problems]


def test_a_reference_to_a_register_the_target_lacks_is_refused_naming_it(source, target):
    definitions.define_register(source, TI_CG, "chapada", {
        "name": "vistorias_banca", "label": "Vistoria de banca", "label_plural": "Vistorias de bancas",
        "read_roles": ["secretaria"], "write_roles": ["secretaria"], "municipalities": ["chapada"],
        "fields": [{"name": "banca", "label": "Banca", "kind": "reference", "target": "bancas_feira", "required": True}]})
    data = as_file(exported(source, "vistorias_banca"))
    assert _refused(target, "matupa", data, ("vistorias_banca",)) == [
        "Definição: Campo 1 (Banca): refere-se ao cadastro “bancas_feira”, que não existe neste painel; importe antes "
        "a definição dele."]


def test_a_name_already_used_is_refused_unless_imported_under_a_new_identifier(source):
    data = as_file(exported(source))
    problems = _refused(source, "chapada", data, actor=TI_CG)
    assert problems == ["Definição: Identificador do cadastro: já existe um cadastro “bancas_feira” neste painel; "
                        "informe um novo identificador para importar."]
    assert definition_transfer.check_import(source, TI_CG, "chapada", data).name_taken
    assert "letras minúsculas" in _refused(source, "chapada", data, actor=TI_CG, rename_to="Bancas 2")[0]
    definition_transfer.import_register(source, TI_CG, "chapada", data, rename_to="bancas_feira_2")
    assert source["bancas_feira_2"].count_documents({"municipality": "chapada"}) == 2


def test_records_failing_validation_are_refused_with_their_number_and_field(source, target):
    document = exported(source)
    document["records"][1]["titular"] = "111.111.111-12"
    document["records"].append({**document["records"][0], "setor": "Pescados"})
    document["records"].append({"numero": "B-07", "titular": "52998224725", "contribuinte": "11144477735"})
    assert _refused(target, "matupa", as_file(document)) == [
        "Registro 2: CPF do titular: CPF inválido (confira os dígitos verificadores).",
        "Registro 3: Setor: opção inválida; escolha uma das opções: Hortifruti, Artesanato, Alimentação.",
        "Registro 4: Contribuinte: 111.444.777-35 não está no cadastro de contribuintes deste município; cadastre "
        "antes ou escolha um registro da lista."]


def test_a_unique_value_repeated_within_the_file_is_refused(source, target):
    document = exported(source)
    document["records"][1]["numero"] = "B-01"
    assert _refused(target, "matupa", as_file(document)) == [
        "Registro 2: Número da banca: repetido no registro 1 do arquivo."]


@pytest.mark.parametrize("data, words", [
    (b"nada de json", "não é um JSON válido"),
    (b"\xff\xfe{}", "não está em UTF-8"),
    (json.dumps({"painel": "outro", "format": 1}).encode(), "não é uma definição de cadastro exportada"),
    (json.dumps({"painel": "cadastro-definido", "format": 2, "definition": {}}).encode(), "formato (2)"),
    (json.dumps({"painel": "cadastro-definido", "format": 1, "definition": {"label": "a\x00b"}}).encode(),
     "U+0000"),
    (json.dumps({"painel": "cadastro-definido", "format": 1, "definition": {"name": "x"}, "records": {}}).encode(),
     "forma esperada"),
], ids=["not-json", "not-utf8", "wrong-header", "newer-format", "nul-in-a-label", "records-not-a-list"])
def test_a_bad_file_is_refused_in_ptbr_before_anything_is_written(target, data, words):
    before = written(target)
    for service in (definition_transfer.check_import, definition_transfer.import_register):
        with pytest.raises(ValidationFailed) as refused:
            service(target, TI_MP, "matupa", data)
        assert words in refused.value.errors["data"]
    assert written(target) == before


def test_a_file_past_the_limit_is_refused(source, target, monkeypatch):
    data = as_file(exported(source))
    before = written(target, "bancas_feira")
    monkeypatch.setenv("PAINEL_REGISTER_DEFINITION_MAX_MB", "0.001")
    for service in (definition_transfer.check_import, definition_transfer.import_register):
        with pytest.raises(ValidationFailed) as refused:
            service(target, TI_MP, "matupa", data)
        assert "o limite para definições de cadastros é 0,001 MB" in refused.value.errors["data"]
    assert written(target, "bancas_feira") == before


def test_a_malformed_definition_is_a_problem_not_a_crash(source, target):
    document = exported(source, with_records=False)
    document["definition"]["fields"][0] = "numero"
    assert _refused(target, "matupa", as_file(document)) == [
        "Definição: A definição do arquivo não tem a forma esperada; exporte-a de novo do painel de origem."]


def test_only_ti_of_the_municipality_exports_and_imports(source, target):
    data = as_file(exported(source))
    before = written(target, "bancas_feira")
    with pytest.raises(PermissionDenied):
        definition_transfer.export_register(source, TI_MP, "chapada", "bancas_feira", with_records=True)
    with pytest.raises(PermissionDenied):
        definition_transfer.export_register(source, SECRETARIA_CG, "chapada", "bancas_feira", with_records=False)
    for actor, municipality in ((TI_CG, "matupa"), (SECRETARIA_MP, "matupa")):
        for service in (definition_transfer.check_import, definition_transfer.import_register):
            with pytest.raises(PermissionDenied):
                service(target, actor, municipality, data)
    assert written(target, "bancas_feira") == before


# ---- the page ----

def page(actor, municipality: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "register_definitions.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = actor, municipality
    return at.run()


def test_the_page_offers_the_file_and_shows_each_problem_before_importing(source):
    at = page(TI_CG, "chapada")
    at.selectbox(key="regdef_choice").set_value("bancas_feira").run()
    assert not at.exception
    assert "Baixar a definição (.json)" in [b.proto.label for b in at.get("download_button")]
    assert at.checkbox(key="regdef_transfer_records").label == "Incluir os registros"
    document = exported(source)
    document["records"][1]["titular"] = "111.111.111-12"
    at.file_uploader(key="regdef_transfer_file_0").set_value(("cadastro.json", as_file(document),
                                                              "application/json")).run()
    assert not at.exception
    assert "2 problemas" in at.error[0].value
    table = at.dataframe[0].value
    assert list(table["Onde"]) == ["Definição", "Registro 2"]
    assert "CPF inválido" in table["Problema"][1] and "já existe um cadastro" in table["Problema"][0]
    assert at.text_input(key="regdef_transfer_rename").label == "Novo identificador"
    assert not [b for b in at.button if b.key == "regdef_transfer_import"]


def test_the_page_imports_under_a_new_identifier_after_confirmation(source):
    at = page(TI_CG, "chapada")
    at.file_uploader(key="regdef_transfer_file_0").set_value(("cadastro.json", as_file(exported(source)),
                                                              "application/json")).run()
    at.text_input(key="regdef_transfer_rename").input("bancas_centro").run()
    assert "nada impede a importação" in at.success[0].value
    at.button(key="regdef_transfer_import").click().run()
    at.button(key="regdef_transfer_import_yes").click().run()
    assert not at.exception
    assert "Cadastro de bancas da feira importado com 2 registros" in " ".join(s.value for s in at.success)
    assert source["bancas_centro"].count_documents({"municipality": "chapada"}) == 2
    assert at.selectbox(key="regdef_choice").value == "bancas_centro"
