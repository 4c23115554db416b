"""Backup, restore and migration from tinymongo keep every document exactly (same digest)."""
from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal

import mongomock
import pytest
from bson.decimal128 import Decimal128
from bson.objectid import ObjectId
from pymongo.errors import DuplicateKeyError

from seed.__main__ import main as seed_main
from services import store
from services.shared import backup
from services.shared.errors import ServiceError
from tests import figures

MOMENT = datetime(2026, 3, 1, 2, 3, 4, 567000, tzinfo=timezone.utc)


def fill(db) -> None:
    store.ensure_indexes(db)
    db["dams"].insert_many([store.encode({"municipality": "chapada", "number": f"{i:04d}/2026",
                                          "amount": Decimal(f"{i}.10"), "due": MOMENT, "lines": [[i, "a"], {"x": None}]})
                            for i in range(1, 30)])
    db["users"].insert_one({"_id": ObjectId(), "username": "ana", "active": True, "raw": b"\x00\x01"})
    db["counters"].insert_one({"_id": "chapada/dam/2026", "seq": 29})
    store.put_file(db, b"arquivo de retorno", "retorno.ret")


def stores(kind, tmp_path, monkeypatch, name):
    if kind == "embedded":
        return store.connect(uri="", data_dir=str(tmp_path / name))
    monkeypatch.setenv("PAINEL_DATA_DIR", str(tmp_path / name))  # mongomock keeps files in the data folder
    return mongomock.MongoClient(tz_aware=True)[name]


@pytest.mark.parametrize("kind", ["embedded", "mongomock"])
def test_backup_and_restore_round_trip_keeps_every_document(kind, tmp_path, monkeypatch):
    source = stores(kind, tmp_path, monkeypatch, "source")
    fill(source)
    written = backup.backup(source, tmp_path / "copy")
    assert written == backup.digest(source)
    target = stores(kind, tmp_path, monkeypatch, "target")
    assert backup.restore(target, tmp_path / "copy") == written
    assert store.decode(target["dams"].find_one({"number": "0007/2026"}))["amount"] == Decimal("7.10")
    assert isinstance(target["dams"].find_one({})["amount"], Decimal128)
    assert target["dams"].find_one({})["due"] == MOMENT
    assert store.get_file(target, store.list_files(target)[0]) == b"arquivo de retorno"
    with pytest.raises(DuplicateKeyError):
        target["users"].insert_one({"username": "ana"})
    documents = sum(target[name].count_documents({}) for name in target.list_collection_names())
    figures.report(f"cópia e restauração ({kind}): {documents} documentos e {len(store.list_files(target))} "
                   f"arquivo(s), resumo SHA-256 idêntico ({written[:12]}…)")
    store.close_all()


def test_the_digest_changes_when_any_value_changes(tmp_path):
    db = store.connect(uri="", data_dir=str(tmp_path / "d"))
    fill(db)
    before = backup.digest(db)
    db["dams"].update_one({"number": "0003/2026"}, {"$set": {"amount": Decimal128("3.1")}})
    assert backup.digest(db) != before
    store.close_all()


def test_restore_refuses_a_store_that_is_not_empty(tmp_path):
    db = store.connect(uri="", data_dir=str(tmp_path / "d"))
    fill(db)
    backup.backup(db, tmp_path / "copy")
    with pytest.raises(ServiceError, match="não está vazio"):
        backup.restore(db, tmp_path / "copy")
    store.close_all()


def test_a_tinymongo_folder_migrates_with_an_equal_digest(tmp_path, monkeypatch):
    from tinymongo import TinyMongoClient

    old = tmp_path / "old"
    client = TinyMongoClient(str(old), backend="sqlite")
    legacy = client["painel_municipal"]
    legacy["dams"].insert_many([{"municipality": "matupa", "amount": Decimal128(f"{i}.05"), "at": MOMENT,
                                 "history": [{"at": MOMENT, "what": ["a", i]}, [1, [2, None]]]} for i in range(12)])
    legacy["users"].insert_one({"_id": "u1", "username": "bia", "flags": [True, False]})
    client.close()
    monkeypatch.setenv("PAINEL_DATA_DIR", str(tmp_path / "new"))
    monkeypatch.delenv("MONGODB_URI", raising=False)
    monkeypatch.delenv("MONGODB_DB", raising=False)
    assert seed_main(["--from-tinymongo", str(old)]) == 0
    db = store.connect()
    assert db["dams"].count_documents({}) == 12
    assert db["dams"].count_documents({"amount": {"$gte": Decimal128("10")}}) == 2
    assert db["dams"].find_one({})["at"] == MOMENT
    assert db["users"].find_one({"_id": "u1"})["flags"] == [True, False]
    client = TinyMongoClient(str(old), backend="sqlite")
    legacy = client["painel_municipal"]
    assert backup.digest(db) == backup.digest_of((n, legacy[n].find({})) for n in legacy.list_collection_names())
    client.close()
    assert seed_main(["--from-tinymongo", str(old)]) == 1  # the target is no longer empty
    store.close_all()


def test_seed_backup_and_restore_commands(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("MONGODB_URI", raising=False)
    monkeypatch.setenv("PAINEL_DATA_DIR", str(tmp_path / "a"))
    fill(store.connect())
    assert seed_main(["--backup", str(tmp_path / "copy")]) == 0
    monkeypatch.setenv("PAINEL_DATA_DIR", str(tmp_path / "b"))
    assert seed_main(["--restore", str(tmp_path / "copy")]) == 0
    out = capsys.readouterr().out
    digests = [line.rsplit(" ", 1)[1] for line in out.splitlines() if line.startswith("Resumo")]
    assert len(digests) == 2 and digests[0] == digests[1]
    store.close_all()


def test_an_old_tinymongo_folder_is_pointed_out_at_start(tmp_path, monkeypatch, caplog):
    from tinymongo import TinyMongoClient

    client = TinyMongoClient(str(tmp_path / "data"), backend="sqlite")
    client["painel_municipal"]["users"].insert_one({"username": "old"})
    client.close()
    monkeypatch.delenv("MONGODB_DB", raising=False)
    store.connect(uri="", data_dir=str(tmp_path / "data"))
    assert "--from-tinymongo" in caplog.text
    store.close_all()


def _state(folder) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (the target 'exactly as it was'); SQLite's ``-shm``
    is its shared-memory index, rewritten by any reader, not data."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith("-shm")}


def _bad_line(copy):
    with open(copy / "dams.jsonl", "a", encoding="utf-8") as out:
        out.write('{"_id": {"$oid": "nao-e-um-id"}, "number": \n')


def _repeated_id(copy):
    lines = (copy / "dams.jsonl").read_text("utf-8").splitlines()
    (copy / "dams.jsonl").write_text("\n".join(lines + [lines[0]]) + "\n", "utf-8")


def _bad_indexes(copy):
    (copy / "indexes.json").write_text('{"dams": [{"name": "x", "key": 7}]}', "utf-8")


def _altered(copy):
    text = (copy / "dams.jsonl").read_text("utf-8")
    (copy / "dams.jsonl").write_text(text.replace('"7.10"', '"700.10"'), "utf-8")


def _unsigned(damage):
    """A damage made by an older or broken writer: no manifest to catch it before loading."""
    def apply(copy):
        damage(copy)
        (copy / "manifest.json").unlink()
    return apply


@pytest.mark.parametrize("kind", ["embedded", "mongomock"])
@pytest.mark.parametrize("damage, said", [
    (_unsigned(_bad_line), "linha"), (_unsigned(_repeated_id), "repetido"),
    (_unsigned(_bad_indexes), "indexes.json"), (_altered, "alterada"), (_bad_line, "alterada"),
])
def test_a_failed_restore_leaves_the_target_as_it_was_and_a_retry_succeeds(kind, damage, said, tmp_path, monkeypatch):
    import shutil

    source = stores(kind, tmp_path, monkeypatch, "source")
    fill(source)
    for i in range(2500):  # past one batch: the old restore had loaded thousands before failing
        source["audit"].insert_one({"n": i})
    written = backup.backup(source, tmp_path / "good")
    shutil.copytree(tmp_path / "good", tmp_path / "bad")
    damage(tmp_path / "bad")
    target = stores(kind, tmp_path, monkeypatch, "target")
    store.ensure_indexes(target)
    before = _state(tmp_path / "target")
    names = sorted(target.list_collection_names())
    with pytest.raises(ServiceError) as refused:
        backup.restore(target, tmp_path / "bad")
    assert said in refused.value.message and "nada foi restaurado" in refused.value.message
    assert _state(tmp_path / "target") == before
    assert sorted(target.list_collection_names()) == names
    assert all(target[n].count_documents({}) == 0 for n in names)
    assert backup.restore(target, tmp_path / "good") == written
    store.close_all()


def test_a_backup_taken_while_the_panel_writes_is_one_snapshot(tmp_path):
    import threading

    db = store.connect(uri="", data_dir=str(tmp_path / "live"))
    for i in range(3000):
        db["audit"].insert_one({"doc_id": f"old{i}", "filler": "x" * 200})
    stop = threading.Event()

    def clerk():
        i = 0
        while not stop.is_set():
            with store.transaction(db):
                db["records"].insert_one({"_id": f"r{i}"})
                db["audit"].insert_one({"doc_id": f"r{i}"})
            i += 1

    writer = threading.Thread(target=clerk)
    writer.start()
    try:
        for _ in range(3):
            backup.backup(db, tmp_path / "copy")
            if db["records"].count_documents({}) > 50:
                break
    finally:
        stop.set()
        writer.join()
    target = store.connect(uri="", data_dir=str(tmp_path / "restored"))
    backup.restore(target, tmp_path / "copy")
    records = [d["_id"] for d in target["records"].find({})]
    audited = {d["doc_id"] for d in target["audit"].find({})}
    assert [r for r in records if r not in audited] == []
    assert target["records"].count_documents({}) == target["audit"].count_documents({}) - 3000
    store.close_all()
