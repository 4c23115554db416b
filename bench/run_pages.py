"""The pages' figures: each page rendered server-side, the raw query of each list, the start-up.

:func:`render_page` renders a page of ``ui.navigation.PAGES`` with streamlit's AppTest, logged in as
the actor of its permission, and times ``repeat`` renders after a first one (imports and cached
resources); :func:`raw_queries` is the main query each list page sends (its first page, sorted and
limited, and the count), to compare a page with the store's own cost; :func:`startup` times
``streamlit run app.py`` until the login page and the health check answer.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench import dataset_plan
from bench.run_measure import MUNICIPALITY, ROLE_ACTORS, p50, p95, timed
from services import store
from services.dam import dams, lists
from services.shared import clock, schema
from services.shared.auth import Actor

ROOT = Path(__file__).resolve().parent.parent


def page_actor(permission: str) -> Actor:
    return ROLE_ACTORS.get(permission, ROLE_ACTORS["admin"])


def render_page(path: str, permission: str, repeat: int) -> dict:
    # streamlit is imported when a page is timed, not with this module: it costs about a second that
    # ``bench/run.py --help``, the dataset and the tests that import the runner do not need.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.session_state["actor"] = page_actor(permission)
    at.session_state["municipality"] = MUNICIPALITY
    at.run()
    at.switch_page(path).run()  # first render: imports and cached resources
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    figures, calls = timed(at.run, repeat)
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return {"p50": p50(figures), "p95": p95(figures), "calls": calls}


def raw_queries(db: Any) -> dict[str, Callable[[], Any]]:
    """The main list query each list page sends: its first page (sorted, limited) and the count."""
    mun = {"municipality": MUNICIPALITY}

    def entity(name: str, sort: str, descending: bool = False, limit: int = 25) -> Callable[[], Any]:
        def run() -> Any:
            db[name].count_documents(mun)
            return list(db[name].find(mun).sort([(sort, -1 if descending else 1), ("_id", 1)]).limit(limit))
        return run

    def dam_list() -> Any:
        db[dams.COLLECTION].count_documents(mun)
        return list(db[dams.COLLECTION].find(mun).sort(lists.SORT).limit(25))

    def audit_list() -> Any:
        start = datetime.combine(dataset_plan.TODAY - timedelta(days=30), datetime.min.time(), clock.LOCAL_TZ)
        query = {**mun, "at": store.encode({"$gte": start})}
        db["audit"].count_documents(query)
        return list(db["audit"].find(query).sort("at", -1).limit(100))

    spec = schema.SPECS
    return {
        "app_pages/taxpayers.py": entity("taxpayers", spec["taxpayers"].default_sort),
        "app_pages/dams.py": dam_list,
        "app_pages/platforms.py": entity("platforms", spec["platforms"].default_sort),
        "app_pages/drivers.py": entity("drivers", spec["drivers"].default_sort),
        "app_pages/vehicles.py": entity("vehicles", spec["vehicles"].default_sort),
        "app_pages/authorizations.py": entity("authorizations", "protocol_date", descending=True),
        "app_pages/inspections.py": entity("inspections", spec["inspections"].default_sort),
        "app_pages/pendencias.py": entity("authorizations", "protocol_date", descending=True),
        "app_pages/audit.py": audit_list,
        "app_pages/users.py": lambda: list(db["users"].find({}).sort("username", 1).limit(100)),
    }


# ---- start-up ----

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def startup(folder: str, timeout: float = 120) -> float:
    """Seconds from ``streamlit run app.py`` to GET / answering 200 and /_stcore/health answering ok."""
    port = free_port()
    env = {**os.environ, "PAINEL_DATA_DIR": folder}
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - start < timeout:
            if process.poll() is not None:
                raise RuntimeError(f"streamlit saiu com código {process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page, \
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as health:
                    if page.status == 200 and health.read().strip() == b"ok":
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"sem resposta em {timeout:.0f} s")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
