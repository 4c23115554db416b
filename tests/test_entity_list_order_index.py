"""Every register's list reads its first page in its default order from an index, both ways (issue 21):
Contribuintes sorted by name from every taxpayer took 4× longer at 60.000 taxpayers than at 6.000."""
from __future__ import annotations

import pytest

from services import store
from services.shared import entity_lists
from services.shared.schema import SPECS, EntitySpec, ListQuery
from tests.conftest import copy_store


@pytest.fixture(scope="module")
def db(tmp_path_factory, demo_store):
    folder = copy_store(demo_store, tmp_path_factory.mktemp("order") / "store")
    return store.connect(data_dir=str(folder))


@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("descending", [False, True])
def test_the_first_page_of_a_list_is_read_from_an_index(db, name, descending):
    spec: EntitySpec = SPECS[name]
    if db[name].find_one({}) is None:
        db[name].insert_one({"municipality": "chapada", "created_at": "2026-01-01"})  # the table exists
    store.ensure_indexes(db, {name: spec.indexes()})
    sort = entity_lists._sort(spec, ListQuery(descending=descending))
    plan = " | ".join(db[name].explain_sql({"municipality": "chapada"}, sort, 25))
    assert "TEMP B-TREE" not in plan, plan
