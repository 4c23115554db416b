"""Issue 23 item 12: the gabinete sees no cell that identifies a person — a count of 1 or 2 is hidden with
its amount, and a second cell is hidden where the first would come back by subtraction from a shown
total — on the page, in the XLSX workbook and in the Relatório gerencial alike, with the rule said on
the page (``services.shared.privacy.suppress``, the one rule of them all)."""
from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import openpyxl
import pytest
from pypdf import PdfReader

from services.shared import exports, privacy
from services.summary import report_tables, summary
from tests.conftest import GABINETE
from tests.test_summary import MARCH, known, page, rendered_text  # noqa: F401  (known: the fixture)
from tests.test_summary_debts import TODAY, charge

S, X = "< 3", "X"  # the marks the gabinete reads


@pytest.mark.parametrize("counts, total_known, marks, total", [
    ([5, 1, 7], True, (X, S, None), None),  # the smallest cell above 3 hides beside the "< 3"
    ([5, 1, 7], False, (None, S, None), None),  # no total shown: nothing to subtract from
    ([4, 3, 2, 0], True, (X, None, S, None), None),  # 3 is no complement: "< 3" + "X"=3 would give 1
    ([1, 3, 0], True, (S, X, None), X),  # no cell above 3: every non-zero cell and the total hidden
    ([1, 1, 0], True, (S, S, None), S),  # a total of 2 is itself a small cell
    ([0, 0], True, (None, None), None),  # zeros name nobody
    ([9, 12], True, (None, None), None),
], ids=["complement", "no-total", "not-three", "fallback", "small-total", "zeros", "nothing-small"])
def test_one_rule_hides_small_cells_and_what_would_give_them_back(counts, total_known, marks, total):
    assert privacy.suppress(counts, total_known) == (marks, total)


def _ride_tables(figures) -> dict[str, object]:
    return {r["Indicador"]: r["Valor"] for r in report_tables.tables(figures)["Indicadores do transporte"]}


def test_the_transport_indicators_hide_one_suspension_and_one_cassacao_everywhere(known, today):  # noqa: F811
    """March 2026 in Chapada: one authorization suspended, one cassada, two new (average of 2 people)."""
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    ride = _ride_tables(figures)
    assert (ride["Suspensas no último dia"], ride["Cassadas no período"]) == (S, S)
    assert ride["Autorizações novas"] == S and ride["Dias do protocolo à autorização (média)"] == S
    assert ride["Autorizações ativas no último dia"] == 3
    kpis = {r["Indicador"]: r for r in report_tables.tables(figures)["Indicadores"]}
    assert (kpis["Autorizações novas"]["Período"], kpis["Autorizações novas"]["Variação"]) == (S, "—")
    today.set(date(2026, 4, 15))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    assert not at.exception and not at.error
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["Autorizações novas"] == (S, "")
    assert metrics["Dias do protocolo à autorização (média)"] == (S, "")
    shown = next(d.value for d in at.dataframe if "Indicador" in d.value.columns
                 and "Suspensas no último dia" in set(d.value["Indicador"]))
    assert set(shown.set_index("Indicador").loc[["Suspensas no último dia", "Cassadas no período"], "Valor"]) == {S}
    assert any("deduza por diferença" in c.value for c in at.caption)  # the rule, said on the page


def test_paid_short_hides_its_amount_with_its_count_on_the_page_the_workbook_and_the_report(known, today):  # noqa: F811
    """One DAM paid R$ 20,00 short: the count was "< 3" and the amount printed beside it."""
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    rows = {r["Item"]: r for r in report_tables.tables(figures)["Valor emitido × valor pago"]}
    assert rows["Pagos a menor (falta)"] == {"Item": "Pagos a menor (falta)", "DAM (qtd.)": S, "Valor (R$)": S}
    assert rows["Valor recebido"]["Valor (R$)"] == Decimal("690.00")  # three DAMs
    tables = report_tables.tables(figures)
    book = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx_book({t: (r, None) for t, r in tables.items() if r})))
    sheet = book["Valor emitido × valor pago"]
    assert [c.value for c in sheet[3]] == ["Pagos a menor (falta)", S, S]
    today.set(date(2026, 4, 15))
    text = rendered_text(page(GABINETE, summary_preset="Personalizado", summary_range=MARCH))
    assert "R$ 20,00" not in text and "-20" not in text and "pagamentos a menor: valor omitido (LGPD)" in text
    report = PdfReader(io.BytesIO(summary.report_pdf(known, GABINETE, "chapada", *MARCH))).pages[0].extract_text()
    assert "R$ 20,00" not in report and "valor omitido" in report
    # the one fine paid (R$ 410,00) was the peak of the chart by revenue, printed on its top gridline
    assert "410,00" not in report


def test_a_hidden_cell_beside_a_shown_total_takes_a_second_cell_with_it(db, today):
    """Aging on 15/04/2026: one charge a vencer (R$ 80,00), five 31–90 days, four over 365: the total
    is shown, so the "< 3" would come back as total − the rest; the four (the smallest above 3) go too."""
    today.set(TODAY)
    charge(db, date(2026, 4, 10), date(2026, 5, 10), "80.00")
    for n in range(5):
        charge(db, date(2026, 1, 2), date(2026, 2, 20), f"{100 + n}.00")
    for n in range(4):
        charge(db, date(2024, 1, 2), date(2025, 1, 20), "50.00")
    figures = summary.summary(db, GABINETE, "chapada", *MARCH)
    aging = {r["Vencido há"]: (r["Débitos (qtd.)"], r["Em aberto (R$)"])
             for r in report_tables.tables(figures)["Débitos por tempo de atraso"]}
    assert aging["A vencer"] == (S, S)
    assert aging["Vencido há mais de 365 dias"] == (X, X)
    assert aging["Vencido há 31–90 dias"] == (5, Decimal("510.00"))
    assert aging["Total"] == (10, Decimal("790.00"))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["A vencer"] == (S, f"{S} débitos")
    assert metrics["Vencido há mais de 365 dias"] == (X, f"{X} débitos")
    text = rendered_text(at)
    assert "R$ 80,00" not in text and "R$ 200,00" not in text and "R$ 710,00" not in text
    report = PdfReader(io.BytesIO(summary.report_pdf(db, GABINETE, "chapada", *MARCH))).pages[0].extract_text()
    # the overdue part (total − a vencer) would give the hidden R$ 80,00 back: only the total is printed
    assert "Débitos a receber em 15/04/2026: R$ 790,00." in report and "710,00" not in report
