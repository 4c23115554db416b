"""A damaged file (a bad page in the middle of a table): the engine raises ``Damaged`` (an
OperationFailure, never a raw sqlite3 error) wherever SQL meets it, and refuses every later use."""
from __future__ import annotations

import sqlite3

import pytest
from pymongo.errors import OperationFailure

import docstore
from docstore.connection import Damaged


def test_a_bad_page_is_damaged_for_the_read_that_meets_it_and_for_everything_after(tmp_path):
    client = docstore.Client(tmp_path)
    col = client["d"]["c"]
    col.insert_many([{"_id": i, "text": "x" * 500} for i in range(400)])
    client["d"]["other"].insert_one({"_id": 1})
    assert col.database.engine.quick_check(60) is True
    client.close()
    path = client.file_of("d")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    leaves = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'c' AND pagetype = 'leaf' "
                                         "ORDER BY path")]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(path, "r+b") as file:
        file.seek((leaves[len(leaves) // 2] - 1) * size)
        file.write(b"\xff" * size)
    client = docstore.Client(tmp_path)
    col = client["d"]["c"]
    assert col.find_one({"_id": 1}) is not None  # a page before the bad one
    with pytest.raises(Damaged) as met:
        list(col.find({}))
    assert isinstance(met.value, OperationFailure) and "malformed" in str(met.value)
    for later in (lambda: client["d"]["other"].find_one({}), lambda: client["d"]["other"].insert_one({"_id": 2}),
                  lambda: col.database.engine.quick_check(60)):
        with pytest.raises(Damaged):
            later()
    client.close()
    with pytest.raises(Damaged):  # a new engine on the file: the start's check finds it
        docstore.Client(tmp_path)["d"].engine.quick_check(60)
