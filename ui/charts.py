"""Altair charts of the panel in pt-BR: month names, R$ on the axes, Portuguese number and date locale."""
from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import altair as alt
import pandas as pd

# d3 locales (vega-embed reads them from usermeta.embedOptions): 1.234,56, R$, janeiro…
FORMAT_LOCALE = {"decimal": ",", "thousands": ".", "grouping": [3], "currency": ["R$ ", ""]}
TIME_FORMAT_LOCALE = {
    "dateTime": "%A, %e de %B de %Y. %X", "date": "%d/%m/%Y", "time": "%H:%M:%S", "periods": ["AM", "PM"],
    "days": ["domingo", "segunda", "terça", "quarta", "quinta", "sexta", "sábado"],
    "shortDays": ["dom", "seg", "ter", "qua", "qui", "sex", "sáb"],
    "months": ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
               "outubro", "novembro", "dezembro"],
    "shortMonths": ["jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"],
}
# R$ 1.234,56 on an axis whatever locale the browser applies (d3's en-US output, separators swapped)
BRL_LABEL = ("'R$ ' + replace(replace(replace(format(datum.value, ',.2f'), regexp(',', 'g'), '_'), "
             "regexp('\\\\.', 'g'), ','), regexp('_', 'g'), '.')")


def _pt_br(chart: alt.Chart) -> alt.Chart:
    return chart.properties(usermeta={"embedOptions": {"formatLocale": FORMAT_LOCALE,
                                                       "timeFormatLocale": TIME_FORMAT_LOCALE}})


def grouped_money_bars(rows: Sequence[dict], category: str, series: Sequence[str], title: str,
                       category_title: str) -> alt.Chart:
    """Bars of R$ per ``category`` (kept in the rows' order), one colour per column of ``series``; a
    value hidden by the small-cell rule (its mark, a text) draws no bar."""
    frame = pd.DataFrame([{category: row[category], "Série": name, "Valor": float(Decimal(row[name]))}
                          for row in rows for name in series if not isinstance(row[name], str)],
                         columns=[category, "Série", "Valor"])
    order = list(dict.fromkeys(row[category] for row in rows))
    chart = alt.Chart(frame, title=title).mark_bar().encode(
        x=alt.X(f"{category}:N", sort=order, title=category_title, axis=alt.Axis(labelAngle=0, labelLimit=0)),
        xOffset=alt.XOffset("Série:N", sort=list(series)),
        y=alt.Y("Valor:Q", title="R$", axis=alt.Axis(labelExpr=BRL_LABEL)),
        color=alt.Color("Série:N", sort=list(series), title=None, legend=alt.Legend(orient="bottom", labelLimit=0)),
        tooltip=[alt.Tooltip(f"{category}:N", title=category_title), alt.Tooltip("Série:N", title="Série"),
                 alt.Tooltip("Valor:Q", title="R$", format="$,.2f")],
    )
    return _pt_br(chart)


def month_lines(rows: Sequence[dict], series: dict[str, str], title: str) -> alt.Chart:
    """Counts per month (the rows' ``Mês``, in their order), a line per column of ``series`` (column →
    the legend's name); a value hidden by the small-cell rule (its mark, a text) leaves a gap."""
    frame = pd.DataFrame([{"Mês": row["Mês"], "Série": name, "Quantidade": row[column]}
                          for row in rows for column, name in series.items() if not isinstance(row[column], str)],
                         columns=["Mês", "Série", "Quantidade"])
    chart = alt.Chart(frame, title=title).mark_line(point=True).encode(
        x=alt.X("Mês:N", sort=[row["Mês"] for row in rows], title="Mês", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("Quantidade:Q", title="Quantidade", axis=alt.Axis(format="d", tickMinStep=1)),
        color=alt.Color("Série:N", sort=list(series.values()), title=None, legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("Mês:N"), alt.Tooltip("Série:N"), alt.Tooltip("Quantidade:Q", format="d")],
    )
    return _pt_br(chart)
