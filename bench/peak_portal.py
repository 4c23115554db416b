"""The portal's side of the December peak (``bench/peak.py``): one thread per session, each a person of the
bench store logging in and doing what a driver or a platform's person does in the renewal peak, over real
HTTP against a ``python -m portal`` process.

A session is :class:`bench.portal.Client` (cookies kept, the CSRF token read from the form, the 303 after a
POST followed) whose connections leave from its OWN loopback address (127.0.0.N): the portal's limits
(``portal/web.py`` ``LIMITS``, per IP address and per account, fixed in the code) count each person apart as
they count real people apart; none is raised or turned off. Each step's wall time is what the person waits
for: the answer complete (the redirect after a POST followed). A step that raises (an HTTP error, a 429, a
page without what it must show) is an error of that step, and the session goes on with its next step.
"""
from __future__ import annotations

import functools
import http.client
import http.cookiejar
import random
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from bench import portal as portal_bench
from bench import portal_store

PAGE, SUBMIT = "página", "envio"
STEPS = {  # step: (kind, label)
    "entrar": (PAGE, "GET /entrar"),
    "login": (SUBMIT, "POST /entrar → Início"),
    "inicio": (PAGE, "GET /inicio"),
    "mensagem": (PAGE, "GET /domicilio/<código>"),
    "abrir": (SUBMIT, "POST abrir a mensagem → mensagem"),
    "dams": (PAGE, "GET /dams"),
    "dam": (PAGE, "GET /dams/<ano>/<nº>"),
    "2via": (SUBMIT, "POST 2ª via → DAM novo"),
    "pedidos": (PAGE, "GET /pedidos"),
    "pedido": (PAGE, "GET /pedidos/<código>"),
    "resposta": (SUBMIT, "POST resposta assinada → confirmação"),
    "consulta": (PAGE, "GET /consulta"),
    "consultar": (SUBMIT, "POST /consulta (DAM)"),
}


@dataclass
class Visit:
    """What one person does in one round (prepared by ``bench/peak_store.py``)."""

    document: str  # CPF of a driver or CNPJ of a platform
    person_cpf: str  # the platform's authorized person ("" for a driver)
    message: str  # the code of a message in the person's domicile
    dam: str  # the number of a DAM of the person ("" for none), opened and consulted
    overdue: bool  # the DAM is overdue: its 2ª via is asked
    request: str = ""  # a platform's data request to answer

    @property
    def platform(self) -> bool:
        return bool(self.person_cpf)


@dataclass
class Tally:
    """Milliseconds and errors per step, filled by every session's thread."""

    times: dict[str, list[float]] = field(default_factory=lambda: {step: [] for step in STEPS})
    errors: dict[str, list[str]] = field(default_factory=lambda: {step: [] for step in STEPS})
    lock: threading.Lock = field(default_factory=threading.Lock)

    def step(self, name: str, action) -> object:
        start = time.perf_counter()
        try:
            result = action()
        except Exception as exc:  # noqa: BLE001 — an error is a figure of the step, the session goes on
            reason = f"{type(exc).__name__}: {str(exc)[:160]}"
            if isinstance(exc, urllib.error.HTTPError):  # the page's own words: why it was refused
                main = re.search(rb"<main.*?</main>", exc.read(), re.S)
                reason += " — " + " ".join(re.sub(r"<[^>]+>", " ", main[0].decode() if main else "").split())[:300]
            with self.lock:
                self.errors[name].append(reason)
            return None
        with self.lock:
            self.times[name].append((time.perf_counter() - start) * 1000)
        return result


class _FromAddress(urllib.request.HTTPHandler):
    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def http_open(self, req):
        return self.do_open(functools.partial(http.client.HTTPConnection, source_address=(self.address, 0)), req)


class Person(portal_bench.Client):
    """The portal bench's client, its connections leaving from ``address`` (a person's own IP)."""

    def __init__(self, url: str, address: str) -> None:
        super().__init__(url)
        self.opener = urllib.request.build_opener(
            _FromAddress(address), urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def _expect(body: bytes, text: str) -> bytes:
    if text.encode() not in body:
        raise AssertionError(f"a página não mostra {text!r}")
    return body


def _login(person: Person, visit: Visit) -> bool:
    url, _ = person.post("/entrar", {"municipality": "chapada", "document": visit.document,
                                     "person_cpf": visit.person_cpf, "password": portal_store.PASSWORD},
                         person.form_token)
    if not url.endswith("/inicio"):
        raise AssertionError(f"o login não chegou ao Início ({url})")
    return True


def _token(body: bytes) -> str:
    return re.search(rb'name="csrf" value="([0-9a-f]+)"', body)[1].decode()


def visit(url: str, address: str, plan: Visit, tally: Tally, think: float, rng: random.Random) -> None:
    """One person's visit, each step timed into ``tally`` with a pause of about ``think`` s between steps."""
    person = Person(url, address)

    def pause() -> None:
        time.sleep(rng.uniform(think * 0.5, think * 1.5))

    def page(step: str, path: str, shows: str) -> bytes | None:
        body = tally.step(step, lambda: _expect(person.get(path), shows))
        pause()
        return body

    def submit(step: str, action) -> object:
        result = tally.step(step, action)
        pause()
        return result

    entry = page("entrar", "/entrar", 'name="password"')
    if entry is None:
        return
    person.form_token = _token(entry)
    if submit("login", lambda: _login(person, plan)) is None:
        return
    home = page("inicio", "/inicio", f"/domicilio/{plan.message}")
    if home is None:
        return
    message = page("mensagem", f"/domicilio/{plan.message}", f"/domicilio/{plan.message}/abrir")
    if message is not None:
        submit("abrir", lambda: _expect(person.post(f"/domicilio/{plan.message}/abrir", {}, _token(message))[1],
                                        f"/domicilio/{plan.message}/pdf"))
    page("dams", "/dams", "Meus DAMs")
    if plan.dam:
        year, number = plan.dam.split("/")[1], plan.dam.split("/")[0]
        dam = page("dam", f"/dams/{year}/{int(number)}", plan.dam)
        if dam is not None and plan.overdue:
            submit("2via", lambda: _expect(person.post(f"/dams/{year}/{int(number)}/2via", {}, _token(dam))[1],
                                           "2ª via emitida"))
    if plan.request:
        page("pedidos", "/pedidos", f"/pedidos/{plan.request}")
        asked = page("pedido", f"/pedidos/{plan.request}", "responder")
        if asked is not None:
            submit("resposta", lambda: _answered(person, plan.request, _token(asked)))
    form = page("consulta", "/consulta", "Consultar")
    if form is not None and plan.dam:
        submit("consultar", lambda: _expect(person.post("/consulta", {
            "municipality": "chapada", "what": "dam", "number": plan.dam, "document": plan.document},
            _token(form))[1], plan.dam))


SIGNED: dict[str, bytes] = {}


def _answered(person: Person, code: str, token: str) -> bool:
    where, body = person.post_file(f"/pedidos/{code}/responder", token, "file", "resposta.pdf", SIGNED["file"])
    if "enviado=1" not in where:
        shown = " ".join(re.sub(r"<[^>]+>", " ", body.decode(errors="replace")).split())
        raise AssertionError(f"a resposta assinada não foi aceita: {shown[-200:]}")
    return True


def run(url: str, rounds: list[list[Visit]], think: float, ramp: float, seed: int = 38) -> Tally:
    """``len(rounds[0])`` sessions at once, session ``i`` making the visit ``i`` of each round in turn, each
    from its own loopback address; starts spread over ``ramp`` s."""
    tally = Tally()
    sessions = len(rounds[0])

    def session(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        time.sleep(rng.uniform(0, ramp))
        for visits in rounds:
            visit(url, f"127.0.0.{10 + index}", visits[index], tally, think, rng)

    threads = [threading.Thread(target=session, args=(i,), daemon=True) for i in range(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally
