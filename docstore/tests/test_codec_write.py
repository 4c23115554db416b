"""The write path's encoding: what it stores is the text the engine always stored, byte for byte (the
strings below were written by the encoder before it was made faster), and the paths it notes are those a
walk of the stored document finds."""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from bson.binary import Binary
from bson.decimal128 import Decimal128
from bson.objectid import ObjectId
from pymongo.errors import BulkWriteError

import docstore
from docstore import codec

DECIMALS = [
    ('NaN', '\x01aA NaN'),
    ('-NaN', '\x01aA NaN'),
    ('sNaN', '\x01aA NaN'),
    ('Infinity', '\x01aF Infinity'),
    ('-Infinity', '\x01aB -Infinity'),
    ('0', '\x01aD 0'),
    ('-0', '\x01aD -0'),
    ('0E+10', '\x01aD 0E+10'),
    ('-0E-3', '\x01aD -0.000'),
    ('0.00', '\x01aD 0.00'),
    ('1E+6', '\x01aE100061 1E+6'),
    ('1000000', '\x01aE100061 1000000'),
    ('0.10', '\x01aE099991 0.10'),
    ('0.1', '\x01aE099991 0.1'),
    ('1.5', '\x01aE1000015 1.5'),
    ('1.50', '\x01aE1000015 1.50'),
    ('-1.5', '\x01aC1000084~ -1.5'),
    ('-0.10', '\x01aC100018~ -0.10'),
    ('123456.78', '\x01aE1000512345678 123456.78'),
    ('-123456.78', '\x01aC0999587654321~ -123456.78'),
    ('9999999999999999999999999999999999', '\x01aE100339999999999999999999999999999999999 9999999999999999999999999999999999'),
    ('9.999999999999999999999999999999999E+6144', '\x01aE161449999999999999999999999999999999999 9.999999999999999999999999999999999E+6144'),
    ('-9.999999999999999999999999999999999E+6144', '\x01aC038560000000000000000000000000000000000~ -9.999999999999999999999999999999999E+6144'),
    ('1E-6176', '\x01aE038241 1E-6176'),
    ('-1E-6176', '\x01aC161768~ -1E-6176'),
    ('1E+6111', '\x01aE161111 1E+6111'),
    ('1E-6143', '\x01aE038571 1E-6143'),
    ('12345678901234567890123456789012.34', '\x01aE100311234567890123456789012345678901234 12345678901234567890123456789012.34'),
    ('0.000001', '\x01aE099941 0.000001'),
    ('1E-7', '\x01aE099931 1E-7'),
]


def from_bits(high: int, low: int) -> Decimal128:
    return Decimal128.from_bid(low.to_bytes(8, "little") + high.to_bytes(8, "little"))


ELEVEN_FORM = from_bits(0x6000000000000000 | (6176 << 47) | 5, 7)  # "11" combination bits: a zero
PAST_34_DIGITS = from_bits((6176 << 49) | 0x1FFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF)  # coefficient too long: a zero


@pytest.mark.parametrize(("text", "stored"), DECIMALS, ids=[t for t, _ in DECIMALS])
def test_a_decimal128_is_stored_as_before(text, stored):
    value = Decimal128(text)
    assert codec.to_json(value) == stored
    assert codec.to_json(value) == stored  # remembered: the same text again
    assert codec.to_json(codec.from_json(stored)) == stored  # a stored one read back and written again
    assert codec.decimal_key(value) == stored[2:stored.index(" ")]


@pytest.mark.parametrize("value", [ELEVEN_FORM, PAST_34_DIGITS], ids=["eleven-form", "past-34-digits"])
def test_the_rare_forms_are_stored_as_zero_as_before(value):
    assert codec.to_json(value) == "\x01aD 0"


def test_the_decimal_read_from_the_bits_is_pymongos():
    rng = random.Random(21)
    values = [from_bits(rng.getrandbits(64), rng.getrandbits(64)) for _ in range(3000)]
    values += [from_bits((rng.getrandbits(1) << 63) | (rng.randrange(12288) << 49) | rng.getrandbits(49),
                         rng.getrandbits(64)) for _ in range(3000)]  # the usual form, every exponent
    values += [Decimal128(f"{rng.choice('-+')}{rng.randrange(10**rng.randrange(1, 35))}E{rng.randrange(-6176, 6112)}")
               for _ in range(3000)]
    for value in values:
        assert codec._decimal_of(value).as_tuple() == value.to_decimal().as_tuple(), value.bid.hex()


DOCUMENT = {
    "_id": ObjectId("65a1b2c3d4e5f60718293a4b"), "municipality": "chapada", "amount": Decimal128("1234.50"),
    "at": datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=timezone(timedelta(hours=-4))), "naive": datetime(2026, 1, 1),
    "flags": [True, False, None, 1, 2.5, "x"], "n": -(2**63), "big": 2**63 - 1, "neg": -7,
    "tagged": "\x01a looks tagged", "nul": "a\x00b\x01c", "bin": b"\x00\xff", "bin5": Binary(b"ab", 5),
    "nested": {"payer": {"cpf": "123", "paid": [Decimal128("10.00"), {"fine": Decimal128("-0"),
                                                                "at": [datetime(2020, 2, 29, tzinfo=timezone.utc)]}]},
               "": {"empty": 1}, "tuple": (1, "a")},
    "list_of_lists": [[1, [Decimal128("NaN")]], []], "enum_like": True,
}
STORED = '{"_id":"\\u0001o65a1b2c3d4e5f60718293a4b","municipality":"chapada","amount":"\\u0001aE1000312345 1234.50","at":"\\u0001t2026-03-04T09:06:07.891","naive":"\\u0001t2026-01-01T00:00:00.000","flags":["\\u0001q1","\\u0001q0",null,1,2.5,"x"],"n":-9223372036854775808,"big":9223372036854775807,"neg":-7,"tagged":"\\u0001s\\u0001\\u0002a looks tagged","nul":"\\u0001sa\\u0001\\u0001b\\u0001\\u0002c","bin":"\\u0001k000000020000ff","bin5":"\\u0001k00000002056162","nested":{"payer":{"cpf":"123","paid":["\\u0001aE100011 10.00",{"fine":"\\u0001aD -0","at":["\\u0001t2020-02-29T00:00:00.000"]}]},"":{"empty":1},"tuple":[1,"a"]},"list_of_lists":[[1,["\\u0001aA NaN"]],[]],"enum_like":"\\u0001q1"}'
PATHS = [('amount', 'decimal'), ('big', 'number'), ('flags', 'array'), ('flags', 'number'), ('list_of_lists', 'array'), ('list_of_lists', 'decimal'), ('list_of_lists', 'number'), ('n', 'number'), ('neg', 'number'), ('nested..empty', 'number'), ('nested.payer.paid', 'array'), ('nested.payer.paid', 'decimal'), ('nested.payer.paid.at', 'array'), ('nested.payer.paid.fine', 'decimal'), ('nested.tuple', 'array'), ('nested.tuple', 'number')]


def test_a_document_is_stored_as_before_and_its_paths_noted():
    assert codec.dumps(codec.to_json(DOCUMENT)) == STORED
    body, kinds = codec.stored_document(DOCUMENT)
    assert "_id" not in body and codec.dumps({"_id": codec.to_json(DOCUMENT["_id"]), **body}) == STORED
    assert sorted(kinds) == PATHS


def paths_of(value, prefix, out):
    """The walk of a stored document the engine made before (the oracle of the paths noted)."""
    if isinstance(value, dict):
        for key, item in value.items():
            paths_of(item, f"{prefix}.{key}" if prefix else key, out)
    elif isinstance(value, list):
        out.add((prefix, "array"))
        for item in value:
            paths_of(item, prefix, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out.add((prefix, "number"))
    elif isinstance(value, str) and value.startswith(codec.TAG + codec.TAG_DECIMAL):
        out.add((prefix, "decimal"))


def random_value(rng: random.Random, depth: int):
    choice = rng.randrange(10 if depth < 3 else 7)
    if choice == 0:
        return rng.choice(["", "x", "\x01a", "\x01", "a\x00"])
    if choice == 1:
        return rng.choice([None, True, False, 0, -5, 2**40, 1.25])
    if choice == 2:
        return Decimal128(rng.choice(["1.50", "-0", "NaN", "1E+6", "-Infinity"]))
    if choice == 3:
        return datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=rng.randrange(10**9))
    if choice == 4:
        return ObjectId(rng.randbytes(12))
    if choice == 5:
        return rng.choice([b"ab", Binary(b"c", 4)])
    if choice == 6:
        return codec.StoredDecimal128(rng.choice(["0.10", "7"]))
    if choice in (7, 8):
        return {rng.choice(["a", "b", "_id", "c.d", ""]): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_the_paths_noted_are_those_of_the_stored_document():
    rng = random.Random(7)
    for _ in range(500):
        doc = {"_id": rng.randrange(5), **{k: random_value(rng, 0) for k in rng.sample("abcdefgh", 4)}}
        body, kinds = codec.stored_document(doc)
        expected = set()
        paths_of(body, "", expected)
        assert kinds == expected
        assert body == {k: v for k, v in codec.to_json(doc).items() if k != "_id"}


def test_insert_many_notes_the_paths_of_the_documents_written_only(tmp_path):
    col = docstore.Client(tmp_path)["t"]["c"]
    col.create_index([("k", 1)], unique=True)
    with pytest.raises(BulkWriteError):
        col.insert_many([{"_id": 1, "k": 1, "a": 1}, {"_id": 2, "k": 1, "b": [1]}, {"_id": 3, "k": 3, "c": 2}])
    assert [d["_id"] for d in col.find({"a": {"$gte": 1}})] == [1]
    kinds = col.database.engine.kinds("c")
    assert kinds.get("b") is None and kinds.get("c") is None and kinds.get("a") == {"number"}


class LaterDatetime(datetime):
    """A datetime subclass: encoded by the general path."""


DATES = [
    (datetime(999, 12, 31, 23, 59, 59, 999999), "\x01t999-12-31T23:59:59.999"),  # strftime's year, unpadded
    (datetime(1, 1, 1), "\x01t1-01-01T00:00:00.000"),
    (datetime(1000, 1, 1, 0, 0, 0, 1000), "\x01t1000-01-01T00:00:00.001"),
    (datetime(9999, 12, 31, 23, 59, 59, 999999), "\x01t9999-12-31T23:59:59.999"),
    (datetime(2026, 12, 31, 22, 0, tzinfo=timezone(timedelta(hours=-4))), "\x01t2027-01-01T02:00:00.000"),
    (datetime(2026, 1, 1, 1, 0, 0, 999, tzinfo=timezone(timedelta(hours=5, minutes=30))), "\x01t2025-12-31T19:30:00.000"),
    (datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc), "\x01t2026-06-01T12:00:00.000"),
    (LaterDatetime(2026, 6, 1, 12, 0, 0, 123456), "\x01t2026-06-01T12:00:00.123"),
]


@pytest.mark.parametrize(("value", "stored"), DATES, ids=[s[2:] for _, s in DATES])
def test_an_instant_is_stored_as_before(value, stored):
    assert codec.to_json(value) == stored


def pairwise_collision(paths):
    """The pairwise walk alone (the oracle): the first pair that names one field or holds the other."""
    for i, one in enumerate(paths):
        for other in paths[i + 1:]:
            shorter, longer = sorted((one, other), key=len)
            if longer == shorter or longer.startswith(shorter + "."):
                return shorter, longer
    return None


def test_a_collision_is_the_first_pair_the_pairwise_walk_finds():
    rng = random.Random(40)
    parts = ["a", "b", "ab", "", "a.b", "$x"]
    for _ in range(3000):
        paths = [".".join(rng.choice(parts) for _ in range(rng.randrange(1, 4))) for _ in range(rng.randrange(8))]
        assert codec.collision(paths) == pairwise_collision(paths), paths
    days = [f"days.2026-{m:02d}-{d:02d}.count" for m in range(1, 13) for d in range(1, 29)]
    assert codec.collision(days) is None
    assert codec.collision([*days, "days.2026-05-17"]) == ("days.2026-05-17", "days.2026-05-17.count")
