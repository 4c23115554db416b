"""What the gabinete sees of the demo store (issue 22 item 12): two years of activity, so the Resumo
of every municipality has a year of months beside the year before; one Relatório gerencial of every
municipality the user sees; chart labels printed whole."""
from __future__ import annotations

import io
from datetime import date, datetime, timedelta
from decimal import Decimal

from fpdf import FPDF
from pypdf import PdfReader

from rules.dam.parameters import REVENUE_KINDS
from services.shared import clock
from services.shared.pdf.style import Fonts
from services.store import decode, parse_date
from services.summary import report_tables, summary
from services.summary.report_pdf import _bars, _label_lines
from tests.conftest import GABINETE

NAMES = {"chapada": "CHAPADA DOS GUIMARÃES", "matupa": "MATUPÁ", "nova_lacerda": "NOVA LACERDA"}


def _last_twelve_months() -> tuple[date, date]:
    today = clock.today()
    first = today.replace(day=1)
    for _ in range(11):
        first = (first - timedelta(days=1)).replace(day=1)
    return first, today


def test_every_municipality_has_a_year_of_months_paid_beside_the_months_of_the_year_before(demo_db):
    start, end = _last_twelve_months()
    for code in GABINETE.municipalities:
        months = report_tables.tables(summary.summary(demo_db, GABINETE, code, start, end))["Arrecadação por mês"]
        shown = [m["Mês"] for m in months if isinstance(m["Pagos (R$)"], Decimal) and m["Pagos (R$)"] > 0]
        assert len(shown) >= 12, (code, months)
        before = [m for m in months if m["Pagos no mesmo mês do ano anterior (R$)"] not in (Decimal("0"), Decimal("0.00"))]
        assert len(before) >= 11, (code, months)  # the current month's counterpart has only its first days


def test_by_default_every_municipality_is_compared_with_a_year_before_that_has_records(demo_db):
    """The Resumo's default: this year so far beside the same dates of the year before."""
    today = clock.today()
    for code in GABINETE.municipalities:
        figures = summary.summary(demo_db, GABINETE, code, date(today.year, 1, 1), today)
        assert not figures.compared_empty, code
        kpis = {k.key: k for k in figures.kpis}
        assert kpis["paid"].previous and kpis["paid"].previous > 0 and kpis["paid"].change is not None, code


def test_the_trends_of_the_services_move_month_by_month(demo_db):
    """Authorizations active grow in Matupá beside a year before that had some; Nova Lacerda serves more
    requests in the dry season than in the rains."""
    start, end = _last_twelve_months()
    trends = {(code, t.key): t for code in ("matupa", "nova_lacerda")
              for t in summary.summary(demo_db, GABINETE, code, start, end).trends}
    active = trends[("matupa", "active")]
    assert len(set(active.values)) > 3 and sum(active.year_before) > 0
    served = dict(zip(trends[("nova_lacerda", "served")].months, trends[("nova_lacerda", "served")].values))
    dry = [n for month, n in served.items() if month.month in (6, 7, 8)]
    rains = [n for month, n in served.items() if month.month in (1, 2, 12)]
    assert sum(dry) > sum(rains) + 10


def test_nothing_in_the_demo_is_dated_after_today(demo_db):
    today, now = clock.today(), clock.now_utc()
    for raw in demo_db["dams"].find({}, {"issued_on": 1, "payment.paid_on": 1}):
        doc = decode(raw)
        assert parse_date(doc["issued_on"]) <= today
        assert not doc.get("payment") or parse_date(doc["payment"]["paid_on"]) <= today
    for raw in demo_db["authorizations"].find({}, {"events": 1}):
        assert all(parse_date(event["on"]) <= today for event in decode(raw)["events"])
    for raw in demo_db["booking_requests"].find({}, {"requested_on": 1, "execution.ended_on": 1}):
        doc = decode(raw)
        assert parse_date(doc["requested_on"]) <= today
        assert (parse_date((doc.get("execution") or {}).get("ended_on")) or today) <= today
    for raw in demo_db["audit"].find({}, {"at": 1}):
        at = decode(raw)["at"]
        assert (at if isinstance(at, datetime) else datetime.fromisoformat(at)) <= now


def test_the_gabinete_downloads_one_report_of_every_municipality_it_sees(demo_db):
    today = clock.today()
    codes = list(GABINETE.municipalities)
    pdf = PdfReader(io.BytesIO(summary.reports_pdf(demo_db, GABINETE, codes, date(today.year, 1, 1), today)))
    assert len(pdf.pages) == 1 + len(codes)  # the side-by-side table, then one page each
    first = pdf.pages[0].extract_text()
    assert "RELATÓRIO GERENCIAL DOS MUNICÍPIOS" in first
    for row in ("Arrecadado (DAM pagos)", "Autorizações ativas", "Pedidos de serviço protocolados"):
        assert row in first
    for page, code in zip(pdf.pages[1:], codes):
        text = page.extract_text()
        assert f"PREFEITURA MUNICIPAL DE {NAMES[code]}" in text and "RELATÓRIO GERENCIAL" in text, code
        assert all(f"PREFEITURA MUNICIPAL DE {NAMES[other]}" not in text for other in codes if other != code)
    personal = {d["name"] for d in demo_db["drivers"].find({}, {"name": 1})}
    personal |= {d["number"] for d in demo_db["dams"].find({}, {"number": 1})}
    assert not [p for p in personal if any(p in page.extract_text() for page in pdf.pages)]


def test_a_chart_prints_every_category_name_whole_within_its_bars():
    """The revenue kinds were cut at 22 characters ("Outras receitas munici", "Multa (auto de infraçã")."""
    pdf = FPDF(unit="mm", format="A4")
    pdf.add_page()
    fonts = Fonts(pdf)
    kinds = list(REVENUE_KINDS.values())
    _bars(pdf, fonts, 20, 62, "DAM por receita no período", kinds, [("Emitido", [Decimal("100.00")] * len(kinds))])
    text = " ".join(PdfReader(io.BytesIO(bytes(pdf.output()))).pages[0].extract_text().split())
    for kind in kinds:
        assert kind in text, kind
    slot = (180 - 26) / len(kinds) - 1
    for kind in kinds:
        lines = _label_lines(pdf, fonts, kind, slot)
        assert " ".join(lines) == kind and all(pdf.get_string_width(line) <= slot for line in lines), lines
