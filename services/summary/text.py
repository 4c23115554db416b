"""How the mayor's office figures read in pt-BR: months (``jan/2026``), KPI values and their change
against the previous period, and the sentences that explain the payment differences and the debts.
The page, the export tables and the Relatório gerencial all write them with these. They are revenue,
registers and workload, never hidden (the small-cell marks of the figures about people are
``services.summary.report_tables``')."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from rules import fmt
from services.summary.figures import DebtsFigures, Kpi, PaymentDifferences, Summary

MONTHS = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")


def month_label(month: date) -> str:
    """``jan/2026``: the month as the panel writes it."""
    return f"{MONTHS[month.month - 1]}/{month.year}"


def shown(kpi: Kpi, value: int | Decimal | None) -> str:
    """A KPI value as text: R$ for money, days with one decimal, counts with thousands."""
    if value is None:
        return "—"
    if kpi.unit == "brl":
        return fmt.brl(value)
    if kpi.unit == "days":
        return f"{fmt.number(value, 1)} dias"
    return fmt.number(value)


def kpi_value(kpi: Kpi) -> str:
    return shown(kpi, kpi.value)


def kpi_previous(kpi: Kpi) -> str:
    return shown(kpi, kpi.previous)


def comparison_text(figures: Summary) -> str:
    """What the figures are compared with, and whether there is anything to compare."""
    dates = f"{figures.previous.start:%d/%m/%Y} a {figures.previous.end:%d/%m/%Y}"
    if figures.compared_empty:
        return f"Sem registros no {figures.comparison} ({dates}): nenhuma variação é mostrada."
    text = f"Comparação com o {figures.comparison}: {dates}."
    if figures.without_base:  # e.g. Chapada's ride-hailing, regulated from 2026: nothing of it in 2025
        text += (" Sem registros de " + " nem de ".join(figures.without_base)
                 + " no período comparado: nenhuma variação é mostrada nesses indicadores.")
    return text


def change_text(kpi: Kpi) -> str | None:
    """The change against the previous period, signed ("+R$ 10,00", "-2", "+1,5 dias"); None if unknown."""
    change = kpi.change
    if change is None:
        return None
    sign = "-" if change < 0 else "+" if change > 0 else ""
    return sign + shown(kpi, abs(change))


def difference_text(d: PaymentDifferences) -> str:
    """Why "arrecadado" differs from the face value of the DAMs paid, in one pt-BR sentence."""
    if not d.paid_count:
        return "Nenhum DAM pago no período."
    text = f"Os DAM pagos no período somam {fmt.brl(d.face_value)} de valor emitido e {fmt.brl(d.received)} recebidos"
    if d.difference == 0:
        text += ": não há diferença de valor."
    else:
        parts = []
        if d.short_count:
            parts.append(f"pagamentos a menor faltaram {fmt.brl(d.short)}")
        if d.over_count:
            parts.append(f"pagamentos a maior excederam {fmt.brl(d.over)}")
        text += f" (diferença de {fmt.brl(d.difference)}): " + "; ".join(parts) + "."
    if d.late_count:
        text += f" Pagos após o vencimento: {fmt.brl(d.late)}."
    return text


def share_text(share: Decimal | None) -> str:
    """A share in percent as the panel writes it ("87,5%"; "—" when nothing was charged)."""
    return "—" if share is None else f"{fmt.number(share, 1)}%"


def debts_text(d: DebtsFigures) -> str:
    """What is still owed and the share paid of what was charged, in one pt-BR sentence."""
    text = f"Débitos a receber em {fmt.day(d.on)}: {fmt.brl(d.owed)}, dos quais {fmt.brl(d.overdue)} vencidos. "
    if d.issued:
        return text + (f"Dos {fmt.brl(d.issued)} lançados no período, {fmt.brl(d.paid)} foram pagos "
                       f"({share_text(d.paid_share)}).")
    return text + "Nenhum débito lançado no período."


def waiting_text(rows: list[dict], on: date) -> str:
    """The "Aguardando decisão" table in one pt-BR sentence."""
    parts = []
    for row in rows:
        count, oldest = row["Quantidade"], row["Mais antigo (dias)"]
        if count:
            parts.append(f"{row['Aguardando'].lower()}: {count}"
                         + (f" (o mais antigo há {oldest} dias)" if isinstance(oldest, int) else ""))
    return f"Aguardando decisão em {fmt.day(on)}: " + ("; ".join(parts) if parts else "nada") + "."
