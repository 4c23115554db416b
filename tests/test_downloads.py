"""A download never reruns the page (``on_click="ignore"``). Streamlit clears a session's outgoing
messages when a run starts, and its answer to a deferred download (data made when clicked: every
export, DAM, notice and sticker here) is not among the messages it keeps. When the click's own rerun
started as that answer was sent, the answer was dropped and the button stayed disabled, spinning,
for the three minutes the browser waits: CI lost an XLSX export so. A click on a bare
deferred download left it so 3 times in 24 under load, and 0 times in 40 with "ignore". A list's
exports, as drawn, are checked in ``tests/test_exports.py``."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _download_calls(path: Path) -> list[ast.Call]:
    return [node for node in ast.walk(ast.parse(path.read_bytes()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "download_button"]


def test_every_download_of_the_panel_leaves_the_page_as_it_is():
    calls = {path.relative_to(ROOT): _download_calls(path)
             for folder in ("app_pages", "ui") for path in sorted((ROOT / folder).rglob("*.py"))}
    assert sum(map(len, calls.values())) >= 30  # the scan finds the panel's downloads
    rerunning = [f"{path}:{call.lineno}" for path, found in calls.items() for call in found
                 if not any(k.arg == "on_click" and isinstance(k.value, ast.Constant) and k.value.value == "ignore"
                            for k in call.keywords)]
    assert not rerunning, rerunning
