"""The "Relatório gerencial" of the mayor's office: one A4 page per municipality on its letterhead.

The period's KPIs with the previous period, two bar charts drawn with fpdf2 primitives (paid per
month against the same month of the previous year; DAM by revenue kind: issued, paid, overdue) and
the explanation of the difference between face value and amount received. A report of several
municipalities opens with their headline figures side by side, then one page each. Aggregates only.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from fpdf import FPDF

from rules import fmt
from services.shared import clock, privacy
from services.shared.pdf import stamp as auth_stamp
from services.shared.pdf.letterhead import LEFT, WIDTH, Letterhead, footer, letterhead, title
from services.shared.pdf.style import BLUE, GREY, Fonts
from services.summary import report_tables, text
from services.summary.figures import ZERO, Kpi, Summary

SERIES_COLOURS = ((31, 95, 139), (150, 180, 205), (178, 34, 34))


def _kpi_box(pdf: FPDF, fonts: Fonts, x: float, y: float, w: float, kpi: Kpi) -> None:
    pdf.set_draw_color(170, 170, 170)
    pdf.rect(x, y, w, 16)
    pdf.set_text_color(*GREY)
    fonts.use(6.5)
    pdf.set_xy(x + 1.5, y + 1)
    pdf.cell(w - 3, 3, fonts.text(kpi.label.upper()))
    pdf.set_text_color(0, 0, 0)
    fonts.use(11, bold=True)
    pdf.set_xy(x + 1.5, y + 5)
    pdf.cell(w - 3, 6, fonts.text(text.kpi_value(kpi)))
    pdf.set_text_color(*GREY)
    fonts.use(6.5)
    pdf.set_xy(x + 1.5, y + 11.5)
    change = text.change_text(kpi)
    pdf.cell(w - 3, 3, fonts.text(f"Comparação: {text.kpi_previous(kpi)}"
                                  + (f" ({change})" if change else "")))
    pdf.set_text_color(0, 0, 0)


LABEL_LINE, LABEL_LINES = 2.6, 3  # a category's name under its bars: up to three lines of 6 pt


def _label_lines(pdf: FPDF, fonts: Fonts, label: str, width: float) -> list[str]:
    """``label`` whole, broken at spaces into lines of ``width``: at 6 pt, or a size smaller while it
    would need more than ``LABEL_LINES`` lines or a word is wider than the slot (the font is left set)."""
    size = 6.0
    while True:
        fonts.use(size)
        lines = [""]
        for word in fonts.text(label).split():
            joined = f"{lines[-1]} {word}".strip()
            if lines[-1] and pdf.get_string_width(joined) > width:
                lines.append(word)
            else:
                lines[-1] = joined
        fits = len(lines) <= LABEL_LINES and all(pdf.get_string_width(line) <= width for line in lines)
        if fits or size <= 3.5:
            return lines
        size -= 0.5


def _bars(pdf: FPDF, fonts: Fonts, y: float, height: float, heading: str, categories: Sequence[str],
          series: Sequence[tuple[str, Sequence[Decimal]]]) -> float:
    """Grouped vertical bars of R$, with three gridlines, category labels and a legend; returns the y below."""
    fonts.use(9, bold=True)
    pdf.set_xy(LEFT, y)
    pdf.cell(WIDTH, 5, fonts.text(heading))
    top, axis_x = y + 7, LEFT + 24
    plot_w, plot_h = WIDTH - 26, height - 13 - LABEL_LINES * LABEL_LINE
    peak = max([v for _, values in series for v in values] + [Decimal("0")])
    scale = peak if peak > 0 else Decimal("1")  # the gridlines' amounts stay Decimal; only lengths are float
    fonts.use(6)
    pdf.set_draw_color(215, 215, 215)
    for step in range(3):
        value = (scale * step / 2).quantize(Decimal("0.01"))
        line_y = top + plot_h - plot_h * step / 2
        pdf.line(axis_x, line_y, axis_x + plot_w, line_y)
        pdf.set_text_color(*GREY)
        pdf.set_xy(LEFT, line_y - 1.5)
        pdf.cell(23, 3, fonts.text(fmt.brl(value)), align="R")
    slot = plot_w / max(1, len(categories))
    bar = slot * 0.8 / max(1, len(series))
    for index, category in enumerate(categories):
        x0 = axis_x + index * slot + slot * 0.1
        for s, (_, values) in enumerate(series):
            h = plot_h * float(values[index] / scale)
            if h > 0:
                pdf.set_fill_color(*SERIES_COLOURS[s % len(SERIES_COLOURS)])
                pdf.rect(x0 + s * bar, top + plot_h - h, bar, h, style="F")
        pdf.set_text_color(*GREY)
        for row, line in enumerate(_label_lines(pdf, fonts, category, slot - 1)):
            pdf.set_xy(axis_x + index * slot, top + plot_h + 0.5 + row * LABEL_LINE)
            pdf.cell(slot, LABEL_LINE, line, align="C")
        fonts.use(6)
    legend_y, x = top + plot_h + 1 + LABEL_LINES * LABEL_LINE, axis_x
    for s, (name, _) in enumerate(series):
        pdf.set_fill_color(*SERIES_COLOURS[s % len(SERIES_COLOURS)])
        pdf.rect(x, legend_y + 0.5, 3, 2.5, style="F")
        pdf.set_text_color(0, 0, 0)
        pdf.set_xy(x + 4, legend_y)
        pdf.cell(60, 3.5, fonts.text(name))
        x += 5 + pdf.get_string_width(fonts.text(name)) + 6
    pdf.set_text_color(0, 0, 0)
    return y + height


@dataclass(frozen=True)
class Section:
    """One municipality's page: its figures and its letterhead."""

    figures: Summary
    secretariat: str
    address: str
    head: Letterhead | None = None


def _document(stamp: auth_stamp.Stamp | None = None) -> tuple[FPDF, Fonts]:
    pdf = FPDF(unit="mm", format="A4")
    auth_stamp.attach(pdf, stamp)
    pdf.set_auto_page_break(False)
    pdf.set_margins(LEFT, 12, LEFT)
    return pdf, Fonts(pdf)


def _footer(pdf: FPDF, fonts: Fonts) -> None:
    pdf.set_draw_color(*BLUE)
    footer(pdf, fonts, f"Números agregados, sem dados pessoais (LGPD). Gerado em "
                       f"{fmt.moment(clock.to_local(clock.now_utc()))} pelo Painel Municipal.")


def render_management_report(figures: Summary, secretariat: str, address: str, head=None,
                             stamp: auth_stamp.Stamp | None = None) -> bytes:
    """One A4 page: letterhead, KPIs, two charts and the payment differences of ``figures``."""
    pdf, fonts = _document(stamp)
    _page(pdf, fonts, Section(figures, secretariat, address, head))
    return bytes(pdf.output())


def render_management_reports(sections: Sequence[Section], side_by_side: list[dict],
                              stamp: auth_stamp.Stamp | None = None) -> bytes:
    """Several municipalities in one report: their headline figures side by side (``side_by_side``, the
    rows of ``report_tables.side_by_side``), then each one's page on its own letterhead."""
    pdf, fonts = _document(stamp)
    pdf.add_page()
    first = sections[0].figures
    y = title(pdf, fonts, 14, "RELATÓRIO GERENCIAL DOS MUNICÍPIOS",
              f"{first.period.start:%d/%m/%Y} a {first.period.end:%d/%m/%Y}")
    fonts.use(7.5)
    pdf.set_text_color(*GREY)
    pdf.set_xy(LEFT, y - 2)
    pdf.multi_cell(WIDTH, 4, fonts.text(
        f"{', '.join(s.figures.municipality_name for s in sections)}: os números de cada um, com as mesmas regras "
        f"do seu Resumo, e depois uma página por município. Comparação com o {first.comparison}."), align="C")
    pdf.set_text_color(0, 0, 0)
    y = _table(pdf, fonts, pdf.get_y() + 3, side_by_side)
    pdf.set_text_color(*GREY)
    fonts.use(7)
    pdf.set_xy(LEFT, y + 3)
    pdf.multi_cell(WIDTH, 3.5, fonts.text("“—”: o município não tem o módulo. " + privacy.RULE_TEXT), align="L")
    pdf.set_text_color(0, 0, 0)
    _footer(pdf, fonts)
    for section in sections:
        _page(pdf, fonts, section)
    return bytes(pdf.output())


def _table(pdf: FPDF, fonts: Fonts, y: float, rows: list[dict]) -> float:
    """``rows`` as a ruled table, the first column wide, every cell wrapped whole; returns the y below."""
    if not rows:
        return y
    columns = list(rows[0])
    first_w = 62.0
    other_w = (WIDTH - first_w) / max(1, len(columns) - 1)
    widths = [first_w] + [other_w] * (len(columns) - 1)
    pdf.set_draw_color(190, 190, 190)
    for index, row in enumerate([dict(zip(columns, columns))] + rows):
        header = index == 0
        fonts.use(7.5, bold=header)
        cells = [fonts.text(str(row[c])) for c in columns]
        height = max(len(pdf.multi_cell(w - 2, 3.6, cell, dry_run=True, output="LINES"))
                     for w, cell in zip(widths, cells)) * 3.6 + 1.6
        if header:
            pdf.set_fill_color(232, 238, 244)
            pdf.rect(LEFT, y, WIDTH, height, style="F")
        x = LEFT
        for column, (w, cell) in enumerate(zip(widths, cells)):
            pdf.set_xy(x + 1, y + 0.8)
            pdf.multi_cell(w - 2, 3.6, cell, align="L" if column == 0 else "R")
            x += w
        y += height
        pdf.line(LEFT, y, LEFT + WIDTH, y)
    return y


def _page(pdf: FPDF, fonts: Fonts, section: Section) -> None:
    """One municipality's page: letterhead, KPIs, two charts and the payment differences."""
    figures, secretariat, address, head = section.figures, section.secretariat, section.address, section.head
    pdf.add_page()
    y = letterhead(pdf, fonts, figures.municipality_name, secretariat, address, head=head)
    period = figures.period
    y = title(pdf, fonts, y + 1, "RELATÓRIO GERENCIAL",
              f"{period.start:%d/%m/%Y} a {period.end:%d/%m/%Y}")
    fonts.use(7.5)
    pdf.set_text_color(*GREY)
    pdf.set_xy(LEFT, y - 2)
    pdf.cell(WIDTH, 4, fonts.text(text.comparison_text(figures)), align="C")
    pdf.set_text_color(0, 0, 0)
    y += 4
    box_w = WIDTH / 3
    for index, kpi in enumerate(figures.kpis):
        _kpi_box(pdf, fonts, LEFT + (index % 3) * box_w, y + (index // 3) * 17, box_w - 1, kpi)
    y += -(-len(figures.kpis) // 3) * 17 + 3
    tables = report_tables.tables(figures)  # the page's cells
    months = tables["Arrecadação por mês"][-12:]
    y = _bars(pdf, fonts, y, 62, "Arrecadado por mês × mesmo mês do ano anterior", [m["Mês"] for m in months],
              [("Período", [m["Pagos (R$)"] for m in months]),
               ("Ano anterior", [m["Pagos no mesmo mês do ano anterior (R$)"] for m in months])])
    kinds = tables["Arrecadação por receita"]
    y = _bars(pdf, fonts, y + 2, 62, "DAM por receita no período",
              [k["Receita"] for k in kinds] or ["Nenhum DAM"],
              [("Emitido", [k["Emitidos (R$)"] for k in kinds] or [ZERO]),
               ("Pago", [k["Pagos (R$)"] for k in kinds] or [ZERO]),
               ("Vencido no último dia", [k["Vencidos (R$)"] for k in kinds] or [ZERO])])
    fonts.use(9, bold=True)
    pdf.set_xy(LEFT, y + 2)
    pdf.cell(WIDTH, 5, fonts.text("Valor emitido × valor recebido"))
    fonts.use(8.5)
    pdf.set_xy(LEFT, y + 8)
    pdf.multi_cell(WIDTH, 4.5, fonts.text(text.difference_text(figures.revenue.differences)), align="L")
    if figures.debts is not None:
        pdf.set_x(LEFT)
        pdf.multi_cell(WIDTH, 4.5, fonts.text(text.debts_text(figures.debts)), align="L")
    waiting = tables.get("Aguardando decisão")
    if waiting:
        pdf.set_x(LEFT)
        pdf.multi_cell(WIDTH, 4.5, fonts.text(text.waiting_text(waiting, clock.today())), align="L")
    pdf.set_text_color(*GREY)
    fonts.use(7)
    pdf.set_x(LEFT)
    pdf.multi_cell(WIDTH, 3.5, fonts.text(privacy.RULE_TEXT), align="L")
    pdf.set_text_color(0, 0, 0)
    _footer(pdf, fonts)
