"""The pages of the panel, who may open them, and which municipal module they belong to."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import quote

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from services.shared.auth import Actor

LOGIN = "app_pages/login.py"
SIGNING_IN = "app_pages/signing_in.py"
HOME = "app_pages/home.py"
NOTICE = "nav_notice"
REQUESTED = "nav_requested"


@dataclass(frozen=True)
class PageDef:
    path: str
    title: str
    icon: str
    section: str
    permission: str
    module: str | None = None


RIDE, MACHINERY, ADMIN = "Transporte por aplicativo", "Serviços de máquinas", "Administração (TI)"
PAGES = (
    PageDef("app_pages/home.py", "Início", ":material/home:", "Painel", "summary"),
    PageDef("app_pages/summary.py", "Resumo", ":material/insights:", "Painel", "summary"),
    PageDef("app_pages/search.py", "Busca", ":material/search:", "Painel", "write"),
    PageDef("app_pages/taxpayers.py", "Contribuintes", ":material/badge:", "Cadastros", "write"),
    PageDef("app_pages/dams.py", "DAM", ":material/receipt_long:", "Arrecadação", "write"),
    PageDef("app_pages/debts.py", "Débitos", ":material/account_balance_wallet:", "Arrecadação", "write"),
    PageDef("app_pages/platforms.py", "Plataformas", ":material/apps:", RIDE, "write", "transporte"),
    PageDef("app_pages/drivers.py", "Condutores", ":material/person:", RIDE, "write", "transporte"),
    PageDef("app_pages/vehicles.py", "Veículos", ":material/directions_car:", RIDE, "write", "transporte"),
    PageDef("app_pages/authorizations.py", "Autorizações", ":material/verified:", RIDE, "write", "transporte"),
    PageDef("app_pages/inspections.py", "Vistorias", ":material/fact_check:", RIDE, "write", "transporte"),
    PageDef("app_pages/autos.py", "Autos de infração", ":material/gavel:", RIDE, "write", "transporte"),
    PageDef("app_pages/platform_obligations.py", "Obrigações das plataformas", ":material/rule:", RIDE, "write",
            "transporte"),
    PageDef("app_pages/portal_accounts.py", "Portal dos regulados", ":material/passkey:", RIDE, "write",
            "transporte"),
    PageDef("app_pages/pendencias.py", "Pendências", ":material/pending_actions:", RIDE, "write", "transporte"),
    PageDef("app_pages/machinery_requests.py", "Solicitações", ":material/assignment:", MACHINERY, "write", "maquinas"),
    PageDef("app_pages/machinery_schedule.py", "Agenda", ":material/calendar_month:", MACHINERY, "write", "maquinas"),
    PageDef("app_pages/machinery_execution.py", "Execução", ":material/construction:", MACHINERY, "write", "maquinas"),
    PageDef("app_pages/machinery_pending.py", "Pendências do módulo", ":material/pending_actions:", MACHINERY,
            "write", "maquinas"),
    PageDef("app_pages/machinery_requesters.py", "Solicitantes", ":material/person_pin:", MACHINERY, "write",
            "maquinas"),
    PageDef("app_pages/machinery_registers.py", "Bens e operadores", ":material/agriculture:", MACHINERY, "write",
            "maquinas"),
    PageDef("app_pages/users.py", "Usuários", ":material/group:", ADMIN, "admin"),
    PageDef("app_pages/deployment.py", "Implantação", ":material/checklist:", ADMIN, "admin"),
    PageDef("app_pages/parameters.py", "Parâmetros", ":material/tune:", ADMIN, "admin"),
    PageDef("app_pages/price_table.py", "Tabela de preços", ":material/price_change:", ADMIN, "admin", "maquinas"),
    PageDef("app_pages/localities.py", "Zonas e localidades", ":material/map:", ADMIN, "admin", "maquinas"),
    PageDef("app_pages/custom_fields.py", "Campos personalizados", ":material/edit_note:", ADMIN, "admin"),
    PageDef("app_pages/register_definitions.py", "Cadastros definidos", ":material/dataset:", ADMIN, "admin"),
    PageDef("app_pages/audit.py", "Auditoria", ":material/history:", ADMIN, "admin"),
    PageDef("app_pages/explorer.py", "Explorador de dados", ":material/database:", ADMIN, "admin"),
)


def visible_pages(actor: Actor, modules: tuple[str, ...]) -> list[PageDef]:
    """Pages the actor's role may open, for the modules the municipality has enabled."""
    return [p for p in PAGES if actor.can(p.permission) and (p.module is None or p.module in modules)]


def url_path(page: PageDef) -> str:
    """The address of a page, as Streamlit derives it from the file name (``authorizations``)."""
    return PurePosixPath(page.path).stem


def requested_path() -> str:
    """The page address the browser asked for (``authorizations`` for a bookmark of /authorizations).

    Streamlit resolves it inside ``st.navigation`` and, when no page has that address, shows its own
    English "Page not found" window; the panel reads it first so it can always offer a page there.
    Only the run that opens the address names it (the reruns name the page by its hash), so it is
    kept for the browser session: the login form drawn at an unknown address must still be there
    when it is submitted, or Streamlit would draw another page and drop what was typed.
    """
    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    asked = str(getattr(manager, "intended_page_name", "") or "").strip("/")
    if asked:
        st.session_state[REQUESTED] = asked
    return asked or st.session_state.get(REQUESTED, "")


def _addressable(path: str) -> bool:
    return bool(path) and "/" not in path


def _not_available() -> None:
    """Stand-in for an address the user may not open: back to Início with a pt-BR notice."""
    st.session_state[NOTICE] = "A página pedida não existe ou não está disponível para o seu perfil; " \
                               "você está no Início."
    st.switch_page(HOME)


def for_visitor(requested: str, script: str = LOGIN) -> list:
    """The login page (or ``script``) at the root and at every address a bookmark may hold, so the
    address survives the login and the user lands on the page asked for right after it."""
    paths = {url_path(p) for p in PAGES}
    if _addressable(requested):
        paths.add(requested)
    return [st.Page(script, title="Entrar", icon=":material/login:", default=True)] + [
        st.Page(script, title="Entrar", icon=":material/login:", url_path=path, visibility="hidden")
        for path in sorted(paths)
    ]


DEFINED_PAGE = "app_pages/register_records.py"  # serves every register defined by municipal IT
DEFINED_PREFIX = "cadastro_"
DEFINED_KEY = "defined_register"  # the register the page serves, set by app.py from the address


def defined_path(name: str) -> str:
    """The address of a defined register's page (``cadastro_bancas_feira``)."""
    return DEFINED_PREFIX + name


def defined_register_of(page) -> str | None:
    """The defined register a page of the navigation serves (None for every other page)."""
    path = str(getattr(page, "url_path", "") or "")
    return path[len(DEFINED_PREFIX):] if path.startswith(DEFINED_PREFIX) else None


def build(actor: Actor, modules: tuple[str, ...], requested: str = "",
          registers: tuple[tuple[str, str], ...] = ()) -> dict[str, list]:
    """The navigation of the actor's role; an address they may not open leads to Início with a notice.
    ``registers`` are the (identifier, plural label) of the defined registers the actor may read here."""
    sections: dict[str, list] = {}
    for page in visible_pages(actor, modules):
        sections.setdefault(page.section, []).append(
            st.Page(page.path, title=page.title, icon=page.icon, default=page.path == HOME)
        )
    for name, label in registers:
        sections.setdefault("Cadastros", []).append(
            st.Page(DEFINED_PAGE, title=label, icon=":material/dataset:", url_path=defined_path(name)))
    shown = {url_path(p) for p in visible_pages(actor, modules)} | {defined_path(n) for n, _ in registers}
    if _addressable(requested) and requested not in shown:
        sections.setdefault("", []).append(
            st.Page(_not_available, title="Início", url_path=requested, visibility="hidden"))
    return sections


# The page where each collection's records are opened (the audit log links there with ``?id=``).
RECORD_PAGES = {"taxpayers": "app_pages/taxpayers.py", "dams": "app_pages/dams.py", "charges": "app_pages/debts.py",
                "platforms": "app_pages/platforms.py", "drivers": "app_pages/drivers.py",
                "vehicles": "app_pages/vehicles.py", "authorizations": "app_pages/authorizations.py",
                "autos": "app_pages/autos.py", "booking_requests": "app_pages/machinery_requests.py",
                "machinery_requesters": "app_pages/machinery_requesters.py",
                "users": "app_pages/users.py", "parameters": "app_pages/parameters.py"}


# The session key each record page reads to open one record (its picker or "go to" key).
OPEN_KEYS = {"taxpayers": "taxpayers_open", "dams": "dams_open", "charges": "debts_open", "platforms": "plat_open",
             "drivers": "drivers_open", "vehicles": "vehicles_open", "authorizations": "auth_goto",
             "autos": "autos_open_next", "booking_requests": "req_open",
             "machinery_requesters": "machinery_requesters_open",
             "users": "users_edit_target", "parameters": "params_name"}
# The tab a record opens in, on pages whose tabs a page may choose (ui.common.tabs).
OPEN_TABS = {"taxpayers": ("taxpayers_tabs", "Lista"), "platforms": ("plat_tabs", "Lista"),
             "drivers": ("drivers_tabs", "Lista"), "vehicles": ("vehicles_tabs", "Lista"),
             "machinery_requesters": ("machinery_requesters_tabs", "Lista"),
             "autos": ("autos_tab", "Processo do auto")}
SWITCH_MUNICIPALITY = "nav_municipality"  # app.py chooses it in the sidebar before drawing it
# Pages that pick a record by its key (the username, the parameter's name), not by its id.
OPENED_BY_KEY = frozenset({"users", "parameters"})


def linked_record(url_path: str, record_id: str | None) -> tuple[str, str] | None:
    """The (session key, id) that opens the record a link ``/<page>?id=...`` names, or None."""
    if not record_id:
        return None
    for collection, path in RECORD_PAGES.items():
        if PurePosixPath(path).stem == url_path and collection in OPEN_KEYS:
            return OPEN_KEYS[collection], record_id
    return None


def open_linked_record(page) -> None:
    """A link from the audit log (``/drivers?id=...``) opens that record on its page, once."""
    record_id = st.query_params.get("id")
    found = linked_record(getattr(page, "url_path", ""), record_id)
    if found:
        st.session_state[found[0]] = found[1]
    if record_id:
        del st.query_params["id"]


def record_link(collection: str, doc_id: str | None, key: str | None = None) -> str | None:
    """The address of the page that opens a record (``/drivers?id=...``, ``/users?id=<username>``);
    None when no page opens it."""
    path = RECORD_PAGES.get(collection)
    ident = key if collection in OPENED_BY_KEY else doc_id
    if path is None or not ident:
        return None
    return f"/{PurePosixPath(path).stem}?id={quote(str(ident), safe='')}"


def open_record(collection: str, record_id: str, municipality: str) -> None:
    """Open a record on its page, in its municipality (a result of the Busca, a link of Início); a
    collection without a page of its own is a defined register, opened on its register's page."""
    defined = collection not in RECORD_PAGES
    st.session_state[f"{collection}_open" if defined else OPEN_KEYS[collection]] = record_id
    if defined or collection in OPEN_TABS:
        key, label = (f"{collection}_tabs", "Lista") if defined else OPEN_TABS[collection]
        st.session_state[key] = label
    if municipality != st.session_state.get("municipality"):
        st.session_state[SWITCH_MUNICIPALITY] = municipality
    st.switch_page(st.Page(DEFINED_PAGE, url_path=defined_path(collection)) if defined else RECORD_PAGES[collection])


SEARCH_TERM, SEARCH_GO = "search_term", "nav_search_go"


def search_typed() -> None:
    """The sidebar's box: its term goes to the Busca page, and the box is emptied for the next one."""
    st.session_state[SEARCH_TERM] = st.session_state.get("nav_search", "")
    st.session_state["nav_search"] = ""
    st.session_state[SEARCH_GO] = True
