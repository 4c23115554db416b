"""Page benchmark: ``python bench/run.py [--scales 1,10,100] [--pages ...] [--repeat 5]``.

For each scale it makes (or reuses) the deterministic dataset of ``bench/dataset.py`` and prints:
every page of ``ui.navigation.PAGES`` rendered server-side (AppTest, logged in) with p50/p95 ms and
store calls per render; the raw store query of each list page and the page/raw ratio; write
latency (DAM issue, an authorization event, an audit entry); the DAM PDF against a bare fpdf2 page
with the same barcode and QR (the floor); a batch of DAM PDFs; start-up to the login page; then the
growth from the smallest to the largest scale and each target of issue 9, met or missed.
A figure whose service is missing prints "n/d" with the reason. Not a test: nothing here fails on
a figure, only on a crash.

The parts: ``bench/run_measure.py`` (actors, store-call counter, timing, "n/d"),
``bench/run_pages.py`` (pages through AppTest, raw list queries, start-up), ``bench/run_writes.py``,
``bench/run_documents.py`` (DAM PDF, its floor, the batch, the summary) and ``bench/run_report.py``
(the tables and the targets); this module opens each scale's dataset, runs them and is the CLI.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import dataset, dataset_plan, run_documents, run_pages, run_report, run_writes  # noqa: E402
from bench.run_measure import COUNTER, NA, attempt, p50, timed  # noqa: E402
from services import store  # noqa: E402
from services.shared import clock, config  # noqa: E402

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


# ---- one scale ----

def run_scale(scale: int, args: argparse.Namespace) -> dict:
    # ui imports streamlit: loaded when a scale runs, not with this module (see run_pages.render_page)
    from ui import common
    from ui.navigation import PAGES

    db = open_dataset(scale, Path(args.data_root), args.fraction)
    common._database.clear()
    chosen = [p for p in PAGES if not args.pages or any(name in p.path for name in args.pages)]
    figures: dict[str, Any] = {"pages": {}, "raw": {}}
    print(f"\nEscala {scale}: {len(chosen)} página(s), {args.repeat} renderização(ões) cada…", flush=True)
    for page in chosen:
        figures["pages"][page.path] = attempt(
            page.path, lambda: run_pages.render_page(page.path, page.permission, args.repeat))
        print(f"  {page.path}: {figures['pages'][page.path]}", flush=True)
    queries = run_pages.raw_queries(db)
    for page in chosen:
        if page.path in queries:
            figures["raw"][page.path] = attempt(page.path, lambda: p50(timed(queries[page.path], args.repeat)[0]))
    figures["writes"] = run_writes.writes(db, args.write_runs)
    figures["documents"] = {**run_documents.documents(db, args.repeat, args.batch, args.batch_budget),
                            **run_documents.summary_figures(db, args.repeat)}
    figures["startup"] = attempt("startup", lambda: run_pages.startup(os.environ["PAINEL_DATA_DIR"])) \
        if not args.no_startup else f"{NA} (--no-startup)"
    return figures


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
    import streamlit.logger  # streamlit only once the arguments are read: ``--help`` does not load it

    streamlit.logger.set_log_level("error")  # AppTest's bare-mode warnings would bury the table
    saved_today = clock.today
    clock.today = lambda: dataset_plan.TODAY  # the dataset's statuses and deadlines count from its fixed today
    try:
        results = {scale: run_scale(scale, args) for scale in scales}
        print()
        run_report.print_tables(results, engine_name())
        return results
    finally:
        clock.today = saved_today
        COUNTER.uninstall()


if __name__ == "__main__":
    main()
