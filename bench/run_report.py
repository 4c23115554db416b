"""The benchmark's report: per scale the load average, the pages (warm and right after a save), the
writes, the documents and the start-up; the growth between scales; the targets of issue 21.

Milliseconds and ratios are printed the Brazilian way (``1.683 ms``, ``23,7×``); a figure that could
not be taken prints its "n/d (reason)". Page times are wall-clock server time (AppTest through
``app.py``), the process's CPU beside them. The targets are read at scale 10 when it was run (the
scale issue 21 names), else at the largest; growth from the smallest scale to the largest.
"""
from __future__ import annotations

from typing import Any

from bench import dataset_plan
from bench.run_measure import NA
from bench.run_roles import SAVE_NAMES

PAGE_LIMIT, SUMMARY_LIMIT = 300.0, 500.0  # ms, server time, warm and right after a save
SLOW_PAGES = ("app_pages/summary.py",)
WRITE_P50, WRITE_P99, GROWTH, STARTUP = 50.0, 200.0, 1.5, 3.0


def fmt_ms(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,.0f} ms".replace(",", ".") if value >= 10 else f"{value:.1f} ms".replace(".", ",")


def fmt_ratio(value: Any) -> str:
    return f"{value:.1f}×".replace(".", ",") if isinstance(value, float) else str(value)


def fmt_s(value: Any) -> str:
    return f"{value:.1f} s".replace(".", ",") if isinstance(value, (int, float)) else str(value)


def fmt_load(values: tuple) -> str:
    return " / ".join(f"{v:.2f}".replace(".", ",") for v in values) + " (1, 5, 15 min)"


def title_of(path: str) -> str:
    from ui.navigation import PAGES

    return next((p.title for p in PAGES if p.path == path), path)


def page_lines(pages: dict) -> list[str]:
    lines = [f"{'papel':<11}{'município':<13}{'página':<28}{'gravação':<24}{'quente':>9}{'CPU':>9}{'cham.':>6}"
             f"{'após gravar':>12}{'CPU':>9}{'cham.':>6}"]
    for (role, mun, path), fig in pages.items():
        head = f"{role:<11}{mun:<13}{title_of(path)[:27]:<28}"
        if not isinstance(fig, dict):
            lines.append(head + str(fig))
            continue
        warm, after = fig["warm"], fig["after"]
        lines.append(head + f"{SAVE_NAMES[fig['save']]:<24}{fmt_ms(warm['wall']):>9}{fmt_ms(warm['cpu']):>9}"
                     f"{warm['calls']:>6}{fmt_ms(after['wall']):>12}{fmt_ms(after['cpu']):>9}{after['calls']:>6}")
    return lines


def write_lines(writes: dict) -> list[str]:
    lines = [f"  {'gravação':<34}{'p50':>10}{'p99':>10}{'1ª após partida':>17}{'cham.':>7}"]
    for name, fig in writes.items():
        if isinstance(fig, dict):
            lines.append(f"  {name:<34}{fmt_ms(fig['p50']):>10}{fmt_ms(fig['p99']):>10}"
                         f"{fmt_ms(fig.get('first', NA)):>17}{fig['calls']:>7}")
        else:
            lines.append(f"  {name:<34}{fig}")
    return lines


def print_tables(results: dict[int, dict], engine: str, seconds: float = 0.0) -> list[str]:
    scales = sorted(results)
    lines = [f"Motor: {engine} · hoje fixo {dataset_plan.TODAY.isoformat()} · tempos de servidor: parede "
             f"(perf_counter), CPU do processo ao lado · p50 de cada figura"]
    for scale in scales:
        fig = results[scale]
        lines += ["", f"Escala {scale} — carga média no início {fmt_load(fig['load_start'])}, "
                      f"no fim {fmt_load(fig['load_end'])}; conjunto gerado em {fmt_s(fig['generation_s'])}",
                  f"Escala {scale} — páginas (AppTest por app.py)"] + page_lines(fig["pages"])
        lines += [f"Escala {scale} — gravações"] + write_lines(fig["writes"])
        lines.append(f"Escala {scale} — documentos")
        for name, value in fig["documents"].items():
            lines.append(f"  {name:<44} {fmt_ratio(value) if '/' in name else fmt_ms(value)}")
        start = fig["startup"]
        if isinstance(start, dict):
            lines.append(f"  {'Partida até /_stcore/health':<44} {fmt_s(start['health_s'])}")
            lines.append(f"  {'Partida até o login desenhado (Chromium)':<44} {fmt_s(start['login_s'])}")
        else:
            lines.append(f"  {'Partida':<44} {start}")
    if len(scales) > 1:
        lines += ["", "Crescimento " + " → ".join(str(s) for s in scales) + " (quente · após gravar; gravações p50)"]
        lines += growth_lines(results)
    lines += ["", "Metas da issue 21"] + targets(results)
    if seconds:
        lines.append(f"(benchmark completo em {fmt_s(seconds)})")
    print("\n".join(lines))
    return lines


def _steps(values: list[Any]) -> str:
    shown = []
    for before, after in zip(values, values[1:]):
        shown.append(fmt_ratio(after / before) if isinstance(before, float) and isinstance(after, float)
                     and before > 0 else NA)
    return " → ".join(shown)


def growth_lines(results: dict[int, dict]) -> list[str]:
    scales = sorted(results)
    lines = []
    for key in results[scales[-1]]["pages"]:
        figs = [results[s]["pages"].get(key) for s in scales]
        warm = [f["warm"]["wall"] if isinstance(f, dict) else None for f in figs]
        after = [f["after"]["wall"] if isinstance(f, dict) else None for f in figs]
        role, mun, path = key
        lines.append(f"  {role:<11}{mun:<13}{title_of(path)[:27]:<28}{_steps(warm):>14} · {_steps(after)}")
    for name in results[scales[-1]]["writes"]:
        figs = [results[s]["writes"].get(name) for s in scales]
        lines.append(f"  {name:<52}{_steps([f['p50'] if isinstance(f, dict) else None for f in figs]):>14}")
    return lines


def verdict(value: Any, limit: float, unit: str = "ms") -> str:
    if not isinstance(value, (int, float)):
        return NA
    if value <= limit:
        return "atingida"
    return f"não atingida ({value:,.1f} {unit})".replace(",", "X").replace(".", ",").replace("X", ".")


def targets(results: dict[int, dict]) -> list[str]:
    scales = sorted(results)
    scale = 10 if 10 in results else scales[-1]
    fig = results[scale]
    lines = [f"(medidas da escala {scale}; a issue pede a escala 10; crescimento da {scales[0]} à {scales[-1]})"]
    missed = []
    for key, page in fig["pages"].items():
        limit = SUMMARY_LIMIT if key[2] in SLOW_PAGES else PAGE_LIMIT
        for when, label in (("warm", "quente"), ("after", "após gravar")):
            value = page[when]["wall"] if isinstance(page, dict) else None
            if verdict(value, limit) != "atingida":
                missed.append(f"  {key[0]} {key[1]} {title_of(key[2])} {label} ≤ {limit:.0f} ms: "
                              f"{verdict(value, limit)}")
    total = 2 * len(fig["pages"])
    lines.append(f"  Páginas ≤ 300 ms (Resumo ≤ 500 ms), quente e após gravar: {total - len(missed)} de {total} "
                 "atingidas")
    lines += missed
    docs = fig["documents"]
    lines.append(f"  Relatório gerencial PDF ≤ 500 ms: {verdict(docs.get('Relatório gerencial PDF (serviço)'), 500.0)}")
    for name, write in fig["writes"].items():
        w = write if isinstance(write, dict) else {}
        per = ""
        if w.get("lines"):  # a return file pays one DAM a line: each line is a clerk's payment
            w = {k: v / w["lines"] if isinstance(v, (int, float)) else v for k, v in w.items()}
            per = " por linha"
        lines.append(f"  {name}{per}: p50 ≤ 50 ms {verdict(w.get('p50'), WRITE_P50)}; p99 ≤ 200 ms "
                     f"{verdict(w.get('p99'), WRITE_P99)}; 1ª após partida ≤ 200 ms {verdict(w.get('first'), WRITE_P99)}")
    if len(scales) > 1:
        low, high = results[scales[0]], results[scales[-1]]
        grown = []
        for key, page in high["pages"].items():
            before = low["pages"].get(key)
            for when in ("warm", "after"):
                if isinstance(page, dict) and isinstance(before, dict):
                    ratio = page[when]["wall"] / before[when]["wall"]
                    if ratio > GROWTH:
                        grown.append(f"  {key[0]} {key[1]} {title_of(key[2])} "
                                     f"{'quente' if when == 'warm' else 'após gravar'} cresce {fmt_ratio(ratio)}")
        for name, write in high["writes"].items():
            before = low["writes"].get(name)
            if isinstance(write, dict) and isinstance(before, dict) and write["p50"] / before["p50"] > GROWTH:
                grown.append(f"  {name} cresce {fmt_ratio(write['p50'] / before['p50'])}")
        count = 2 * len(high["pages"]) + len(high["writes"])
        lines.append(f"  Crescimento ≤ 1,5× da escala {scales[0]} à {scales[-1]}: {count - len(grown)} de {count} "
                     "atingidas")
        lines += grown
    start = fig["startup"]
    lines.append(f"  Partida até o login desenhado ≤ 3 s: "
                 f"{verdict(start.get('login_s') if isinstance(start, dict) else None, STARTUP, 's')}")
    return lines
