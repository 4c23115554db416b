"""The read models' spine (issue 21): a projection runs at the end of its unit of work, once per
record, inside it (rolled back with it), and every module that declares a view is one the spine loads."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from services import store
from services.shared import unit_of_work, views

ROOT = Path(__file__).resolve().parent.parent


def test_a_projection_runs_once_after_every_write_of_its_unit(tmp_path):
    db = store.connect(data_dir=str(tmp_path))
    seen = []
    with store.transaction(db):
        db["things"].insert_one({"_id": "a", "n": 1})
        unit_of_work.before_commit("a", lambda: seen.append(db["things"].find_one({"_id": "a"})["n"]))
        db["things"].update_one({"_id": "a"}, {"$set": {"n": 2}})
        unit_of_work.before_commit("a", lambda: seen.append("again"))
        with store.transaction(db):  # a nested unit joins the outer one
            db["things"].update_one({"_id": "a"}, {"$set": {"n": 3}})
        assert seen == []
    assert seen == [3]


def test_a_failed_unit_runs_no_projection_and_keeps_nothing(tmp_path):
    db = store.connect(data_dir=str(tmp_path))
    seen = []
    with pytest.raises(RuntimeError), store.transaction(db):
        db["things"].insert_one({"_id": "a"})
        unit_of_work.before_commit("a", lambda: seen.append(1))
        raise RuntimeError("falhou")
    assert seen == [] and db["things"].find_one({"_id": "a"}) is None


def test_what_a_projection_writes_rolls_back_with_the_unit(tmp_path):
    db = store.connect(data_dir=str(tmp_path))

    def project():
        db["view"].insert_one({"_id": "v"})
        raise RuntimeError("projeção falhou")

    with pytest.raises(RuntimeError), store.transaction(db):
        db["things"].insert_one({"_id": "a"})
        unit_of_work.before_commit("a", project)
    assert db["things"].find_one({"_id": "a"}) is None and db["view"].find_one({"_id": "v"}) is None


def test_each_audited_unit_counts_one_change_of_its_municipality(tmp_path):
    from services.shared import audit
    from services.shared.auth import Actor

    db = store.connect(data_dir=str(tmp_path))
    actor = Actor("ti", "TI", "ti", ("chapada",))
    before = views.version(db, "chapada")
    with store.transaction(db):
        audit.record(db, actor, "chapada", "update", "things", "a", {}, {"n": 1})
        audit.record(db, actor, "chapada", "update", "things", "b", {}, {"n": 1})
    audit.record(db, actor, "chapada", "update", "things", "a", {}, {"n": 2})
    assert views.version(db, "chapada") == before + 2
    assert views.version(db, "matupa") == 0


def _registering_modules() -> set[str]:
    found = set()
    for path in (ROOT / "services").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "register"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "views"):
                found.add(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return found


def test_every_module_that_declares_a_view_is_loaded_by_the_spine():
    assert _registering_modules() == set(views.MODULES)
