"""Every table of the mayor's office summary as export rows: what the page, the XLSX workbook and the
CSV, the Relatório gerencial and the checks of the tests read. pt-BR headers and typed cells;
aggregates only, nothing here names a person.

The small-cell rule (``services.shared.privacy.suppress``, LGPD, Lei 13.709/2018) covers the figures
about people listed below, and only for a reader who does not see the records (the gabinete,
``Summary.small_cells``): a count of 1 or 2 is "< 3" with every amount of its cell, and where the cells
add up to a shown figure a second one is "X" so that the first cannot be recovered by subtraction.
The municipality's revenue (public by law, LC 101/2000 art. 48-A II) and the secretariat's own
workload are never hidden (issue 35 item 8)."""
from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from rules import fmt
from rules.dam.charges import BUCKET_LABELS
from rules.ridehailing.lifecycle import LABELS, Status
from services.shared.privacy import suppress
from services.summary import periods, text
from services.summary.figures import EXPIRING_DAYS, ZERO, FinesFigures, Summary

Rows = list[dict[str, Any]]

# The figures about people, the only ones the small-cell rule hides: a sanction or another decision
# against a person, persons by a category of their own (a social criterion of a discount), a locality.
AGAINST_A_PERSON = frozenset(LABELS[s] for s in (Status.REFUSED, Status.SUSPENDED, Status.REVOKED, Status.CASSADA))
SANCTION_INDICATORS = ("Suspensas no último dia", "Cassadas no período")
SANCTION_TRENDS = ("autos_lavrados", "autos_decided")  # autos lavrados and decided: each one a person's sanction


def hide(figures: Summary, rows: Rows, counts: Sequence[int], columns: Sequence[str], total_known: bool = True,
         people: Sequence[bool] | None = None) -> Rows:
    """``rows`` with the cells of ``columns`` (a count and its amounts, one breakdown of figures about
    people; ``people`` flags the rows that are, all when not given) replaced by the marks ``suppress``
    gives ``counts`` (one per row) — for the gabinete only (``figures.small_cells``)."""
    if not figures.small_cells:
        return rows
    marks, _total = suppress(counts, total_known, people)
    for row, mark in zip(rows, marks):
        if mark:
            row.update(dict.fromkeys(columns, mark))
    return rows


def _number(value: Any) -> str:
    return "—" if value is None else str(value).replace(".", ",")


def _compliance(ok: bool | None) -> str:
    return {True: "Em dia", False: "Pendente", None: "Sem dados"}[ok]


def tables(figures: Summary) -> dict[str, list[dict[str, Any]]]:
    """Every table of the summary as export rows (pt-BR headers, typed cells), the figures about people
    with the marks of ``hide`` (aggregates only: nothing here names a person)."""
    out: dict[str, list[dict[str, Any]]] = {
        "Indicadores": [{"Indicador": k.label, "Período": text.kpi_value(k),
                         "Comparação": text.kpi_previous(k), "Variação": text.change_text(k) or "—"}
                        for k in figures.kpis],
    }
    before = figures.revenue_year_before.by_kind()
    out["Arrecadação por receita"] = [{
        "Receita": kind, "Emitidos (qtd.)": line.issued_count, "Emitidos (R$)": line.issued,
        "Pagos (qtd.)": line.paid_count, "Pagos (R$)": line.paid,
        "Vencidos (qtd.)": line.overdue_count, "Vencidos (R$)": line.overdue,
        "Pagos no mesmo período do ano anterior (R$)": before[kind].paid if kind in before else ZERO,
    } for kind, line in sorted(figures.revenue.by_kind().items())]
    measures = {m: figures.revenue.by_month(m) for m in ("paid", "issued", "overdue")}
    paid_before = figures.revenue_year_before.by_month("paid")
    out["Arrecadação por mês"] = [{
        "Mês": text.month_label(month), "Emitidos (R$)": measures["issued"].get(month, ZERO),
        "Pagos (R$)": measures["paid"].get(month, ZERO), "Vencidos (R$)": measures["overdue"].get(month, ZERO),
        "Pagos no mesmo mês do ano anterior (R$)": paid_before.get(periods.day_a_year_before(month), ZERO),
    } for month in figures.period.months()]
    d = figures.revenue.differences
    out["Valor emitido × valor pago"] = [
        {"Item": item, "DAM (qtd.)": count, "Valor (R$)": value}
        for item, count, value in (
            ("Valor emitido dos DAM pagos", d.paid_count, d.face_value),
            ("Pagos a menor (falta)", d.short_count, -d.short),
            ("Pagos a maior (excesso)", d.over_count, d.over),
            ("Valor recebido", d.paid_count, d.received),
            ("dos quais pagos após o vencimento", d.late_count, d.late))]
    owed = figures.debts
    if owed is not None:
        out["Débitos por tempo de atraso"] = [
            {"Vencido há": BUCKET_LABELS[key], "Débitos (qtd.)": count, "Em aberto (R$)": amount}
            for key, (count, amount) in owed.aging.items()] + [
            {"Vencido há": "Total", "Débitos (qtd.)": sum(c for c, _a in owed.aging.values()),
             "Em aberto (R$)": owed.owed}]
        out["Débitos lançados × pagos"] = [
            {"Período": "Período", "Débitos lançados (qtd.)": owed.issued_count, "Valor lançado (R$)": owed.issued,
             "Pago (R$)": owed.paid, "Parcela paga": text.share_text(owed.paid_share)},
            {"Período": "Período anterior", "Débitos lançados (qtd.)": owed.previous_count,
             "Valor lançado (R$)": owed.previous_issued, "Pago (R$)": owed.previous_paid,
             "Parcela paga": text.share_text(owed.previous_paid_share)}]
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
        out["Indicadores do transporte"] = hide(
            figures, rows, [count for _label, count in counts] + [0], ("Valor",), total_known=False,
            people=[label in SANCTION_INDICATORS for label, _count in counts] + [False])
        out["Autorizações por situação"] = hide(
            figures, [{"Situação": label, "Quantidade": count} for label, count in ride.by_status.items()],
            list(ride.by_status.values()), ("Quantidade",), total_known=False,
            people=[label in AGAINST_A_PERSON for label in ride.by_status])
        out["Plataformas"] = [{"Plataforma": p.name, "Seguro APP": _compliance(p.insurance),
                               "Relações de condutores e veículos": _compliance(p.lists),
                               "ISSQN": _compliance(p.issqn)} for p in ride.platforms]
    fines = figures.fines
    if fines is not None:
        out["Multas"] = _fines(figures, fines)
        out["Notificações por canal"] = notices(fines)
    bookings = figures.bookings
    if bookings is not None:
        out["Pedidos de serviço por zona"] = hide(
            figures, [{"Zona": k, "Pedidos": v} for k, v in bookings.by_zone.items()], list(bookings.by_zone.values()),
            ("Pedidos",))
        for title, header, counts_ in (("Pedidos por serviço", "Serviço", bookings.by_service),
                                       ("Pedidos por etapa", "Etapa", bookings.by_stage)):
            out[title] = [{header: k, "Pedidos": v} for k, v in counts_.items()]
        out["Máquinas: horas e uso"] = [
            {"Máquina ou veículo": name, "Horas trabalhadas": _number(bookings.hours_per_asset.get(name)),
             "Dias agendados / dias úteis (%)": _number(bookings.utilization_per_asset.get(name))}
            for name in sorted({*bookings.hours_per_asset, *bookings.utilization_per_asset})]
        criteria = bookings.discounts_count_by_criterion
        out["Agendamentos: prazos e valores"] = [{"Indicador": label, "Valor": value} for label, value in (
            ("Espera do protocolo à execução — mediana (dias)", _number(bookings.waiting_median_days)),
            ("Espera do protocolo à execução — 90º percentil (dias)", _number(bookings.waiting_p90_days)),
            ("Descontos concedidos (R$)", fmt.brl(bookings.discounts)),
            ("Saldos vencidos (R$)", fmt.brl(bookings.balances_overdue)),
            ("Créditos a devolver (R$)", fmt.brl(bookings.credits_to_return)))] + hide(
            figures, [{"Indicador": f"Descontos — {k}", "Valor": v} for k, v in criteria.items()],
            list(criteria.values()), ("Valor",), total_known=False)  # a social criterion: a category of persons
    out.update(trend_tables(figures))
    if figures.waiting:
        out["Aguardando decisão"] = [
            {"Aguardando": w.label, "Quantidade": w.count, "Mais antigo (dias)": w.oldest_days,
             "Média (dias)": _number(w.average_days) if w.count else "—"} for w in figures.waiting]
    return out


def side_by_side(summaries: list[Summary]) -> Rows:
    """The headline figures and what waits for a decision of several municipalities, a column each
    (the same cells as each one's Resumo); "—" where a municipality has no such figure."""
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
    each column a breakdown of its own (a flow's months add up to the period's figure); the autos
    lavrados and decided are sanctions, hidden from the gabinete by the small-cell rule."""
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
                if trend.key in SANCTION_TRENDS:
                    hide(figures, rows, list(values), (column,), total_known=trend.flow)
        out[title] = rows
    return out


def _fines(figures: Summary, fines: FinesFigures) -> Rows:
    """The fines' DAMs (revenue: always whole) and the autos by severity and by stage, two breakdowns of
    the autos lavrados (sanctions: the small-cell rule)."""
    rows: Rows = [{"Situação": situation, "Quantidade": count, "Valor (R$)": value} for situation, count, value in (
        ("Emitidas", fines.issued_count, fines.issued), ("Pagas", fines.paid_count, fines.paid),
        ("Vencidas no último dia", fines.overdue_count, fines.overdue))]
    for name, counts in (("gravidade", fines.by_severity), ("fase:", fines.by_stage)):
        rows += hide(figures, [{"Situação": f"Autos — {name} {k}", "Quantidade": v, "Valor (R$)": None}
                               for k, v in counts.items()], list(counts.values()), ("Quantidade",))
    return rows


# The channels of rules/notice.py in the order the acts list them (CG art. 25 §1 I–IV; MP art. 21 §1).
CHANNEL_LABELS = {"pessoal": "Pessoal (notificação direta)", "postal": "Postal com AR",
                  "eletronico": "Eletrônico (domicílio eletrônico)", "edital": "Edital", "outro": "Outro meio"}


def notices(fines: FinesFigures) -> Rows:
    """The autos' notices sent in the period by channel and each one's share, with the total: the
    secretariat's workload, never hidden by the small-cell rule (issue 36 item 5)."""
    counts = fines.notices_by_channel
    total = sum(counts.values())
    rows: Rows = [{"Canal": label, "Notificações": counts.get(code, 0),
                   "Parcela": text.share_text(Decimal(100) * counts.get(code, 0) / total if total else None)}
                  for code, label in CHANNEL_LABELS.items() if code != "outro" or counts.get(code)]
    return rows + [{"Canal": "Total", "Notificações": total, "Parcela": text.share_text(Decimal(100) if total else None)}]
