"""Shared fixtures: a real embedded store in a temp folder (a fake, not a mock), actors of each role."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from hypothesis import settings

# CI replays the same examples on every run (a landing never depends on luck); a developer's run
# explores new examples each time. The examples database keeps any failure found for replay.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")

from services import store
from services.setup import bootstrap
from services.shared import clock, sessions
from services.shared.auth import Actor
from services.store import connect

# bcrypt at its lowest cost in tests: ``sessions.BCRYPT_ROUNDS`` is 12 in production (about 0,25 s a hash or
# check here, more on a loaded machine) and hundreds of tests create users and log in; the rules are the
# same at any cost. Every test runs with it (``low_bcrypt_cost`` below), and so are the demo stores seeded for
# the browser tests (``_seeded``), whose panels then check passwords at that cost too.
TEST_BCRYPT_ROUNDS = 4
SET_TEST_BCRYPT_ROUNDS = f"from services.shared import sessions; sessions.BCRYPT_ROUNDS = {TEST_BCRYPT_ROUNDS}\n"

SECRETARIA_CG = Actor("sec.cg", "Servidora de Chapada", "secretaria", ("chapada",))
SECRETARIA_MP = Actor("sec.mp", "Servidor de Matupá", "secretaria", ("matupa",))
GABINETE = Actor("gab", "Gabinete", "gabinete", ("chapada", "matupa", "nova_lacerda"))
TI = Actor("ti.test", "TI", "ti", ("chapada", "matupa", "nova_lacerda"))


def set_municipal_values(db) -> None:
    """What TI sets at deployment (Implantação page) and bootstrap never does: the ouvidoria phone,
    the municipal holidays (the demo's Corpus Christi and anniversaries the tests count on) and the
    FEBRABAN code, with the demo store's values. Not the demo's UPFM, fees or PIX."""
    from seed.municipalities import demo_shared_parameters

    for code in ("chapada", "matupa", "nova_lacerda"):
        for version in demo_shared_parameters(code):
            bootstrap.ensure_parameter(db, code, version)


@pytest.fixture(autouse=True)
def low_bcrypt_cost(monkeypatch):
    monkeypatch.setattr(sessions, "BCRYPT_ROUNDS", TEST_BCRYPT_ROUNDS)


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once():
    """Streamlit's AppTest scans every installed distribution's metadata for v2 components on the first
    run of each AppTest (about 0,5 s; a panel does it once at start-up), and the tests make hundreds of
    AppTests. The packages do not change during a run: the first scan's result is kept for the others."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    found: list = []

    def scanned_once(max_workers=None):
        if not found:
            found.append(scan(max_workers))
        return list(found[0])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests", scanned_once)
        yield


@pytest.fixture(scope="session")
def prepared_store(tmp_path_factory):
    """A store prepared once (indexes, municipalities, parameters) with the municipal values a
    deployment sets (``set_municipal_values``); each test gets a copy."""
    folder = tmp_path_factory.mktemp("template") / "data"
    template = connect(uri="", data_dir=str(folder))
    bootstrap.prepare(template)
    set_municipal_values(template)
    store.close_all()
    return folder


@pytest.fixture(scope="session")
def bootstrap_only_store(tmp_path_factory):
    """A store prepared by bootstrap alone, as a real deployment starts (no municipal value yet)."""
    folder = tmp_path_factory.mktemp("bootstrap_only") / "data"
    bootstrap.prepare(connect(uri="", data_dir=str(folder)))
    store.close_all()
    return folder


ROOT = Path(__file__).resolve().parent.parent
SEED_DEMO = "import sys\nfrom seed.__main__ import main\nsys.exit(main(['--demo']))\n"  # python -m seed --demo
# The base demo: ``python -m seed --demo`` without the ride-hailing demo records (they take most of its
# time and the browser tests that start from it register their own drivers); the fee is kept.
BASE_DEMO = (
    "from seed import demo, ridehailing\n"
    "from services.store import connect\n"
    "ridehailing.seed_ridehailing = ridehailing.seed_fee  # base demo and the fee, no ride-hailing records\n"
    "demo.seed_demo(connect())\n"
)


def _seeded(code: str) -> Callable[[Path], None]:
    """A builder that runs ``code`` (a seed) in a child process on the store at the folder it is given,
    with the tests' bcrypt cost (``TEST_BCRYPT_ROUNDS``) for the demo users' passwords."""

    def build(folder: Path) -> None:
        env = {**os.environ, "PAINEL_DATA_DIR": str(folder)}
        env.pop("MONGODB_URI", None)
        done = subprocess.run([sys.executable, "-c", SET_TEST_BCRYPT_ROUNDS + code], check=False, cwd=ROOT,
                              env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    return build


def shared_template(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """A store folder made by ``build`` once per run and shared by the xdist workers of the run (the
    first worker that asks builds it under a lock; the others wait for it, then use it). Tests copy it."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's own folder, shared by its workers (not by other runs)
    folder = root / f"template-{name}"
    with open(root / f"template-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not folder.exists():
                draft = root / f"template-{name}.draft"
                shutil.rmtree(draft, ignore_errors=True)
                build(draft)
                draft.rename(folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory):
    """The demo store as ``python -m seed --demo`` makes it on an empty folder, made once per run."""
    return shared_template(tmp_path_factory, "demo", _seeded(SEED_DEMO))


@pytest.fixture(scope="session")
def base_demo_store(tmp_path_factory):
    """The base demo (``BASE_DEMO``: the demo without its ride-hailing records), made once per run."""
    return shared_template(tmp_path_factory, "base-demo", _seeded(BASE_DEMO))


def copy_store(template: Path, folder: Path) -> Path:
    """A copy of a template store's folder at ``folder`` (which may exist, empty)."""
    shutil.copytree(template, folder, dirs_exist_ok=True)
    return folder


def use_copy(template, folder, monkeypatch):
    """A copy of a prepared store's folder, made the panel's embedded store for this test."""
    shutil.copytree(template, folder)
    monkeypatch.setenv("PAINEL_DATA_DIR", str(folder))
    monkeypatch.delenv("MONGODB_URI", raising=False)
    return folder


@pytest.fixture
def data_dir(tmp_path, monkeypatch, prepared_store):
    return use_copy(prepared_store, tmp_path / "data", monkeypatch)


@pytest.fixture
def db(data_dir):
    return connect(uri="", data_dir=str(data_dir))


@pytest.fixture
def demo_db(tmp_path, monkeypatch, demo_store):
    """A copy of the demo store (``demo_store``) as the panel's embedded store, connected."""
    return connect(uri="", data_dir=str(use_copy(demo_store, tmp_path / "data", monkeypatch)))


@pytest.fixture
def today(monkeypatch):
    """The panel's 'today', settable by the test: ``today.set(date)``; starts on a Monday."""

    class Today:
        value = date(2026, 3, 2)  # a Monday

        def set(self, day: date) -> None:
            self.value = day

    holder = Today()
    monkeypatch.setattr(clock, "today", lambda: holder.value)
    return holder


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n`` (xdist's default ``load`` distribution) each module goes to one worker whole, as
    ``--dist loadfile`` does: its module fixtures (a served panel, a store copy, Chromium, an AppTest
    store) are made once rather than on each worker that gets one of its tests. Sent one test at a
    time, with only the browser modules and ``tests/test_bench.py`` whole, the suite took 745 s here;
    every module whole, 636 and 677 s. Sending the browser modules first took 705 s in one run (likely
    because both workers then start by waiting for the demo store one of them makes, ``shared_template``)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WholeModules(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::", 1)[0]

    return WholeModules(config, log)


def pytest_terminal_summary(terminalreporter):
    """Print the proof suites' figures (tests/figures.py) at the end of every run."""
    from tests import figures

    lines = [*figures.LINES, *filter(None, [figures.concurrency_line()])]
    if lines:
        terminalreporter.section("Figuras")
        for line in lines:
            terminalreporter.write_line(line)
