"""What the portal's tests share: a real SMTP server (aiosmtpd) on localhost, a driver and a platform in
the register, the codes the e-mails carry, and the portal served by a real uvicorn on a free port."""
from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes
from email.message import Message

from seed.ridehailing import driver_values
from services.shared import clock, entities, regulated_accounts, sessions
from services.store import encode
from tests.browser_support import ROOT, free_port  # noqa: F401  (ROOT: for the tests)
from tests.conftest import SECRETARIA_CG

PLATFORM_CNPJ = "11444777000161"  # valid check digits, invented
AGENT_CPF = "52998224725"  # valid check digits, invented
DRIVER_EMAIL = "condutor.teste@exemplo.com.br"
AGENT_EMAIL = "agente.teste@exemplo.com.br"


class Inbox:
    """The messages the SMTP server received (handler of aiosmtpd)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 — aiosmtpd's handler name
        message = message_from_bytes(envelope.content)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if address in m["X-Envelope-To"]]

    def last_code(self, address: str, wait: float = 15) -> str:
        """The code of the last message to ``address``, waiting for one (the portal sends after answering)."""
        deadline = time.time() + wait
        while not self.to(address) and time.time() < deadline:
            time.sleep(0.05)
        body = self.to(address)[-1].get_payload(decode=True).decode()
        return re.search(r"é: (\d{6})", body)[1]


@contextmanager
def smtp_server(monkeypatch) -> Iterator[Inbox]:
    """A real SMTP server on localhost at a free port, and the panel's settings pointing at it."""
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("PAINEL_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAINEL_SMTP_PORT", str(port))
    monkeypatch.setenv("PAINEL_SMTP_STARTTLS", "0")
    monkeypatch.setenv("PAINEL_SMTP_FROM", "portal@prefeitura.exemplo")
    try:
        yield inbox
    finally:
        controller.stop()


def driver(db, email: str | None = DRIVER_EMAIL, seed: int = 7) -> str:
    """A driver of Chapada in the register (with ``email`` on file); returns his CPF."""
    values = driver_values(random.Random(seed), "chapada", clock.today(), **({"email": email} if email else {}))
    entities.create(db, SECRETARIA_CG, "drivers", "chapada", values)
    return values["cpf"]


def platform_with_agent(db) -> None:
    """A platform of Chapada and one person it authorized (listed by the secretariat)."""
    entities.create(db, SECRETARIA_CG, "platforms", "chapada", {
        "name": "Plataforma de Teste Ltda", "cnpj": PLATFORM_CNPJ, "email": "contato@plataforma.exemplo",
        "status": "ativo"})
    regulated_accounts.authorize_agent(db, SECRETARIA_CG, "chapada", PLATFORM_CNPJ, AGENT_CPF, "Rita Agente",
                                       AGENT_EMAIL)


def activated_agent(db, monkeypatch, password: str) -> None:
    """The platform of :func:`platform_with_agent` and its authorized person's account activated as she
    does it (the code from a real SMTP server); the activation opens the platform's domicile."""
    from services.shared import mail, regulated_access

    platform_with_agent(db)
    with smtp_server(monkeypatch) as inbox:
        regulated_access.request_code(db, "chapada", "plataforma", PLATFORM_CNPJ, AGENT_CPF, "ativacao")
        assert mail.send_pending(db) == 1
        regulated_access.activate(db, "chapada", "plataforma", PLATFORM_CNPJ, AGENT_CPF, inbox.last_code(AGENT_EMAIL),
                                  password, True)


def ready_account(db, municipality: str, kind: str, document: str, name: str, email: str, password: str,
                  person_cpf: str = "") -> regulated_accounts.Person:
    """An active portal account with ``password``, as one opened by the person themself (sign-up, code and
    activation done): for tests whose subject comes after the account."""
    kind, document, person_cpf = regulated_accounts.identity(kind, document, person_cpf)
    doc = regulated_accounts.ensure_account(db, municipality, kind, document, person_cpf, name, "teste", email)
    db["regulated_accounts"].update_one({"_id": doc["_id"]}, {"$set": encode({
        "status": "ativa", "password_hash": sessions.hash_password(password), "hash_scheme": sessions.HASH_SCHEME,
        "activated_at": clock.now_utc(), "consent": {"version": regulated_accounts.LGPD_VERSION,
                                                     "at": clock.now_utc()}})})
    return regulated_accounts.person_of(doc)


@contextmanager
def portal_server(db) -> Iterator[str]:
    """The portal on ``db`` served by uvicorn on a free localhost port, in this process (a thread)."""
    import uvicorn

    from portal.app import build

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(build(db), host="127.0.0.1", port=port, log_level="error",
                                           server_header=False, lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started:
        if time.time() > deadline:
            raise RuntimeError("o portal não respondeu em 20 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def portal_login(page, url: str, document: str, password: str, person_cpf: str = "", *, as_kind: str = "",
                 municipality: str = "Chapada dos Guimarães") -> None:
    """Log in on the portal's form as a person does (a driver by CPF; a platform's person by CNPJ and CPF;
    ``as_kind``: the label of "Entrar como", e.g. "Cidadão ou entidade"), and wait for Início."""
    page.goto(url + "/entrar")
    page.get_by_label("Município").select_option(label=municipality)
    if as_kind:
        page.get_by_label(as_kind).check()
    page.get_by_label("CPF ou CNPJ").fill(document)
    if person_cpf:
        page.get_by_label("Seu CPF").fill(person_cpf)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("heading", name="Início").wait_for()
