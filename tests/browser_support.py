"""What the browser tests share: Debian's Chromium, a panel served on a free port, login."""
from __future__ import annotations

import contextlib
import os
import re
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
def served(env: dict[str, str], port: int, log: Path | None = None) -> Iterator[str]:
    """The panel running on ``port`` with ``env``; stopped on exit. ``log``: where its log (stderr) goes."""
    with open(log, "w") if log else contextlib.nullcontext(subprocess.DEVNULL) as err:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
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
    page.get_by_label("Usuário").wait_for(timeout=30000)
    settle(page)  # the login page's first run over: a click while it still draws can be lost
    page.get_by_label("Usuário").fill(username)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("button", name="Sair").wait_for(timeout=30000)
    settle(page)  # "Sair" is drawn before the page: a click during the rest of that run can be lost


def settle(page, timeout: int = 30000) -> None:
    """Wait until the panel's script run is over (Streamlit marks it on the app's root): a click made
    while a rerun is still drawing can be sent with the widgets' previous state. Then watch when runs
    start and when the person last acted (:data:`_WATCH_RUNS`), for :func:`rerun_settled`."""
    from playwright.sync_api import Error as PlaywrightError

    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=timeout)
    try:
        page.evaluate(_WATCH_RUNS)
    except PlaywrightError:  # the page went on to another address meanwhile: no count, rerun_settled waits
        pass


# Notes, in the page, when the last run started (the root's state leaving "notRunning", however short:
# a MutationObserver gets each change with its old value, where polling the state missed runs of a few
# ms) and when the person last acted (a pointer press, a key, a typed or chosen value, a file chosen).
_WATCH_RUNS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || window.__painelWatch) return;
  window.__painelRun = -1;
  window.__painelActed = -1;
  for (const type of ['pointerdown', 'keydown', 'input', 'change'])
    document.addEventListener(type, () => { window.__painelActed = performance.now(); }, true);
  window.__painelWatch = new MutationObserver(records => {
    for (const r of records) if (r.oldValue === 'notRunning') window.__painelRun = performance.now();
  });
  window.__painelWatch.observe(app, {attributes: true, attributeOldValue: true,
                                     attributeFilter: ['data-test-script-state']});
}"""


def downloaded(page, button, tries: int = 3, each: int = 60000):
    """Click ``button`` (a locator) once it is drawn and the run is over, and return its download. A
    click that reaches Streamlit while a rerun redraws the button is dropped without a trace (CI lost
    three such clicks on a loaded machine, each right after :func:`settle`); a person clicks again, and
    so does this, up to ``tries`` times. A button that never downloads still fails."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(1, tries + 1):
        button.wait_for(timeout=30000)
        settle(page)
        try:
            with page.expect_download(timeout=each) as download:
                button.click()
            return download.value
        except PlaywrightTimeout:
            if attempt == tries:
                raise
    raise AssertionError("unreachable")


def rerun_settled(page, timeout: int = 30000, start: int = 3000) -> None:
    """Wait for the script run that the last interaction asked for, then for its end. Right after a click
    or a Tab out of a field the app still says "notRunning" (it marks a run only once the server starts
    it), so :func:`settle` alone can return before that run began and the next step then acts on the
    page the run is about to redraw. That run is the first to start after the last action, however
    short (polling the state alone missed runs of a few ms, and each miss waited the whole ``start``);
    never one that started before it, as a save's follow-up run did (a file then chosen in the tab
    clicked next went to a field that tab's run redrew, and the upload was lost). Its start is awaited
    ``start`` ms at most (a page that went to another address has nothing noted)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("() => (window.__painelRun ?? -1) > (window.__painelActed ?? -1)",
                               timeout=start, polling=10)
    except PlaywrightTimeout:
        pass
    settle(page, timeout)


# What a person sees must be pt-BR (issue 22 item 9): no snake_case identifier and none of Streamlit's
# English words, in the text shown and in what a screen reader reads (aria-label, title, placeholder,
# a date segment's aria-valuetext) or a copy takes (a date field's hidden placeholder).
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
# Streamlit's own English words, as it draws them (whole words, case as drawn)
ENGLISH = re.compile(r"\b(?:Choose date|Choose an option|Upload|Browse files|Drag and drop|per file|Add:|"
                     r"No results|No options|Open|Close|Clear value|Search|Download as CSV|Fullscreen|"
                     r"Collapse sidebar|Expand sidebar|Sidebar|App pages|Link to heading|file upload|"
                     r"Show/hide columns|Copy to clipboard|Increment|Decrement|view more|view less|empty|"
                     # a date field (issue 35 item 12): its parts, empty segments, months, help, placeholder
                     r"start date|end date|Empty|Help|Previous month|Next month|Date range|"
                     r"Quick select|yyyy|January|February|March|April|June|July|August|September|October|"
                     r"November|December)\b|\b(?:day|month|year|hour|minute), |\bSelect\.\.\.")
SEEN = """() => {
  const shown = [];
  const skip = (el) => el.closest('[data-testid="stIconMaterial"], code, pre, [aria-hidden="true"], '
                                  + '[data-testid="stElementToolbar"], .st-key-painel_cookie_holder');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || skip(el) || !node.textContent.trim() || el.closest('script, style')) continue;
    if (el.checkVisibility && !el.checkVisibility()) continue;
    shown.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [aria-valuetext]')) {
    if (el.closest('[data-testid="stIconMaterial"], .st-key-painel_cookie_holder')) continue;
    for (const a of ['aria-label', 'title', 'placeholder', 'aria-valuetext'])
      if (el.getAttribute(a)) shown.push(el.getAttribute(a));
  }
  // what is copied from a date field: the hidden placeholder behind the painted "aaaa"
  for (const el of document.querySelectorAll('[data-testid="stDateInputField"] [data-placeholder="true"]'))
    shown.push(el.textContent);
  for (const grid of document.querySelectorAll('table[role="grid"]')) {  // a table without rows: Streamlit
    const cells = [...grid.querySelectorAll('td[role="gridcell"]')];    // draws its English "empty" in the canvas
    if (grid.getAttribute('aria-rowcount') === '2' && cells.length && cells.every((c) => !c.textContent.trim()))
      shown.push('empty');
  }
  return shown;
}"""


def untranslated(page) -> set[str]:
    words = set()
    for text in page.evaluate(SEEN):
        words.update(SNAKE.findall(text))
        words.update(match.group(0) for match in ENGLISH.finditer(text))
    return words
