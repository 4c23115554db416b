"""Data written by one process is read by a fresh process (the embedded store persists)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WRITE = """
from services.setup import bootstrap
from services.shared import entities
from services.store import connect
from tests.conftest import SECRETARIA_CG
db = connect()
bootstrap.prepare(db)
entities.create(db, SECRETARIA_CG, "taxpayers", "chapada",
                {"name": "Persistente", "document": "52998224725", "kind": "pf", "address": "Rua A, 1"})
"""
READ = """
from services.shared import entity_lists, schema
from services.store import connect
from tests.conftest import SECRETARIA_CG
page = entity_lists.list_page(connect(), SECRETARIA_CG, "taxpayers", "chapada", schema.ListQuery(search="persist"))
print(page.total, page.rows[0]["document"])
"""


def test_a_fresh_process_reads_what_another_wrote(tmp_path):
    env = {**os.environ, "PAINEL_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    env.pop("MONGODB_URI", None)
    subprocess.run([sys.executable, "-c", WRITE], env=env, check=True, cwd=ROOT)
    out = subprocess.run([sys.executable, "-c", READ], env=env, check=True, cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.split() == ["1", "52998224725"]
