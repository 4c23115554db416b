"""Figures the proof suites print at the end of the run (CI output), whatever pytest's verbosity.

A suite calls ``figures.report("permissões: 96 páginas × perfis, 0 vazamentos")``; the hook in
``tests/conftest.py`` prints every line under "Figuras" in the terminal summary.
"""
from __future__ import annotations

LINES: list[str] = []


def report(line: str) -> None:
    LINES.append(line)


CONCURRENCY: dict[str, tuple[int, int]] = {}


def concurrency(scenario: str, operations: int, conflicts: int) -> None:
    """One concurrency scenario checked: how many operations ran at once and how many were refused as
    conflicts (none duplicated, none lost: the test asserts that before it reports)."""
    CONCURRENCY[scenario] = (operations, conflicts)


def concurrency_line() -> str | None:
    if not CONCURRENCY:
        return None
    operations = sum(o for o, _ in CONCURRENCY.values())
    conflicts = sum(c for _, c in CONCURRENCY.values())
    return (f"concorrência: {len(CONCURRENCY)} cenários ({', '.join(sorted(CONCURRENCY))}), {operations} operações "
            f"simultâneas, {conflicts} conflitos recusados, 0 duplicados, 0 lacunas, 0 passos perdidos")
