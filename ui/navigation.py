"""The pages of the panel, who may open them, and which municipal module they belong to."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from services.auth import Actor


@dataclass(frozen=True)
class PageDef:
    path: str
    title: str
    icon: str
    section: str
    permission: str
    module: str | None = None


PAGES = (
    PageDef("pages/home.py", "Início", ":material/home:", "Painel", "summary"),
    PageDef("pages/summary.py", "Resumo", ":material/insights:", "Painel", "summary"),
    PageDef("pages/taxpayers.py", "Contribuintes", ":material/badge:", "Cadastros", "write"),
    PageDef("pages/dams.py", "DAM", ":material/receipt_long:", "Arrecadação", "write"),
    PageDef("pages/platforms.py", "Plataformas", ":material/apps:", "Transporte por aplicativo", "write", "transporte"),
    PageDef("pages/drivers.py", "Condutores", ":material/person:", "Transporte por aplicativo", "write", "transporte"),
    PageDef("pages/vehicles.py", "Veículos", ":material/directions_car:", "Transporte por aplicativo", "write",
            "transporte"),
    PageDef("pages/authorizations.py", "Autorizações", ":material/verified:", "Transporte por aplicativo", "write",
            "transporte"),
    PageDef("pages/inspections.py", "Vistorias", ":material/fact_check:", "Transporte por aplicativo", "write",
            "transporte"),
    PageDef("pages/autos.py", "Autos de infração", ":material/gavel:", "Transporte por aplicativo", "write",
            "transporte"),
    PageDef("pages/platform_obligations.py", "Obrigações das plataformas", ":material/rule:", "Transporte por aplicativo",
            "write", "transporte"),
    PageDef("pages/pendencias.py", "Pendências", ":material/pending_actions:", "Transporte por aplicativo", "write",
            "transporte"),
    PageDef("pages/machinery_requests.py", "Solicitações", ":material/assignment:", "Serviços de máquinas", "write",
            "maquinas"),
    PageDef("pages/machinery_schedule.py", "Agenda", ":material/calendar_month:", "Serviços de máquinas", "write",
            "maquinas"),
    PageDef("pages/machinery_execution.py", "Execução", ":material/construction:", "Serviços de máquinas", "write",
            "maquinas"),
    PageDef("pages/machinery_pending.py", "Pendências do módulo", ":material/pending_actions:", "Serviços de máquinas",
            "write", "maquinas"),
    PageDef("pages/machinery_requesters.py", "Solicitantes", ":material/person_pin:", "Serviços de máquinas", "write",
            "maquinas"),
    PageDef("pages/machinery_registers.py", "Bens e operadores", ":material/agriculture:", "Serviços de máquinas",
            "write", "maquinas"),
    PageDef("pages/users.py", "Usuários", ":material/group:", "Administração (TI)", "admin"),
    PageDef("pages/deployment.py", "Implantação", ":material/checklist:", "Administração (TI)", "admin"),
    PageDef("pages/parameters.py", "Parâmetros", ":material/tune:", "Administração (TI)", "admin"),
    PageDef("pages/price_table.py", "Tabela de preços", ":material/price_change:", "Administração (TI)", "admin",
            "maquinas"),
    PageDef("pages/localities.py", "Zonas e localidades", ":material/map:", "Administração (TI)", "admin",
            "maquinas"),
    PageDef("pages/custom_fields.py", "Campos personalizados", ":material/edit_note:", "Administração (TI)", "admin"),
    PageDef("pages/audit.py", "Auditoria", ":material/history:", "Administração (TI)", "admin"),
    PageDef("pages/explorer.py", "Explorador de dados", ":material/database:", "Administração (TI)", "admin"),
)


def visible_pages(actor: Actor, modules: tuple[str, ...]) -> list[PageDef]:
    """Pages the actor's role may open, for the modules the municipality has enabled."""
    return [p for p in PAGES if actor.can(p.permission) and (p.module is None or p.module in modules)]


def build(actor: Actor, modules: tuple[str, ...]) -> dict[str, list]:
    sections: dict[str, list] = {}
    for page in visible_pages(actor, modules):
        sections.setdefault(page.section, []).append(
            st.Page(page.path, title=page.title, icon=page.icon, default=page.path == "pages/home.py")
        )
    return sections
