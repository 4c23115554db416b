"""Every operator the engine lists as refused raises OperationFailure, and the docs list each one."""
from __future__ import annotations

from pathlib import Path

import pytest
from pymongo.errors import OperationFailure

import docstore
from docstore import support

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "DESENVOLVIMENTO.md"


def engine_section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("## The embedded engine (`docstore/`)")
    return text[start:text.index("\n## ", start + 1)]


def attempt(group: str, name: str):
    """The smallest use of ``name`` written where ``group`` says."""
    if group == "top-level query operators":
        return lambda col: list(col.find({name: "x"}))
    if group == "field query operators":
        return lambda col: list(col.find({"a": {name: 1}}))
    if group == "update operators":
        return lambda col: col.update_one({"_id": 1}, {name: {"a": 1}})
    if group == "positional update paths":
        path = "a." + name.replace("<identifier>", "i")
        return lambda col: col.update_one({"_id": 1}, {"$set": {path: 1}})
    if group == "$push modifiers":
        return lambda col: col.update_one({"_id": 1}, {"$push": {"a": {"$each": [3], name: 1}}})
    if name == "$":
        return lambda col: col.find_one({"a": 1}, {"a.$": 1})
    return lambda col: col.find_one({}, {"a": {name: 1}})


REFUSALS = [(group, name) for group, names in support.REFUSED.items() for name in names]


@pytest.fixture
def collection(tmp_path):
    client = docstore.Client(tmp_path)
    col = client["refusals"]["c"]
    col.insert_one({"_id": 1, "a": [1, 2]})
    yield col
    client.close()


@pytest.mark.parametrize(("group", "name"), REFUSALS, ids=[f"{g}:{n}" for g, n in REFUSALS])
def test_a_refused_operator_raises_operation_failure_and_changes_nothing(collection, group, name):
    with pytest.raises(OperationFailure):
        attempt(group, name)(collection)
    assert collection.find_one({"_id": 1}) == {"_id": 1, "a": [1, 2]}


@pytest.mark.parametrize(("group", "name"), REFUSALS, ids=[f"{g}:{n}" for g, n in REFUSALS])
def test_the_docstring_and_the_guide_list_each_refused_operator(group, name):
    assert f"``{name}``" in docstore.__doc__
    assert f"`{name}`" in engine_section()
