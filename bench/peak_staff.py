"""The secretariat's side of the December peak (``bench/peak.py``): ``python -m bench.peak_staff PLAN OUT``.

A process of its own, as the Streamlit server is: ``len(plan["sessions"])`` staff users at once, one thread
each, each an ``AppTest`` of ``app.py`` logged in as its own clerk of Chapada (the actor in the session, as
``bench/run_roles.py`` does) on the store of ``PAINEL_DATA_DIR``. A step is a user's action (a page chosen in
the menu, a search typed, an authorization chosen, a button clicked) up to the script's run finished, the
page drawn on the server (the browser's own drawing is not in it). Per round: Início, Pendências,
Autorizações, the search and the opening of an authorization in force, "Registrar pedido de renovação",
"Emitir DAM da taxa", then the search and the opening of a request and "Aprovar". A step is an error when the
script raised or the page lacks what the action must show. Writes ``{"times": ..., "errors": ...}`` to OUT.
"""
from __future__ import annotations

import json
import random
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.peak_portal import PAGE, SUBMIT  # noqa: E402

STEPS = {  # step: (kind, label)
    "inicio": (PAGE, "Início"),
    "pendencias": (PAGE, "Pendências (a fila)"),
    "autorizacoes": (PAGE, "Autorizações"),
    "buscar": (PAGE, "buscar um protocolo"),
    "abrir": (PAGE, "abrir a autorização"),
    "renovar": (SUBMIT, "Registrar pedido de renovação"),
    "dam": (SUBMIT, "Emitir DAM da taxa"),
    "aprovar": (SUBMIT, "Aprovar um requerimento"),
}

PAGES = {"inicio": "app_pages/home.py", "pendencias": "app_pages/pendencias.py",
         "autorizacoes": "app_pages/authorizations.py"}


def _shown(at) -> str:
    texts = [e.value for kind in ("success", "info", "warning", "error", "markdown", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(str(t) for t in texts)


class Session:
    def __init__(self, index: int, times: dict, errors: dict, lock: threading.Lock) -> None:
        from streamlit.testing.v1 import AppTest

        from services.shared.auth import Actor

        self.at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        self.at.session_state["actor"] = Actor(f"bench.pico.{index:02d}", f"Servidor {index:02d} (bancada)",
                                               "secretaria", ("chapada",))
        self.at.session_state["municipality"] = "chapada"
        self.times, self.errors, self.lock = times, errors, lock

    def step(self, name: str, action, shows: str = "", check=None) -> bool:
        start = time.perf_counter()
        try:
            action()
            took = (time.perf_counter() - start) * 1000
            if self.at.exception:
                raise RuntimeError(self.at.exception[0].message.splitlines()[0])
            if shows and shows not in _shown(self.at):
                raise AssertionError(f"a página não mostra {shows!r}: {[e.value for e in self.at.error][:2]}")
            if check and not check():
                raise AssertionError(f"{name}: a página não mostra o que devia")
        except Exception as exc:  # noqa: BLE001 — an error is a figure of the step
            with self.lock:
                self.errors[name].append(f"{type(exc).__name__}: {str(exc)[:160]}")
            return False
        with self.lock:
            self.times[name].append(took)
        return True

    def open(self, protocol: str, auth_id: str) -> bool:
        at = self.at
        return (self.step("buscar", lambda: at.text_input(key="auth_search").input(protocol).run(),
                          check=lambda: any(protocol in o for o in at.selectbox(key="auth_open").options))
                and self.step("abrir", lambda: at.selectbox(key="auth_open").set_value(auth_id).run(),
                              f"Protocolo {protocol}"))

    def round(self, work: dict, pause) -> None:
        at = self.at
        for name, path in PAGES.items():
            self.step(name, lambda path=path: at.switch_page(path).run())
            pause()
        if self.open(work["renew_protocol"], work["renew"]):
            pause()
            if self.step("renovar", lambda: at.button(key="auth_renew").click().run(),
                         "Pedido de renovação registrado"):
                pause()
                self.step("dam", lambda: at.button(key="auth_issue_dam").click().run(), "emitido, vencimento")
            pause()
        if work.get("approve") and self.open(work["approve_protocol"], work["approve"]):
            pause()
            self.step("aprovar", lambda: at.button(key="auth_approve").click().run(), "Aprovado.")
            pause()


def one_server() -> None:
    """Make the ``AppTest`` of this process behave as the sessions of ONE server, so ten can run in threads:
    AppTest (Streamlit 1.67, pinned) sets a new mock runtime, a new script cache and the option
    ``global.appTest`` around each run and resets them after it, process-wide — another clerk's run then
    lost its runtime mid-page ("Runtime hasn't been created!") and compiled ``app.py`` again with others
    (CPython 3.11: "AST constructor recursion depth mismatch"). Here one runtime, one script cache (the
    server keeps one for all its sessions; its lock compiles each script once) and the option set once;
    AppTest's own set and reset land on a stand-in."""
    import contextlib
    from unittest.mock import MagicMock, patch

    from streamlit.components.v2.component_manager import BidiComponentManager
    from streamlit.runtime import Runtime
    from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
    from streamlit.runtime.dataframe_source_manager import DataframeSourceManager
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner
    from streamlit import config
    from streamlit.testing.v1.util import build_mock_config_get_option

    server = MagicMock(spec=Runtime)
    server.media_file_mgr = MediaFileManager(MemoryMediaFileStorage("/mock/media"))
    server.dataframe_source_mgr = DataframeSourceManager()
    server.cache_storage_manager = MemoryCacheStorageManager()
    components = BidiComponentManager()
    components.discover_and_register_components(start_file_watching=False)
    server.bidi_component_registry = components
    Runtime._instance = server
    app_test.Runtime = type("Runtime", (), {"_instance": None})
    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared
    patch.object(config, "get_option", new=build_mock_config_get_option({"global.appTest": True})).start()
    app_test.patch_config_options = lambda _options: contextlib.nullcontext()


def run(plan: dict) -> dict:
    import streamlit.logger

    from bench import dataset_plan
    from services.shared import clock

    streamlit.logger.set_log_level("error")
    one_server()
    clock.today = lambda: dataset_plan.TODAY  # the dataset's statuses and deadlines count from its fixed today
    times = {step: [] for step in STEPS}
    errors = {step: [] for step in STEPS}
    lock = threading.Lock()
    think, ramp = plan["think"], plan["ramp"]

    users = []
    for index in range(len(plan["sessions"])):
        users.append(Session(index, times, errors, lock))
        users[-1].at.run()
        for path in PAGES.values():  # each page once before the clock starts: its imports
            users[-1].at.switch_page(path).run()
    Path(plan["ready"]).write_text("ok")
    began = time.process_time()

    def session(index: int, rounds: list[dict]) -> None:
        rng = random.Random(3800 + index)
        time.sleep(rng.uniform(0, ramp))
        for work in rounds:
            users[index].round(work, lambda: time.sleep(rng.uniform(think * 0.5, think * 1.5)))

    threads = [threading.Thread(target=session, args=(i, rounds), daemon=True)
               for i, rounds in enumerate(plan["sessions"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"times": times, "errors": errors, "process_cpu_s": time.process_time() - began}


if __name__ == "__main__":
    Path(sys.argv[2]).write_text(json.dumps(run(json.loads(Path(sys.argv[1]).read_text()))))
