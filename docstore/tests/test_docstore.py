"""The embedded engine's own guarantees: units of work, concurrency, persistence, index use, refusals."""
from __future__ import annotations

import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError, OperationFailure

import docstore
from docstore.tests.work import sqlite_work
from services import store
from services.shared import numbers


@pytest.fixture
def embedded(tmp_path):
    db = store.connect(uri="", data_dir=str(tmp_path / "engine"))
    yield db
    store.close_all()


def bump(db, key="k"):
    return db["counters"].find_one_and_update({"_id": key}, {"$inc": {"seq": 1}}, upsert=True,
                                              return_document=ReturnDocument.AFTER)["seq"]


def test_an_exception_rolls_back_every_write_of_the_unit_including_the_number(embedded):
    bump(embedded)
    with pytest.raises(RuntimeError):
        with store.transaction(embedded):
            number = numbers.next_number(embedded, "chapada", "dam", 2026)
            embedded["dams"].insert_one({"number": number.text})
            embedded["audit"].insert_one({"action": "dam.issue"})
            assert embedded["dams"].count_documents({}) == 1  # reads inside see the writes
            raise RuntimeError("falha depois de gravar")
    assert embedded["dams"].count_documents({}) == 0 and embedded["audit"].count_documents({}) == 0
    assert numbers.next_number(embedded, "chapada", "dam", 2026).text == "0001/2026"


def test_nested_units_join_the_outer_one(embedded):
    with pytest.raises(ValueError):
        with store.transaction(embedded):
            embedded["a"].insert_one({"n": 1})
            with store.transaction(embedded):
                embedded["b"].insert_one({"n": 2})
            assert embedded["b"].count_documents({}) == 1
            raise ValueError
    assert embedded["a"].count_documents({}) == 0 and embedded["b"].count_documents({}) == 0
    with store.transaction(embedded):
        with store.transaction(embedded):
            embedded["b"].insert_one({"n": 3})
        embedded["a"].insert_one({"n": 4})
    assert embedded["a"].count_documents({}) == 1 and embedded["b"].count_documents({}) == 1


def test_a_nested_unit_that_fails_undoes_only_its_own_writes(embedded):
    """A handler run inside an outer unit (the DAM outbox) that fails leaves the outer writes standing."""
    with store.transaction(embedded):
        embedded["a"].insert_one({"n": 1})
        with pytest.raises(RuntimeError):
            with store.transaction(embedded):
                embedded["b"].insert_one({"n": 2})
                raise RuntimeError
        assert embedded["b"].count_documents({}) == 0
        embedded["a"].insert_one({"n": 3})
    assert embedded["a"].count_documents({}) == 2 and embedded["b"].count_documents({}) == 0


def test_a_unique_clash_inside_a_unit_rolls_the_unit_back(embedded):
    embedded["plates"].create_index([("plate", 1)], unique=True, name="u_plate")
    embedded["plates"].insert_one({"plate": "A"})
    with pytest.raises(DuplicateKeyError) as clash:
        with store.transaction(embedded):
            embedded["audit"].insert_one({"action": "plate"})
            embedded["plates"].insert_one({"plate": "A"})
    assert "u_plate" in str(clash.value) and clash.value.code == 11000
    assert embedded["audit"].count_documents({}) == 0


def test_eight_threads_incrementing_in_units_lose_no_update(embedded):
    def work():
        for _ in range(50):
            with store.transaction(embedded):
                bump(embedded)
                embedded["log"].insert_one({"t": threading.get_ident()})

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert embedded["counters"].find_one({"_id": "k"})["seq"] == 400
    assert embedded["log"].count_documents({}) == 400


INCREMENT = """
import sys
from services import store
db = store.connect(uri="", data_dir=sys.argv[1])
for _ in range(int(sys.argv[2])):
    with store.transaction(db):
        seq = db["counters"].find_one({"_id": "k"})["seq"]
        db["counters"].update_one({"_id": "k"}, {"$set": {"seq": seq + 1}})
store.close_all()
"""


def test_two_processes_incrementing_the_same_counter_lose_no_update(tmp_path):
    """A read-then-write inside a unit is serialised across processes (each child a fresh interpreter:
    multiprocessing's spawn would re-run whatever page an earlier AppTest left as ``__main__``)."""
    folder = str(tmp_path / "shared")
    store.connect(uri="", data_dir=folder)["counters"].insert_one({"_id": "k", "seq": 0})
    store.close_all()
    root = Path(__file__).resolve().parents[2]  # the repository
    workers = [subprocess.Popen([sys.executable, "-c", INCREMENT, folder, "200"], cwd=root,
                                stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errors = [w.communicate(timeout=120)[1] for w in workers]
    assert [w.returncode for w in workers] == [0, 0], errors
    assert store.connect(uri="", data_dir=folder)["counters"].find_one({"_id": "k"})["seq"] == 400
    store.close_all()


def test_reopening_the_store_keeps_every_document_and_index(tmp_path):
    folder = str(tmp_path / "reopen")
    db = store.connect(uri="", data_dir=folder)
    store.ensure_indexes(db)
    moment = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
    db["people"].insert_many([store.encode({"n": i, "at": moment}) for i in range(100)])
    store.close_all()
    again = store.connect(uri="", data_dir=folder)
    assert again["people"].count_documents({}) == 100
    assert again["people"].find_one({"n": 7})["at"] == moment
    assert "u_username" in again["users"].index_information()
    again["users"].insert_one({"username": "a"})
    with pytest.raises(DuplicateKeyError):
        again["users"].insert_one({"username": "a"})


def test_a_typical_list_query_walks_an_index_with_no_sort_step(embedded):
    col = embedded["dams"]
    col.create_index([("municipality", 1), ("created_at", -1), ("_id", 1)], name="i_mun_created")
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    col.insert_many([{"municipality": m, "created_at": start + timedelta(minutes=i), "status": "open"}
                     for i in range(300) for m in ("chapada", "matupa")])
    flt, sort = {"municipality": "chapada"}, [("created_at", -1), ("_id", 1)]
    plan = " | ".join(col.explain_sql(flt, sort, limit=25))
    assert "dams__i_mun_created" in plan and "TEMP B-TREE" not in plan, plan
    page = list(col.find(flt).sort(sort).limit(25))
    assert [d["created_at"] for d in page] == [start + timedelta(minutes=i) for i in range(299, 274, -1)]
    by_id = " | ".join(col.explain_sql({"_id": page[0]["_id"]}))
    assert "USING INDEX" in by_id and "SCAN" not in by_id, by_id


@pytest.mark.parametrize("query", [
    {"$where": "this.a == 1"}, {"$expr": {"$eq": ["$a", 1]}}, {"a": {"$elemMatch": {"b": 1}}},
    {"a": {"$size": 2}}, {"a": {"$all": [1]}}, {"a": {"$type": "string"}}, {"$text": {"$search": "x"}},
], ids=lambda q: next(iter(q)) if next(iter(q)).startswith("$") else next(iter(q["a"])))
def test_an_unsupported_query_operator_raises_instead_of_scanning(embedded, query):
    embedded["a"].insert_one({"a": [1, 2]})
    with pytest.raises(OperationFailure, match=r"\$"):
        list(embedded["a"].find(query))


@pytest.mark.parametrize("update", [{"$rename": {"a": "b"}}, {"$pop": {"a": 1}}, {"$set": {"a.$": 1}},
                                    {"$push": {"a": {"$each": [3], "$slice": 1}}}],
                         ids=["rename", "pop", "positional", "push-slice"])
def test_an_unsupported_update_operator_raises_and_changes_nothing(embedded, update):
    embedded["a"].insert_one({"_id": 1, "a": [1, 2]})
    with pytest.raises(OperationFailure):
        embedded["a"].update_one({"_id": 1}, update)
    assert embedded["a"].find_one({"_id": 1}) == {"_id": 1, "a": [1, 2]}


def test_aggregate_is_not_offered(embedded):
    with pytest.raises(AttributeError):
        embedded["a"].aggregate([])


def test_files_are_kept_by_hash_outside_documents(embedded):
    digest = store.put_file(embedded, b"RETORNO CNAB\x00\xff", "retorno.ret")
    assert store.put_file(embedded, b"RETORNO CNAB\x00\xff") == digest
    assert store.get_file(embedded, digest) == b"RETORNO CNAB\x00\xff"
    assert store.list_files(embedded) == [digest]


def test_connections_of_finished_threads_are_closed(embedded):
    def read():
        embedded["a"].count_documents({})

    for _ in range(5):
        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
    read()
    assert len(embedded.engine._all) <= 2



def test_an_index_made_by_another_process_after_our_check_is_taken_as_made(embedded, monkeypatch):
    col = embedded["plates"]
    col.create_index([("plate", 1)], unique=True, name="u_p")
    real = docstore.Collection._index_specs
    calls = []

    def stale_first(self):  # the first look predates the other process's commit
        calls.append(1)
        return {} if len(calls) == 1 else real(self)

    monkeypatch.setattr(docstore.Collection, "_index_specs", stale_first)
    assert col.create_index([("plate", 1)], unique=True, name="u_p") == "u_p"


def test_a_query_costs_the_same_beside_thousands_of_paths_held_by_other_documents(embedded):
    """A read model kept per day (``{"d01.issued": n, ...}``) gives a collection tens of thousands of
    paths; each query used to read them all from ``__paths`` to compile (a 1.000-line return file took
    over an hour behind the summary's views). A query reads only the kinds of the paths it names."""
    col = embedded["views"]
    col.insert_one({"_id": "a", "n": 1, "tags": ["x"]})

    def one_round() -> None:
        assert col.find_one({"_id": "a", "tags": "x"}, {"n": 1})["n"] >= 1
        col.update_one({"_id": "a"}, {"$inc": {"n": 1}})
    one_round()  # the first of the process: statements prepared
    alone = sqlite_work(embedded.engine.conn(), one_round)
    col.insert_many([{"_id": f"m{m}", **{f"d{d:02d}": {f"k{k}": k for k in range(100)} for d in range(1, 32)}}
                     for m in range(4)])  # 3.100 numeric paths
    crowded = sqlite_work(embedded.engine.conn(), one_round)
    assert crowded <= alone * 1.2 + 5, (alone, crowded)
    assert col.find_one({"tags": "x"})["_id"] == "a"  # an array path is still matched element by element
