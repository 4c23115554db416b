"""The login page after a start waits for what its first run imports (issue 21: start-up to a drawn
login page ≤ 3 s, on a machine where Streamlit alone takes about 2,5 s). The documents' and the
spreadsheets' libraries are for later clicks: the first run of the panel loads none of them (fpdf's
import took about 1 s of that run when the DAM warm-up, and the login's coat of arms through the
documents' letterhead, imported it)."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT, copy_store

LATER = {"fpdf", "openpyxl", "pypdf", "qrcode", "barcode", "matplotlib", "altair", "fontTools"}
DEPLOYED = """
from seed.documents import demo_coat_of_arms
from services.setup import deployment
from services.store import connect
from tests.conftest import TI
db = connect()  # a copy of the store bootstrap prepared (conftest.bootstrap_only_store)
deployment.set_coat_of_arms(db, TI, "chapada", demo_coat_of_arms("chapada"), "brasao.png")  # drawn on the login
"""
FIRST_RUN = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=60).run()
assert not at.exception, at.exception
assert any(w.label == "Senha" for w in at.text_input), [w.label for w in at.text_input]
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_the_first_run_of_the_login_page_imports_no_document_or_spreadsheet_library(tmp_path, bootstrap_only_store):
    env = {"PATH": "/usr/bin:/bin", "PAINEL_DATA_DIR": str(copy_store(bootstrap_only_store, tmp_path / "data")),
           "HOME": str(tmp_path)}
    for code in (DEPLOYED, FIRST_RUN):  # a store with its coat of arms, then a start that draws the login
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not loaded & LATER, sorted(loaded & LATER)
