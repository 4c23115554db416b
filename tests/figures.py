"""Figures the proof suites print at the end of the run (CI output), whatever pytest's verbosity.

A suite calls ``figures.report("permissões: 96 páginas × perfis, 0 vazamentos")``; the hook in
``tests/conftest.py`` prints every line under "Figuras" in the terminal summary.
"""
from __future__ import annotations

LINES: list[str] = []


def report(line: str) -> None:
    LINES.append(line)
