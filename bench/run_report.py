"""The benchmark's report: the tables of each scale, the growth between scales, the targets of issue 9.

Milliseconds and ratios are printed the Brazilian way (``1.683 ms``, ``23,7×``); a figure that could
not be taken prints its "n/d (reason)". The targets are read at scale 10 when it was run (the scale
issue 9 asks for), else at the largest: each list page's p50 and its ratio to the raw query, the
summary page, the growth of pages and writes, the DAM PDF, the batch of 500 and the start-up.
"""
from __future__ import annotations

from typing import Any

from bench import dataset_plan
from bench.run_measure import MUNICIPALITY, NA

LIST_PAGES = ("app_pages/taxpayers.py", "app_pages/dams.py", "app_pages/platforms.py", "app_pages/drivers.py", "app_pages/vehicles.py",
              "app_pages/authorizations.py", "app_pages/inspections.py", "app_pages/pendencias.py", "app_pages/audit.py",
              "app_pages/users.py")


def fmt_ms(value: Any) -> str:
    return f"{value:,.0f} ms".replace(",", ".") if isinstance(value, float) and value >= 10 else (
        f"{value:.1f} ms".replace(".", ",") if isinstance(value, float) else str(value))


def fmt_ratio(value: Any) -> str:
    return f"{value:.1f}×".replace(".", ",") if isinstance(value, float) else str(value)


def title_of(path: str) -> str:
    # streamlit (through ui.navigation) is imported with the pages, not with this module: see
    # bench/run_pages.render_page.
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
