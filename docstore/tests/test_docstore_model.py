"""The embedded engine agrees with a second model of MongoDB (mongomock) on generated data and filters.

Values are drawn from the types where mongomock follows MongoDB (ints, strings, None, missing
fields, lists, nested documents, instants); money and booleans have their own contract tests.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import mongomock
import pytest
from bson import json_util
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pymongo.errors import PyMongoError

import docstore

BASE = datetime(2026, 1, 1, tzinfo=timezone.utc)
# No strings holding a NUL: the engine keeps them out of $gt/$lt ranges (documented in the docstore package).
scalars = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["", "a", "B", "ab", "b\x01", "ção"]),
                    st.integers(0, 3).map(lambda d: BASE + timedelta(days=d)))
values = st.one_of(scalars, st.lists(scalars, max_size=3), st.fixed_dictionaries({"x": scalars}),
                   st.lists(st.fixed_dictionaries({"x": scalars}), max_size=2))
documents = st.lists(st.dictionaries(st.sampled_from(["a", "b"]), values, max_size=2), min_size=1, max_size=8)
fields = st.sampled_from(["a", "b", "a.x", "b.x"])
operands = scalars


def leaf():
    return st.one_of(
        st.builds(lambda f, v: {f: v}, fields, operands),
        st.builds(lambda f, op, v: {f: {op: v}}, fields, st.sampled_from(["$eq", "$ne"]), operands),
        # None as a bound: mongomock does not match missing fields with {"$gte": None} as MongoDB does
        st.builds(lambda f, op, v: {f: {op: v}}, fields, st.sampled_from(["$gt", "$gte", "$lt", "$lte"]),
                  operands.filter(lambda v: v is not None)),
        st.builds(lambda f, op, vs: {f: {op: vs}}, fields, st.sampled_from(["$in", "$nin"]),
                  st.lists(operands, max_size=3)),
        st.builds(lambda f, e: {f: {"$exists": e}}, fields, st.booleans()),
        st.builds(lambda f, p, o: {f: {"$regex": p, "$options": o}}, fields,
                  st.sampled_from(["a", "^a", "B$", "ç", "b\x01", "."]), st.sampled_from(["", "i"])),
        # top-level fields only: mongomock's $not does not see through a null parent as MongoDB does
        st.builds(lambda f, v: {f: {"$not": {"$in": v}}}, st.sampled_from(["a", "b"]), st.lists(operands.filter(lambda v: v is not None),
                                                                           max_size=2)),
    )


def null_on_dotted_path(flt) -> bool:
    """mongomock deviates there: MongoDB's {"a.x": None} also matches a null or scalar ``a``."""
    for key, cond in flt.items():
        if key.startswith("$"):
            if any(null_on_dotted_path(part) for part in cond):
                return True
        elif "." in key and (cond is None or isinstance(cond, dict) and any(
                v is None or isinstance(v, list) and None in v for v in cond.values())):
            return True
    return False


filters = st.recursive(leaf(), lambda inner: st.builds(
    lambda op, parts: {op: parts}, st.sampled_from(["$and", "$or", "$nor"]), st.lists(inner, min_size=1, max_size=3)),
    max_leaves=4).filter(lambda f: not null_on_dotted_path(f))


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    client = docstore.Client(tmp_path_factory.mktemp("model"))
    yield client["model"]
    client.close()


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(docs=documents, flt=filters)
def test_filters_match_the_same_documents_as_mongomock(engine, docs, flt):
    engine.drop_collection("c")
    model = mongomock.MongoClient(tz_aware=True)["model"]["c"]
    rows = [{"_id": i, **d} for i, d in enumerate(docs)]
    engine["c"].insert_many([dict(r) for r in rows])
    model.insert_many([dict(r) for r in rows])
    expected = sorted(d["_id"] for d in model.find(flt))
    assert sorted(d["_id"] for d in engine["c"].find(flt)) == expected
    assert engine["c"].count_documents(flt) == len(expected)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(docs=st.lists(st.fixed_dictionaries({"a": st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["", "a", "B"])),
                                            "b": st.sampled_from(["x", "y", "z"])}), min_size=1, max_size=10),
       keys=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([1, -1])), min_size=1, max_size=2,
                     unique_by=lambda k: k[0]),
       skip=st.integers(0, 3), limit=st.integers(0, 4))
def test_sorted_pages_match_mongomock(engine, docs, keys, skip, limit):
    engine.drop_collection("s")
    model = mongomock.MongoClient(tz_aware=True)["model"]["s"]
    rows = [{"_id": i, **d} for i, d in enumerate(docs)]
    engine["s"].insert_many([dict(r) for r in rows])
    model.insert_many([dict(r) for r in rows])
    order = [*keys, ("_id", 1)]
    expected = [d["_id"] for d in model.find().sort(order).skip(skip).limit(limit)]
    assert [d["_id"] for d in engine["s"].find().sort(order).skip(skip).limit(limit)] == expected


update_fields = st.sampled_from(["a", "b", "c.d"])
update_values = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["x", "y"]),
                          st.lists(st.integers(0, 2), max_size=2))
# $inc takes integers only: mongomock adds strings ("x" + "x") where MongoDB refuses.
update_pairs = st.one_of(
    st.tuples(st.sampled_from(["$set", "$unset", "$push", "$addToSet", "$pull", "$setOnInsert", "$min", "$max"]),
              update_fields, update_values),
    st.tuples(st.just("$inc"), update_fields, st.integers(-3, 3)),
)
updates = st.lists(update_pairs, min_size=1, max_size=2, unique_by=lambda p: p[1]).filter(
    lambda ps: len({p[0] for p in ps}) == len(ps)).map(lambda ps: {op: {f: v} for op, f, v in ps})


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@example(doc={"a": []}, update={"$min": {"a": [0]}}, upsert=False, hit=True)  # arrays compare element-wise
@given(doc=st.fixed_dictionaries({}, optional={"a": update_values, "b": update_values}), update=updates,
       upsert=st.booleans(), hit=st.booleans())
def test_updates_leave_the_same_document_as_mongomock(engine, doc, update, upsert, hit):
    # mongomock ignores $addToSet/$push on a field that is not an array, where MongoDB refuses
    assume(not any(op in ("$push", "$addToSet") and f in doc and not isinstance(doc[f], list)
                   for op, fields in update.items() for f in fields))
    engine.drop_collection("u")
    model = mongomock.MongoClient(tz_aware=True)["model"]["u"]
    engine["u"].insert_one({"_id": 1, **doc})
    model.insert_one({"_id": 1, **doc})
    flt = {"_id": 1 if hit else 2}
    results = []
    for col in (model, engine["u"]):
        try:
            outcome = col.update_one(flt, update, upsert=upsert)
            results.append(("ok", outcome.matched_count, outcome.modified_count, outcome.upserted_id is not None,
                            sorted(col.find(), key=lambda d: d["_id"])))
        except PyMongoError:  # both must refuse the same updates (e.g. $inc on a string)
            results.append(("error",))
        except Exception:  # mongomock's own failure (e.g. $min with None): no model to compare with
            assume(col is not model)
            raise
    assert results[1] == results[0]


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@example(docs=[{"b": [{"x": None}, {"x": 1}]}, {"b": [1, None]}], field="b.x", flt={}, skip=0, limit=1)
@given(docs=documents, field=fields, flt=filters, skip=st.integers(0, 3), limit=st.integers(1, 3))
def test_distinct_and_bounded_counts_match_mongomock(engine, docs, field, flt, skip, limit):
    engine.drop_collection("d")
    model = mongomock.MongoClient(tz_aware=True)["model"]["d"]
    rows = [{"_id": i, **d} for i, d in enumerate(docs)]
    engine["d"].insert_many([dict(r) for r in rows])
    model.insert_many([dict(r) for r in rows])
    def key(value):
        return json_util.dumps({"v": value})

    assert sorted(map(key, engine["d"].distinct(field, flt))) == sorted(map(key, model.distinct(field, flt)))
    assert engine["d"].count_documents(flt, skip=skip, limit=limit) == model.count_documents(flt, skip=skip, limit=limit)
