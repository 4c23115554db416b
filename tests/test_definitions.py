"""Registers defined by municipal IT (issue 24 items 1, 2 and 6): definition, the generic path, schema
changes that keep the data, refusals in pt-BR, scope."""
from __future__ import annotations

from decimal import Decimal

import pytest

from services.shared import definitions, entities, entity_files, entity_lists
from services.shared.auth import Actor
from services.shared.definition_spec import definition_of, to_spec
from services.shared.errors import PermissionDenied, ValidationFailed
from services.shared.schema import SPECS, ListQuery
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP, TI

TI_CG = Actor("ti.cg", "TI de Chapada", "ti", ("chapada",))


def stalls(**extra) -> dict:
    return {
        "name": "bancas_feira", "label": "Banca da feira", "label_plural": "Bancas da feira", "feminine": True,
        "read_roles": ["secretaria"], "write_roles": ["secretaria"], "municipalities": ["chapada"],
        "default_sort": "numero",
        "fields": [
            {"name": "numero", "label": "Número da banca", "kind": "text", "required": True, "unique": True,
             "searchable": True},
            {"name": "titular", "label": "CPF do titular", "kind": "cpf", "required": True, "searchable": True},
            {"name": "setor", "label": "Setor", "kind": "choice", "filterable": True,
             "choices": ["Hortifruti", "Artesanato", "Alimentação"]},
            {"name": "area", "label": "Área (m²)", "kind": "int"},
            {"name": "taxa", "label": "Taxa mensal", "kind": "money"},
            {"name": "desde", "label": "Desde", "kind": "date"},
            {"name": "telefone", "label": "Telefone", "kind": "phone", "in_list": False},
            {"name": "email", "label": "E-mail", "kind": "email", "in_list": False},
            {"name": "contribuinte", "label": "Contribuinte", "kind": "reference", "target": "taxpayers"},
        ],
        **extra,
    }


@pytest.fixture
def defined(db):
    definitions.define_register(db, TI_CG, "chapada", stalls())
    return "bancas_feira"


def test_every_coded_spec_is_a_definition_that_reads_back_the_same():
    for spec in list(SPECS.values()):
        if spec.name in entities.CODED:
            assert to_spec(definition_of(spec)) == spec


def test_a_defined_register_goes_through_the_generic_path(db, defined):
    record = entities.create(db, SECRETARIA_CG, defined, "chapada",
                             {"numero": "B-01", "titular": "529.982.247-25", "setor": "Hortifruti", "area": "12",
                              "taxa": "45,50", "desde": "2026-01-05"})
    doc = entities.get(db, SECRETARIA_CG, defined, "chapada", record)
    assert doc["taxa"] == Decimal("45.50") and doc["version"] == 1
    page = entity_lists.list_page(db, SECRETARIA_CG, defined, "chapada", ListQuery(search="B-01"))
    assert page.total == 1
    assert "Número da banca" in entity_files.export_csv(db, SECRETARIA_CG, defined, "chapada", ListQuery()).decode()
    indexes = db[defined].index_information()
    assert indexes["u_bancas_feira_numero"]["unique"] and "i_bancas_feira_setor" in indexes
    audit = db["audit"].find_one({"collection": defined, "action": "create"})
    assert audit is not None and SPECS[defined].label_plural == "Bancas da feira"
    with pytest.raises(Exception, match="Já existe banca da feira"):
        entities.create(db, SECRETARIA_CG, defined, "chapada", {"numero": "B-01", "titular": "529.982.247-25"})


def test_a_reference_names_a_registered_record(db, defined):
    with pytest.raises(ValidationFailed) as refused:
        entities.create(db, SECRETARIA_CG, defined, "chapada",
                        {"numero": "B-02", "titular": "529.982.247-25", "contribuinte": "529.982.247-25"})
    assert "não está no cadastro de contribuintes" in refused.value.errors["contribuinte"]


def test_a_defined_register_may_refer_to_another_defined_one(db, defined):
    definitions.define_register(db, TI_CG, "chapada", {
        "name": "vistorias_banca", "label": "Vistoria de banca", "label_plural": "Vistorias de bancas",
        "read_roles": ["secretaria"], "write_roles": ["secretaria"], "municipalities": ["chapada"],
        "fields": [{"name": "banca", "label": "Banca", "kind": "reference", "target": defined, "required": True}]})
    stored = definitions.definition(db, TI_CG, "chapada", "vistorias_banca")
    assert stored["fields"][0]["refers_to"] == [defined, "numero"]


@pytest.mark.parametrize("change, field, words", [
    ({"name": "Bancas"}, "name", "letras minúsculas"),
    ({"name": "drivers"}, "name", "já é usado pelo painel"),
    ({"name": "users"}, "name", "já é usado pelo painel"),
    ({"fields": [{"name": "1x", "label": "X", "kind": "text"}]}, "fields.0.name", "não vale"),
    ({"fields": [{"name": "a1", "label": "A", "kind": "text"}, {"name": "a1", "label": "B", "kind": "text"}]},
     "fields.1.name", "já existe outro campo"),
    ({"fields": [{"name": "dono", "label": "Dono", "kind": "reference", "target": "nada"}]},
     "fields.0.target", "cadastro que não existe"),
    ({"fields": [{"name": "tipo", "label": "Tipo", "kind": "choice", "choices": [str(i) for i in range(10_000)]}]},
     "fields.0.choices", "10.000 opções é demais"),
], ids=["not-identifier", "coded-collection", "system-collection", "field-not-identifier", "duplicate-field",
        "reference-to-nothing", "ten-thousand-choices"])
def test_bad_definitions_are_refused_in_ptbr_next_to_the_field(db, change, field, words):
    with pytest.raises(ValidationFailed) as refused:
        definitions.define_register(db, TI_CG, "chapada", stalls(**change))
    assert words in refused.value.errors[field]
    assert db["register_definitions"].count_documents({}) == 0


def test_scope_ti_of_one_municipality_defines_only_there(db):
    with pytest.raises(PermissionDenied):
        definitions.define_register(db, TI_CG, "chapada", stalls(municipalities=["chapada", "matupa"]))
    with pytest.raises(PermissionDenied):
        definitions.define_register(db, SECRETARIA_CG, "chapada", stalls())


def test_secretaria_sees_only_what_the_definition_grants(db, defined):
    with pytest.raises(PermissionDenied):
        entity_lists.list_page(db, SECRETARIA_MP, defined, "matupa", ListQuery())
    definitions.define_register(db, TI, "chapada", stalls(name="so_ti", read_roles=["ti"], write_roles=[]))
    with pytest.raises(PermissionDenied):
        entity_lists.list_page(db, SECRETARIA_CG, "so_ti", "chapada", ListQuery())
    assert entity_lists.list_page(db, TI, "so_ti", "chapada", ListQuery()).total == 0
    with pytest.raises(PermissionDenied):
        entity_lists.list_page(db, GABINETE, defined, "chapada", ListQuery())


def test_records_launched_together_ask_what_the_definition_grants(db, defined):
    """entities.create_many (the drivers' documents, added after the defined registers) is a write like create."""
    definitions.define_register(db, TI, "chapada", stalls(name="so_leitura", write_roles=[]))
    row = {"numero": "B-9", "titular": "529.982.247-25"}
    with pytest.raises(PermissionDenied):
        entities.create_many(db, SECRETARIA_CG, "so_leitura", "chapada", [row])
    with pytest.raises(PermissionDenied):
        entities.create_many(db, SECRETARIA_MP, defined, "matupa", [row])
    assert db["so_leitura"].count_documents({}) == 0
    assert len(entities.create_many(db, SECRETARIA_CG, defined, "chapada", [row])) == 1


def test_gabinete_reads_counts_only(db, defined):
    entities.create(db, SECRETARIA_CG, defined, "chapada", {"numero": "B-01", "titular": "529.982.247-25"})
    counts = definitions.register_counts(db, GABINETE, "chapada")
    assert counts == [("Bancas da feira", 1)]


def _fields(db, name="bancas_feira"):
    return definitions.definition(db, TI_CG, "chapada", name)


def test_adding_a_field_relabelling_and_adding_a_choice_apply_at_once(db, defined):
    current = _fields(db)
    current["fields"][0]["label"] = "Nº da banca"
    current["fields"][2]["choices"].append(["Flores", "Flores"])
    current["fields"].append({"name": "obs", "label": "Observações", "kind": "textarea"})
    assert definitions.preview_change(db, TI_CG, "chapada", defined, current) == []
    definitions.change_register(db, TI_CG, "chapada", defined, current, expected_version=1)
    spec = entities.spec_for(db, defined, "chapada")
    assert spec.field("numero").label == "Nº da banca" and ("Flores", "Flores") in spec.field("setor").choices
    entry = db["audit"].find_one({"collection": "register_definitions", "action": "update"})
    assert entry["changes"]["fields"]["before"][0]["label"] == "Número da banca"
    assert entry["changes"]["fields"]["after"][0]["label"] == "Nº da banca"
    with pytest.raises(Exception, match="recarregue"):
        definitions.change_register(db, TI_CG, "chapada", defined, current | {"label": "X"}, expected_version=1)


def test_a_breaking_change_shows_what_it_touches_and_applies_with_its_fix(db, defined):
    for number, sector in (("B-01", "Hortifruti"), ("B-02", "Artesanato"), ("B-03", "Artesanato")):
        entities.create(db, SECRETARIA_CG, defined, "chapada",
                        {"numero": number, "titular": "529.982.247-25", "setor": sector, "area": "10"})
    current = _fields(db)
    current["fields"][2]["choices"] = [["Hortifruti", "Hortifruti"], ["Artes e ofícios", "Artes e ofícios"]]
    current["fields"][1]["unique"] = True
    current["fields"].append({"name": "alvara", "label": "Alvará", "kind": "text", "required": True})
    found = {b.field: b for b in definitions.preview_change(db, TI_CG, "chapada", defined, current)}
    assert found["setor"].count == 2 and found["setor"].values == ("Artesanato",)
    assert found["alvara"].count == 3 and found["alvara"].asks == "default"
    assert found["titular"].count == 2 and found["titular"].asks == "per_record"
    with pytest.raises(ValidationFailed):
        definitions.change_register(db, TI_CG, "chapada", defined, current, expected_version=1)
    assert db[defined].count_documents({"setor": "Artesanato"}) == 2  # nothing written
    repeated = [r[0] for r in found["titular"].records]
    fixes = {"setor": {"Artesanato": "Artes e ofícios"}, "alvara": {"*": "provisório"},
             "titular": {repeated[0]: "111.444.777-35", repeated[1]: "390.533.447-05"}}
    definitions.change_register(db, TI_CG, "chapada", defined, current, fixes, expected_version=1)
    assert db[defined].count_documents({"setor": "Artes e ofícios"}) == 2
    assert db[defined].count_documents({"alvara": "provisório"}) == 3
    assert db[defined].index_information()["u_bancas_feira_titular"]["unique"]
    assert db["audit"].count_documents({"collection": defined, "note": "Ajuste pela mudança do cadastro"}) == 3


def test_a_type_change_maps_the_values_the_new_type_does_not_read(db, defined):
    for area in ("10", "12"):
        entities.create(db, SECRETARIA_CG, defined, "chapada",
                        {"numero": f"B-{area}", "titular": "529.982.247-25", "area": area})
    current = _fields(db)
    current["fields"][3]["kind"] = "choice"
    current["fields"][3]["choices"] = [["pequena", "Pequena"], ["grande", "Grande"]]
    found = definitions.preview_change(db, TI_CG, "chapada", defined, current)
    assert found[0].field == "area" and set(found[0].values) == {"10", "12"}
    definitions.change_register(db, TI_CG, "chapada", defined, current, {"area": {"10": "pequena", "12": "grande"}},
                                expected_version=1)
    assert sorted(d["area"] for d in db[defined].find({})) == ["grande", "pequena"]


def test_deactivating_hides_the_register_and_keeps_its_records(db, defined):
    entities.create(db, SECRETARIA_CG, defined, "chapada", {"numero": "B-01", "titular": "529.982.247-25"})
    definitions.set_active(db, TI_CG, "chapada", defined, False, expected_version=1)
    assert definitions.readable_registers(db, SECRETARIA_CG, "chapada") == []
    with pytest.raises(Exception, match="desativado"):
        entity_lists.list_page(db, SECRETARIA_CG, defined, "chapada", ListQuery())
    assert db[defined].count_documents({}) == 1
    definitions.set_active(db, TI_CG, "chapada", defined, True, expected_version=2)
    assert [r.name for r in definitions.readable_registers(db, SECRETARIA_CG, "chapada")] == [defined]
