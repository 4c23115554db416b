"""The mayor's office figures as the pages read them: one cached computation per municipality, period,
comparison and data version (the Resumo and the gabinete's Início share it)."""
from __future__ import annotations

from datetime import date

import streamlit as st

from services.summary import summary, text
from services.summary.figures import Kpi, Summary
from ui import common


@st.cache_data(ttl=600, show_spinner="Calculando os números…", max_entries=64)
def _figures(_actor, username: str, municipality: str, start: date, end: date, compare: str,
             version: str) -> Summary:
    """The figures under one data version (the latest audited write): recomputed after any write."""
    return summary.summary(common.db(), _actor, municipality, start, end, compare)


@st.cache_data(ttl=600, show_spinner="Gerando o relatório…", max_entries=16)
def _report(_actor, username: str, municipality: str, start: date, end: date, compare: str, version: str) -> bytes:
    return summary.report_pdf(common.db(), _actor, municipality, start, end, compare)


def figures(actor, municipality: str, start: date, end: date, compare: str = summary.YEAR_BEFORE
            ) -> tuple[bool, Summary | None]:
    """(ok, figures) of the municipality and period; a pt-BR message on the page when not ok."""
    ok, version = common.attempt(summary.data_version, common.db(), actor, municipality)
    if not ok:
        return False, None
    return common.attempt(_figures, actor, actor.username, municipality, start, end, compare, version)


def report(actor, municipality: str, start: date, end: date, compare: str) -> bytes:
    """The Relatório gerencial PDF of the same figures (built when the button is pressed)."""
    version = summary.data_version(common.db(), actor, municipality)
    return _report(actor, actor.username, municipality, start, end, compare, version)


WORSE_WHEN_UP = ("overdue", "inspections_overdue", "days_to_authorization", "waiting", "balances_overdue")


def metrics(kpis: tuple[Kpi, ...], per_row: int = 3) -> None:
    """The headline figures, each with its change (red when a rise is bad news, as for the overdue)."""
    columns = st.columns(per_row)
    for index, kpi in enumerate(kpis):
        change = text.change_text(kpi)  # None beside a hidden value
        columns[index % per_row].metric(
            kpi.label, text.kpi_value(kpi), delta=change,
            delta_color="off" if not change or not kpi.change else "inverse" if kpi.key in WORSE_WHEN_UP else "normal",
            delta_arrow="auto" if change and kpi.change else "off")
