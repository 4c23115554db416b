"""The mayor's office summary shows what is still owed by how long it is overdue and the share of the
value charged in the period that was paid (services.summary.debts), aggregates only, in one query."""
from __future__ import annotations

import io
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from pypdf import PdfReader
from streamlit.testing.v1 import AppTest

from rules.dam import charges as charge_rules
from services.dam import aging_view
from services.store import encode, insert_one
from services.summary import report_tables, revenue_view, summary
from services.summary.figures import DebtsFigures
from tests.conftest import GABINETE
from tests.test_ridehailing_page_queries import CountingDatabase

ROOT = Path(__file__).resolve().parent.parent
MARCH = (date(2026, 3, 1), date(2026, 3, 31))  # previous period: 29/01 to 28/02/2026
TODAY = date(2026, 4, 15)
D = Decimal


def charge(db, issued: date, due: date, principal: str, late="0", paid="0", status=None, mun="chapada") -> None:
    """A charge as services.dam.charges stores it (its read models followed); its standing from the rule."""
    state = charge_rules.standing(D(principal), D(late), D(paid))
    charge_id = insert_one(db["charges"], encode({
        "municipality": mun, "taxpayer": {"name": "Fulano de Tal", "document": "52998224725", "address": "Rua 1"},
        "revenue_kind": "multa", "revenue_code": "", "principal": D(principal), "late": D(late), "paid": D(paid),
        "open": state.open, "credit": state.credit, "status": status or state.status, "issued_on": issued,
        "due_on": due, "dams": [], "payments": [], "version": 1}))
    aging_view.follow(db, str(charge_id))
    revenue_view.project(db, mun, "charges", str(charge_id))


@pytest.fixture
def charged(db):
    """Chapada's charges; the figures of March 2026, on 15/04/2026, beside each."""
    charge(db, date(2026, 3, 2), date(2026, 3, 20), "100.00", paid="100.00")  # paid in full
    charge(db, date(2026, 3, 5), date(2026, 3, 10), "200.00", late="10.00", paid="105.00")  # short: 105 open, 36 days
    charge(db, date(2026, 3, 6), date(2026, 3, 30), "50.00", status=charge_rules.CANCELLED)  # left out
    charge(db, date(2026, 3, 9), date(2026, 3, 25), "40.00", paid="50.00")  # 10 owed back: 40 counted
    charge(db, date(2026, 2, 2), date(2026, 2, 20), "100.00", paid="25.00")  # previous period, 54 days
    charge(db, date(2025, 1, 2), date(2025, 1, 20), "300.00", status=charge_rules.INSCRIBED)  # > 365 days
    charge(db, date(2026, 4, 10), date(2026, 5, 10), "80.00")  # a vencer
    charge(db, date(2026, 3, 2), date(2026, 3, 20), "999.00", mun="matupa")
    return db


def test_the_aging_and_the_share_paid(charged, today):
    today.set(TODAY)
    owed = summary.summary(charged, GABINETE, "chapada", *MARCH, "previous").debts
    assert owed.on == TODAY
    assert owed.aging == {"a_vencer": (1, D("80.00")), "1_30": (0, D("0.00")), "31_90": (2, D("180.00")),
                          "91_365": (0, D("0.00")), "mais_365": (1, D("300.00"))}
    assert (owed.owed, owed.overdue) == (D("560.00"), D("480.00"))
    assert (owed.issued_count, owed.issued, owed.paid) == (3, D("350.00"), D("245.00"))
    assert owed.paid_share == D("70.0")
    assert (owed.previous_count, owed.previous_issued, owed.previous_paid) == (1, D("100.00"), D("25.00"))
    assert owed.previous_paid_share == D("25.0")


def test_nothing_charged_has_no_share():
    assert DebtsFigures(TODAY).paid_share is None


def test_the_tables_show_the_revenue_owed_whole(charged, today):
    today.set(TODAY)
    tables = report_tables.tables(summary.summary(charged, GABINETE, "chapada", *MARCH, "previous"))
    aging = {row["Vencido há"]: (row["Débitos (qtd.)"], row["Em aberto (R$)"]) for row in tables["Débitos por tempo de atraso"]}
    # issue 35 item 8: what is owed to the municipality is its revenue (LC 101/2000 art. 48-A II), shown to
    # the gabinete whole (issue 23 had hidden the two charges of R$ 180,00 and, by complement, the total)
    assert aging["Vencido há 31–90 dias"] == (2, D("180.00")) and aging["Total"] == (4, D("560.00"))
    assert aging["Vencido há 1–30 dias"] == (0, D("0.00"))
    assert tables["Débitos lançados × pagos"][0] == {"Período": "Período", "Débitos lançados (qtd.)": 3,
                                                     "Valor lançado (R$)": D("350.00"), "Pago (R$)": D("245.00"),
                                                     "Parcela paga": "70,0%"}


def test_the_page_and_the_report_show_them_without_names(charged, today):
    today.set(TODAY)
    at = AppTest.from_file(str(ROOT / "app_pages" / "summary.py"), default_timeout=120)
    at.session_state["actor"], at.session_state["municipality"] = GABINETE, "chapada"
    at.session_state["summary_preset"], at.session_state["summary_range"] = "Personalizado", MARCH
    at.session_state["summary_compare"] = "previous"
    at.run()
    assert not at.exception and not at.error
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    # issue 35 item 8: one charge of R$ 300,00 and the share paid of the previous period's one charge are
    # revenue, shown whole (issue 23 had hidden them as small cells)
    assert metrics["Vencido há mais de 365 dias"] == ("R$ 300,00", "1 débito")
    assert metrics["Parcela paga do valor lançado no período"] == ("70,0%", "+45,0 p.p.")
    assert "Débitos a receber" in [h.value for h in at.header]
    text = " ".join(str(d.value.to_string()) for d in at.dataframe) + " ".join(m.value for m in at.markdown)
    assert "Fulano" not in text and "529.982" not in text
    pdf = PdfReader(io.BytesIO(summary.report_pdf(charged, GABINETE, "chapada", *MARCH)))
    assert len(pdf.pages) == 1
    assert "Débitos a receber em 15/04/2026: R$ 560,00, dos quais R$ 480,00 vencidos." in pdf.pages[0].extract_text()


def test_the_figures_read_no_charge_and_the_same_queries_whatever_their_number(charged, today):
    """Issue 21: the aging and the value charged come from the read models kept with the charges."""
    today.set(TODAY)

    def reads() -> tuple[int, int]:
        counting = CountingDatabase(charged)
        summary.summary(counting, GABINETE, "chapada", *MARCH)
        return counting.calls[("charges", "find")], sum(counting.calls.values())

    before = reads()
    for n in range(20):
        charge(charged, date(2026, 3, 2), date(2026, 3, 2) + timedelta(days=n), "10.00")
    assert reads() == before and before[0] == 0
    figures = summary.summary(charged, GABINETE, "chapada", *MARCH, "previous").debts
    assert (figures.issued_count, figures.issued) == (23, D("550.00"))
