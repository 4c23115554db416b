"""The Busca finds the records of registers defined by municipal IT (issue 35 item 15): by their searchable
fields, grouped by register under its label, only where the definition lets the user read, with one
query per register and municipality whatever the number of records."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from services import search
from services.shared import clock, definitions, entities
from services.shared.auth import Actor
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP

TI_CG = Actor("ti.cg", "TI de Chapada", "ti", ("chapada",))
BOTH_TI = Actor("ti.both", "TI de Chapada e Matupá", "ti", ("chapada", "matupa"))
ROOT = Path(__file__).resolve().parent.parent


def graves(**extra) -> dict:
    return {"name": "concessoes_cemiterio", "label": "Concessão de cemitério",
            "label_plural": "Concessões de cemitério", "feminine": True, "read_roles": ["secretaria"],
            "write_roles": ["secretaria"], "municipalities": ["chapada"], "title_field": "titular",
            "fields": [{"name": "titular", "label": "Titular", "kind": "text", "required": True, "searchable": True},
                       {"name": "cpf_titular", "label": "CPF do titular", "kind": "cpf", "searchable": True},
                       {"name": "quadra", "label": "Quadra", "kind": "text"},
                       {"name": "nota", "label": "Observação", "kind": "text", "in_list": False}],
            **extra}


@pytest.fixture
def graves_of_chapada(db):
    definitions.define_register(db, TI_CG, "chapada", graves())
    ids = {}
    for name, cpf, block in (("Maria das Dores", "529.982.247-25", "A"), ("José Lima", "", "B")):
        ids[name] = entities.create(db, SECRETARIA_CG, "concessoes_cemiterio", "chapada",
                                    {"titular": name, "cpf_titular": cpf, "quadra": block, "nota": "Dores"})
    return ids


def groups_of(db, actor, term: str) -> dict[str, search.Group]:
    return {g.kind: g for g in search.search(db, actor, term, clock.today())}


def test_a_defined_record_is_found_by_its_searchable_fields_under_its_register(db, graves_of_chapada):
    group = groups_of(db, SECRETARIA_CG, "maria das")["concessoes_cemiterio"]
    assert group.label == "Concessões de cemitério" and group.defined
    (hit,) = group.hits
    assert hit.record_id == graves_of_chapada["Maria das Dores"] and hit.municipality == "chapada"
    assert hit.title == "Maria das Dores" and hit.detail == "CPF do titular 529.982.247-25 · Quadra A"
    by_cpf = groups_of(db, SECRETARIA_CG, "529.982.247-25")["concessoes_cemiterio"]
    assert [h.record_id for h in by_cpf.hits] == [graves_of_chapada["Maria das Dores"]]


def test_a_field_that_is_not_searchable_finds_nothing(db, graves_of_chapada):
    hits = groups_of(db, SECRETARIA_CG, "Dores")["concessoes_cemiterio"].hits
    assert [h.title for h in hits] == ["Maria das Dores"]  # José's "Observação: Dores" is not searched


def test_only_where_the_definition_lets_the_user_read(db, graves_of_chapada):
    assert "concessoes_cemiterio" not in groups_of(db, SECRETARIA_MP, "Maria")
    definitions.define_register(db, TI_CG, "chapada", {**graves(), "name": "obitos", "label": "Óbito",
                                                       "label_plural": "Óbitos", "read_roles": ["ti"],
                                                       "write_roles": []})
    db["obitos"].insert_one({"municipality": "chapada", "titular": "Maria Rosa", "created_at": clock.now_utc()})
    assert "obitos" not in groups_of(db, SECRETARIA_CG, "Maria")


def test_a_fixed_number_of_queries_per_register_whatever_its_records(db, graves_of_chapada, monkeypatch):
    for n in range(12):
        entities.create(db, SECRETARIA_CG, "concessoes_cemiterio", "chapada", {"titular": f"Maria {n}"})
    reads: list[str] = []
    collection_type = type(db["concessoes_cemiterio"])
    real_find = collection_type.find

    def counted(self, *args, **kwargs):
        reads.append(self.name)
        return real_find(self, *args, **kwargs)

    monkeypatch.setattr(collection_type, "find", counted)
    group = groups_of(db, SECRETARIA_CG, "Maria")["concessoes_cemiterio"]
    assert len(group.hits) == search.PER_KIND and group.more
    assert reads.count("concessoes_cemiterio") == 1 and reads.count("register_definitions") == 1


def test_the_busca_page_shows_the_register_under_its_label(db, graves_of_chapada):
    at = AppTest.from_file(str(ROOT / "app_pages" / "search.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = SECRETARIA_CG, "chapada"
    at.session_state["search_term"] = "Maria das"
    at.run()
    assert not at.exception, at.exception
    assert any(m.value.startswith("**Concessões de cemitério** (1)") for m in at.markdown)
    table = next(d.value for d in at.dataframe if "Registro" in d.value.columns)
    assert list(table["Registro"]) == ["Maria das Dores"]
