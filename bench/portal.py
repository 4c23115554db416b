"""Benchmark: the portal's requests a person waits for, at scale 1 and at scale 100 (issue 36, "Shape and
limits"; issue 38, "Limits"), and its first visit on a phone throttled to Slow 4G (``bench/portal_phone.py``).

Per scale, a new store (``bench/portal_store.py``: the driver and the platform person among many addressees,
through the real services), the portal (``portal.app.build``) served by uvicorn on a free port in this
process, and a client without JavaScript over real HTTP (cookies kept, the CSRF token read from the form, the
303 after a POST followed as a browser does). Timed, each ``--repeat`` times:

- **inbox**: ``GET /inicio`` of the logged-in driver (the newest 20 messages of his domicile);
- **notice**: a notice delivered just before (untimed, through ``domicile.deliver``), then
  ``POST /domicilio/<code>/abrir`` (the first opening: the legal receipt, written and audited) and the
  ``GET /domicilio/<code>`` it redirects to; **pdf**: ``GET /domicilio/<code>/pdf``;
- **upload**: a data request made just before (untimed, ``trip_data.request_data``), then the platform
  person's ``POST /pedidos/<code>/responder`` with the 5 MB signed PDF (PAdES verified against the CA TI
  uploaded, the file kept) and the ``GET /pedidos/<code>?enviado=1`` it redirects to.

Printed: p50/p95 in ms per scale and the ratio of the largest scale to the first (flat: about 1×). Nothing
fails the script on a figure. ::

    .venv/bin/python bench/portal.py                      # scales 1 and 100, and the phone
    .venv/bin/python bench/portal.py --scales 1 --repeat 3 --no-phone
"""
from __future__ import annotations

import argparse
import http.cookiejar
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bson import ObjectId  # noqa: E402

from bench import portal_store  # noqa: E402
from services import store  # noqa: E402
from services.ridehailing import trip_data  # noqa: E402
from services.shared import domicile  # noqa: E402

STEPS = ("inbox", "notice", "pdf", "upload")
LABELS = {"inbox": "GET /inicio (caixa do domicílio)", "notice": "POST abrir + GET da mensagem",
          "pdf": "GET do PDF da mensagem", "upload": "POST da resposta assinada"}


@contextmanager
def served(db):
    """The portal on ``db`` served by uvicorn on a free localhost port, in a thread of this process."""
    import socket

    import uvicorn

    from portal.app import build

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build(db), host="127.0.0.1", port=port, log_level="error",
                                           server_header=False, lifespan="off"))  # no mail loop
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        if time.time() > deadline:
            raise RuntimeError("o portal não respondeu em 30 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class Client:
    """A browser without JavaScript: cookies kept, redirects followed."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str) -> bytes:
        with self.opener.open(self.url + path, timeout=120) as response:
            return response.read()

    def csrf(self, path: str) -> str:
        return re.search(rb'name="csrf" value="([0-9a-f]+)"', self.get(path))[1].decode()

    def post(self, path: str, data: dict, csrf: str) -> tuple[str, bytes]:
        body = urllib.parse.urlencode({"csrf": csrf, **data}).encode()
        with self.opener.open(urllib.request.Request(self.url + path, data=body), timeout=120) as response:
            return response.url, response.read()

    def post_file(self, path: str, csrf: str, field: str, name: str, data: bytes) -> tuple[str, bytes]:
        boundary = uuid.uuid4().hex
        body = b"".join([
            f'--{boundary}\r\ncontent-disposition: form-data; name="csrf"\r\n\r\n{csrf}\r\n'.encode(),
            f'--{boundary}\r\ncontent-disposition: form-data; name="{field}"; filename="{name}"\r\n'
            f'content-type: application/pdf\r\n\r\n'.encode(), data, f"\r\n--{boundary}--\r\n".encode()])
        request = urllib.request.Request(self.url + path, data=body,
                                         headers={"content-type": f"multipart/form-data; boundary={boundary}"})
        try:
            with self.opener.open(request, timeout=120) as response:
                return response.url, response.read()
        except urllib.error.HTTPError as refused:  # the page with the reason under the field
            return refused.url, refused.read()

    def login(self, document: str, person_cpf: str = "") -> None:
        url, _ = self.post("/entrar", {"municipality": "chapada", "document": document, "person_cpf": person_cpf,
                                       "password": portal_store.PASSWORD}, self.csrf("/entrar"))
        if not url.endswith("/inicio"):
            raise RuntimeError(f"o login de bancada falhou ({url})")


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def measure(bench: portal_store.Bench, url: str, repeat: int, upload_repeat: int) -> dict[str, list[float]]:
    """The milliseconds of each step, ``repeat`` times (the upload ``upload_repeat`` times)."""
    db = bench.db
    figures: dict[str, list[float]] = {step: [] for step in STEPS}
    driver = Client(url)
    driver.login(bench.driver_cpf)
    for number in range(repeat + 1):  # the first round warms up (templates, imports, query plans): not kept
        message = portal_store.deliver(db, bench.driver_cpf, 10_000 + number)
        code = message["code"]
        took, home = timed(lambda: driver.get("/inicio"))
        assert f"/domicilio/{code}".encode() in home, "a mensagem nova não está na caixa"
        figures["inbox"].append(took)
        csrf = driver.csrf(f"/domicilio/{code}")
        took, (_where, page) = timed(lambda: driver.post(f"/domicilio/{code}/abrir", {}, csrf))
        assert f"/domicilio/{code}/pdf".encode() in page, "a mensagem não abriu"
        figures["notice"].append(took)
        took, pdf = timed(lambda: driver.get(f"/domicilio/{code}/pdf"))
        assert pdf.startswith(b"%PDF")
        figures["pdf"].append(took)
        db[domicile.MESSAGES].delete_one({"code": code})  # the inbox keeps ``scale`` messages
    agent = Client(url)
    agent.login(portal_store.PLATFORM_CNPJ, portal_store.AGENT_CPF)
    for _ in range(upload_repeat + 1):  # the first warms up (pyHanko's imports): not kept
        code = db[trip_data.REQUESTS].find_one({"_id": ObjectId(portal_store.request(db, bench.platform_id))})["code"]
        csrf = agent.csrf(f"/pedidos/{code}")
        took, (where, page) = timed(lambda: agent.post_file(f"/pedidos/{code}/responder", csrf, "file",
                                                            "resposta.pdf", bench.signed_file))
        if "enviado=1" not in where:
            shown = " ".join(re.sub(r"<[^>]+>", " ", page.decode()).split())
            raise RuntimeError(f"a resposta assinada não foi aceita: {shown[-700:]}")
        figures["upload"].append(took)
    return {step: values[1:] for step, values in figures.items()}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(values), "p95": percentile(values, 0.95), "n": len(values)}


def report(results: dict[int, dict[str, dict]]) -> None:
    scales = sorted(results)
    print("\nPortal: tempo da requisição até a resposta completa (ms; p50 / p95)")
    print(f"{'passo':<40}" + "".join(f"{'escala ' + str(s):>20}" for s in scales)
          + (f"{'razão p50 / p95':>20}" if len(scales) > 1 else ""))
    for step in STEPS:
        row = f"{LABELS[step]:<40}"
        for scale in scales:
            figure = results[scale]["figures"][step]
            row += f"{figure['p50']:>10.1f} / {figure['p95']:<7.1f}"
        if len(scales) > 1:
            first, last = results[scales[0]]["figures"][step], results[scales[-1]]["figures"][step]
            row += f"{last['p50'] / first['p50']:>11.2f}× / {last['p95'] / first['p95']:.2f}×"
        print(row)
    for scale in scales:
        counts = results[scale]["counts"]
        print(f"escala {scale}: {counts['messages']} mensagens no armazenamento ({counts['own']} na caixa do "
              f"condutor durante a medida), {counts['requests']} pedidos de dados; montagem em "
              f"{results[scale]['build_s']:.1f} s")


def run_scale(scale: int, root: Path, repeat: int, upload_repeat: int, others: int,
              signed: portal_store.Signed) -> dict:
    start = time.perf_counter()
    bench = portal_store.build(str(root / f"portal-{scale}"), scale, signed, others)
    built = time.perf_counter() - start
    counts = {"messages": bench.db[domicile.MESSAGES].count_documents({}) + 1,
              "own": bench.db[domicile.MESSAGES].count_documents({"document": bench.driver_cpf}) + 1,
              "requests": bench.db[trip_data.REQUESTS].count_documents({}) + 1}
    with served(bench.db) as url:
        raw = measure(bench, url, repeat, upload_repeat)
    store.close_all()
    return {"figures": {step: summary(values) for step, values in raw.items()}, "counts": counts, "build_s": built}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description="Mede o portal: caixa, notificação, envio assinado e o celular.")
    parser.add_argument("--scales", default="1,100", help="escalas separadas por vírgula (padrão 1,100)")
    parser.add_argument("--repeat", type=int, default=20, help="medidas de caixa e notificação por escala")
    parser.add_argument("--upload-repeat", type=int, default=8,
                        help="envios de 5 MB por escala, mais um de aquecimento (o portal aceita 20 por conta e hora)")
    parser.add_argument("--others", type=int, default=portal_store.OTHERS,
                        help="mensagens de outros destinatários na escala 1 (×escala)")
    parser.add_argument("--file-bytes", type=int, default=portal_store.FILE_BYTES,
                        help="tamanho do PDF assinado enviado (padrão 5 MB)")
    parser.add_argument("--data-root", default=None, help="pasta dos armazenamentos (padrão: uma temporária)")
    parser.add_argument("--no-phone", action="store_true", help="sem a primeira visita no celular (Slow 4G)")
    parser.add_argument("--phone-runs", type=int, default=3, help="primeiras visitas por página (mediana)")
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="portal-bench-") as temp:
        root = Path(args.data_root or temp)
        signed = portal_store.signed_answer(args.file_bytes)  # the same CA and file at every scale
        for scale in scales:
            results[scale] = run_scale(scale, root, args.repeat, args.upload_repeat, args.others, signed)
        print(f"\nPDF assinado enviado: {len(signed.file) / 1e6:.2f} MB (PAdES)")
        report(results)
        if not args.no_phone:
            from bench import portal_phone

            bench = portal_store.build(str(root / "portal-phone"), 1, signed, args.others)
            with served(bench.db) as url:
                results["phone"] = portal_phone.measure_pages(url, bench, args.phone_runs)
            store.close_all()
            portal_phone.report(results["phone"])
    return results


if __name__ == "__main__":
    main()
