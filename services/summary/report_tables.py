"""Every table of the mayor's office summary as export rows: what the page, the XLSX workbook, the
Relatório gerencial and the checks of the tests read. pt-BR headers and typed cells; aggregates only,
nothing here names a person. Every breakdown goes through ``services.shared.privacy.suppress``
(LGPD, Lei 13.709/2018): a count of 1 or 2 is "< 3" with every amount of its cell, and where the
cells add up to a shown figure a second one is "X" so that the first cannot be recovered by
subtraction."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules import fmt
from rules.dam.charges import BUCKET_LABELS
from rules.dam.parameters import REVENUE_KINDS
from services.shared.privacy import suppress
from services.summary import periods, text
from services.summary.figures import EXPIRING_DAYS, ZERO, FinesFigures, Summary

Rows = list[dict[str, Any]]
FINES_KIND = REVENUE_KINDS["multa"]


def hide(rows: Rows, counts: Sequence[int], columns: Sequence[str], total_known: bool = True,
         total_row: dict[str, Any] | None = None) -> Rows:
    """``rows`` with the cells of ``columns`` (a count and its amounts, one breakdown) replaced by the
    marks ``suppress`` gives ``counts`` (one per row); ``total_row``, shown below them, takes the mark
    of the total."""
    marks, total = suppress(counts, total_known or total_row is not None)
    for row, mark in zip(rows, marks):
        if mark:
            row.update(dict.fromkeys(columns, mark))
    if total_row is not None:
        if total:
            total_row.update(dict.fromkeys(columns, total))
        rows.append(total_row)
    return rows


def _number(value: Any) -> str:
    return "—" if value is None else str(value).replace(".", ",")


def _compliance(ok: bool | None) -> str:
    return {True: "Em dia", False: "Pendente", None: "Sem dados"}[ok]


def tables(figures: Summary) -> dict[str, list[dict[str, Any]]]:
    """Every table of the summary as export rows (pt-BR headers, typed cells), each breakdown with the
    marks of ``hide`` (aggregates only: nothing here names a person)."""
    out: dict[str, list[dict[str, Any]]] = {
        "Indicadores": [{"Indicador": k.label, "Período": text.kpi_value(k),
                         "Comparação": text.kpi_previous(k), "Variação": text.change_text(k) or "—"}
                        for k in figures.kpis],
    }
    before = figures.revenue_year_before.by_kind()
    kinds = figures.revenue.by_kind()
    ordered = sorted(kinds.items())
    rows = [{
        "Receita": kind, "Emitidos (qtd.)": line.issued_count, "Emitidos (R$)": line.issued,
        "Pagos (qtd.)": line.paid_count, "Pagos (R$)": line.paid,
        "Vencidos (qtd.)": line.overdue_count, "Vencidos (R$)": line.overdue,
        "Pagos no mesmo período do ano anterior (R$)": before[kind].paid if kind in before else ZERO,
    } for kind, line in ordered]
    for measure, columns in (("issued", ("Emitidos (qtd.)", "Emitidos (R$)")), ("paid", ("Pagos (qtd.)", "Pagos (R$)")),
                             ("overdue", ("Vencidos (qtd.)", "Vencidos (R$)"))):
        hide(rows, [getattr(line, f"{measure}_count") for _kind, line in ordered], columns)
    hide(rows, [before[kind].paid_count if kind in before else 0 for kind, _line in ordered],
         ("Pagos no mesmo período do ano anterior (R$)",))
    out["Arrecadação por receita"] = rows
    months = figures.period.months()
    measures = {m: figures.revenue.by_month(m) for m in ("paid", "issued", "overdue", "paid_count", "issued_count",
                                                          "overdue_count")}
    before_months = [periods.day_a_year_before(month) for month in months]
    paid_before, paid_before_count = (figures.revenue_year_before.by_month(m) for m in ("paid", "paid_count"))
    rows = [{
        "Mês": text.month_label(month), "Emitidos (R$)": measures["issued"].get(month, ZERO),
        "Pagos (R$)": measures["paid"].get(month, ZERO), "Vencidos (R$)": measures["overdue"].get(month, ZERO),
        "Pagos no mesmo mês do ano anterior (R$)": paid_before.get(before_month, ZERO),
    } for month, before_month in zip(months, before_months)]
    for measure, column in (("issued", "Emitidos (R$)"), ("paid", "Pagos (R$)"), ("overdue", "Vencidos (R$)")):
        hide(rows, [measures[f"{measure}_count"].get(month, 0) for month in months], (column,))
    hide(rows, [paid_before_count.get(month, 0) for month in before_months],
         ("Pagos no mesmo mês do ano anterior (R$)",))
    out["Arrecadação por mês"] = rows
    d = figures.revenue.differences
    marks = text.difference_marks(d)
    out["Valor emitido × valor pago"] = [
        {"Item": item, "DAM (qtd.)": (marks[key] if key != "face" else marks["received"]) or count,
         "Valor (R$)": marks[key] or value}
        for key, item, count, value in (
            ("face", "Valor emitido dos DAM pagos", d.paid_count, d.face_value),
            ("short", "Pagos a menor (falta)", d.short_count, -d.short),
            ("over", "Pagos a maior (excesso)", d.over_count, d.over),
            ("received", "Valor recebido", d.paid_count, d.received),
            ("late", "dos quais pagos após o vencimento", d.late_count, d.late))]
    owed = figures.debts
    if owed is not None:
        aging = [{"Vencido há": BUCKET_LABELS[key], "Débitos (qtd.)": count, "Em aberto (R$)": amount}
                 for key, (count, amount) in owed.aging.items()]
        out["Débitos por tempo de atraso"] = hide(
            aging, [count for count, _amount in owed.aging.values()], ("Débitos (qtd.)", "Em aberto (R$)"),
            total_row={"Vencido há": "Total", "Débitos (qtd.)": sum(c for c, _a in owed.aging.values()),
                       "Em aberto (R$)": owed.owed})
        out["Débitos lançados × pagos"] = hide([
            {"Período": "Período", "Débitos lançados (qtd.)": owed.issued_count, "Valor lançado (R$)": owed.issued,
             "Pago (R$)": owed.paid, "Parcela paga": text.share_text(owed.paid_share)},
            {"Período": "Período anterior", "Débitos lançados (qtd.)": owed.previous_count,
             "Valor lançado (R$)": owed.previous_issued, "Pago (R$)": owed.previous_paid,
             "Parcela paga": text.share_text(owed.previous_paid_share)}],
            [owed.issued_count, owed.previous_count],
            ("Débitos lançados (qtd.)", "Valor lançado (R$)", "Pago (R$)", "Parcela paga"), total_known=False)
    ride = figures.ride_hailing
    if ride is not None:
        counts = (("Autorizações ativas no último dia", ride.active), ("Autorizações novas", ride.new),
                  ("Renovações", ride.renewed), (f"A vencer em {EXPIRING_DAYS} dias", ride.expiring),
                  ("Suspensas no último dia", ride.suspended), ("Cassadas no período", ride.cassadas),
                  ("Condutores cadastrados", ride.drivers), ("Veículos cadastrados", ride.vehicles),
                  ("Vistorias realizadas", ride.inspections_done), ("Vistorias reprovadas", ride.inspections_failed),
                  ("Vistorias em atraso no último dia", ride.inspections_overdue))
        average = _number(ride.average_days_to_authorization)
        rows = [{"Indicador": label, "Valor": count} for label, count in counts] + [
            {"Indicador": "Dias do protocolo à autorização (média)", "Valor": average}]
        out["Indicadores do transporte"] = hide(rows, [count for _label, count in counts] + [ride.new], ("Valor",),
                                                total_known=False)  # the average stands on the new ones
        out["Autorizações por situação"] = hide([{"Situação": label, "Quantidade": count}
                                                 for label, count in ride.by_status.items()],
                                                list(ride.by_status.values()), ("Quantidade",), total_known=False)
        out["Plataformas"] = [{"Plataforma": p.name, "Seguro APP": _compliance(p.insurance),
                               "Relações de condutores e veículos": _compliance(p.lists),
                               "ISSQN": _compliance(p.issqn)} for p in ride.platforms]
    fines = figures.fines
    if fines is not None:
        out["Multas"] = _fines(fines, next((r for r in out["Arrecadação por receita"]
                                            if r["Receita"] == FINES_KIND), {}))
    bookings = figures.bookings
    if bookings is not None:
        for title, header, counts in (("Pedidos de serviço por zona", "Zona", bookings.by_zone),
                                      ("Pedidos por serviço", "Serviço", bookings.by_service),
                                      ("Pedidos por etapa", "Etapa", bookings.by_stage)):
            out[title] = hide([{header: k, "Pedidos": v} for k, v in counts.items()], list(counts.values()),
                              ("Pedidos",))
        out["Máquinas: horas e uso"] = [
            {"Máquina ou veículo": name, "Horas trabalhadas": _number(bookings.hours_per_asset.get(name)),
             "Dias agendados / dias úteis (%)": _number(bookings.utilization_per_asset.get(name))}
            for name in sorted({*bookings.hours_per_asset, *bookings.utilization_per_asset})]
        criteria = bookings.discounts_count_by_criterion
        values = (
            ("Espera do protocolo à execução — mediana (dias)", _number(bookings.waiting_median_days),
             bookings.waiting_count),
            ("Espera do protocolo à execução — 90º percentil (dias)", _number(bookings.waiting_p90_days),
             bookings.waiting_count),
            ("Descontos concedidos (R$)", fmt.brl(bookings.discounts), sum(criteria.values())),
            ("Saldos vencidos (R$)", fmt.brl(bookings.balances_overdue), bookings.balances_overdue_count),
            ("Créditos a devolver (R$)", fmt.brl(bookings.credits_to_return), bookings.credits_count),
        )
        rows = hide([{"Indicador": label, "Valor": value} for label, value, _n in values],
                    [n for _label, _value, n in values], ("Valor",), total_known=False)
        out["Agendamentos: prazos e valores"] = rows + hide(
            [{"Indicador": f"Descontos — {k}", "Valor": v} for k, v in criteria.items()], list(criteria.values()),
            ("Valor",), total_known=False)
    out.update(trend_tables(figures))
    if figures.waiting:
        out["Aguardando decisão"] = hide(
            [{"Aguardando": w.label, "Quantidade": w.count, "Mais antigo (dias)": w.oldest_days,
              "Média (dias)": _number(w.average_days) if w.count else "—"} for w in figures.waiting],
            [w.count for w in figures.waiting], ("Quantidade", "Mais antigo (dias)", "Média (dias)"),
            total_known=False)
    return out


def side_by_side(summaries: list[Summary]) -> Rows:
    """The headline figures and what waits for a decision of several municipalities, a column each
    (the same cells, marks included, as each one's Resumo); "—" where a municipality has no such figure."""
    labels: dict[str, None] = {}
    cells: list[dict[str, str]] = []
    for figures in summaries:
        mine = {k.label: text.kpi_value(k) for k in figures.kpis}
        for row in tables(figures).get("Aguardando decisão", []):
            mine[row["Aguardando"]] = str(row["Quantidade"])
        labels.update(dict.fromkeys(mine))
        cells.append(mine)
    return [{"Indicador": label, **{f.municipality_name: mine.get(label, "—") for f, mine in zip(summaries, cells)}}
            for label in labels]


YEAR_BEFORE = " (ano anterior)"
TREND_TABLES = {"Tendências do transporte por mês": ("active", "autos_"),
                "Tendências dos pedidos de serviço por mês": ("served", "waiting")}


def trend_tables(figures: Summary) -> dict[str, Rows]:
    """The trends month by month, a column per figure and one for the same month of the year before,
    each column a breakdown of its own (a flow's months add up to the period's figure)."""
    out: dict[str, Rows] = {}
    for title, prefixes in TREND_TABLES.items():
        chosen = [t for t in figures.trends if t.key.startswith(prefixes)]
        if not chosen:
            continue
        rows: Rows = [{"Mês": text.month_label(month)} for month in chosen[0].months]
        for trend in chosen:
            for column, values in ((trend.label, trend.values), (trend.label + YEAR_BEFORE, trend.year_before)):
                for row, value in zip(rows, values):
                    row[column] = value
                hide(rows, list(values), (column,), total_known=trend.flow)
        out[title] = rows
    return out


def _fines(fines: FinesFigures, kind_row: dict[str, Any]) -> Rows:
    """The fines' DAMs (the marks of the fines' row of "Arrecadação por receita": the same cells, hidden
    alike) and the autos by severity and by stage, two breakdowns of the autos lavrados."""
    rows: Rows = []
    for situation, column, count, value in (
            ("Emitidas", "Emitidos (qtd.)", fines.issued_count, fines.issued),
            ("Pagas", "Pagos (qtd.)", fines.paid_count, fines.paid),
            ("Vencidas no último dia", "Vencidos (qtd.)", fines.overdue_count, fines.overdue)):
        mark = kind_row.get(column) if isinstance(kind_row.get(column), str) else None
        rows.append({"Situação": situation, "Quantidade": mark or count, "Valor (R$)": mark or value})
    for name, counts in (("gravidade", fines.by_severity), ("fase:", fines.by_stage)):
        rows += hide([{"Situação": f"Autos — {name} {k}", "Quantidade": v, "Valor (R$)": None}
                      for k, v in counts.items()], list(counts.values()), ("Quantidade",))
    return rows
