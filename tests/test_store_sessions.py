"""On MongoDB, store.transaction passes one session to every operation inside the block (replica set only)."""
from __future__ import annotations

from contextlib import contextmanager

import pytest

from services import store


class FakeSession:
    def __init__(self, log):
        self.log = log

    @contextmanager
    def start_transaction(self):
        self.log.append("begin")
        try:
            yield
        except BaseException:
            self.log.append("abort")
            raise
        self.log.append("commit")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FakeCollection:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def insert_one(self, doc, session=None):
        self.log.append((self.name, "insert_one", session))

    def find_one_and_update(self, flt, update, session=None, **kwargs):
        self.log.append((self.name, "find_one_and_update", session))
        return {"seq": 1}


class FakeClient:
    def __init__(self, log, hello):
        self.log, self.admin = log, self
        self.hello = hello

    def command(self, name):
        return self.hello

    def start_session(self):
        session = FakeSession(self.log)
        self.log.append(session)
        return session


class FakeDatabase:
    def __init__(self, client):
        self.client, self.name = client, "painel"

    def __getitem__(self, name):
        return FakeCollection(self.client.log, name)


def proxy(hello):
    log: list = []
    return store._SessionDatabase(FakeDatabase(FakeClient(log, hello))), log


def test_a_replica_set_unit_passes_its_session_to_every_call_and_commits():
    db, log = proxy({"setName": "rs0"})
    with store.transaction(db):
        db["dams"].insert_one({"n": 1})
        with store.transaction(db):  # nested: joins the same session
            db["audit"].insert_one({"a": 1})
    session = log[0]
    assert log[1:] == ["begin", ("dams", "insert_one", session), ("audit", "insert_one", session), "commit"]
    db["dams"].insert_one({"n": 2})
    assert log[-1] == ("dams", "insert_one", None)


def test_an_exception_aborts_the_replica_set_unit():
    db, log = proxy({"setName": "rs0"})
    with pytest.raises(RuntimeError):
        with store.transaction(db):
            db["dams"].insert_one({"n": 1})
            raise RuntimeError
    assert log[-1] == "abort"


def test_a_standalone_server_runs_the_block_without_a_session():
    db, log = proxy({"isWritablePrimary": True})
    assert store.has_transactions(db) is False
    with store.transaction(db):
        db["dams"].insert_one({"n": 1})
    assert log == [("dams", "insert_one", None)]


def test_the_panel_refuses_to_start_on_a_standalone_server(monkeypatch):
    """Defect 8's choice: every store the panel writes to commits a write, its audit entry and its
    number together; a standalone MongoDB cannot, so start-up says why and how to fix it."""
    from services.setup import bootstrap

    monkeypatch.delenv("PAINEL_ALLOW_STANDALONE_MONGODB", raising=False)
    db, log = proxy({"isWritablePrimary": True})
    with pytest.raises(bootstrap.StoreWithoutTransactions, match="replica set"):
        bootstrap.prepare(db)
    assert log == []  # nothing written
    replica, _ = proxy({"setName": "rs0"})
    bootstrap.require_transactions(replica)
    monkeypatch.setenv("PAINEL_ALLOW_STANDALONE_MONGODB", "1")
    bootstrap.require_transactions(db)
