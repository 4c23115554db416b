"""How the mayor's office figures read in pt-BR: months (``jan/2026``), KPI values and their change
against the previous period, and the sentence that explains the payment differences. The page, the
export tables and the Relatório gerencial all write them with these, and with the same small-cell
marks (``services.shared.privacy.suppress``): what one hides, none shows."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from rules import fmt
from services.shared import privacy
from services.summary.figures import DebtsFigures, Kpi, PaymentDifferences, Summary

OMITTED = "valor omitido (LGPD)"

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
    """The KPI's value as the gabinete sees it: its small-cell mark when it stands on 1 or 2 people."""
    return kpi.marks[0] or shown(kpi, kpi.value)


def kpi_previous(kpi: Kpi) -> str:
    return kpi.marks[1] or shown(kpi, kpi.previous)


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
    if change is None or any(kpi.marks):  # a change beside a hidden value would give it back
        return None
    sign = "-" if change < 0 else "+" if change > 0 else ""
    return sign + shown(kpi, abs(change))


def difference_marks(d: PaymentDifferences) -> dict[str, str | None]:
    """The small-cell marks of the rows of "Valor emitido × valor pago": the DAMs paid, paid short, paid
    over, paid late. Short and over are one breakdown of the difference (received − face value): when
    only one of them is hidden (the other none), the difference would give it back, so the face value
    and the difference are hidden too."""
    (short, over), _total = privacy.suppress([d.short_count, d.over_count])
    (paid, late), _none = privacy.suppress([d.paid_count, d.late_count], total_known=False)
    face = paid or (privacy.COMPLEMENT_TEXT if (short is None) != (over is None) else None)
    return {"face": face, "received": paid, "short": short, "over": over, "late": late}


def difference_text(d: PaymentDifferences) -> str:
    """Why "arrecadado" differs from the face value of the DAMs paid, in one pt-BR sentence (a value of
    fewer than 3 DAMs, or one that would give such a value back, is omitted)."""
    if not d.paid_count:
        return "Nenhum DAM pago no período."
    marks = difference_marks(d)
    if marks["received"]:
        return f"Valores dos DAM pagos no período omitidos: menos de {privacy.SMALL_CELL} DAM (LGPD)."
    received = f"{fmt.brl(d.received)} recebidos"
    if marks["face"]:
        text = f"Os DAM pagos no período somam {received} (valor emitido e diferença omitidos, LGPD)"
    else:
        text = f"Os DAM pagos no período somam {fmt.brl(d.face_value)} de valor emitido e {received}"
    if d.difference == 0:
        text += ": não há diferença de valor."
    else:
        parts = []
        if d.short_count:
            parts.append(f"pagamentos a menor: {OMITTED}" if marks["short"] else
                         f"pagamentos a menor faltaram {fmt.brl(d.short)}")
        if d.over_count:
            parts.append(f"pagamentos a maior: {OMITTED}" if marks["over"] else
                         f"pagamentos a maior excederam {fmt.brl(d.over)}")
        text += ("" if marks["face"] else f" (diferença de {fmt.brl(d.difference)})") + ": " + "; ".join(parts) + "."
    if d.late_count:
        text += f" Pagos após o vencimento: {OMITTED if marks['late'] else fmt.brl(d.late)}."
    return text


def aging_marks(d: DebtsFigures) -> tuple[dict[str, str | None], str | None]:
    """The small-cell marks of each aging bucket and of their total (the table shows the total)."""
    marks, total = privacy.suppress([count for count, _amount in d.aging.values()])
    return dict(zip(d.aging, marks)), total


def charged_marks(d: DebtsFigures) -> tuple[str | None, str | None]:
    """The marks of the charges issued in the period and in the previous one (their value, what was paid
    and the share stand on them)."""
    marks, _none = privacy.suppress([d.issued_count, d.previous_count], total_known=False)
    return marks[0], marks[1]


def share_text(share: Decimal | None) -> str:
    """A share in percent as the panel writes it ("87,5%"; "—" when nothing was charged)."""
    return "—" if share is None else f"{fmt.number(share, 1)}%"


def debts_text(d: DebtsFigures) -> str:
    """What is still owed and the share paid of what was charged, in one pt-BR sentence (with the marks
    of the tables: the overdue part is the total less "a vencer", so it is shown only when both are)."""
    marks, total = aging_marks(d)
    if total:
        text = f"Débitos a receber em {fmt.day(d.on)}: {OMITTED}. "
    elif marks.get("a_vencer") and any(mark for key, mark in marks.items() if key != "a_vencer"):
        text = f"Débitos a receber em {fmt.day(d.on)}: {fmt.brl(d.owed)}. "
    else:
        text = f"Débitos a receber em {fmt.day(d.on)}: {fmt.brl(d.owed)}, dos quais {fmt.brl(d.overdue)} vencidos. "
    if charged_marks(d)[0]:
        return text + f"Débitos lançados no período: menos de {privacy.SMALL_CELL}, {OMITTED}."
    if d.issued:
        return text + (f"Dos {fmt.brl(d.issued)} lançados no período, {fmt.brl(d.paid)} foram pagos "
                       f"({share_text(d.paid_share)}).")
    return text + "Nenhum débito lançado no período."


def waiting_text(rows: list[dict], on: date) -> str:
    """The "Aguardando decisão" table (its cells, marks included) in one pt-BR sentence."""
    parts = []
    for row in rows:
        count, oldest = row["Quantidade"], row["Mais antigo (dias)"]
        if count:
            parts.append(f"{row['Aguardando'].lower()}: {count}"
                         + (f" (o mais antigo há {oldest} dias)" if isinstance(oldest, int) else ""))
    return f"Aguardando decisão em {fmt.day(on)}: " + ("; ".join(parts) if parts else "nada") + "."
