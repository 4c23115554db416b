"""Session state, the cached database, role guards and error display for every page."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import streamlit as st

from rules.base import RuleError
from services import auth, bootstrap, clock, config, municipalities
from services.auth import Actor, SessionEnded
from services.errors import ServiceError, ValidationFailed
from services.store import connect

log = logging.getLogger("painel")


@st.cache_resource(show_spinner="Abrindo o banco de dados…")
def _database(uri: str | None, folder: str):
    db = connect(uri=uri, data_dir=folder)
    bootstrap.prepare(db)
    return db


def db():
    """The one database handle of this process (cached per target); a store the panel cannot use
    safely stops the page with the reason (never cached, so fixing the setting and reloading works)."""
    try:
        return _database(config.mongodb_uri(), str(config.data_dir()))
    except bootstrap.StoreWithoutTransactions as exc:
        st.error(exc.message)
        st.stop()


def defaults() -> None:
    st.session_state.setdefault("actor", None)
    st.session_state.setdefault("municipality", None)


def resume() -> Actor | None:
    """The actor of this request, rebuilt from the store (one read); None when nobody is logged in.

    app.py calls this once per request, before any page: a deactivated or changed user, or a
    session idle too long, is logged out here with a pt-BR notice on the login page. Page tests
    that put an Actor in ``session_state["actor"]`` without a ``session`` keep that actor (the login
    always writes a ``session``).
    """
    session = st.session_state.get("session")
    if session is None:
        return st.session_state.get("actor")
    now = clock.now_utc()
    try:
        current = auth.resume_session(db(), session.username, session.generation, session.last_seen, now)
    except SessionEnded as ended:
        st.session_state.clear()
        defaults()
        st.session_state["login_notice"] = ended.message
        return None
    st.session_state["session"] = replace(session, last_seen=now)
    st.session_state["actor"] = current
    return current


def sign_in(actor: Actor, session: auth.Session) -> None:
    """Keep a fresh login in this browser session."""
    st.session_state["session"] = session
    st.session_state["actor"] = actor
    st.session_state["municipality"] = None


def sign_out() -> None:
    """Record the logout and forget this browser session."""
    current = actor()
    if current is not None:
        auth.logout(db(), current)
    st.session_state.clear()


def actor() -> Actor | None:
    """The actor resolved for this request by :func:`resume`."""
    return st.session_state.get("actor")


def municipality() -> str:
    return st.session_state.get("municipality") or ""


def municipality_name() -> str:
    code = municipality()
    if not code:
        return ""
    return municipalities.get(db(), code).name


def guard(permission: str) -> Actor:
    """The logged-in actor if the role has ``permission`` in the chosen municipality; else stop."""
    current = actor()
    if current is None:
        st.warning("Faça login para continuar.")
        st.stop()
    if not current.can(permission):
        st.error("Seu perfil não tem acesso a esta página.")
        st.stop()
    if not municipality():
        st.info("Escolha um município na barra lateral.")
        st.stop()
    if "*" not in current.municipalities and municipality() not in current.municipalities:
        st.error("Você não tem acesso a este município.")
        st.stop()
    return current


def attempt(action: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """Run a service call; show a pt-BR message instead of a traceback. Returns (ok, result)."""
    try:
        return True, action(*args, **kwargs)
    except ValidationFailed as exc:
        st.error(exc.message)
        return False, exc
    except (ServiceError, RuleError) as exc:
        st.error(str(exc) if isinstance(exc, RuleError) else exc.message)
        return False, exc
    except Exception as exc:  # noqa: BLE001 — last barrier: never show a traceback to a user
        log.exception("unexpected error in %s", getattr(action, "__name__", action))
        st.error("Ocorreu um erro inesperado. Nada foi alterado; tente novamente ou avise a TI.")
        return False, exc


def today():
    """Today in Cuiabá (the store keeps UTC)."""
    from services import clock

    return clock.today()


def page_header(title: str, caption: str = "") -> None:
    st.title(title)
    name = municipality_name()
    line = f"Prefeitura de {name}" if name else ""
    if caption:
        line = f"{line} · {caption}" if line else caption
    if line:
        st.caption(line)
