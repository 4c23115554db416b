"""The layout holds: imports run downward only, no import cycle, no module past one sitting.

The import graph is read from the code (``ast``), function-level imports included, so a cycle cannot
hide inside a function. Layers, lowest first (docs/DESENVOLVIMENTO.md draws the same map):

    rules < docstore < services.shared (services.store with it) < services.dam
          < services.ridehailing | services.machinery < services.summary | services.setup | services.search
          < ui | seed | portal < app_pages < app < bench < tests

Rooms on one floor (ridehailing and machinery, summary and setup, ui, seed and portal) never import each
other: the public portal (issue 36) stands beside the staff UI and imports nothing of it.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules", "docstore", "services", "ui", "seed", "portal", "app_pages", "bench", "tests")
FLOORS: list[tuple[str, ...]] = [
    ("rules",),
    ("docstore",),
    ("services.shared", "services.store", "services"),
    ("services.dam",),
    ("services.ridehailing", "services.machinery"),
    ("services.summary", "services.setup", "services.search"),
    ("ui", "seed", "portal"),
    ("app_pages",),
    ("app",),
    ("bench",),
    ("tests",),
]
# Rooms that share a floor but are distinct (services.shared and services.store are one room).
ONE_ROOM = {"services.store": "services.shared", "services": "services.shared"}
LIMIT = 400  # lines: "small enough to read in one sitting"
# Longer modules that are mostly a table of data (the reason beside each) — none today.
DATA_TABLES: dict[str, str] = {}


def module_files() -> dict[str, Path]:
    found = {"app": ROOT / "app.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = module_files()


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _ours(name: str) -> str | None:
    """The module of ours that ``name`` names (a package's function names its package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> dict[str, int]:
    """Modules of ours that ``module`` imports, anywhere in its code, with the first line."""
    path = MODULES[module]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node, path.name == "__init__.py")
            names = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for name in names:
            target = _ours(name)
            if target and target != module and not module.startswith(target + "."):
                found.setdefault(target, node.lineno)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def _is_test(module: str) -> bool:
    return "tests" in module.split(".")


def room(module: str) -> tuple[int, str]:
    """(floor, room) of a module: the longest room name that prefixes it; tests are on top."""
    if _is_test(module):
        return len(FLOORS) - 1, "tests"
    best: tuple[int, str] | None = None
    for floor, rooms in enumerate(FLOORS):
        for name in rooms:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best[1])):
                best = (floor, name)
    assert best is not None, f"{module} is on no floor of the map"
    return best[0], ONE_ROOM.get(best[1], best[1])


def test_every_module_is_on_a_floor_of_the_map():
    assert all(room(module) for module in MODULES)


def test_imports_run_downward_only():
    upward = []
    for module, targets in GRAPH.items():
        floor, own = room(module)
        for target, line in targets.items():
            target_floor, target_room = room(target)
            if target_floor > floor or (target_floor == floor and target_room != own):
                upward.append(f"{MODULES[module].relative_to(ROOT)}:{line} {module} → {target}")
    assert not upward, "imports that run up or across a floor:\n" + "\n".join(sorted(upward))


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    assert _cycles(GRAPH) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]


def test_only_the_store_door_reaches_the_engine():
    reaching = sorted(module for module, targets in GRAPH.items()
                      if any(t == "docstore" or t.startswith("docstore.") for t in targets)
                      and not module.startswith(("docstore", "bench")) and not _is_test(module))
    assert reaching == ["services.store"]


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not _is_test(m)))
def test_a_module_reads_in_one_sitting(module):
    lines = len(MODULES[module].read_text().splitlines())
    assert lines <= LIMIT or module in DATA_TABLES, f"{module} has {lines} lines (limit {LIMIT})"


def test_the_public_portal_imports_nothing_of_the_staff_ui():
    """Issue 36: the portal shares ``services`` and ``rules`` only — no staff page, no staff UI, no Streamlit."""
    portal = [m for m in MODULES if m == "portal" or m.startswith("portal.")]
    assert "portal.app" in portal
    reached = {t for m in portal for t in GRAPH[m]}
    assert sorted(t for t in reached if not t.startswith(("portal", "services", "rules"))) == []
    third_party = set()
    for module in portal:
        for node in ast.walk(ast.parse(MODULES[module].read_text())):
            if isinstance(node, ast.Import):
                third_party |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                third_party.add((node.module or "").split(".")[0])
    assert "streamlit" not in third_party and "extra_streamlit_components" not in third_party
