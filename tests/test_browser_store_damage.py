"""A store damaged under a running panel, in the browser (issue 35, item 16): the TI is logged in, a page
of the audit log in the middle of the file goes bad, and the Auditoria that meets it says
"Armazenamento danificado" with the restore command; from then on the Implantação (every page) says
the same, and the server's log says so."""
from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from tests.browser_support import chromium, free_port, login, panel_env, require_chromium, served, settle
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

DAMAGED = "Armazenamento danificado"
RESTORE = "python -m seed --restore PASTA"


def damage_recent_audit_pages(path: Path) -> list[int]:
    """Garbage over the leaf page holding the 40th newest audit entry of each municipality (pages the
    Auditoria reads first, none of them the last page, where a login appends)."""
    conn = sqlite3.connect(path)
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    leaves = conn.execute("SELECT pageno, ncell FROM dbstat WHERE name = 'audit' AND pagetype = 'leaf' "
                          "ORDER BY path").fetchall()
    pages = []
    for (code,) in conn.execute("SELECT DISTINCT json_extract(doc, '$.municipality') FROM audit "
                                "WHERE json_extract(doc, '$.municipality') IS NOT NULL").fetchall():
        rowid = conn.execute("SELECT rowid FROM audit WHERE json_extract(doc, '$.municipality') = ? "
                             "ORDER BY json_extract(doc, '$.at') DESC LIMIT 1 OFFSET 40", (code,)).fetchone()[0]
        rank, seen = conn.execute("SELECT COUNT(*) FROM audit WHERE rowid <= ?", (rowid,)).fetchone()[0], 0
        for page, cells in leaves:
            seen += cells
            if seen >= rank:
                break
        assert page != leaves[-1][0]
        pages.append(page)
    conn.close()
    with open(path, "r+b") as file:
        for page in set(pages):
            file.seek((page - 1) * size)
            file.write(b"\xff" + random.Random(page).randbytes(size - 1))
    return pages


@pytest.fixture
def data(tmp_path, base_demo_store):
    require_chromium()
    return copy_store(base_demo_store, tmp_path / "data")


def test_a_page_damaged_under_the_running_panel_is_told_on_every_screen_and_in_the_log(data, tmp_path):
    log = tmp_path / "painel.log"
    with served(panel_env(data), free_port(), log) as url:
        with chromium() as browser:
            page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            login(page, url, "ti")
            assert DAMAGED not in log.read_text()
            damage_recent_audit_pages(data / "painel.sqlite3")
            page.goto(f"{url}/audit")
            page.get_by_text(DAMAGED).first.wait_for(timeout=60000)
            settle(page)
            body = page.inner_text("body")
            assert RESTORE in body and "malformed" not in body and "Traceback" not in body
            page.goto(f"{url}/deployment")
            page.get_by_text(DAMAGED).first.wait_for(timeout=60000)
            settle(page)
            body = page.inner_text("body")
            assert RESTORE in body and "Valores que a lei deixa" not in body
    assert DAMAGED in log.read_text()
    assert (data / "painel.damaged.json").exists()
