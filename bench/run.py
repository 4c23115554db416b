"""Page benchmark: ``python bench/run.py [--scales 1,10,100] [--pages ...] [--repeat 5]``.

For each scale it makes (or reuses) the deterministic dataset of ``bench/dataset.py`` and prints:
every page of ``ui.navigation.PAGES`` rendered server-side (AppTest, logged in) with p50/p95 ms and
store calls per render; the raw store query of each list page and the page/raw ratio; write
latency (DAM issue, an authorization event, an audit entry); the DAM PDF against a bare fpdf2 page
with the same barcode and QR (the floor); a batch of DAM PDFs; start-up to the login page; then the
growth from the smallest to the largest scale and each target of issue 9, met or missed.
A figure whose service is missing prints "n/d" with the reason. Not a test: nothing here fails on
a figure, only on a crash.
"""
from __future__ import annotations

import argparse
import io
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import dataset, dataset_plan  # noqa: E402
from services import store  # noqa: E402
from services.dam import lists
from services.shared import clock, config
from services.shared.auth import Actor  # noqa: E402

MUNICIPALITY = "chapada"  # the biggest of the dataset
ROLE_ACTORS = {
    "write": Actor("secretaria.chapada", "Secretaria (benchmark)", "secretaria", (MUNICIPALITY,)),
    "admin": Actor("ti", "TI (benchmark)", "ti", ("chapada", "matupa", "nova_lacerda")),
    "summary": Actor("gabinete", "Gabinete (benchmark)", "gabinete", ("chapada", "matupa", "nova_lacerda")),
}
WRITER = Actor("bench.escrita", "Escrita do benchmark", "secretaria", (MUNICIPALITY,))
LIST_PAGES = ("app_pages/taxpayers.py", "app_pages/dams.py", "app_pages/platforms.py", "app_pages/drivers.py", "app_pages/vehicles.py",
              "app_pages/authorizations.py", "app_pages/inspections.py", "app_pages/pendencias.py", "app_pages/audit.py",
              "app_pages/users.py")
STORE_METHODS = ("find", "find_one", "count_documents", "distinct", "insert_one", "insert_many", "update_one",
                 "update_many", "replace_one", "delete_one", "delete_many", "find_one_and_update", "create_index",
                 "aggregate")
NA = "n/d"


# ---- store calls ----

class CallCounter:
    """Counts store calls by wrapping the collection class's methods (any engine: the embedded one,
    mongomock, pymongo). A call made inside another (an engine's find_one calling find) counts once."""

    def __init__(self) -> None:
        self.calls = 0
        self._depth = threading.local()
        self._patched: list[tuple[type, str, Any]] = []

    def install(self, collection_class: type) -> None:
        if any(cls is collection_class for cls, _, _ in self._patched):
            return
        for name in STORE_METHODS:
            original = collection_class.__dict__.get(name)
            if original is None:
                continue
            setattr(collection_class, name, self._wrap(original))
            self._patched.append((collection_class, name, original))

    def _wrap(self, method: Callable) -> Callable:
        counter = self

        def counted(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(counter._depth, "value", 0)
            if depth == 0:
                counter.calls += 1
            counter._depth.value = depth + 1
            try:
                return method(*args, **kwargs)
            finally:
                counter._depth.value = depth

        return counted

    def uninstall(self) -> None:
        for cls, name, original in reversed(self._patched):
            setattr(cls, name, original)
        self._patched.clear()


COUNTER = CallCounter()


def ms(seconds: float) -> float:
    return seconds * 1000


def p50(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def timed(action: Callable[[], Any], repeat: int) -> tuple[list[float], int]:
    """Milliseconds of each run and the store calls of the last one."""
    figures, calls = [], 0
    for _ in range(repeat):
        COUNTER.calls = 0
        start = time.perf_counter()
        action()
        figures.append(ms(time.perf_counter() - start))
        calls = COUNTER.calls
    return figures, calls


def attempt(what: str, action: Callable[[], Any]) -> Any:
    """The figure, or "n/d: reason" when its service is missing or it fails."""
    try:
        return action()
    except Exception as exc:  # noqa: BLE001 — a missing figure is reported, never fatal
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:120]
        if os.environ.get("BENCH_DEBUG"):
            traceback.print_exc()
        return f"{NA} ({reason})"


# ---- dataset per scale ----

def open_dataset(scale: int, root: Path, fraction: float = 1.0) -> Any:
    """The store of ``scale`` (a folder per scale, or a database per scale on MongoDB), generated once."""
    folder = root / f"scale-{scale}"
    os.environ["PAINEL_DATA_DIR"] = str(folder)
    db_name = f"painel_bench_{scale}" if config.mongodb_uri() else None
    if db_name:
        os.environ["MONGODB_DB"] = db_name
    db = store.connect(data_dir=str(folder), db_name=db_name)
    found = dataset.marker(db)
    if found and (found.get("scale"), found.get("fraction", 1.0), found.get("version")) != (
            scale, fraction, dataset.generator_version()):
        print(f"Conjunto da escala {scale} feito por outra versão do gerador: refazendo.", flush=True)
        if db_name:
            db.client.drop_database(db_name)
        else:
            store.close_all()
            shutil.rmtree(folder)
        db = store.connect(data_dir=str(folder), db_name=db_name)
    dataset.generate(db, scale, fraction)
    COUNTER.install(type(db["audit"]))
    return db


# ---- pages ----

def page_actor(permission: str) -> Actor:
    return ROLE_ACTORS.get(permission, ROLE_ACTORS["admin"])


def render_page(path: str, permission: str, repeat: int) -> dict:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.session_state["actor"] = page_actor(permission)
    at.session_state["municipality"] = MUNICIPALITY
    at.run()
    at.switch_page(path).run()  # first render: imports and cached resources
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    figures, calls = timed(at.run, repeat)
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return {"p50": p50(figures), "p95": p95(figures), "calls": calls}


def raw_queries(db: Any) -> dict[str, Callable[[], Any]]:
    """The main list query each list page sends: its first page (sorted, limited) and the count."""
    from datetime import datetime

    from services.dam import dams
    from services.shared import schema

    mun = {"municipality": MUNICIPALITY}

    def entity(name: str, sort: str, descending: bool = False, limit: int = 25) -> Callable[[], Any]:
        def run() -> Any:
            db[name].count_documents(mun)
            return list(db[name].find(mun).sort([(sort, -1 if descending else 1), ("_id", 1)]).limit(limit))
        return run

    def dam_list() -> Any:
        db[dams.COLLECTION].count_documents(mun)
        return list(db[dams.COLLECTION].find(mun).sort(lists.SORT).limit(25))

    def audit_list() -> Any:
        start = datetime.combine(dataset_plan.TODAY - timedelta(days=30), datetime.min.time(), clock.LOCAL_TZ)
        query = {**mun, "at": store.encode({"$gte": start})}
        db["audit"].count_documents(query)
        return list(db["audit"].find(query).sort("at", -1).limit(100))

    spec = schema.SPECS
    return {
        "app_pages/taxpayers.py": entity("taxpayers", spec["taxpayers"].default_sort),
        "app_pages/dams.py": dam_list,
        "app_pages/platforms.py": entity("platforms", spec["platforms"].default_sort),
        "app_pages/drivers.py": entity("drivers", spec["drivers"].default_sort),
        "app_pages/vehicles.py": entity("vehicles", spec["vehicles"].default_sort),
        "app_pages/authorizations.py": entity("authorizations", "protocol_date", descending=True),
        "app_pages/inspections.py": entity("inspections", spec["inspections"].default_sort),
        "app_pages/pendencias.py": entity("authorizations", "protocol_date", descending=True),
        "app_pages/audit.py": audit_list,
        "app_pages/users.py": lambda: list(db["users"].find({}).sort("username", 1).limit(100)),
    }


# ---- writes ----

def writes(db: Any, runs: int) -> dict[str, Any]:
    """p50 ms of DAM issue, an authorization event and an audit entry; the store is put back after."""
    from services.dam import dams
    from services.ridehailing import authorization_records, inspections
    from services.shared import audit

    counters = {d["_id"]: d["seq"] for d in db["counters"].find({"_id": {"$regex": f"^{MUNICIPALITY}/"}})}
    result: dict[str, Any] = {}
    originals: list[dict] = []
    try:
        def issue() -> None:
            dams.issue(db, WRITER, MUNICIPALITY, taxpayer_name="Contribuinte do Benchmark",
                       taxpayer_document="52998224725", taxpayer_address="Rua do Teste, 1",
                       revenue_kind="taxa_vistoria", description="Taxa de vistoria (benchmark)",
                       legal_basis="Decreto Municipal 06/2026", amount=Decimal("95.50"),
                       due=dataset_plan.TODAY + timedelta(days=10))
        result["Emissão de DAM (dams.issue)"] = attempt("issue", lambda: p50(timed(issue, runs)[0]))

        def event_figure() -> float:
            active = [d for d in db["authorizations"].find({"municipality": MUNICIPALITY, "status": "active"})]
            figures = []
            for doc in active:
                if len(figures) == runs:
                    break
                try:
                    start = time.perf_counter()
                    inspections.call_inspection(db, WRITER, MUNICIPALITY, str(doc["_id"]), dataset_plan.TODAY,
                                                "Convocação do benchmark")
                    figures.append(ms(time.perf_counter() - start))
                    originals.append(doc)
                except authorization_records.WrongStep:
                    continue
            if not figures:
                raise RuntimeError("nenhuma autorização ativa")
            return p50(figures)
        result["Evento de autorização (call_inspection)"] = attempt("event", event_figure)

        def entry() -> None:
            audit.record(db, WRITER, MUNICIPALITY, "bench", "bench", None, {}, {"n": 1}, "benchmark")
        result["Registro de auditoria (audit.record)"] = attempt("audit", lambda: p50(timed(entry, runs)[0]))
    finally:
        for doc in originals:
            db["authorizations"].replace_one({"_id": doc["_id"]}, doc)
        db["dams"].delete_many({"created_by": WRITER.username})
        db["audit"].delete_many({"username": WRITER.username})
        for key, seq in counters.items():
            db["counters"].update_one({"_id": key}, {"$set": {"seq": seq}})
    return result


# ---- documents ----

def floor_pdf(barcode: str, payload: str | None) -> bytes:
    """A bare fpdf2 page with the same barcode and QR as a DAM: what drawing them costs at least."""
    import segno
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=10)
    pdf.cell(0, 10, "DAM")
    pdf.interleaved2of5(barcode, x=15, y=40, w=0.762, h=13)
    if payload:
        png = io.BytesIO()
        segno.make(payload, error="m", micro=False).save(png, kind="png", scale=4, border=1)
        png.seek(0)
        pdf.image(png, x=150, y=60, w=40, h=40)
    return bytes(pdf.output())


def documents(db: Any, repeat: int, batch: int, budget: float) -> dict[str, Any]:
    from services.dam import dams, printing

    actor = ROLE_ACTORS["write"]
    issued = [d for d in db["dams"].find({"municipality": MUNICIPALITY, "status": dams.PAID}, {"_id": 1}).limit(batch)]
    sample = db["dams"].find_one({"municipality": "matupa", "pix_payload": {"$ne": None}}) or {}
    result: dict[str, Any] = {}
    if not issued:
        return {"DAM PDF": f"{NA} (nenhum DAM)"}
    first = str(issued[0]["_id"])
    doc = db["dams"].find_one({"_id": issued[0]["_id"]})
    service = attempt("pdf", lambda: p50(timed(lambda: printing.pdf(db, actor, MUNICIPALITY, [first]), repeat)[0]))
    floor = attempt("floor", lambda: p50(timed(lambda: floor_pdf(doc["barcode"], sample.get("pix_payload")), repeat)[0]))
    result["DAM PDF (serviço)"] = service
    result["Piso fpdf2 (mesmo código e QR)"] = floor
    if isinstance(service, float) and isinstance(floor, float):
        result["DAM PDF / piso"] = service / floor

    class OverBudget(Exception):
        pass

    done = [0]
    start = time.perf_counter()

    def progress(current: int, total: int) -> None:
        done[0] = current
        if time.perf_counter() - start > budget:
            raise OverBudget

    try:
        printing.pdf(db, actor, MUNICIPALITY, [str(d["_id"]) for d in issued], progress)
        result[f"{len(issued)} DAMs em um PDF"] = ms(time.perf_counter() - start)
    except OverBudget:
        result[f"{len(issued)} DAMs em um PDF"] = (f"{NA} (passou de {budget:.0f} s com {done[0]} de "
                                                   f"{len(issued)} páginas prontas; --batch-budget)")
    except Exception as exc:  # noqa: BLE001
        result[f"{len(issued)} DAMs em um PDF"] = f"{NA} ({type(exc).__name__}: {exc})"[:140]
    return result


def summary_figures(db: Any, repeat: int) -> dict[str, Any]:
    """The mayor's office figures of the year to date, uncached (issue 14): the service and its PDF."""
    from services.summary import summary

    actor, start = ROLE_ACTORS["summary"], dataset_plan.TODAY.replace(month=1, day=1)
    return {
        "Resumo do ano (serviço, sem cache)": attempt("summary", lambda: p50(timed(
            lambda: summary.summary(db, actor, MUNICIPALITY, start, dataset_plan.TODAY), repeat)[0])),
        "Relatório gerencial PDF (serviço)": attempt("report", lambda: p50(timed(
            lambda: summary.report_pdf(db, actor, MUNICIPALITY, start, dataset_plan.TODAY), repeat)[0])),
    }


# ---- start-up ----

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def startup(folder: str, timeout: float = 120) -> float:
    """Seconds from ``streamlit run app.py`` to GET / answering 200 and /_stcore/health answering ok."""
    port = free_port()
    env = {**os.environ, "PAINEL_DATA_DIR": folder}
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - start < timeout:
            if process.poll() is not None:
                raise RuntimeError(f"streamlit saiu com código {process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page, \
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as health:
                    if page.status == 200 and health.read().strip() == b"ok":
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"sem resposta em {timeout:.0f} s")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


# ---- one scale ----

def run_scale(scale: int, args: argparse.Namespace) -> dict:
    from ui import common
    from ui.navigation import PAGES

    db = open_dataset(scale, Path(args.data_root), args.fraction)
    common._database.clear()
    chosen = [p for p in PAGES if not args.pages or any(name in p.path for name in args.pages)]
    figures: dict[str, Any] = {"pages": {}, "raw": {}}
    print(f"\nEscala {scale}: {len(chosen)} página(s), {args.repeat} renderização(ões) cada…", flush=True)
    for page in chosen:
        figures["pages"][page.path] = attempt(page.path, lambda: render_page(page.path, page.permission, args.repeat))
        print(f"  {page.path}: {figures['pages'][page.path]}", flush=True)
    queries = raw_queries(db)
    for page in chosen:
        if page.path in queries:
            figures["raw"][page.path] = attempt(page.path, lambda: p50(timed(queries[page.path], args.repeat)[0]))
    figures["writes"] = writes(db, args.write_runs)
    figures["documents"] = {**documents(db, args.repeat, args.batch, args.batch_budget),
                            **summary_figures(db, args.repeat)}
    figures["startup"] = attempt("startup", lambda: startup(os.environ["PAINEL_DATA_DIR"])) if not args.no_startup \
        else f"{NA} (--no-startup)"
    return figures


# ---- the tables ----

def fmt_ms(value: Any) -> str:
    return f"{value:,.0f} ms".replace(",", ".") if isinstance(value, float) and value >= 10 else (
        f"{value:.1f} ms".replace(".", ",") if isinstance(value, float) else str(value))


def fmt_ratio(value: Any) -> str:
    return f"{value:.1f}×".replace(".", ",") if isinstance(value, float) else str(value)


def title_of(path: str) -> str:
    from ui.navigation import PAGES

    return next((p.title for p in PAGES if p.path == path), path)


def print_tables(results: dict[int, dict], engine: str) -> list[str]:
    scales = sorted(results)
    lines = [f"Motor: {engine} · município {MUNICIPALITY} · hoje fixo {dataset_plan.TODAY.isoformat()}"]
    for scale in scales:
        fig = results[scale]
        lines += ["", f"Escala {scale} — páginas (servidor, AppTest)",
                  f"{'página':<24} {'p50':>10} {'p95':>10} {'chamadas':>9} {'consulta':>10} {'pág/cons':>9}"]
        for path, page in fig["pages"].items():
            raw = fig["raw"].get(path, "")
            if isinstance(page, dict):
                ratio = page["p50"] / raw if isinstance(raw, float) and raw > 0 else ""
                lines.append(f"{title_of(path):<24} {fmt_ms(page['p50']):>10} {fmt_ms(page['p95']):>10} "
                             f"{page['calls']:>9} {fmt_ms(raw) if raw != '' else '':>10} {fmt_ratio(ratio):>9}")
            else:
                lines.append(f"{title_of(path):<24} {page}")
        lines.append(f"Escala {scale} — gravações (p50) e documentos")
        for name, value in {**fig["writes"], **fig["documents"]}.items():
            shown = fmt_ratio(value) if "/" in name else fmt_ms(value)
            lines.append(f"  {name:<44} {shown}")
        startup_value = fig["startup"]
        lines.append(f"  {'Partida até a tela de login':<44} "
                     f"{f'{startup_value:.1f} s'.replace('.', ',') if isinstance(startup_value, float) else startup_value}")
    if len(scales) > 1:
        low, high = results[scales[0]], results[scales[-1]]
        lines += ["", f"Crescimento da escala {scales[0]} à {scales[-1]}"]
        for path, page in high["pages"].items():
            before = low["pages"].get(path)
            if isinstance(page, dict) and isinstance(before, dict):
                grew = "sim" if page["calls"] > before["calls"] else "não"
                lines.append(f"  {title_of(path):<24} {fmt_ratio(page['p50'] / before['p50']):>8}  chamadas cresceram: "
                             f"{grew} ({before['calls']} → {page['calls']})")
    lines += ["", "Metas da issue 9"] + targets(results)
    print("\n".join(lines))
    return lines


def verdict(value: Any, limit: float, unit: str = "ms") -> str:
    if not isinstance(value, float):
        return f"{NA}"
    if value <= limit:
        return "atingida"
    return f"não atingida por {value - limit:,.1f} {unit}".replace(",", "X").replace(".", ",").replace("X", ".")


def targets(results: dict[int, dict]) -> list[str]:
    scales = sorted(results)
    scale = 10 if 10 in results else scales[-1]
    fig = results[scale]
    lines = [f"(medidas da escala {scale}; a issue pede a escala 10)"]
    for path in LIST_PAGES:
        page, raw = fig["pages"].get(path), fig["raw"].get(path)
        if page is None:
            continue
        value = page["p50"] if isinstance(page, dict) else None
        lines.append(f"  {title_of(path)} p50 ≤ 300 ms: {verdict(value, 300.0)}")
        if isinstance(value, float) and isinstance(raw, float) and raw > 0:
            lines.append(f"  {title_of(path)} ≤ 3× a consulta: {verdict(value / raw, 3.0, '×')}")
    summary = fig["pages"].get("app_pages/summary.py")
    if summary is not None:
        lines.append(f"  Resumo p50 ≤ 1 s: {verdict(summary['p50'] if isinstance(summary, dict) else None, 1000.0)}")
    if len(scales) > 1:
        low, high = results[scales[0]], results[scales[-1]]
        for path, page in high["pages"].items():
            before = low["pages"].get(path)
            if isinstance(page, dict) and isinstance(before, dict):
                lines.append(f"  {title_of(path)} cresce ≤ 2×: {verdict(page['p50'] / before['p50'], 2.0, '×')}; "
                             f"chamadas não crescem: {'atingida' if page['calls'] <= before['calls'] else 'não atingida'}")
    for name, value in fig["writes"].items():
        lines.append(f"  {name} ≤ 50 ms: {verdict(value, 50.0)}")
        if len(scales) > 1:
            first = results[scales[0]]["writes"].get(name)
            if isinstance(first, float) and isinstance(value, float):
                lines.append(f"  {name} cresce ≤ 1,5×: {verdict(value / first, 1.5, '×')}")
    docs = fig["documents"]
    lines.append(f"  DAM PDF ≤ 25 ms: {verdict(docs.get('DAM PDF (serviço)'), 25.0)}")
    lines.append(f"  DAM PDF ≤ 3× o piso: {verdict(docs.get('DAM PDF / piso'), 3.0, '×')}")
    batch = docs.get("500 DAMs em um PDF", f"{NA} (lote de outro tamanho: --batch 500)")
    lines.append(f"  500 DAMs ≤ 10 s: {verdict(batch, 10000.0)}")
    start = fig["startup"]
    lines.append(f"  Partida ≤ 5 s: {verdict(start, 5.0, 's')}")
    return lines


def engine_name() -> str:
    if config.mongodb_uri():
        return "MongoDB (MONGODB_URI)"
    db = store.connect(data_dir=os.environ.get("PAINEL_DATA_DIR"))
    return f"embutido ({type(db['audit']).__module__}.{type(db['audit']).__name__})"


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and print its tables; returns the figures per scale."""
    parser = argparse.ArgumentParser(description="Benchmark das páginas do Painel Municipal.")
    parser.add_argument("--scales", default="1,10,100", help="escalas separadas por vírgula (padrão 1,10,100)")
    parser.add_argument("--pages", nargs="*", default=[], help="só as páginas cujo caminho contém estes nomes")
    parser.add_argument("--repeat", type=int, default=5, help="renderizações medidas por página")
    parser.add_argument("--write-runs", type=int, default=20, help="execuções de cada gravação")
    parser.add_argument("--batch", type=int, default=500, help="DAMs do PDF em lote")
    parser.add_argument("--batch-budget", type=float, default=30.0, help="segundos até desistir do lote (estimado)")
    parser.add_argument("--fraction", type=float, default=1.0, help="fração das quantidades do conjunto (testes)")
    parser.add_argument("--no-startup", action="store_true", help="não mede a partida do streamlit")
    parser.add_argument("--data-root", default=os.environ.get("PAINEL_BENCH_DIR", str(ROOT / "data" / "bench")),
                        help="pasta com um armazenamento por escala (padrão data/bench ou PAINEL_BENCH_DIR)")
    args = parser.parse_args(argv)
    scales = sorted({int(s) for s in args.scales.split(",") if s.strip()})
    import streamlit.logger

    streamlit.logger.set_log_level("error")  # AppTest's bare-mode warnings would bury the table
    saved_today = clock.today
    clock.today = lambda: dataset_plan.TODAY  # the dataset's statuses and deadlines count from its fixed today
    try:
        results = {scale: run_scale(scale, args) for scale in scales}
        print()
        print_tables(results, engine_name())
        return results
    finally:
        clock.today = saved_today
        COUNTER.uninstall()


if __name__ == "__main__":
    main()
