"""Session state, the cached database, role guards and error display for every page."""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import streamlit as st

from rules.base import RuleError
from services.dam import warmup
from services.setup import bootstrap
from services.shared import clock, config, municipalities, sessions
from services.shared.auth import Actor
from services.shared.errors import ServiceError, ValidationFailed
from services.shared.sessions import SessionEnded
from services.store import connect, refuse_damaged
from ui import drafts, ptbr_chrome

log = logging.getLogger("painel")


@st.cache_resource(show_spinner="Abrindo o banco de dados…")
def _database(uri: str | None, folder: str):
    db = connect(uri=uri, data_dir=folder)
    bootstrap.prepare(db)
    warmup.start()  # the first DAM and slip of this process cost what the next ones do
    return db


def db():
    """The one database handle of this process (cached per target); a store the panel cannot use safely
    (one found damaged after the start too) stops the page with the reason (never cached: a fix reloads)."""
    try:
        return refuse_damaged(_database(config.mongodb_uri(), str(config.data_dir())))
    except ServiceError as exc:  # a standalone MongoDB; a lost, damaged or busy store file
        st.error(exc.message)
        st.stop()


def defaults() -> None:
    st.session_state.setdefault("actor", None)
    st.session_state.setdefault("municipality", None)


# Streamlit's table toolbar (search, download, fullscreen) has English tooltips that cannot be
# translated; every list of the panel has its own pt-BR search and CSV/XLSX buttons, so it is hidden.
HOUSE_STYLE = '<style>[data-testid="stElementToolbar"] { display: none !important; }</style>'
# The file field's own words are English and fixed in Streamlit ("Upload", "200MB per file • CSV"); the
# label of every file field already says the type and the limit in pt-BR (services.shared.uploads), so
# the button and the hint are reworded here. Date fields follow the browser's language (react-aria):
# a pt-BR browser shows "dd/mm/aaaa"; an English one would show "yyyy", reworded too.
HOUSE_STYLE += (
    "<style>"
    '[data-testid="stFileUploaderDropzone"] button p { font-size: 0; }'
    '[data-testid="stFileUploaderDropzone"] button p::after { content: "Escolher arquivo"; font-size: 0.875rem; }'
    '[data-testid="stFileUploaderDropzoneInstructions"] span { font-size: 0; }'
    '[data-testid="stFileUploaderDropzoneInstructions"] span::after {'
    ' content: "ou arraste o arquivo para cá"; font-size: 0.8rem; }'
    '[data-testid="stDateInputField"] [data-type="year"][data-placeholder="true"] { font-size: 0; }'
    '[data-testid="stDateInputField"] [data-type="year"][data-placeholder="true"]::after {'
    ' content: "aaaa"; font-size: 0.875rem; }'
    "</style>"
)
# The cookie manager's hidden frames live in one container drawn on every run (see keep_cookie).
COOKIE_HOLDER = "painel_cookie_holder"
HOUSE_STYLE += f"<style>.st-key-{COOKIE_HOLDER} {{ display: none !important; }}</style>"


PTBR_HOLDER = "painel_ptbr_chrome"
HOUSE_STYLE += f"<style>.st-key-{PTBR_HOLDER} {{ display: none !important; }}</style>"


def house_style() -> None:
    """Once per request, before any page: what the panel changes in Streamlit's own look and words."""
    st.markdown(HOUSE_STYLE, unsafe_allow_html=True)
    with st.container(key=PTBR_HOLDER):  # hidden: the script draws nothing
        ptbr_chrome.install()


def resume() -> Actor | None:
    """The actor of this request, rebuilt from the store; None when nobody is logged in.

    app.py calls this once per request, before any page. A browser session that logged in goes on
    from ``session_state``; a reload, a new tab or a bookmark goes on from the signed login cookie
    (read server side from ``st.context.cookies``). A deactivated or changed user, an ended session
    or one idle too long is logged out here with a pt-BR notice on the login page; a forged, expired
    or unknown cookie just shows the login. Page tests that put an Actor in
    ``session_state["actor"]`` without a ``session`` keep that actor (the login always writes one).
    """
    session = st.session_state.get("session")
    now = clock.now_utc()
    try:
        if session is not None:
            current, session = sessions.resume(db(), session, now)
        elif st.session_state.get("actor") is not None:
            return st.session_state["actor"]
        else:
            resumed = _resume_from_cookie(now)
            if resumed is None:
                return None
            current, session = resumed
    except SessionEnded as ended:
        _forget_session()
        st.session_state["login_notice"] = ended.message
        return None
    st.session_state["session"] = session
    st.session_state["actor"] = current
    return current


def _browser_cookie() -> str:
    """The login cookie the browser sent when it opened this tab ("" without one)."""
    value = st.context.cookies.get(sessions.SESSION_COOKIE, "")
    return value if isinstance(value, str) else ""  # AppTest's stand-in client answers with a mock


def _resume_from_cookie(now) -> tuple[Actor, sessions.Session] | None:
    cookie = _browser_cookie()
    if not cookie or st.session_state.get("cookie_refused") == cookie:
        return None
    resumed = sessions.resume_cookie(db(), cookie, now)
    if resumed is None:
        st.session_state["cookie_refused"] = cookie
    return resumed


COOKIE_READINGS = 6  # fresh readings of the browser's cookies before keep_cookie stops asking


def keep_cookie() -> bool:
    """Write the login cookie after a login, remove it after a logout (extra-streamlit-components'
    cookie manager, a hidden component); True once the browser holds the right one (then nothing
    is drawn).

    The manager answers each reading of the browser's cookies with a rerun (an empty answer means
    "not read yet": the browser always holds Streamlit's own XSRF cookie) and reads them again
    only when it is drawn anew, so a reading taken before the browser stored the cookie is
    followed by a fresh manager until one shows it. Each answer names the page the manager was
    drawn on: app.py draws the panel's navigation only once this returns True, so a late answer
    can never undo a click on the menu.
    """
    # one container on every run, whatever is drawn in it: the elements after it keep their places
    # while the managers come and go, so no page element shows twice during a rerun
    with st.container(key=COOKIE_HOLDER):
        return _keep_cookie()


def _keep_cookie() -> bool:
    session = st.session_state.get("session")
    wanted = session.token if session is not None else ""
    if st.session_state.get("cookie_written", _browser_cookie()) == wanted:
        return True
    import extra_streamlit_components as stx

    reading = st.session_state.get("cookie_reading", 0)
    manager = stx.CookieManager(key=f"painel_cookie_{'in' if wanted else 'out'}_{reading}")
    seen = manager.cookies or {}
    if seen and seen.get(sessions.SESSION_COOKIE, "") == wanted:
        st.session_state["cookie_written"] = wanted
        st.session_state.pop("cookie_reading", None)
        return True
    if wanted:
        manager.set(sessions.SESSION_COOKIE, wanted, key="painel_cookie_set", expires_at=session.expires_at,
                    same_site="strict")
    else:  # a logout removes it at once, not after a reading (lost on a busy browser, it kept the cookie)
        manager.cookie_manager(method="delete", cookie=sessions.SESSION_COOKIE, key="painel_cookie_delete", default=False)
    if seen and reading < COOKIE_READINGS:  # read before the browser stored it: read again
        st.session_state["cookie_reading"] = reading + 1
        stx.CookieManager(key=f"painel_cookie_{'in' if wanted else 'out'}_{reading + 1}")
    return False


def go_on_without_cookie() -> None:
    """The browser refused the login cookie: go on in this tab (a reload will ask for the login)."""
    session = st.session_state.get("session")
    st.session_state["cookie_written"] = session.token if session is not None else ""


def _forget_session() -> None:
    """Clear this browser session, keeping what the browser may hold: the session's cookie (so
    :func:`keep_cookie` removes it) or the one it sent."""
    session = st.session_state.get("session")
    written = session.token if session is not None and session.token else _browser_cookie()
    st.session_state.clear()
    defaults()
    st.session_state["cookie_written"] = written
    st.session_state["cookie_refused"] = _browser_cookie()


def sign_in(actor: Actor, session: sessions.Session) -> None:
    """Keep a fresh login in this browser session (app.py then writes its cookie)."""
    st.session_state["session"] = session
    st.session_state["actor"] = actor
    st.session_state["municipality"] = None
    st.session_state.pop("login_notice", None)


def sign_out() -> None:
    """Record the logout, end the stored session and forget this browser session (the cookie is removed)."""
    current = actor()
    if current is not None:
        sessions.logout(db(), current, st.session_state.get("session"))
    _forget_session()


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


RESETS = "_widgets_to_reset"  # key → value each widget takes on the next run (see forget)


def apply_resets() -> None:
    """Give the widgets a saved form left behind their blank values, before any is drawn: popping a
    widget's key is not enough, the browser keeps what it showed and sends it back on the next run
    (issue 22, item 1); a value set through the Session State before the widget exists replaces it."""
    pending = st.session_state.pop(RESETS, None)
    for name, value in (pending or {}).items():
        st.session_state[name] = value
    if pending:
        drafts.forget_page()


def forget(*keys: str, **values: Any) -> None:
    """Empty these widgets on the next run (a form saved): each takes ``values[key]`` when given, else
    the blank of what it held ("" for a text, False for a box, [] for a list, None for a date or a
    choice), set before it is drawn (``common.apply_resets``) so the browser shows it too."""
    pending = st.session_state.setdefault(RESETS, {})
    for name in keys:
        old = st.session_state.pop(name, None)
        pending[name] = values[name] if name in values else _blank(old)


def tabs(labels: list[str], key: str) -> list:
    """``st.tabs`` whose open tab a page, a step or a
    callback chooses by setting ``session_state[key]`` to a label; ``session_state[key]`` then tells
    the open tab.

    Setting the tabs' own widget key is not enough: the browser shows the chosen tab but can keep
    the previous one as the widget's value and send it back with the next click anywhere on the
    page, which then reopens the old tab (a refusal clicked right after a protocol landed on
    "Novo requerimento"). A choice draws a new tab set (a new widget key) that opens on it.
    """
    generation = st.session_state.get(f"{key}__generation", 0)
    wanted, seen = st.session_state.get(key), st.session_state.get(f"{key}__seen")
    if wanted in labels and wanted != seen:
        generation += 1
        st.session_state[f"{key}__generation"] = generation
        st.session_state[f"{key}__default"] = wanted
    default = st.session_state.get(f"{key}__default")
    widget = f"{key}__{generation}"
    made = st.tabs(labels, key=widget, default=default if default in labels else None, on_change="rerun")
    st.session_state[key] = st.session_state[f"{key}__seen"] = st.session_state.get(widget, labels[0])
    return made


def _blank(old: Any) -> Any:
    if isinstance(old, bool):
        return False
    if isinstance(old, (list, tuple)):
        return []
    if isinstance(old, str):
        return ""
    return None


def guard(permission: str) -> Actor:
    """The logged-in actor if the role has ``permission`` in the chosen municipality; else stop."""
    apply_resets()
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
    from services.shared import clock

    return clock.today()


def page_header(title: str, caption: str = "") -> None:
    st.title(title)
    name = municipality_name()
    line = f"Prefeitura de {name}" if name else ""
    if caption:
        line = f"{line} · {caption}" if line else caption
    if line:
        st.caption(line)


# -- widgets in pt-BR: Streamlit's own defaults are English ("Choose options", "YYYY/MM/DD", "empty")

DATE_FORMAT = "DD/MM/YYYY"
CHOOSE = "Escolha..."
EMPTY = "Nenhum registro"


def date_input(container: Any, label: str, value: Any = "today", **kwargs: Any) -> Any:
    """``st.date_input`` as the panel shows dates: dd/mm/aaaa. Call it as
    ``common.date_input(st, "Emissão", key="x_issue")`` or with a column as ``container``."""
    kwargs.setdefault("format", DATE_FORMAT)
    return container.date_input(label, value, **kwargs)


def multiselect(container: Any, label: str, options: Any, **kwargs: Any) -> Any:
    """``st.multiselect`` with a pt-BR placeholder instead of "Choose options"."""
    kwargs.setdefault("placeholder", CHOOSE)
    return container.multiselect(label, options, **kwargs)


def selectbox(container: Any, label: str, options: Any, **kwargs: Any) -> Any:
    """``st.selectbox`` with a pt-BR placeholder instead of "Choose an option"."""
    kwargs.setdefault("placeholder", CHOOSE)
    return container.selectbox(label, options, **kwargs)


def table(frame: Any, container: Any = None, empty: str = EMPTY, **kwargs: Any) -> Any:
    """A read-only table: "Nenhum registro" instead of Streamlit's English "empty" grid, no index,
    full width; the pt-BR CSV/XLSX buttons beside it replace the grid's own download tooltip."""
    place = container if container is not None else st
    if frame is None or len(frame) == 0:
        place.info(empty)
        return None
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    kwargs.setdefault("placeholder", "—")
    return place.dataframe(frame, **kwargs)


def cell_text(value: Any) -> str:
    """A stored value as text for a person: instants in Cuiabá time, dates dd/mm/aaaa, money R$."""
    if value is None:
        return "—"
    if isinstance(value, datetime):
        return clock.to_local(value).strftime("%d/%m/%Y %H:%M:%S")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    if isinstance(value, Decimal):
        from babel.numbers import format_currency

        return format_currency(value, "BRL", locale="pt_BR")
    return str(value)


def flash(key: str) -> None:
    """Show the message an action left in ``st.session_state[key]`` before its rerun: ``(kind, text)``
    or ``(kind, [first, *more])``, the first line as ``kind`` (success, warning…), the rest as warnings."""
    message = st.session_state.pop(key, None)
    if not message:
        return
    kind, text = message
    lines = [text] if isinstance(text, str) else list(text)
    getattr(st, kind)(lines[0])
    for line in lines[1:]:
        st.warning(line)
