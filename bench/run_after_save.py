"""The render a clerk waits for after each save: every page touched by the clerk's day (issue 22) and
the money loop (issue 19), timed warm and then on the first render right after a real save.

A save is a DAM issued (``dams.issue``) and an authorization event (``inspections.call_inspection``),
both through the services as the benchmark's own writer: together they move every data version the
pages cache under (the audit, the DAMs and charges, the authorizations). The dataset of ``bench/run.py``
is copied first, so the generated one stays as it was::

    .venv/bin/python -m bench.run_after_save --data-root /tmp/painel-bench --scale 1 --repeat 5
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import dataset_plan  # noqa: E402
from bench.run_measure import MUNICIPALITY, ROLE_ACTORS, ms, p50  # noqa: E402
from bench.run_writes import WRITER, issue_dam  # noqa: E402
from services import store  # noqa: E402
from services.shared import clock  # noqa: E402

PAGES = (  # (page, permission): the pages this work changed or that read what a save moves
    ("app_pages/home.py", "write"), ("app_pages/home.py", "summary"), ("app_pages/summary.py", "summary"),
    ("app_pages/dams.py", "write"), ("app_pages/debts.py", "write"), ("app_pages/authorizations.py", "write"),
    ("app_pages/inspections.py", "write"), ("app_pages/autos.py", "write"), ("app_pages/pendencias.py", "write"),
    ("app_pages/parameters.py", "admin"),
)


def saver(db) -> Callable[[], None]:
    """A real save each call: a DAM issued and an event on the next active authorization."""
    from services.ridehailing import authorization_records, inspections

    active = iter([str(d["_id"]) for d in db["authorizations"].find({"municipality": MUNICIPALITY,
                                                                      "status": "active"}, {"_id": 1})])

    def save() -> None:
        issue_dam(db)
        for auth_id in active:
            try:
                inspections.call_inspection(db, WRITER, MUNICIPALITY, auth_id, dataset_plan.TODAY, "Benchmark")
                return
            except authorization_records.WrongStep:
                continue
    return save


def page_figures(path: str, permission: str, save: Callable[[], None], repeat: int) -> tuple[float, float]:
    """(warm p50, p50 of the first render after a save) in ms, server side (AppTest through app.py)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.session_state["actor"] = ROLE_ACTORS[permission]
    at.session_state["municipality"] = MUNICIPALITY
    at.run()
    at.switch_page(path).run()
    warm, after = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        at.run()
        warm.append(ms(time.perf_counter() - start))
    for _ in range(repeat):
        save()
        # The pages' caches are keyed by data versions that the save moves; the dataset dates audit
        # entries after its today, which freezes the Resumo's key (issue 21): clearing the data caches
        # gives what a clerk waits for when the key moves, as it does on a real store.
        st.cache_data.clear()
        start = time.perf_counter()
        at.run()
        after.append(ms(time.perf_counter() - start))
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return p50(warm), p50(after)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", default="/tmp/painel-bench")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    source = Path(args.data_root) / f"scale-{args.scale}"
    if not source.exists():
        raise SystemExit(f"Gere antes o conjunto: .venv/bin/python bench/run.py --scales {args.scale}")
    copy = Path(tempfile.mkdtemp(prefix="painel-after-save-")) / "store"
    shutil.copytree(source, copy)
    os.environ["PAINEL_DATA_DIR"] = str(copy)
    clock.today = lambda: dataset_plan.TODAY  # the dataset counts its deadlines from its fixed today
    try:
        db = store.connect(data_dir=str(copy))
        save = saver(db)
        print(f"Escala {args.scale} — render logo após gravar (DAM emitido + evento de autorização), "
              f"p50 de {args.repeat}, servidor (AppTest)")
        print(f"{'página':<34}{'quente':>10}{'após gravar':>14}")
        for path, permission in PAGES:
            name = f"{Path(path).stem} ({ROLE_ACTORS[permission].role})"
            try:
                warm, after = page_figures(path, permission, save, args.repeat)
                print(f"{name:<34}{warm:>8.0f} ms{after:>11.0f} ms", flush=True)
            except Exception as exc:  # noqa: BLE001 — a page that fails prints its reason, the rest go on
                print(f"{name:<34}  n/d ({type(exc).__name__}: {str(exc)[:80]})", flush=True)
    finally:
        store.close_all()
        shutil.rmtree(copy.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
