"""The embedded store's file: never silently re-created empty, and its faults told in pt-BR with what to do.

Issue 20, defects 10 (a deleted or 0-byte file became a new empty store) and 11 (a damaged file, a
write lock held past the busy timeout and a full disk reached the clerk as English sqlite errors).
"""
from __future__ import annotations

import errno
import os
import sqlite3

import pytest

from services import store
from services.setup import bootstrap
from services.shared.errors import ServiceError

BUSY = "O sistema está ocupado; tente de novo em instantes."
FULL = "Disco cheio no servidor: nada foi gravado; avise a TI."


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.delenv("MONGODB_URI", raising=False)
    monkeypatch.setenv("PAINEL_DATA_DIR", str(tmp_path / "dados"))
    yield tmp_path / "dados"
    store.close_all()


def _used(folder) -> None:
    db = store.connect(uri="", data_dir=str(folder))
    db["dams"].insert_one({"number": "0001/2026"})
    store.close_all()


def test_a_brand_new_folder_gets_a_store_and_its_marker(folder):
    db = store.connect(uri="", data_dir=str(folder))
    db["dams"].insert_one({"number": "0001/2026"})
    assert (folder / "painel.sqlite3").stat().st_size > 0
    assert (folder / "painel.store.json").exists()


@pytest.mark.parametrize("damage", ["deleted", "emptied"])
def test_a_missing_or_empty_store_file_is_refused_and_not_recreated(folder, damage):
    _used(folder)
    path = folder / "painel.sqlite3"
    if damage == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"")
    with pytest.raises(ServiceError) as refused:
        store.connect(uri="", data_dir=str(folder))
    assert "painel.sqlite3" in refused.value.message
    assert "python -m seed --restore PASTA" in refused.value.message
    assert (not path.exists()) if damage == "deleted" else path.stat().st_size == 0
    assert not (folder / "painel.sqlite3-wal").exists()


def test_a_store_file_missing_beside_the_stores_files_is_refused(folder):
    db = store.connect(uri="", data_dir=str(folder))
    store.put_file(db, b"retorno", "r.ret")
    store.close_all()
    (folder / "painel.sqlite3").unlink()
    (folder / "painel.store.json").unlink()
    with pytest.raises(ServiceError, match="--restore"):
        store.connect(uri="", data_dir=str(folder))
    assert not (folder / "painel.sqlite3").exists()


def test_start_up_refuses_a_store_file_deleted_under_it(folder):
    db = store.connect(uri="", data_dir=str(folder))
    db["dams"].insert_one({"number": "0001/2026"})
    (folder / "painel.sqlite3").unlink()
    with pytest.raises(ServiceError, match="python -m seed --restore PASTA"):
        bootstrap.prepare(db)
    assert not (folder / "painel.sqlite3").exists()


def test_a_damaged_store_file_refuses_to_start_in_portuguese(folder):
    _used(folder)
    (folder / "painel.sqlite3").write_bytes(b"isto nao e um banco de dados " * 200)
    with pytest.raises(ServiceError) as refused:
        store.connect(uri="", data_dir=str(folder))
    message = refused.value.message
    assert "está danificado" in message and str(folder / "painel.sqlite3") in message
    assert "python -m seed --restore PASTA" in message


def _hold_lock(folder):
    other = sqlite3.connect(folder / "painel.sqlite3", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    return other


def test_a_write_lock_held_past_the_busy_timeout_is_told_in_portuguese(folder, monkeypatch):
    monkeypatch.setenv("PAINEL_SQLITE_BUSY_SECONDS", "0.3")
    _used(folder)
    db = store.connect(uri="", data_dir=str(folder))
    other = _hold_lock(folder)
    try:
        with pytest.raises(ServiceError) as busy:
            db["dams"].insert_one({"number": "0002/2026"})
        assert busy.value.message == BUSY
        with pytest.raises(ServiceError, match=BUSY):
            with store.transaction(db):
                db["dams"].insert_one({"number": "0003/2026"})
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert db["dams"].count_documents({}) == 1
    db["dams"].insert_one({"number": "0004/2026"})  # the lock gone, writes go on
    assert db["dams"].count_documents({}) == 2


def test_a_full_disk_in_the_database_writes_nothing(folder):
    db = store.connect(uri="", data_dir=str(folder))
    db["dams"].insert_one({"number": "0001/2026"})
    conn = db.engine.conn()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(ServiceError) as full:
        with store.transaction(db):
            db["audit"].insert_one({"what": "x"})
            db["dams"].insert_one({"number": "0002/2026", "facts": "x" * 200_000})
    assert full.value.message == FULL
    with pytest.raises(ServiceError, match=FULL):
        db["dams"].insert_one({"number": "0003/2026", "facts": "x" * 200_000})
    conn.execute("PRAGMA max_page_count = 1073741823")
    assert db["dams"].count_documents({}) == 1 and db["audit"].count_documents({}) == 0


def test_a_full_disk_when_keeping_a_file_writes_nothing(folder, monkeypatch):
    db = store.connect(uri="", data_dir=str(folder))

    def no_space(_fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(ServiceError) as full:
        store.put_file(db, b"arquivo de retorno", "r.ret")
    assert full.value.message == FULL
    monkeypatch.undo()
    assert store.list_files(db) == [] and list((folder / "files").iterdir()) == []


def test_the_restore_command_brings_back_a_lost_store_file(folder, tmp_path):
    from seed.__main__ import main as seed_main

    _used(folder)
    assert seed_main(["--backup", str(tmp_path / "copia")]) == 0
    store.close_all()
    (folder / "painel.sqlite3").unlink()
    assert seed_main(["--restore", str(tmp_path / "copia")]) == 0
    store.close_all()
    assert store.connect(uri="", data_dir=str(folder))["dams"].count_documents({"number": "0001/2026"}) == 1


@pytest.mark.parametrize("cache_mb, mmap_mb, pages_kib, mapped", [
    (None, None, -64 * 1024, 1024 * 1024 * 1024),  # the defaults: 64 MB of pages, 1 GB mapped
    ("256", "0", -256 * 1024, 0),  # the benchmark's generator raises the cache; 0 turns the map off
    ("muito", "-5", -64 * 1024, 0),  # a value that is no number keeps the default; none is negative
])
def test_each_connection_keeps_the_configured_cache_and_memory_map(folder, monkeypatch, cache_mb, mmap_mb,
                                                                   pages_kib, mapped):
    """SQLite's own 2 MB cache made every insert into a random-keyed index of a large store read its
    page back (the benchmark's scale-10 dataset took 183 s to write; 150 s with a larger cache)."""
    for name, value in (("PAINEL_SQLITE_CACHE_MB", cache_mb), ("PAINEL_SQLITE_MMAP_MB", mmap_mb)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    db = store.connect(uri="", data_dir=str(folder))
    conn = db.engine.conn()
    assert conn.execute("PRAGMA cache_size").fetchone()[0] == pages_kib
    assert conn.execute("PRAGMA mmap_size").fetchone()[0] == mapped


@pytest.mark.parametrize("where", ["the file", "under the file"])
def test_a_data_dir_that_is_a_file_is_refused_in_portuguese(tmp_path, monkeypatch, capsys, where):
    """Issue 35, item 17: PAINEL_DATA_DIR pointing at a regular file ended in a raw FileExistsError."""
    from seed.__main__ import main as seed_main

    monkeypatch.delenv("MONGODB_URI", raising=False)
    regular = tmp_path / "painel.conf"
    regular.write_text("não é uma pasta")
    folder = regular if where == "the file" else regular / "dados"
    monkeypatch.setenv("PAINEL_DATA_DIR", str(folder))
    with pytest.raises(ServiceError) as refused:
        store.connect()
    assert f"PAINEL_DATA_DIR aponta para {folder}, que é um arquivo" in refused.value.message
    assert seed_main([]) == 1
    assert "Erro: PAINEL_DATA_DIR aponta para" in capsys.readouterr().err
    assert regular.read_text() == "não é uma pasta"
    store.close_all()


def test_the_panel_started_with_a_data_dir_that_is_a_file_says_so(tmp_path, monkeypatch):
    import subprocess
    import sys

    from tests.conftest import ROOT

    regular = tmp_path / "dados"
    regular.write_text("x")
    code = ("from streamlit.testing.v1 import AppTest\n"
            "at = AppTest.from_file('app.py', default_timeout=60).run()\n"
            "print('ERRO:', [e.value for e in at.error], 'EXC:', [str(e.value) for e in at.exception])\n")
    env = {"PATH": "/usr/bin:/bin", "PAINEL_DATA_DIR": str(regular), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "PAINEL_DATA_DIR aponta para" in done.stdout and "EXC: []" in done.stdout, done.stdout[-2000:]
