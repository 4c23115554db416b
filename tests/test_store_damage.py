"""A store file damaged inside (issue 35, item 16): a bad page in the middle of a table is noticed.

Before, the panel started, the Auditoria and the DAM raised a raw ``sqlite3.DatabaseError: database
disk image is malformed`` and new writes went on into the damaged file. Now the read that meets the
page answers "Armazenamento danificado" with the restore command; from then on every read and write
of that process answers the same, nothing more is written (other processes see the marker beside the
file at their next write or start), the start-up check (SQLite's quick_check) finds a damaged page
nobody read yet, says so in the log and on every page (the Implantação too), and the restore brings
the store back.
"""
from __future__ import annotations

import json
import logging
import os
import random
import sqlite3
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from docstore import codec
from seed.__main__ import main as seed_main
from services import store
from services.dam import dams, lists
from services.setup import bootstrap
from services.shared import audit_log, parameters
from services.shared.errors import ServiceError
from tests.conftest import ROOT, SECRETARIA_CG, SECRETARIA_MP, TI

DAMAGED = "Armazenamento danificado"
RESTORE = "python -m seed --restore PASTA"


def damage_row(folder: Path, table: str, rowid: int) -> int:
    """Write garbage over the leaf page of ``table``'s b-tree that holds ``rowid`` (its type byte made
    invalid, the rest random): a bad page in the middle of the file. Returns the page number."""
    store.close_all()
    path = folder / "painel.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file itself, none in the WAL
    rank = conn.execute(f'SELECT COUNT(*) FROM "{table}" WHERE rowid <= ?', (rowid,)).fetchone()[0]
    leaves = conn.execute("SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path",
                          (table,)).fetchall()
    size, pages = conn.execute("PRAGMA page_size").fetchone()[0], conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    assert len(leaves) >= 3, f"{table} needs pages on both sides of the damaged one"
    seen = 0
    for page, cells in leaves:
        seen += cells
        if seen >= rank:
            break
    assert leaves[0][0] < page < pages and page != leaves[-1][0]
    with open(path, "r+b") as file:
        file.seek((page - 1) * size)
        file.write(b"\xff" + random.Random(page).randbytes(size - 1))
    return page


def rowid_of(folder: Path, table: str, where: str, *args) -> int:
    conn = sqlite3.connect(folder / "painel.sqlite3")
    try:
        return conn.execute(f'SELECT rowid FROM "{table}" WHERE {where}', args).fetchone()[0]
    finally:
        conn.close()


def raw_count(folder: Path, table: str) -> int:
    """Rows of an undamaged table, read past the panel (which refuses the file)."""
    conn = sqlite3.connect(folder / "painel.sqlite3")
    try:
        return conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
    finally:
        conn.close()


def refused(call) -> str:
    with pytest.raises(ServiceError) as caught:
        call()
    assert not isinstance(caught.value, sqlite3.Error)
    message = caught.value.message
    assert DAMAGED in message and RESTORE in message, message
    return message


@pytest.fixture
def folder(demo_db):
    """A copy of the demo store (DAMs and audit entries of every municipality) as PAINEL_DATA_DIR."""
    folder = demo_db.client.folder
    yield folder
    store.close_all()


def a_dam(folder: Path) -> tuple[str, int]:
    """(id, rowid) of a DAM of Chapada in the middle of the table."""
    conn = sqlite3.connect(folder / "painel.sqlite3")
    rows = conn.execute("SELECT rowid, id FROM dams WHERE json_extract(doc, '$.municipality') = 'chapada' "
                        "ORDER BY rowid").fetchall()
    conn.close()
    rowid, stored_id = rows[len(rows) // 2]
    return str(codec.from_json(stored_id)), rowid


def test_a_damaged_page_of_the_dams_is_told_in_portuguese_and_nothing_more_is_read_or_written(folder, caplog):
    dam_id, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    parameters_before = raw_count(folder, "parameters")
    db = store.connect(uri="", data_dir=str(folder))  # a running panel: the start-up check is not run here
    assert lists.list_page(db, SECRETARIA_MP, "matupa", lists.DamQuery())  # a page not damaged reads
    with caplog.at_level(logging.ERROR, logger="painel"):
        refused(lambda: dams.get(db, SECRETARIA_CG, "chapada", dam_id))  # the read that meets the page
    assert any(DAMAGED in r.getMessage() for r in caplog.records)  # the log says so once
    assert (folder / "painel.damaged.json").exists()
    refused(lambda: audit_log.search(db, TI, "chapada", limit=10))  # every later read of the store
    refused(lambda: lists.list_page(db, SECRETARIA_MP, "matupa", lists.DamQuery()))
    refused(lambda: parameters.add_version(db, TI, "chapada", "ouvidoria_phone", db_today(), "(65) 3301-0000",
                                           "Portaria 1/2026"))  # and every write
    refused(lambda: store.refuse_damaged(db))
    assert raw_count(folder, "parameters") == parameters_before


def db_today():
    from services.shared import clock

    return clock.today()


def test_a_damaged_page_of_the_audit_is_told_in_portuguese(folder):
    rowid = rowid_of(folder, "audit", "rowid >= (SELECT (MIN(rowid) + MAX(rowid)) / 2 FROM audit) "
                                      "AND json_extract(doc, '$.municipality') = 'chapada' ORDER BY rowid")
    damage_row(folder, "audit", rowid)
    db = store.connect(uri="", data_dir=str(folder))
    refused(lambda: audit_log.search(db, TI, None, limit=100_000))
    refused(lambda: db["users"].insert_one({"username": "nova"}))


def test_another_process_refuses_writes_once_one_found_the_damage(folder, caplog):
    dam_id, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    first = store.connect(uri="", data_dir=str(folder))
    other = store.connect(uri="", data_dir=str(folder) + os.sep)  # a second client: another process's view
    assert other["parameters"].count_documents({}) > 0
    refused(lambda: dams.get(first, SECRETARIA_CG, "chapada", dam_id))
    before = raw_count(folder, "counters")
    refused(lambda: other["counters"].insert_one({"_id": "x", "seq": 1}))
    refused(lambda: store.refuse_damaged(other))
    assert raw_count(folder, "counters") == before
    store.close_all()
    with caplog.at_level(logging.ERROR, logger="painel"):
        refused(lambda: store.connect(uri="", data_dir=str(folder)))  # the next start of any process
    assert any(DAMAGED in r.getMessage() for r in caplog.records)  # and its log


def test_the_start_up_check_finds_a_damaged_page_nobody_read(folder, caplog):
    _, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    db = store.connect(uri="", data_dir=str(folder))  # the header and first page are sound
    with caplog.at_level(logging.ERROR, logger="painel"):
        refused(lambda: bootstrap.prepare(db))
    assert any(DAMAGED in r.getMessage() for r in caplog.records)
    refused(lambda: db["parameters"].count_documents({}))


def test_the_start_up_check_passes_a_sound_store_and_is_bounded(folder, monkeypatch):
    db = store.connect(uri="", data_dir=str(folder))
    assert db.engine.quick_check(60) is True
    assert db.engine.quick_check(0) is False  # the time ran out: the rest is checked where it is read
    monkeypatch.setenv("PAINEL_STORE_CHECK_SECONDS", "0")
    bootstrap.prepare(db)
    assert not (folder / "painel.damaged.json").exists()


def test_the_restore_brings_back_a_damaged_store(folder, tmp_path):
    assert seed_main(["--backup", str(tmp_path / "copia")]) == 0
    dam_id, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    db = store.connect(uri="", data_dir=str(folder))
    message = refused(lambda: dams.get(db, SECRETARIA_CG, "chapada", dam_id))
    assert "painel.sqlite3-wal" in message  # what to move aside with the file
    store.close_all()
    assert seed_main(["--restore", str(tmp_path / "copia")]) == 1  # the damaged file is still there
    aside = tmp_path / "danificado"
    aside.mkdir()
    for name in ("painel.sqlite3", "painel.sqlite3-wal", "painel.sqlite3-shm"):
        if (folder / name).exists():
            os.replace(folder / name, aside / name)
    assert seed_main(["--restore", str(tmp_path / "copia")]) == 0
    store.close_all()
    assert not (folder / "painel.damaged.json").exists()
    db = store.connect(uri="", data_dir=str(folder))
    bootstrap.prepare(db)
    assert dams.get(db, SECRETARIA_CG, "chapada", dam_id)["amount"] > Decimal("0")


STARTED = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=60).run()
print(json.dumps({"errors": [e.value for e in at.error], "exception": [str(e.value) for e in at.exception],
                  "password": any(w.label == "Senha" for w in at.text_input)}))
"""


def test_the_panel_started_on_a_damaged_store_says_so_on_the_page_and_in_its_log(folder, tmp_path):
    _, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    env = {"PATH": "/usr/bin:/bin", "PAINEL_DATA_DIR": str(folder), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", STARTED], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert not shown["exception"] and not shown["password"]  # no login on a store that cannot be used
    assert any(DAMAGED in e and RESTORE in e for e in shown["errors"]), shown
    assert DAMAGED in done.stderr  # the start-up log


def test_the_implantacao_page_says_the_store_is_damaged(folder):
    dam_id, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    db = store.connect(uri="", data_dir=str(folder))
    refused(lambda: dams.get(db, SECRETARIA_CG, "chapada", dam_id))
    at = AppTest.from_file(str(ROOT / "app_pages" / "deployment.py"), default_timeout=60)
    at.session_state["actor"], at.session_state["municipality"] = TI, "chapada"
    at.run()
    assert not at.exception
    assert any(DAMAGED in e.value and RESTORE in e.value for e in at.error), [e.value for e in at.error]


def test_a_backup_of_a_damaged_store_stops_in_portuguese_and_marks_it(folder, tmp_path, capsys):
    """The backup reads a page-for-page copy of the file (SQLite's online backup): the damage it meets
    there is the live store's."""
    _, rowid = a_dam(folder)
    damage_row(folder, "dams", rowid)
    assert seed_main(["--backup", str(tmp_path / "copia")]) == 1
    error = capsys.readouterr().err
    assert DAMAGED in error and RESTORE in error and "malformed" not in error
    assert (folder / "painel.damaged.json").exists()
    store.close_all()
    refused(lambda: store.connect(uri="", data_dir=str(folder)))
