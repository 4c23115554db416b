"""Storage contract: every store operation the services use, on each store the product supports.

Runs on the embedded store (services.docstore over SQLite), on mongomock (a second model of MongoDB's
semantics) and on a real server when MONGODB_URI is set.
"""
from __future__ import annotations

import os
import re
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import mongomock
import pytest
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from services.store import connect, decode, encode, ensure_indexes, exists, insert_one

BACKENDS = ["embedded", "mongomock"] + (["mongodb"] if os.environ.get("MONGODB_URI") else [])


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    if request.param == "embedded":
        yield connect(uri="", data_dir=str(tmp_path / "contract"))
    elif request.param == "mongomock":
        yield mongomock.MongoClient(tz_aware=True)["contract"]
    else:
        name = f"contract_{uuid.uuid4().hex[:8]}"
        database = connect(uri=os.environ["MONGODB_URI"], db_name=name)
        yield database
        database.client.drop_database(name)


def people(store):
    col = store["people"]
    col.insert_many([encode({"municipality": "chapada" if i % 2 else "matupa", "name": f"Pessoa {i:02d}",
                             "n": i, "amount": Decimal(f"{i}.10"), "born": date(1990, 1, 1 + i)})
                     for i in range(1, 21)])
    return col


def test_insert_and_find_one_round_trip_money_dates_and_instants(store):
    moment = datetime(2026, 3, 1, 1, 30, tzinfo=timezone.utc)
    doc = {"municipality": "chapada", "amount": Decimal("1234.56"), "day": date(2026, 2, 28), "at": moment}
    inserted = store["c"].insert_one(encode(doc)).inserted_id
    back = decode(store["c"].find_one({"_id": inserted}))
    assert back["amount"] == Decimal("1234.56") and isinstance(back["amount"], Decimal)
    assert back["day"] == "2026-02-28"
    assert back["at"] == moment


def test_find_sort_skip_limit_count(store):
    col = people(store)
    assert col.count_documents({"municipality": "chapada"}) == 10
    names = [d["name"] for d in col.find({"municipality": "chapada"}).sort([("n", -1), ("_id", 1)]).skip(2).limit(3)]
    assert names == ["Pessoa 15", "Pessoa 13", "Pessoa 11"]


def test_count_with_limit(store):
    col = people(store)
    assert col.count_documents({"municipality": "matupa"}, limit=1) == 1


def test_store_insert_one_returns_the_id_and_refuses_a_unique_clash(store, request):
    ensure_indexes(store, {"plates": [([("municipality", 1), ("plate", 1)], {"unique": True, "name": "u_plates_plate"})]})
    new_id = insert_one(store["plates"], {"municipality": "c", "plate": "AAA1A11"})
    assert store["plates"].find_one({"_id": new_id})["plate"] == "AAA1A11"
    with pytest.raises(DuplicateKeyError) as clash:
        insert_one(store["plates"], {"municipality": "c", "plate": "AAA1A11"})
    assert store["plates"].count_documents({}) == 1
    if "mongomock" not in request.node.name:  # mongomock's message names no index; services fall back
        assert "u_plates_plate" in str(clash.value)


def test_store_insert_one_keeps_a_given_id(store):
    assert insert_one(store["meta"], {"_id": "store", "kind": "demo"}) == "store"
    with pytest.raises(DuplicateKeyError):
        insert_one(store["meta"], {"_id": "store", "kind": "real"})


def test_exists_answers_for_match_and_no_match(store):
    col = people(store)
    assert exists(col, {"municipality": "matupa"}) is True
    assert exists(col, {"municipality": "nowhere"}) is False


def test_regex_search_case_insensitive_and_or(store):
    col = people(store)
    found = col.find({"municipality": "chapada", "$or": [{"name": {"$regex": re.escape("pessoa 1"), "$options": "i"}}]})
    assert sorted(d["n"] for d in found) == [11, 13, 15, 17, 19]


def test_range_on_iso_dates_and_on_instants(store):
    col = people(store)
    assert col.count_documents({"born": {"$gte": "1990-01-10", "$lt": "1990-01-15"}}) == 5
    store["e"].insert_many([encode({"at": datetime(2026, 1, d, tzinfo=timezone.utc)}) for d in range(1, 11)])
    since = encode(datetime(2026, 1, 5, tzinfo=timezone.utc))
    assert store["e"].count_documents({"at": {"$gte": since}}) == 6


def test_inclusive_upper_bound(store):
    col = people(store)
    assert col.count_documents({"n": {"$gte": 5, "$lte": 7}}) == 3


def test_none_matches_null_and_missing_inside_or_with_in(store):
    col = store["scoped"]
    col.insert_many([{"municipality": "a"}, {"municipality": "b"}, {"municipality": None}, {"other": 1}])
    query = {"$or": [{"municipality": {"$in": ["a"]}}, {"municipality": None}]}
    assert col.count_documents(query) == 3


def test_projection_excludes_a_field(store):
    store["u"].insert_one({"username": "a", "password_hash": "x"})
    assert "password_hash" not in store["u"].find_one({}, {"password_hash": 0})


def test_update_one_set(store):
    col = people(store)
    result = col.update_one({"n": 3}, {"$set": {"name": "Nova"}})
    assert result.modified_count == 1
    assert col.find_one({"n": 3})["name"] == "Nova"


def test_update_one_upsert_creates_once(store):
    col = store["m"]
    col.update_one({"code": "x"}, {"$set": {"code": "x", "v": 1}}, upsert=True)
    col.update_one({"code": "x"}, {"$set": {"code": "x", "v": 2}}, upsert=True)
    assert col.count_documents({}) == 1 and col.find_one({})["v"] == 2


def test_counter_increment_with_upsert_returns_new_value(store):
    values = [store["counters"].find_one_and_update({"_id": "k"}, {"$inc": {"seq": 1}}, upsert=True,
                                                    return_document=ReturnDocument.AFTER)["seq"] for _ in range(3)]
    assert values == [1, 2, 3]


def test_unique_compound_index_refuses_duplicates_and_is_idempotent(store):
    ensure_indexes(store, {"drivers": [([("municipality", 1), ("cpf", 1)], {"unique": True, "name": "u_cpf"})]})
    ensure_indexes(store, {"drivers": [([("municipality", 1), ("cpf", 1)], {"unique": True, "name": "u_cpf"})]})
    store["drivers"].insert_one({"municipality": "chapada", "cpf": "1"})
    store["drivers"].insert_one({"municipality": "matupa", "cpf": "1"})
    with pytest.raises(DuplicateKeyError):
        store["drivers"].insert_one({"municipality": "chapada", "cpf": "1"})


def test_unique_index_refuses_duplicate_on_update(store):
    ensure_indexes(store, {"p": [([("municipality", 1), ("plate", 1)], {"unique": True, "name": "u_plate"})]})
    store["p"].insert_many([{"municipality": "c", "plate": "AAA1A11"}, {"municipality": "c", "plate": "BBB2B22"}])
    with pytest.raises(DuplicateKeyError):
        store["p"].update_one({"plate": "BBB2B22"}, {"$set": {"plate": "AAA1A11"}})


def test_filter_by_in_and_exists(store):
    col = people(store)
    assert col.count_documents({"n": {"$in": [1, 2, 99]}}) == 2
    assert col.count_documents({"missing": {"$exists": False}}) == 20


def test_distinct_values(store):
    col = people(store)
    assert sorted(col.distinct("municipality")) == ["chapada", "matupa"]


def test_list_collection_names(store):
    store["alpha"].insert_one({"a": 1})
    assert "alpha" in store.list_collection_names()
