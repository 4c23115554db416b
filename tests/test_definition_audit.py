"""The Auditoria reads a defined register by its definition (issue 35 item 14): its labels, its fields'
labels and each record's key as its list shows it (the title field), in any process — not only in one
where something had opened that register — with a fixed number of queries."""
from __future__ import annotations

from pathlib import Path

import re

import pytest
from streamlit.testing.v1 import AppTest

from services.shared import audit_log, definitions, entities
from services.shared.auth import Actor
from services.shared.schema import SPECS
from tests.conftest import SECRETARIA_CG, TI

TI_CG = Actor("ti.cg", "TI de Chapada", "ti", ("chapada",))
NAME = "concessoes_cemiterio"


def graves() -> dict:
    return {"name": NAME, "label": "Concessão de cemitério", "label_plural": "Concessões de cemitério",
            "feminine": True, "read_roles": ["secretaria", "ti"], "write_roles": ["secretaria"],
            "municipalities": ["chapada"], "title_field": "titular",
            "fields": [{"name": "titular", "label": "Titular da concessão", "kind": "text", "required": True,
                        "searchable": True},
                       {"name": "quadra", "label": "Quadra", "kind": "text"},
                       {"name": "lote", "label": "Lote", "kind": "int"}]}


def fresh_process() -> None:
    """What a new server process knows of the register before anything opens it: nothing."""
    SPECS.pop(NAME, None)
    getattr(audit_log, "_DEFINED", {}).clear()


@pytest.fixture
def changed(db):
    definitions.define_register(db, TI_CG, "chapada", graves())
    record = entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "Maria das Dores", "quadra": "A"})
    entities.update(db, SECRETARIA_CG, NAME, "chapada", record, {"quadra": "B", "lote": "12"}, expected_version=1)
    fresh_process()
    return record


def test_a_change_of_a_defined_record_reads_by_the_definition_in_a_fresh_process(db, changed):
    entries, _ = audit_log.search(db, TI, "chapada", collection=NAME)
    rows = {r["Ação"]: r for r in audit_log.rows_shown(entries, db)}
    update = rows["Alteração de concessão de cemitério"]
    assert update["Registro"] == "Concessão de cemitério"
    assert update["Chave"] == "Maria das Dores"  # its title, not the record's internal id
    assert "Quadra: A → B" in update["Alterações"] and "Lote: — → 12" in update["Alterações"]
    assert rows["Cadastro de concessão de cemitério"]["Chave"] == "Maria das Dores"


def test_the_key_is_the_title_the_list_shows_even_when_another_field_is_named_like_a_key(db):
    definition = graves()
    definition["fields"].append({"name": "number", "label": "Número do livro", "kind": "text"})
    definitions.define_register(db, TI_CG, "chapada", definition)
    entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": "José Lima", "number": "L-7"})
    fresh_process()
    entries, _ = audit_log.search(db, TI, "chapada", collection=NAME)
    assert [r["Chave"] for r in audit_log.rows_shown(entries, db)] == ["José Lima"]


def test_the_definition_entries_name_the_register_by_its_label(db, changed):
    entries, _ = audit_log.search(db, TI, "chapada", collection="register_definitions")
    (row,) = audit_log.rows_shown(entries, db)
    assert (row["Ação"], row["Chave"]) == ("Criação de cadastro definido", "Concessões de cemitério")


def test_the_reader_asks_a_fixed_number_of_queries_whatever_the_number_of_entries(db, changed, monkeypatch):
    for n in range(8):
        entities.create(db, SECRETARIA_CG, NAME, "chapada", {"titular": f"Titular {n}"})
    fresh_process()
    entries, _ = audit_log.search(db, TI, "chapada", collection=NAME)
    assert len(entries) == 10
    reads: list[str] = []
    collection_type = type(db[NAME])
    real_find = collection_type.find

    def counted(self, *args, **kwargs):
        reads.append(self.name)
        return real_find(self, *args, **kwargs)

    monkeypatch.setattr(collection_type, "find", counted)
    rows = audit_log.rows_shown(entries, db)
    assert {r["Chave"] for r in rows} >= {"Maria das Dores", "Titular 0", "Titular 7"}
    assert reads.count(NAME) == 1 and reads.count("register_definitions") == 1


def test_the_audit_page_filters_and_shows_a_register_no_page_has_opened(db, changed):
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app_pages" / "audit.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, "chapada"
    at.run()
    assert not at.exception
    assert "Concessão de cemitério" in at.selectbox(key="audit_collection").options
    frame = at.dataframe[0].value
    mine = frame[frame["Registro"] == "Concessão de cemitério"]
    assert set(mine["Chave"]) == {"Maria das Dores"} and len(mine) == 2


def test_a_definition_reads_in_the_words_of_its_screen_never_its_stored_keys(db):
    # TI's definition reached the Auditoria as its stored structure: "label_plural", "read_roles",
    # "em_analise", each choice twice, "source: protocolado; target: em_analise"
    market = {**graves(), "flow": {
        "states": [{"label": "Protocolado", "deadline_days": 5}, {"label": "Em análise"}, {"label": "Concedida"}],
        "transitions": [{"source": "protocolado", "target": "em_analise", "label": "Analisar", "roles": ["secretaria"]},
                        {"source": "em_analise", "target": "concedida", "label": "Conceder", "roles": ["secretaria"]}]},
        "public": {"open": True, "fields": ["titular", "quadra"]}}
    market["fields"].append({"name": "setor", "label": "Setor", "kind": "choice", "choices": ["Antigo", "Novo"]})
    definitions.define_register(db, TI_CG, "chapada", market)
    current = definitions.definition(db, TI_CG, "chapada", NAME)
    definitions.change_register(db, TI_CG, "chapada", NAME, {**current, "read_roles": ["secretaria"],
                                                             "public": {"open": True, "fields": ["titular"]}},
                                expected_version=current["version"])
    fresh_process()
    entries, _ = audit_log.search(db, TI, "chapada", collection="register_definitions")
    rows = {r["Ação"]: r["Alterações"] for r in audit_log.rows_shown(entries, db)}
    created, changed = rows["Criação de cadastro definido"], rows["Alteração de cadastro definido"]
    for said in ("Nome no plural: — → Concessões de cemitério", "Gênero do nome: — → Feminino",
                 "Quem consulta: — → Secretaria, TI municipal", "Quem cadastra: — → Secretaria",
                 "Municípios que têm o cadastro: — → Chapada dos Guimarães",
                 "Titular da concessão (Texto; obrigatório; entra na busca)", "Lote (Número inteiro)",
                 "Setor (Lista de opções: Antigo, Novo)",
                 "situações Protocolado (prazo de 5 dias úteis), Em análise, Concedida",
                 "ações Analisar (Protocolado → Em análise; Secretaria), Conceder (Em análise → Concedida; Secretaria)",
                 "Pedidos do público (portal): — → Recebe pedidos (campos: Titular da concessão, Quadra)",
                 "Campo que nomeia o registro: — → Titular da concessão"):
        assert said in created, said
    assert changed == ("Quem consulta: Secretaria, TI municipal → Secretaria; Pedidos do público (portal): Recebe "
                       "pedidos (campos: Titular da concessão, Quadra) → Recebe pedidos (campos: Titular da concessão)")
    assert re.findall(r"\b[a-z]+_[a-z_]+\b", created + changed) == []
