"""The benchmark of what users wait for (issue 21): ``python bench/run.py --scales 1,10,100 --data-root DIR``.

For each scale it makes (or reuses) the deterministic dataset of ``bench/dataset.py`` in
``DIR/scale-N``, copies it to ``DIR/run-N`` (every figure writes: the generated dataset stays as it
was) and prints: the machine's load average at the start and end of the scale; every page of every
role's navigation in every municipality that has it, warm and on the first render right after a real
save (``bench/run_roles.py``), wall and CPU ms and store calls per render; the writes' p50, p99 and
first after a start (``bench/run_writes.py``); the DAM PDF, its floor, a batch and the uncached
summary (``bench/run_documents.py``); start-up to the health check and to the login page drawn in
Chromium (``bench/startup.py``); then the growth between scales and each target of issue 21, met or
missed (``bench/run_report.py``). A figure that cannot be taken prints "n/d" with its reason. Not a
test: nothing here fails on a figure, only on a crash.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import dataset, dataset_plan, run_documents, run_report, run_roles, run_writes  # noqa: E402
from bench.run_measure import COUNTER, NA, attempt  # noqa: E402
from services import store  # noqa: E402
from services.shared import clock, config  # noqa: E402


def load() -> tuple[float, float, float]:
    return tuple(round(x, 2) for x in os.getloadavg())


def open_dataset(scale: int, root: Path, fraction: float = 1.0) -> tuple[Any, dict]:
    """The store of ``scale`` (a folder per scale, or a database per scale on MongoDB), generated once;
    returns it with the dataset's marker (its generation time)."""
    folder = root / f"scale-{scale}"
    db_name = f"painel_bench_{scale}" if config.mongodb_uri() else None
    db = dataset.reopen_generated(str(folder), db_name)
    found = dataset.marker(db)
    stale = found and (found.get("scale"), found.get("fraction", 1.0), found.get("version")) != (
        scale, fraction, dataset.generator_version())
    if stale or (not found and dataset.holds_records(db)):
        print(f"Conjunto da escala {scale} " + ("feito por outra versão do gerador" if stale else
              "incompleto (uma geração interrompida)") + ": refazendo.", flush=True)
        if db_name:
            db.client.drop_database(db_name)
        else:
            store.close_all()
            shutil.rmtree(folder)
        db = dataset.reopen_generated(str(folder), db_name)
    found = dataset.generate(db, scale, fraction, partial(dataset.reopen_generated, str(folder), db_name))
    return dataset.reopen_generated(str(folder), db_name), found


def working_copy(scale: int, root: Path) -> tuple[Any, str]:
    """A copy of the scale's dataset that the figures write into (embedded store: a folder copy)."""
    if config.mongodb_uri():  # MongoDB: the figures write into the generated database itself
        os.environ["MONGODB_DB"] = f"painel_bench_{scale}"
        return store.connect(db_name=f"painel_bench_{scale}"), str(root / f"scale-{scale}")
    store.close_all()
    source, copy = root / f"scale-{scale}", root / f"run-{scale}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(source, copy)
    # the copy (20 GB at scale 100) written to disk before the first figure: while the kernel writes it
    # back, a render pays reclaiming memory (the first pages of the first run of 05/12 took 2-4x longer)
    os.sync()
    os.environ["PAINEL_DATA_DIR"] = str(copy)
    return store.connect(data_dir=str(copy)), str(copy)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run_scale(scale: int, args: argparse.Namespace) -> dict:
    # ui imports streamlit: loaded when a scale runs, not with this module
    from ui import common

    figures: dict[str, Any] = {"load_start": load()}
    print(f"\nEscala {scale} — carga média no início {run_report.fmt_load(figures['load_start'])}", flush=True)
    _db, found = open_dataset(scale, Path(args.data_root), args.fraction)
    figures["generation_s"] = found.get("seconds")
    db, folder = working_copy(scale, Path(args.data_root))
    COUNTER.install(type(db["audit"]))
    common._database.clear()
    figures["pages"] = run_roles.pages(db, args.repeat, args.pages,
                                       lambda line: print(line, flush=True))
    figures["writes"] = run_writes.writes(db, args.write_runs, None if args.no_first_write else folder,
                                          args.return_lines)
    figures["documents"] = {**run_documents.documents(db, args.repeat, args.batch, args.batch_budget),
                            **run_documents.summary_figures(db, args.repeat)}
    if args.no_startup:
        figures["startup"] = f"{NA} (--no-startup)"
    else:
        from bench.startup import measure_startup

        store.close_all()
        figures["startup"] = attempt("startup", lambda: measure_startup(folder, free_port()))
    figures["load_end"] = load()
    print(f"Escala {scale} — carga média no fim {run_report.fmt_load(figures['load_end'])}", flush=True)
    return figures


def engine_name() -> str:
    if config.mongodb_uri():
        return "MongoDB (MONGODB_URI)"
    db = store.connect(data_dir=os.environ.get("PAINEL_DATA_DIR"))
    return f"embutido ({type(db['audit']).__module__}.{type(db['audit']).__name__})"


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and print its tables; returns the figures per scale."""
    parser = argparse.ArgumentParser(description="Benchmark do que os usuários esperam no Painel Municipal.")
    parser.add_argument("--scales", default="1,10,100", help="escalas separadas por vírgula (padrão 1,10,100)")
    parser.add_argument("--pages", nargs="*", default=[], help="só as páginas cujo caminho contém estes nomes")
    parser.add_argument("--repeat", type=int, default=5, help="renderizações medidas por página (quente e após gravar)")
    parser.add_argument("--write-runs", type=int, default=20, help="execuções de cada gravação")
    parser.add_argument("--return-lines", type=int, default=run_writes.RETURN_LINES,
                        help="linhas do arquivo de retorno importado (padrão 1.000)")
    parser.add_argument("--batch", type=int, default=500, help="DAMs do PDF em lote")
    parser.add_argument("--batch-budget", type=float, default=120.0, help="segundos até desistir do lote")
    parser.add_argument("--fraction", type=float, default=1.0, help="fração das quantidades do conjunto (testes)")
    parser.add_argument("--no-startup", action="store_true", help="não mede a partida do streamlit")
    parser.add_argument("--no-first-write", action="store_true",
                        help="não mede a primeira gravação após a partida (um interpretador por gravação)")
    parser.add_argument("--data-root", default=os.environ.get("PAINEL_BENCH_DIR", str(ROOT / "data" / "bench")),
                        help="pasta com um armazenamento por escala (padrão data/bench ou PAINEL_BENCH_DIR)")
    args = parser.parse_args(argv)
    scales = sorted({int(s) for s in args.scales.split(",") if s.strip()})
    import streamlit.logger  # streamlit only once the arguments are read: ``--help`` does not load it

    streamlit.logger.set_log_level("error")  # AppTest's bare-mode warnings would bury the table
    saved_today = clock.today
    clock.today = lambda: dataset_plan.TODAY  # the dataset's statuses and deadlines count from its fixed today
    started = time.perf_counter()
    try:
        results = {scale: run_scale(scale, args) for scale in scales}
        print()
        run_report.print_tables(results, engine_name(), time.perf_counter() - started)
        return results
    finally:
        clock.today = saved_today
        COUNTER.uninstall()


if __name__ == "__main__":
    main()
