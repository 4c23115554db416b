"""The portal's first visit on a phone on a weak network (issue 36 "Shape and limits", issue 38 "Limits"):
Chromium with a phone's viewport, throttled by CDP ``Network.emulateNetworkConditions`` to Chrome DevTools'
"Slow 4G" preset, a new browser context per visit (nothing cached, no cookie).

Slow 4G, as DevTools defines it (devtools-frontend ``front_end/core/sdk/NetworkManager.ts``,
``Slow4GConditions``; it was called "Fast 3G" until May 2024, crbug.com/342406608)::

    download: 1.6 * 1000 * 1000 / 8 * .9   # 180 000 bytes/s (~1.6 Mbps × 0.9)
    upload:   750 * 1000 / 8 * .9          #  84 375 bytes/s (~0.75 Mbps × 0.9)
    latency:  150 * 3.75                   # 562.5 ms (150 ms RTT × DevTools' adjustment 3.75)

Per page, the median of ``runs`` first visits: the load event and the first contentful paint (Navigation and
Paint Timing, from the navigation's start), the wall time from ``goto`` to the page's form or heading
visible, and the bytes transferred (the sum of ``encodedDataLength`` of CDP ``Network.loadingFinished``:
headers and bodies of the page, its CSS and the favicon's answer). Targets: drawn in ≤ 3 s, ≤ 150 KB.
"""
from __future__ import annotations

import statistics
import time

SLOW_4G = {"offline": False, "latency": 150 * 3.75, "downloadThroughput": 1.6 * 1000 * 1000 / 8 * .9,
           "uploadThroughput": 750 * 1000 / 8 * .9}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True,
         "locale": "pt-BR"}
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TARGET_S = 3.0
TARGET_KB = 150
TIMING = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  return {load: nav.loadEventEnd, fcp: paint ? paint.startTime : null};
}"""


def pages(token: str) -> dict[str, tuple[str, str]]:
    """What is visited: (path, the role and name of what shows the page is drawn)."""
    return {"/entrar (login)": ("/entrar", "button:Entrar"),
            "/verificar": ("/verificar", "heading:"),
            "/consulta": ("/consulta", "button:Consultar"),
            "/autorizacao (QR do adesivo)": (f"/autorizacao?t={token}", "heading:")}


def first_visit(browser, url: str, path: str, drawn: str) -> dict:
    context = browser.new_context(**PHONE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", SLOW_4G)
    received: list[int] = []
    cdp.on("Network.loadingFinished", lambda event: received.append(int(event["encodedDataLength"])))
    role, name = drawn.split(":")
    start = time.perf_counter()
    page.goto(url + path, wait_until="load", timeout=60_000)
    target = page.get_by_role(role, name=name) if name else page.locator("h1")
    target.wait_for(state="visible", timeout=60_000)
    visible = time.perf_counter() - start
    page.wait_for_timeout(1500)  # a late request (the favicon) is counted too, and the paint entry is in
    timing = page.evaluate(TIMING)
    context.close()
    return {"load_s": timing["load"] / 1000, "fcp_s": timing["fcp"] / 1000 if timing["fcp"] else None,
            "visible_s": visible,
            "bytes": sum(received), "requests": len(received)}


def measure_pages(url: str, bench, runs: int = 3) -> dict[str, dict]:
    """The median first visit of each public page (``runs`` visits each)."""
    from playwright.sync_api import sync_playwright

    token = sticker_token(bench.db)
    found = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for label, (path, drawn) in pages(token).items():
                visits = [first_visit(browser, url, path, drawn) for _ in range(runs)]
                found[label] = {key: statistics.median([v[key] for v in visits if v[key] is not None] or [0])
                                for key in visits[0]}
        finally:
            browser.close()
    return found


def sticker_token(db) -> str:
    """The token of the QR code of a valid authorization of Chapada, made through the services (the page a
    passenger opens is then the full answer, not the page of an unknown link)."""
    import random
    from datetime import timedelta

    from seed import ridehailing as ride_seed
    from services.dam import payments
    from services.ridehailing import fees, public_check
    from services.shared import clock

    from bench.portal_store import STAFF

    ride_seed.seed_fee(db)  # the demo's fee of the authorization
    auth_id = ride_seed._flow(db, STAFF, "chapada", random.Random(3), clock.today() - timedelta(days=12), "inspected")
    bill = fees.issue_fee_dam(db, STAFF, "chapada", auth_id, clock.today())
    payments.record_payment(db, STAFF, "chapada", bill["id"], clock.today(), bill["amount"], "Banco do Brasil")
    return public_check.token_for("chapada", auth_id)


def report(found: dict[str, dict]) -> None:
    print("\nPrimeira visita num celular (390×844, Chromium com o perfil Slow 4G do DevTools: 562,5 ms, "
          "180.000 B/s para baixar, 84.375 B/s para enviar; mediana)")
    print(f"{'página':<30}{'FCP (s)':>9}{'load (s)':>10}{'visível (s)':>13}{'KB':>8}{'pedidos':>9}  metas ≤ "
          f"{TARGET_S:.0f} s e ≤ {TARGET_KB} KB")
    for label, figure in found.items():
        ok = figure["load_s"] <= TARGET_S and figure["visible_s"] <= TARGET_S and figure["bytes"] <= TARGET_KB * 1000
        print(f"{label:<30}{figure['fcp_s']:>9.2f}{figure['load_s']:>10.2f}{figure['visible_s']:>13.2f}"
              f"{figure['bytes'] / 1000:>8.1f}{figure['requests']:>9.0f}  {'atingidas' if ok else 'NÃO atingidas'}")
