"""Bad input suite (issue 10): whatever reaches the registry, only a pt-BR refusal escapes.

Hypothesis throws operators, regex characters, NUL, 100k characters and emoji at the list search and
filters, at every spec's form validation and at create/update. Nothing but ``ValidationFailed`` (or,
for writes, another pt-BR ``ServiceError``) may escape, a listing never leaves the actor's
municipality, and a refused write leaves the stored collection exactly as it was. The number of
inputs tried is printed with the other figures at the end of the run.
"""
from __future__ import annotations

import hashlib
import shutil
from collections import Counter

import pytest
from bson import json_util
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import store
from services.shared import entities, entity_files, entity_lists, schema
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.schema import ListQuery
from tests import figures
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP

TAXPAYER = {"name": "Rosa Amaral", "document": "52998224725", "kind": "pf", "address": "Rua C, 3"}
SPEC_NAMES = sorted(schema.SPECS)

ODD = ["\x00", "a\x00b", ".*", "(", "[a-", "\\", "$ne", "$where", "{'$gt': ''}", "🚕👩🏽‍💼", "=HYPERLINK(\"x\")",
       "'; DROP TABLE x; --", "\u202e", "\ud7ff", "529.982.247-25", "ABC-1234", "Pessoa física", "Sim", "01/02/2026",
       "1e999999", "NaN", "-0", "R$ 1.234,56", "99999999999999999999", "31/02/2026", "0001-01-01", "pf", "ativo"]
odd_text = st.one_of(
    st.text(max_size=50),
    st.sampled_from(ODD),
    st.builds(lambda piece, times: piece * times, st.sampled_from(ODD + ["a", "🚕"]), st.integers(1, 100_000)),
)
literals = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.decimals(), st.dates(), odd_text)
operators = st.dictionaries(st.sampled_from(["$ne", "$gt", "$regex", "$where", "$in", "$exists", "$or", "x"]),
                            literals, max_size=2)
values = st.one_of(literals, operators, st.lists(st.one_of(literals, operators), max_size=3))


@pytest.fixture(scope="session")
def inputs_tried():
    counts: Counter[str] = Counter()
    yield counts
    detail = ", ".join(f"{name}: {n}" for name, n in sorted(counts.items()))
    figures.report(f"entradas ruins: {sum(counts.values())} entradas tentadas ({detail}), nenhuma exceção escapou")


@pytest.fixture(scope="module")
def towns(tmp_path_factory, prepared_store):
    """One store for every example: a record in Chapada and one in Matupá."""
    folder = tmp_path_factory.mktemp("bad_input") / "data"
    shutil.copytree(prepared_store, folder)
    db = store.connect(uri="", data_dir=str(folder))
    chapada = entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", TAXPAYER)
    entities.create(db, SECRETARIA_MP, "taxpayers", "matupa", {**TAXPAYER, "name": "Lia Paz"})
    return db, chapada


def digest(db, collection: str) -> str:
    docs = sorted(json_util.dumps(d, sort_keys=True) for d in db[collection].find({}))
    return hashlib.sha256("\n".join(docs).encode()).hexdigest()


def assert_pt_br_refusal(exc: ServiceError) -> None:
    assert exc.message and "Traceback" not in exc.message
    if isinstance(exc, ValidationFailed):
        assert exc.errors and all(isinstance(m, str) and m for m in exc.errors.values())


EXAMPLES = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@EXAMPLES
@given(entity=st.sampled_from(SPEC_NAMES), search=odd_text,
       filters=st.dictionaries(st.one_of(st.sampled_from(["municipality", "kind", "status", "driver_cpf", "_id",
                                                          "$or", "name", "result"]), odd_text),
                               values, max_size=3))
def test_list_search_and_filters_refuse_in_pt_br_and_never_leave_the_municipality(
        towns, inputs_tried, entity, search, filters):
    db, _ = towns
    inputs_tried["list search and filters"] += 1
    query = ListQuery(search=search, filters=filters)
    try:
        page = entity_lists.list_page(db, SECRETARIA_MP, entity, "matupa", query)
        exported = entity_files.export_csv(db, SECRETARIA_MP, entity, "matupa", query)
    except ValidationFailed as exc:
        assert_pt_br_refusal(exc)
        return
    assert all(row["municipality"] == "matupa" for row in page.rows)
    assert "Rosa Amaral" not in exported.decode("utf-8-sig")


@EXAMPLES
@given(data=st.data(), entity=st.sampled_from(SPEC_NAMES))
def test_every_form_validator_refuses_only_with_validation_failed(inputs_tried, data, entity):
    spec = schema.SPECS[entity]
    names = [f.name for f in spec.fields]
    raw = data.draw(st.dictionaries(st.one_of(st.sampled_from(names), odd_text), values, max_size=len(names) + 1))
    inputs_tried["form validators"] += 1
    try:
        entities.validate(spec, raw, partial=data.draw(st.booleans()))
    except ValidationFailed as exc:
        assert_pt_br_refusal(exc)


@EXAMPLES
@given(changes=st.dictionaries(st.sampled_from(["name", "document", "kind", "address", "district", "phone",
                                                "email", "municipality", "version", "_id"]), values, max_size=4),
       version=st.one_of(st.none(), st.integers(-2, 3)), create=st.booleans())
def test_a_refused_write_changes_nothing_stored(towns, inputs_tried, changes, version, create):
    db, chapada = towns
    inputs_tried["writes"] += 1
    before = digest(db, "taxpayers"), digest(db, "audit")
    try:
        if create:
            entities.create(db, SECRETARIA_CG, "taxpayers", "chapada", {**TAXPAYER, **changes})
        else:
            current = entities.get(db, SECRETARIA_CG, "taxpayers", "chapada", chapada)["version"]
            entities.update(db, SECRETARIA_CG, "taxpayers", "chapada", chapada, changes,
                            expected_version=current if version is None else version)
    except ServiceError as exc:
        assert_pt_br_refusal(exc)
        assert (digest(db, "taxpayers"), digest(db, "audit")) == before
