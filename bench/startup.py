"""Start-up as a user meets it: from ``streamlit run app.py`` to the login page drawn in a browser.

:func:`measure_startup` launches Chromium first (a clerk's browser is already open), then starts the
panel and times, from the moment the process is spawned: the health check answering ``ok``, and the
login page drawn in the browser (the "Usuário" and "Senha" fields and the "Entrar" button visible,
the script run over). A minimal version written by the benchmark (issue 21, item 4); the engine's
work on start-up may replace its inside, not its answer. The CLI starts it a few times in a row::

    python -m bench.startup --data-dir /tmp/painel-bench --runs 3
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _health(port: int, start: float, process: subprocess.Popen, timeout: float) -> float:
    while time.perf_counter() - start < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit saiu com código {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as health:
                if health.read().strip() == b"ok":
                    return time.perf_counter() - start
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"sem resposta em {timeout:.0f} s")


def measure_startup(data_dir: str, port: int, timeout: float = 120) -> dict:
    """Seconds to the health check (``health_s``) and to the login page drawn in Chromium (``login_s``)."""
    from playwright.sync_api import sync_playwright

    env = {**os.environ, "PAINEL_DATA_DIR": str(data_dir)}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
             str(port), "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            health = _health(port, start, process, timeout)
            page.goto(f"http://127.0.0.1:{port}/", timeout=timeout * 1000)
            page.get_by_label("Usuário").wait_for(timeout=timeout * 1000)
            page.get_by_label("Senha").wait_for(timeout=timeout * 1000)
            page.get_by_role("button", name="Entrar").wait_for(timeout=timeout * 1000)
            page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(
                timeout=timeout * 1000)
            login = time.perf_counter() - start
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
            browser.close()
    return {"health_s": health, "login_s": login}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def measure_runs(data_dir: str, runs: int = 3) -> dict:
    """``runs`` starts in a row: every run and the median of each figure."""
    results = [measure_startup(data_dir, free_port()) for _ in range(runs)]
    return {"runs": results, **{key: statistics.median(r[key] for r in results) for key in ("health_s", "login_s")}}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description="Mede a partida do painel até o login desenhado no navegador.")
    parser.add_argument("--data-dir", default=os.environ.get("PAINEL_DATA_DIR"),
                        required=not os.environ.get("PAINEL_DATA_DIR"),
                        help="pasta do armazenamento embutido (padrão: PAINEL_DATA_DIR)")
    parser.add_argument("--runs", type=int, default=3, help="partidas seguidas (mediana)")
    result = measure_runs(parser.parse_args(argv).data_dir, parser.parse_args(argv).runs)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
