"""Issue 23 item 12: the gabinete sees no cell that identifies a person — a count of 1 or 2 is hidden with
its amount, and a second cell is hidden where the first would come back by subtraction from a shown
total — on the page, in the XLSX workbook and in the Relatório gerencial alike, with the rule said on
the page (``services.shared.privacy.suppress``, the one rule of them all). Issue 35 item 8: the rule
covers the figures about people only (sanctions, persons by category, small localities), and only for
the gabinete; the municipality's revenue and the secretariat's workload are always shown whole."""
from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import openpyxl
import pytest
from pypdf import PdfReader

from services.shared import exports, privacy
from services.summary import report_tables, summary
from tests.conftest import GABINETE, SECRETARIA_CG
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


@pytest.mark.parametrize("counts, people, total_known, marks, total", [
    ([1, 2, 5], (False, True, False), False, (None, S, None), None),  # a workload count of 1 stays, the sanction not
    ([1, 1], (False, False), True, (None, None), None),  # nothing about people: nothing hidden, whatever the total
    ([2, 6, 4], (True, False, False), True, (S, None, X), None),  # the complement may be a cell not about people
], ids=["only-people", "none-about-people", "complement-of-another-kind"])
def test_the_rule_hides_only_the_cells_about_people(counts, people, total_known, marks, total):
    assert privacy.suppress(counts, total_known, people) == (marks, total)


def _ride_tables(figures) -> dict[str, object]:
    return {r["Indicador"]: r["Valor"] for r in report_tables.tables(figures)["Indicadores do transporte"]}


def test_the_gabinete_still_does_not_see_one_suspension_and_one_cassacao(known, today):  # noqa: F811
    """March 2026 in Chapada: one authorization suspended, one cassada: sanctions, hidden from the gabinete
    on the page, the workbook and the report; the secretariat, which sees each record, reads them."""
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    ride = _ride_tables(figures)
    assert (ride["Suspensas no último dia"], ride["Cassadas no período"]) == (S, S)
    statuses = {r["Situação"]: r["Quantidade"] for r in report_tables.tables(figures)["Autorizações por situação"]}
    assert (statuses["Suspensa"], statuses["Cassada"]) == (S, S)
    clerk = _ride_tables(summary.summary(known, SECRETARIA_CG, "chapada", *MARCH))
    assert (clerk["Suspensas no último dia"], clerk["Cassadas no período"]) == (1, 1)
    today.set(date(2026, 4, 15))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    assert not at.exception and not at.error
    shown = next(d.value for d in at.dataframe if "Indicador" in d.value.columns
                 and "Suspensas no último dia" in set(d.value["Indicador"]))
    assert set(shown.set_index("Indicador").loc[["Suspensas no último dia", "Cassadas no período"], "Valor"]) == {S}
    assert any("deduza por diferença" in c.value and "pessoas" in c.value for c in at.caption)  # the rule, said
    clerk_page = page(SECRETARIA_CG, summary_preset="Personalizado", summary_range=MARCH)
    clerk_shown = next(d.value for d in clerk_page.dataframe if "Indicador" in d.value.columns
                       and "Suspensas no último dia" in set(d.value["Indicador"])).set_index("Indicador")
    assert list(clerk_shown.loc[["Suspensas no último dia", "Cassadas no período"], "Valor"]) == ["1", "1"]


def test_the_secretariats_workload_is_shown_to_the_gabinete_even_when_small(known, today):  # noqa: F811
    """Issue 35 item 8: one authorization late for its inspection, two new ones (their average wait) and
    one request awaiting inspection are the secretariat's work, not a person's: "Vistorias em atraso < 3"
    told the gabinete nothing it could act on."""
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    ride = _ride_tables(figures)
    assert ride["Vistorias em atraso no último dia"] == 1 and ride["Vistorias reprovadas"] == 1
    assert ride["Autorizações novas"] == 2 and ride["Dias do protocolo à autorização (média)"] == "12,0"
    kpis = {r["Indicador"]: r for r in report_tables.tables(figures)["Indicadores"]}
    assert (kpis["Vistorias em atraso"]["Período"], kpis["Autorizações novas"]["Período"]) == ("1", "2")
    today.set(date(2026, 4, 15))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["Vistorias em atraso"] == ("1", "+1")
    assert metrics["Dias do protocolo à autorização (média)"] == ("12,0 dias", "")
    report = PdfReader(io.BytesIO(summary.report_pdf(known, GABINETE, "chapada", *MARCH))).pages[0].extract_text()
    assert "12,0 dias" in report


def test_the_revenue_of_one_or_two_payments_is_shown_whole_everywhere(known, today):  # noqa: F811
    """Issue 35 item 8: "Arrecadado < 3" early in a month hid the municipality's own revenue, public by
    law (LC 101/2000 art. 48-A II). Two DAMs paid in the first ten days of March 2026 (R$ 150,00 and
    R$ 410,00), one DAM overdue: shown whole to the gabinete on the page, the workbook, the CSV and the
    report."""
    first_days = (date(2026, 3, 1), date(2026, 3, 10))
    figures = summary.summary(known, GABINETE, "chapada", *first_days)
    assert (figures.kpi("paid").value, figures.revenue.total("paid_count")) == (Decimal("560.00"), 2)
    kpis = {r["Indicador"]: r["Período"] for r in report_tables.tables(figures)["Indicadores"]}
    assert kpis["Arrecadado (DAM pagos)"] == "R$ 560,00"
    tables = report_tables.tables(figures)
    kinds = {r["Receita"]: r for r in tables["Arrecadação por receita"]}
    assert (kinds["Multa (auto de infração)"]["Pagos (qtd.)"], kinds["Multa (auto de infração)"]["Pagos (R$)"]) == (
        1, Decimal("410.00"))
    multas = {r["Situação"]: (r["Quantidade"], r["Valor (R$)"]) for r in tables["Multas"]}
    assert multas["Pagas"] == (1, Decimal("410.00"))
    book = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx_book({t: (r, None) for t, r in tables.items() if r})))
    sheet = book["Arrecadação por mês"]
    assert [c.value for c in sheet[2]][:3] == ["mar/2026", 395.5, 560]
    csv = exports.to_csv_tables(tables).decode("utf-8-sig")
    assert "Arrecadação por mês;mar/2026;Pagos (R$);560,00" in csv.splitlines()
    today.set(date(2026, 3, 10))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=first_days)
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Arrecadado (DAM pagos)"] == "R$ 560,00"
    text = rendered_text(at)
    assert S not in text.split("Transporte por aplicativo")[0]  # nothing hidden above the people's figures
    assert "pagamentos a maior excederam R$ 7,70" in text
    report = PdfReader(io.BytesIO(summary.report_pdf(known, GABINETE, "chapada", *first_days))).pages[0].extract_text()
    assert "R$ 560,00" in report and "410,00" in report


def test_the_debts_of_few_charges_are_shown_whole_to_the_gabinete(db, today):
    """Aging on 15/04/2026: one charge a vencer (R$ 80,00), five 31–90 days, four over 365: amounts of
    the municipality's revenue, every bucket shown (issue 23 had hidden the one and the four)."""
    today.set(TODAY)
    charge(db, date(2026, 4, 10), date(2026, 5, 10), "80.00")
    for n in range(5):
        charge(db, date(2026, 1, 2), date(2026, 2, 20), f"{100 + n}.00")
    for n in range(4):
        charge(db, date(2024, 1, 2), date(2025, 1, 20), "50.00")
    figures = summary.summary(db, GABINETE, "chapada", *MARCH)
    aging = {r["Vencido há"]: (r["Débitos (qtd.)"], r["Em aberto (R$)"])
             for r in report_tables.tables(figures)["Débitos por tempo de atraso"]}
    assert aging["A vencer"] == (1, Decimal("80.00"))
    assert aging["Vencido há mais de 365 dias"] == (4, Decimal("200.00"))
    assert aging["Total"] == (10, Decimal("790.00"))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["A vencer"] == ("R$ 80,00", "1 débito")
    report = PdfReader(io.BytesIO(summary.report_pdf(db, GABINETE, "chapada", *MARCH))).pages[0].extract_text()
    assert "Débitos a receber em 15/04/2026: R$ 790,00, dos quais R$ 710,00 vencidos." in report
