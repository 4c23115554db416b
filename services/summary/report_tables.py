"""Every table of the mayor's office summary as export rows: what the page, the CSV/XLSX exports and
the checks of the tests read. pt-BR headers and typed cells; a count of a breakdown of 1 or 2 is
shown as "< 3" (``services.shared.privacy.cell``, LGPD, Lei 13.709/2018): aggregates only, nothing
here names a person."""
from __future__ import annotations

from typing import Any

from rules import fmt
from rules.dam.charges import BUCKET_LABELS
from services.shared.privacy import cell
from services.summary import periods, text
from services.summary.figures import EXPIRING_DAYS, ZERO, Summary


def _compliance(ok: bool | None) -> str:
    return {True: "Em dia", False: "Pendente", None: "Sem dados"}[ok]


def tables(figures: Summary) -> dict[str, list[dict[str, Any]]]:
    """Every table of the summary as export rows (pt-BR headers, typed cells), counts of a breakdown
    shown as "< 3" when 1 or 2 (aggregates only: nothing here names a person)."""
    out: dict[str, list[dict[str, Any]]] = {
        "Indicadores": [{"Indicador": k.label, "Período": text.shown(k, k.value),
                         "Comparação": text.shown(k, k.previous), "Variação": text.change_text(k) or "—"}
                        for k in figures.kpis],
    }
    before = figures.revenue_year_before.by_kind()
    kinds = figures.revenue.by_kind()
    out["Arrecadação por receita"] = [{
        "Receita": kind, "Emitidos (qtd.)": cell(line.issued_count), "Emitidos (R$)": line.issued,
        "Pagos (qtd.)": cell(line.paid_count), "Pagos (R$)": line.paid,
        "Vencidos (qtd.)": cell(line.overdue_count), "Vencidos (R$)": line.overdue,
        "Pagos no mesmo período do ano anterior (R$)": before[kind].paid if kind in before else ZERO,
    } for kind, line in sorted(kinds.items())]
    paid, issued, overdue = (figures.revenue.by_month(m) for m in ("paid", "issued", "overdue"))
    paid_before = figures.revenue_year_before.by_month("paid")
    out["Arrecadação por mês"] = [{
        "Mês": text.month_label(month), "Emitidos (R$)": issued.get(month, ZERO), "Pagos (R$)": paid.get(month, ZERO),
        "Vencidos (R$)": overdue.get(month, ZERO),
        "Pagos no mesmo mês do ano anterior (R$)": paid_before.get(periods.day_a_year_before(month), ZERO),
    } for month in figures.period.months()]
    d = figures.revenue.differences
    out["Valor emitido × valor pago"] = [
        {"Item": "Valor emitido dos DAM pagos", "DAM (qtd.)": cell(d.paid_count), "Valor (R$)": d.face_value},
        {"Item": "Pagos a menor (falta)", "DAM (qtd.)": cell(d.short_count), "Valor (R$)": -d.short},
        {"Item": "Pagos a maior (excesso)", "DAM (qtd.)": cell(d.over_count), "Valor (R$)": d.over},
        {"Item": "Valor recebido", "DAM (qtd.)": cell(d.paid_count), "Valor (R$)": d.received},
        {"Item": "dos quais pagos após o vencimento", "DAM (qtd.)": cell(d.late_count), "Valor (R$)": d.late},
    ]
    owed = figures.debts
    if owed is not None:
        out["Débitos por tempo de atraso"] = [
            {"Vencido há": BUCKET_LABELS[key], "Débitos (qtd.)": cell(count), "Em aberto (R$)": amount}
            for key, (count, amount) in owed.aging.items()] + [
            {"Vencido há": "Total", "Débitos (qtd.)": cell(sum(c for c, _a in owed.aging.values())),
             "Em aberto (R$)": owed.owed}]
        out["Débitos lançados × pagos"] = [
            {"Período": "Período", "Débitos lançados (qtd.)": cell(owed.issued_count), "Valor lançado (R$)": owed.issued,
             "Pago (R$)": owed.paid, "Parcela paga": text.share_text(owed.paid_share)},
            {"Período": "Período anterior", "Débitos lançados (qtd.)": cell(owed.previous_count), "Valor lançado (R$)": owed.previous_issued,
             "Pago (R$)": owed.previous_paid, "Parcela paga": text.share_text(owed.previous_paid_share)}]
    ride = figures.ride_hailing
    if ride is not None:
        average = ride.average_days_to_authorization
        out["Indicadores do transporte"] = [{"Indicador": label, "Valor": value} for label, value in (
            ("Autorizações ativas no último dia", ride.active), ("Autorizações novas", ride.new),
            ("Renovações", ride.renewed), (f"A vencer em {EXPIRING_DAYS} dias", ride.expiring),
            ("Suspensas no último dia", ride.suspended), ("Cassadas no período", ride.cassadas),
            ("Condutores cadastrados", ride.drivers), ("Veículos cadastrados", ride.vehicles),
            ("Vistorias realizadas", ride.inspections_done), ("Vistorias reprovadas", ride.inspections_failed),
            ("Vistorias em atraso no último dia", ride.inspections_overdue),
            ("Dias do protocolo à autorização (média)", "—" if average is None else str(average).replace(".", ",")),
        )]
        out["Autorizações por situação"] = [{"Situação": label, "Quantidade": cell(count)}
                                            for label, count in ride.by_status.items()]
        out["Plataformas"] = [{"Plataforma": p.name, "Seguro APP": _compliance(p.insurance),
                               "Relações de condutores e veículos": _compliance(p.lists),
                               "ISSQN": _compliance(p.issqn)} for p in ride.platforms]
    fines = figures.fines
    if fines is not None:
        out["Multas"] = [
            {"Situação": "Emitidas", "Quantidade": cell(fines.issued_count), "Valor (R$)": fines.issued},
            {"Situação": "Pagas", "Quantidade": cell(fines.paid_count), "Valor (R$)": fines.paid},
            {"Situação": "Vencidas no último dia", "Quantidade": cell(fines.overdue_count), "Valor (R$)": fines.overdue},
        ] + [{"Situação": f"Autos — gravidade {k}", "Quantidade": cell(v), "Valor (R$)": None}
             for k, v in fines.by_severity.items()] + [
            {"Situação": f"Autos — fase: {k}", "Quantidade": cell(v), "Valor (R$)": None}
            for k, v in fines.by_stage.items()]
    bookings = figures.bookings
    if bookings is not None:
        out["Pedidos de serviço por zona"] = [{"Zona": k, "Pedidos": cell(v)} for k, v in bookings.by_zone.items()]
        out["Pedidos por serviço"] = [{"Serviço": k, "Pedidos": cell(v)} for k, v in bookings.by_service.items()]
        out["Pedidos por etapa"] = [{"Etapa": k, "Pedidos": cell(v)} for k, v in bookings.by_stage.items()]
        out["Máquinas: horas e uso"] = [
            {"Máquina ou veículo": name, "Horas trabalhadas": str(bookings.hours_per_asset.get(name, "—")).replace(".", ","),
             "Dias agendados / dias úteis (%)": str(bookings.utilization_per_asset.get(name, "—")).replace(".", ",")}
            for name in sorted({*bookings.hours_per_asset, *bookings.utilization_per_asset})]
        median, p90 = bookings.waiting_median_days, bookings.waiting_p90_days
        out["Agendamentos: prazos e valores"] = [
            {"Indicador": "Espera do protocolo à execução — mediana (dias)", "Valor": "—" if median is None else str(median).replace(".", ",")},
            {"Indicador": "Espera do protocolo à execução — 90º percentil (dias)", "Valor": "—" if p90 is None else str(p90).replace(".", ",")},
            {"Indicador": "Descontos concedidos (R$)", "Valor": fmt.brl(bookings.discounts)},
            {"Indicador": "Saldos vencidos (R$)", "Valor": fmt.brl(bookings.balances_overdue)},
            {"Indicador": "Créditos a devolver (R$)", "Valor": fmt.brl(bookings.credits_to_return)},
        ] + [{"Indicador": f"Descontos — {k}", "Valor": cell(v)} for k, v in bookings.discounts_count_by_criterion.items()]
    return out
