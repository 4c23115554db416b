"""In headless Chromium: each demo role logs in, sees only its pages, and logs out."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.browser

EXPECTED = {
    "secretaria.chapada": (["Início", "Resumo", "Contribuintes", "Plataformas"], ["Usuários", "Auditoria"]),
    "gabinete": (["Início", "Resumo"], ["Contribuintes", "Usuários", "Parâmetros"]),
    "ti": (["Usuários", "Parâmetros", "Auditoria", "Explorador de dados"], ["Contribuintes"]),
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium ausente em /usr/bin/chromium: o CI deve instalá-lo (.ci/run)")
        pytest.skip("Chromium não instalado nesta máquina")
    data = tmp_path_factory.mktemp("browser-data")
    env = {**os.environ, "PAINEL_DATA_DIR": str(data)}
    env.pop("MONGODB_URI", None)
    subprocess.run([sys.executable, "-m", "seed", "--demo"], cwd=ROOT, env=env, check=True, capture_output=True)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        server.kill()
        pytest.fail("o painel não respondeu em 90 s")
    yield url
    server.terminate()
    server.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield chromium
        chromium.close()


def login(page, url, username, password="painel2026"):
    page.goto(url)
    page.get_by_label("Usuário").fill(username)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("button", name="Sair").wait_for(timeout=30000)


@pytest.mark.parametrize("username", EXPECTED)
def test_each_role_sees_only_its_pages(panel, browser, username, tmp_path):
    visible, hidden = EXPECTED[username]
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    login(page, panel, username)
    nav = page.get_by_test_id("stSidebarNav")
    nav.wait_for()
    text = nav.inner_text()
    assert all(title in text for title in visible), text
    assert not any(title in text for title in hidden), text
    page.screenshot(path=str(tmp_path / f"{username}.png"))
    assert page.get_by_test_id("stException").count() == 0
    page.get_by_role("button", name="Sair").click()
    page.get_by_role("button", name="Entrar").wait_for(timeout=30000)
    page.close()


def test_wrong_password_shows_the_message_in_portuguese(panel, browser):
    page = browser.new_page()
    page.goto(panel)
    page.get_by_label("Usuário").fill("gabinete")
    page.get_by_label("Senha").fill("errada")
    page.get_by_role("button", name="Entrar").click()
    page.get_by_text("Usuário ou senha incorretos").wait_for(timeout=30000)
    page.close()
