"""The December renewal peak (issue 38, "Load"): every authorization of Chapada expires on 31/12 (CG
Decreto 06/2026 art. 9 §1), and in the same days drivers and platforms use the portal while the
secretariat renews. ``python bench/peak.py [--quick] [--data-root DIR]``.

On the benchmark store of ``bench/run.py`` (``bench/dataset.py`` at ``--scale``, 10 by default, generated
once and measured in a working copy: ``run.open_dataset`` and ``run.working_copy``), with the people and
the work of ``bench/peak_store.py``, at the same time:

- ``--portal-sessions`` (30) people on a real ``python -m portal`` process (uvicorn, its own process) over
  real HTTP (``bench/peak_portal.py``): login, Início, a message of the domicile opened, Meus DAMs, a DAM,
  its 2ª via, and the status page (``/consulta``); the platforms' people also open their data request and
  send the signed answer (5 MB, PAdES). Each person comes from its own loopback address (127.0.0.N): the
  portal's rate limits (``portal/web.py`` ``LIMITS``, per IP and per account, fixed in the code and not
  configurable) stay as they are and count each person apart, as they would count real people.
- ``--staff-sessions`` (10) clerks in one process of their own, as the Streamlit server is
  (``bench/peak_staff.py``: ``AppTest`` of ``app.py`` in one thread per clerk, each action up to the page
  drawn on the server): Início, Pendências, Autorizações, an authorization found and opened, its renewal
  requested and the fee DAM issued, a request approved.

Each session makes ``--rounds`` rounds (new people on the portal each round) with a pause of about
``--think`` s between steps (a person reads), its start spread over ``--ramp`` s. Printed: per side and
step n, p50, p95, max (ms) and errors, and PASS or FAIL against the targets: p95 ≤ 1 s for a page, ≤ 2 s
for a submit, no error. The machine's load average at the start and end is printed with them: on a shared
machine the other work weighs on the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import dataset_plan, peak_portal, peak_staff, peak_store, portal_store, run  # noqa: E402
from bench.portal import percentile  # noqa: E402
from services import store  # noqa: E402

TARGET_MS = {peak_portal.PAGE: 1000, peak_portal.SUBMIT: 2000}


def start_portal(folder: str, port: int, temp: Path) -> subprocess.Popen:
    """``python -m portal`` on the working copy; returns once it answers."""
    env = {**os.environ, "PAINEL_DATA_DIR": folder}
    env.pop("MONGODB_URI", None)
    log = temp / "portal.err"  # a file, not a pipe: a full pipe would stop the process
    with open(log, "wb") as err:
        process = subprocess.Popen([sys.executable, "-m", "portal", "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.time() + 120
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"o portal parou: {log.read_text(errors='replace')[-500:]}")
        try:
            for path in ("/entrar", "/consulta", "/privacidade"):  # templates compiled before the clock starts
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5).read()
            return process
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise RuntimeError("o portal não respondeu em 120 s")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_staff(plan: dict, folder: str, temp: Path) -> tuple[subprocess.Popen, Path]:
    (temp / "staff.json").write_text(json.dumps(plan))
    env = {**os.environ, "PAINEL_DATA_DIR": folder}
    env.pop("MONGODB_URI", None)
    out = temp / "staff-out.json"
    with open(temp / "staff.err", "wb") as err:  # a file, not a pipe: a full pipe would stop the process
        process = subprocess.Popen([sys.executable, "-m", "bench.peak_staff", str(temp / "staff.json"), str(out)],
                                   cwd=ROOT, env=env, stderr=err)
    return process, out


def staff_log(temp: Path) -> str:
    return (temp / "staff.err").read_text(errors="replace")[-800:]


def wait_ready(process: subprocess.Popen, ready: Path, seconds: float = 600) -> None:
    deadline = time.time() + seconds
    while not ready.exists():
        if process.poll() is not None:
            raise RuntimeError(f"a secretaria parou: {staff_log(ready.parent)}")
        if time.time() > deadline:
            raise RuntimeError("a secretaria não ficou pronta")
        time.sleep(0.5)


def table(title: str, steps: dict[str, tuple[str, str]], times: dict, errors: dict) -> bool:
    """Print one side's table; True when every step met its target with no error."""
    print(f"\n{title}")
    print(f"{'passo':<40}{'tipo':<8}{'n':>5}{'p50':>9}{'p95':>9}{'máx':>9}{'erros':>7}  meta")
    passed = True
    for step, (kind, label) in steps.items():
        values, failed = times.get(step, []), errors.get(step, [])
        if not values and not failed:
            continue
        target = TARGET_MS[kind]
        p95 = percentile(values, 0.95) if values else float("inf")
        ok = p95 <= target and not failed
        passed &= ok
        cells = (f"{percentile(values, 0.5):>9.0f}{p95:>9.0f}{max(values):>9.0f}" if values else f"{'—':>27}")
        print(f"{label:<40}{kind:<8}{len(values):>5}{cells}{len(failed):>7}  p95 ≤ {target / 1000:.0f} s: "
              + ("atingida" if ok else "NÃO atingida"))
    for step, failed in errors.items():
        for reason in sorted(set(failed))[:3]:
            print(f"  erro em {step}: {reason}")
    return passed


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description="Pico de renovação de dezembro: portal e secretaria ao mesmo tempo.")
    parser.add_argument("--quick", action="store_true", help="execução curta: 1 rodada, pausas de 0,3 s")
    parser.add_argument("--scale", type=int, default=10, help="escala do conjunto de bench/run.py (padrão 10)")
    parser.add_argument("--portal-sessions", type=int, default=30)
    parser.add_argument("--staff-sessions", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="rodadas por sessão (padrão 3)")
    parser.add_argument("--think", type=float, default=5.0, help="pausa média entre passos, em s (padrão 5: a pessoa lê)")
    parser.add_argument("--ramp", type=float, default=10.0, help="início das sessões espalhado em s (padrão 10)")
    parser.add_argument("--file-bytes", type=int, default=portal_store.FILE_BYTES, help="PDF assinado (padrão 5 MB)")
    parser.add_argument("--fraction", type=float, default=1.0, help="fração das quantidades do conjunto (testes)")
    parser.add_argument("--data-root", default=os.environ.get("PAINEL_BENCH_DIR", str(ROOT / "data" / "bench")),
                        help="pasta dos conjuntos de bench/run.py (padrão data/bench ou PAINEL_BENCH_DIR)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.think, args.ramp = 1, 0.3, 3.0
    os.environ.pop("MONGODB_URI", None)  # the working copy is a folder of the embedded store
    load_start = run.load()
    _db, found = run.open_dataset(args.scale, Path(args.data_root), args.fraction)
    db, folder = run.working_copy(args.scale, Path(args.data_root))
    today = dataset_plan.TODAY  # the clerks' today (the portal's process keeps the real clock)
    signed = portal_store.signed_answer(args.file_bytes)
    peak_portal.SIGNED["file"] = signed.file
    started = time.perf_counter()
    visits = peak_store.portal_rounds(db, today, args.portal_sessions, args.rounds, signed)
    work = peak_store.staff_rounds(db, today, args.staff_sessions, args.rounds)
    print(f"Escala {args.scale} (gerada em {found.get('seconds') or 0:.0f} s); pessoas e trabalho preparados em "
          f"{time.perf_counter() - started:.0f} s; hoje dos servidores {today:%d/%m/%Y} (o do conjunto), o portal no "
          "relógio real", flush=True)
    store.close_all()
    with tempfile.TemporaryDirectory(prefix="pico-") as temp:
        ready = Path(temp) / "ready"
        staff, staff_out = start_staff({"sessions": work, "think": args.think, "ramp": args.ramp,
                                        "ready": str(ready)}, folder, Path(temp))
        port = run.free_port()
        portal = start_portal(folder, port, Path(temp))
        try:
            wait_ready(staff, ready)
            load_run = run.load()
            began, portal_cpu = time.perf_counter(), cpu_seconds(portal.pid)
            tally = peak_portal.run(f"http://127.0.0.1:{port}", visits, args.think, args.ramp)
            portal_s, portal_cpu = time.perf_counter() - began, cpu_seconds(portal.pid) - portal_cpu
            staff.wait()
            staff_s = time.perf_counter() - began
            if staff.returncode:
                raise RuntimeError(f"a secretaria falhou: {staff_log(Path(temp))}")
            clerks = json.loads(staff_out.read_text())
        finally:
            portal.terminate()
            portal.wait(timeout=30)
            if staff.poll() is None:
                staff.terminate()
    load_end = run.load()
    print(f"\nCarga média (1, 5, 15 min): {load_start} antes de preparar, {load_run} ao começar, {load_end} no fim. "
          f"{args.portal_sessions} sessões no portal e {args.staff_sessions} na secretaria ao mesmo tempo, "
          f"{args.rounds} rodada(s), pausa média de {args.think:g} s entre passos; portal em {portal_s:.0f} s, "
          f"secretaria em {staff_s:.0f} s.")
    requests = sum(map(len, tally.times.values())) + sum(map(len, tally.errors.values()))
    print(f"CPU usada: o processo do portal {portal_cpu:.1f} s em {portal_s:.0f} s ({portal_cpu / portal_s:.2f} núcleo; "
          f"{1000 * portal_cpu / max(requests, 1):.0f} ms por passo), o da secretaria {clerks['process_cpu_s']:.1f} s em "
          f"{staff_s:.0f} s ({clerks['process_cpu_s'] / staff_s:.2f} núcleo); a máquina tem {os.cpu_count()} núcleos.")
    print("Limites do portal (portal/web.py LIMITS) como estão, por IP e por conta: cada pessoa da bancada vem do seu "
          "próprio endereço 127.0.0.N, como pessoas reais vêm dos seus.")
    passed = table(f"Portal (python -m portal, HTTP; PDF assinado de {len(signed.file) / 1e6:.2f} MB)",
                   peak_portal.STEPS, tally.times, tally.errors)
    passed &= table("Secretaria (AppTest de app.py, um processo, uma thread por servidor; até a página desenhada "
                    "no servidor)", peak_staff.STEPS, clerks["times"], clerks["errors"])
    print(f"\n{'PASS' if passed else 'FAIL'}: metas p95 ≤ 1 s por página e ≤ 2 s por envio, sem erro.")
    return {"portal": {"times": tally.times, "errors": tally.errors}, "staff": clerks, "passed": passed}


if __name__ == "__main__":
    main()
