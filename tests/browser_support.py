"""What the browser tests share: Debian's Chromium, a panel served on a free port, login."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    """Skip on a developer machine without Chromium; in CI (CI=true) a missing browser fails."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium ausente em /usr/bin/chromium: o CI deve instalá-lo (.ci/run)")
        pytest.skip("Chromium não instalado nesta máquina")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def panel_env(data: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PAINEL_DATA_DIR": str(data), **extra}
    env.pop("MONGODB_URI", None)
    return env


@contextmanager
def served(env: dict[str, str], port: int) -> Iterator[str]:
    """The panel running on ``port`` with ``env``; stopped on exit."""
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                if time.time() > deadline:
                    pytest.fail("o painel não respondeu em 90 s")
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


@contextmanager
def chromium() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def login(page, url: str, username: str, password: str = "painel2026") -> None:
    page.goto(url)
    page.get_by_label("Usuário").fill(username)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("button", name="Sair").wait_for(timeout=30000)


def settle(page, timeout: int = 30000) -> None:
    """Wait until the panel's script run is over (Streamlit marks it on the app's root): a click made
    while a rerun is still drawing can be sent with the widgets' previous state."""
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=timeout)
