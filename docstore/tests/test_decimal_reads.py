"""Money read from the store: a pymongo Decimal128 in every respect, whose Decimal costs nothing more."""
from __future__ import annotations

import copy
import pickle
from decimal import Decimal

import pytest
from bson.decimal128 import Decimal128

import docstore

AMOUNTS = ["0.00", "1.50", "-12.30", "1621.00", "123456789012345678901234567890.1234", "1E+10", "0E-6176",
           "Infinity", "-Infinity"]


@pytest.fixture
def col(tmp_path):
    client = docstore.Client(tmp_path)
    yield client["t"]["money"]
    client.close()


@pytest.mark.parametrize("text", AMOUNTS)
def test_a_read_decimal128_is_the_one_written(col, text):
    written = Decimal128(text)
    col.insert_one({"_id": 1, "amount": written, "lines": [{"amount": written}]})
    read = col.find_one({"_id": 1})["amount"]
    assert isinstance(read, Decimal128)
    assert read == written and read.bid == written.bid and str(read) == str(written) and repr(read) == repr(written)
    assert str(read.to_decimal()) == str(written.to_decimal())  # same digits and exponent: 1.50 stays 1.50
    assert pickle.loads(pickle.dumps(read)) == written and copy.deepcopy(read) == written
    assert col.find_one({"amount": written})["_id"] == 1
    col.replace_one({"_id": 1}, col.find_one({"_id": 1}))  # written back as read, still the same number
    assert col.find_one({"_id": 1})["lines"][0]["amount"] == written


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))],
                         ids=["copy", "deepcopy", "pickle"])
def test_a_copied_read_decimal128_keeps_its_amount(col, copier):
    """A copied stored document (the return-file tests clone one) keeps its money: a copy of a read
    Decimal128 holds only the bits, and its Decimal comes back from them."""
    col.insert_one({"_id": 1, "amount": Decimal128(Decimal("1234.56"))})
    copied = copier(col.find_one({"_id": 1})["amount"])
    assert copied.to_decimal() == Decimal("1234.56") and copied == Decimal128("1234.56")
