"""The pages' figures: every page of every role's navigation in every municipality that has it,
rendered server-side (AppTest through ``app.py``) warm and on the first render right after a real save.

Roles are the panel's three (secretaria of the municipality, gabinete and TI of all three); a
municipality's pages are ``ui.navigation.visible_pages`` for its enabled modules, so Nova Lacerda's
machinery pages are opened by Nova Lacerda's own secretaria. After a first render (imports and cached
resources), ``repeat`` renders are timed warm; then ``repeat`` times a save goes through a service
and the next render is timed. Nothing is cleared by hand: Streamlit's ``st.cache_data`` lives on in
the process as it does on the server, and only what the save moves changes the pages' cache keys.
The save is the one that moves what the page shows (:data:`SAVE_OF_MODULE`): a DAM issued and paid
for the common pages, an authorization event for ride-hailing pages, an auto for the autos page,
a machinery request for Nova Lacerda's machinery pages. Times are wall-clock (``perf_counter``) and
the process's CPU (``process_time``), both in ms; store calls are counted on the last render.
"""
from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

from bench.run_measure import COUNTER, ms, p50
from bench.run_writes import Writes
from services.shared.auth import Actor

ROOT = Path(__file__).resolve().parent.parent
MUNICIPALITIES = ("chapada", "matupa", "nova_lacerda")
ROLES = ("secretaria", "gabinete", "ti")
SAVE_OF_MODULE = {None: "dam_paid", "transporte": "event", "maquinas": "booking"}
SAVE_OF_PAGE = {"app_pages/autos.py": "auto"}
SAVE_NAMES = {"dam_paid": "DAM emitido e pago", "event": "evento de autorização", "auto": "auto lavrado",
              "booking": "solicitação de máquinas"}


def actor_of(role: str, municipality: str) -> Actor:
    if role == "secretaria":
        return Actor(f"bench.secretaria.{municipality}", "Secretaria (benchmark)", role, (municipality,))
    return Actor(f"bench.{role}", f"{role.capitalize()} (benchmark)", role, MUNICIPALITIES)


def modules_of(db: Any, municipality: str) -> tuple[str, ...]:
    doc = db["municipalities"].find_one({"_id": municipality}) or db["municipalities"].find_one(
        {"code": municipality}) or {}
    return tuple(doc.get("modules", ()))


class Saves:
    """One real save of each kind per call, in the page's municipality."""

    def __init__(self, db: Any) -> None:
        self.writes = {code: Writes(db, code) for code in MUNICIPALITIES}

    def save(self, kind: str, municipality: str) -> None:
        getattr(self.writes[municipality], kind)()


def render_figures(at: Any, runs: int, before: Any = None) -> dict:
    walls, cpus, calls = [], [], 0
    for _ in range(runs):
        if before:
            before()
        COUNTER.calls = 0
        wall, cpu = time.perf_counter(), time.process_time()
        at.run()
        walls.append(ms(time.perf_counter() - wall))
        cpus.append(ms(time.process_time() - cpu))
        calls = COUNTER.calls
        if at.exception:
            raise RuntimeError(at.exception[0].message.splitlines()[0])
    return {"wall": p50(walls), "cpu": p50(cpus), "calls": calls}


def pages(db: Any, repeat: int, chosen: list[str] | None = None, progress: Any = print) -> dict[tuple, Any]:
    """{(role, municipality, page path): {"warm": {...}, "after": {...}, "save": kind} or "n/d (why)"}."""
    from streamlit.testing.v1 import AppTest

    from ui.navigation import visible_pages

    saves, result = Saves(db), {}
    # the saves' lists (every open DAM of each municipality: about a million objects at scale 100) are
    # the benchmark's, not the panel's: frozen, a full collection during a render does not walk them
    gc.freeze()
    for municipality in MUNICIPALITIES:
        for role in ROLES:
            actor = actor_of(role, municipality)
            visible = [p for p in visible_pages(actor, modules_of(db, municipality))
                       if not chosen or any(name in p.path for name in chosen)]
            if not visible:
                continue
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
            at.session_state["actor"] = actor
            at.session_state["municipality"] = municipality
            at.run()
            for page in visible:
                kind = SAVE_OF_PAGE.get(page.path, SAVE_OF_MODULE.get(page.module, "dam_paid"))
                key = (role, municipality, page.path)
                try:
                    at.switch_page(page.path).run()  # first render of the page: its imports
                    warm = render_figures(at, repeat)
                    after = render_figures(at, repeat, lambda: saves.save(kind, municipality))
                    result[key] = {"warm": warm, "after": after, "save": kind}
                except Exception as exc:  # noqa: BLE001 — a page that fails prints its reason, the rest go on
                    result[key] = f"n/d ({type(exc).__name__}: {str(exc)[:100]})"
                progress(f"  {role:<10} {municipality:<13} {page.title:<28} {brief(result[key])}")
    return result


def brief(figure: Any) -> str:
    if not isinstance(figure, dict):
        return str(figure)
    return f"quente {figure['warm']['wall']:.0f} ms · após gravar {figure['after']['wall']:.0f} ms"
