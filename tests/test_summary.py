"""The mayor's office summary (issue 14): every figure against a hand-made dataset where each number
is known, the previous period and the previous year, small cells, the page per role and no personal
datum reaching the ``gabinete`` (pages and PDF)."""
from __future__ import annotations

import io
import itertools
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from bson import ObjectId
from pypdf import PdfReader
from streamlit.testing.v1 import AppTest

from services.shared import clock, entities, privacy, views
from services.shared.errors import PermissionDenied, ValidationFailed
from services.store import encode, insert_one
from services.summary import (
    authorization_view,
    autos_view,
    bookings_view,
    records_view,
    report_tables,
    revenue_view,
    summary,
)
from services.summary.periods import Period
from services.summary.text import difference_text
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP, TI
from tests.test_dams import issue

ROOT = Path(__file__).resolve().parent.parent
MARCH = (date(2026, 3, 1), date(2026, 3, 31))  # previous period: 29/01 to 28/02/2026
SEQUENCE = itertools.count(1)
UTILIZATION = Decimal("13.6")  # 3 days booked of the 22 business days of March 2026 in Nova Lacerda


def _auth(db, protocol: str, *events: tuple) -> None:
    """An authorization of Chapada with its events ``(kind, on[, until])``, as the services store it."""
    auth_id = insert_one(db["authorizations"], encode({
        "municipality": "chapada", "protocol": protocol, "protocol_date": events[0][1],
        "driver_cpf": f"0000000000{protocol[-1]}", "plate": f"QBA{protocol[-1]}A00",
        "events": [{"kind": e[0], "on": e[1], "until": e[2] if len(e) > 2 else None, "note": ""} for e in events]}))
    # as an authorization written by the services is followed
    authorization_view.project(db, "chapada", "authorizations", str(auth_id))


def _dam(db, kind: str, amount: str, issued: date, due: date, status: str = "emitido", paid_on: date | None = None,
         paid: str | None = None, flags: tuple[str, ...] = ()) -> None:
    n = next(SEQUENCE)
    payment = {"paid_on": paid_on, "amount": Decimal(paid), "flags": list(flags)} if paid_on else None
    dam_id = insert_one(db["dams"], encode({
        "municipality": "chapada", "revenue_kind": kind, "amount": Decimal(amount), "issued_on": issued,
        "due_on": due, "status": status, "payment": payment, "taxpayer_name": "Fulano", "number": f"{n:04d}/{issued.year}",
        "year": issued.year, "sequence": n, "barcode": str(n)}))
    revenue_view.project(db, "chapada", "dams", str(dam_id))  # as a DAM written by the services is followed


def _registered(db, collection: str, at_local: datetime) -> None:
    key = {"drivers": "cpf", "vehicles": "plate"}[collection]
    doc_id = insert_one(db[collection], encode({"municipality": "chapada", "name": "x", key: at_local.isoformat(),
                                                "created_at": at_local.replace(tzinfo=clock.LOCAL_TZ)}))
    records_view.project(db, "chapada", collection, str(doc_id))  # as a record written by the services is followed


@pytest.fixture
def known(db):
    """Chapada with every record below; the figures of March 2026 are written beside each one."""
    d = date
    # active at 31/03 and 28/02; issued 10/02 (previous period, 36 days); renewed 09/03
    _auth(db, "A1", ("requested", d(2026, 1, 5)), ("approved", d(2026, 1, 6)), ("inspection_passed", d(2026, 1, 8)),
          ("fee_paid", d(2026, 2, 10)), ("renewal_requested", d(2026, 3, 2)), ("renewal_fee_paid", d(2026, 3, 9)))
    # new in March: 10 and 14 days from protocol (average 12,0)
    _auth(db, "A2", ("requested", d(2026, 3, 2)), ("approved", d(2026, 3, 3)), ("inspection_passed", d(2026, 3, 5)),
          ("fee_paid", d(2026, 3, 12)))
    _auth(db, "A3", ("requested", d(2026, 3, 2)), ("approved", d(2026, 3, 4)), ("inspection_passed", d(2026, 3, 6)),
          ("fee_paid", d(2026, 3, 16)))
    # active at 28/02, suspended 10/03 until 10/04
    _auth(db, "A4", ("requested", d(2026, 1, 10)), ("approved", d(2026, 1, 12)), ("inspection_passed", d(2026, 1, 14)),
          ("fee_paid", d(2026, 1, 20)), ("suspended", d(2026, 3, 10), d(2026, 4, 10)))
    # active at 28/02, cassada 20/03
    _auth(db, "A5", ("requested", d(2026, 1, 10)), ("approved", d(2026, 1, 12)), ("inspection_passed", d(2026, 1, 14)),
          ("fee_paid", d(2026, 1, 21)), ("cassada", d(2026, 3, 20)))
    # approved 20/03, never shown for inspection: its 5-day term passed before 31/03
    _auth(db, "A6", ("requested", d(2026, 3, 19)), ("approved", d(2026, 3, 20)))
    _auth(db, "A7", ("requested", d(2026, 3, 25)))
    for performed_on, result in ((d(2026, 3, 5), "approved"), (d(2026, 3, 6), "approved"), (d(2026, 3, 9), "failed"),
                                 (d(2026, 2, 2), "approved"), (d(2025, 3, 3), "approved")):
        doc_id = insert_one(db["inspections"], encode({"municipality": "chapada", "performed_on": performed_on,
                                                       "result": result, "plate": "QBA1A00"}))
        records_view.project(db, "chapada", "inspections", str(doc_id))
    for moment in (datetime(2026, 1, 5, 9), datetime(2026, 2, 28, 23, 30), datetime(2026, 3, 31, 23, 30),
                   datetime(2026, 4, 1, 0, 30)):
        _registered(db, "drivers", moment)  # 23:30 in Cuiabá on 31/03 is 01/04 in UTC: still March
    _registered(db, "vehicles", datetime(2026, 3, 10, 12))
    insert_one(db["platforms"], encode({"municipality": "chapada", "name": "Plataforma Exemplo Ltda",
                                        "cnpj": "11222333000181", "credentialed_on": d(2026, 1, 2)}))
    _dam(db, "taxa_autorizacao", "150.00", d(2026, 3, 2), d(2026, 3, 12), "pago", d(2026, 3, 10), "150.00")
    _dam(db, "taxa_autorizacao", "150.00", d(2026, 3, 3), d(2026, 3, 13), "pago", d(2026, 3, 20), "130.00",
         ("valor_divergente", "pago_em_atraso"))  # short 20,00 and late
    _dam(db, "taxa_vistoria", "95.50", d(2026, 3, 5), d(2026, 3, 15))  # overdue on 31/03
    _dam(db, "multa", "402.30", d(2026, 2, 10), d(2026, 2, 20), "pago", d(2026, 3, 5), "410.00",
         ("valor_divergente", "pago_em_atraso"))  # over 7,70, late; overdue on 28/02
    _dam(db, "taxa_autorizacao", "200.00", d(2026, 3, 6), d(2026, 3, 16), "cancelado")  # counts nowhere
    _dam(db, "taxa_autorizacao", "120.00", d(2025, 3, 10), d(2025, 3, 20), "pago", d(2025, 3, 15), "120.00")
    _dam(db, "taxa_vistoria", "95.50", d(2026, 3, 25), d(2026, 4, 6))  # not yet due on 31/03
    return db


def test_a_platform_with_credentialing_pending_is_counted_without_breaking_the_summary(known):
    """The compliance rules add the credentialing item first (art. 6º) for such a platform; the
    summary still reads insurance, lists and ISSQN (a demo platform in this state broke the page)."""
    insert_one(known["platforms"], encode({"municipality": "chapada", "name": "Outra Plataforma Ltda",
                                           "cnpj": "11444777000161", "credentialed_on": date(2026, 1, 2),
                                           "status": "pendente"}))
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    assert [p.name for p in figures.ride_hailing.platforms] == ["Outra Plataforma Ltda", "Plataforma Exemplo Ltda"]
    assert figures.ride_hailing.platforms[0].insurance is False


def test_ride_hailing_figures_of_the_period_and_of_the_previous_one(known):
    figures = summary.summary(known, GABINETE, "chapada", *MARCH, "previous")
    ride = figures.ride_hailing
    assert (ride.active, ride.new, ride.renewed, ride.suspended, ride.cassadas) == (3, 2, 1, 1, 1)
    assert (ride.expiring, ride.drivers, ride.vehicles) == (0, 3, 1)
    assert (ride.inspections_done, ride.inspections_failed, ride.inspections_overdue) == (3, 1, 1)
    assert ride.average_days_to_authorization == Decimal("12.0")
    assert ride.by_status == {"Ativa": 3, "Suspensa": 1, "Cassada": 1, "Aguardando vistoria": 1, "Requerida": 1}
    assert [p.name for p in ride.platforms] == ["Plataforma Exemplo Ltda"]
    assert ride.platforms[0].insurance is False  # no APP policy on record
    assert figures.previous == Period(date(2026, 1, 29), date(2026, 2, 28))
    kpis = {k.key: (k.value, k.previous, k.change) for k in figures.kpis}
    assert kpis["active"] == (3, 3, 0)
    assert kpis["new"] == (2, 1, 1)
    assert kpis["renewed"] == (1, 0, 1)
    assert kpis["inspections_done"] == (3, 1, 2)
    assert kpis["inspections_overdue"] == (1, 0, 1)
    assert kpis["days_to_authorization"] == (Decimal("12.0"), Decimal("36.0"), Decimal("-24.0"))


def test_revenue_per_kind_and_month_with_the_previous_period_and_the_previous_year(known):
    figures = summary.summary(known, GABINETE, "chapada", *MARCH, "previous")
    revenue = figures.revenue
    assert (revenue.total("issued_count"), revenue.total("issued")) == (4, Decimal("491.00"))
    assert (revenue.total("paid_count"), revenue.total("paid")) == (3, Decimal("690.00"))
    assert (revenue.total("overdue_count"), revenue.total("overdue")) == (1, Decimal("95.50"))
    kinds = {k: (v.issued, v.paid, v.overdue) for k, v in revenue.by_kind().items()}
    assert kinds == {"Taxa de autorização": (Decimal("300.00"), Decimal("280.00"), Decimal("0.00")),
                     "Taxa de vistoria": (Decimal("191.00"), Decimal("0.00"), Decimal("95.50")),
                     "Multa (auto de infração)": (Decimal("0.00"), Decimal("410.00"), Decimal("0.00"))}
    assert revenue.by_month("paid") == {date(2026, 3, 1): Decimal("690.00")}
    assert figures.revenue_year_before.by_month("paid") == {date(2025, 3, 1): Decimal("120.00")}
    kpis = {k.key: (k.value, k.previous, k.change) for k in figures.kpis}
    assert kpis["paid"] == (Decimal("690.00"), Decimal("0.00"), Decimal("690.00"))
    assert kpis["issued"] == (Decimal("491.00"), Decimal("402.30"), Decimal("88.70"))
    assert kpis["overdue"] == (Decimal("95.50"), Decimal("402.30"), Decimal("-306.80"))  # paid late, overdue then
    fines = figures.fines
    assert (fines.issued_count, fines.paid_count, fines.paid, fines.overdue_count) == (0, 1, Decimal("410.00"), 0)


def test_the_difference_between_face_value_and_amount_paid_is_explained(known):
    d = summary.summary(known, GABINETE, "chapada", *MARCH).revenue.differences
    assert (d.paid_count, d.face_value, d.received) == (3, Decimal("702.30"), Decimal("690.00"))
    assert (d.short_count, d.short, d.over_count, d.over) == (1, Decimal("20.00"), 1, Decimal("7.70"))
    assert (d.late_count, d.late, d.difference) == (2, Decimal("540.00"), Decimal("-12.30"))
    # issue 35 item 8: the municipality's revenue is public (LC 101/2000 art. 48-A II): one DAM paid short,
    # one paid over and two paid late are said whole (issue 23 had hidden them as small cells)
    assert difference_text(d) == (
        "Os DAM pagos no período somam R$ 702,30 de valor emitido e R$ 690,00 recebidos (diferença de -R$ 12,30): "
        "pagamentos a menor faltaram R$ 20,00; pagamentos a maior excederam R$ 7,70. "
        "Pagos após o vencimento: R$ 540,00.")


def test_authorizations_expiring_within_30_days_of_the_last_day(known):
    """Chapada's authorizations end on 31/12 of the fee year (art. 9 §1); A1 was renewed to 2027."""
    ride = summary.summary(known, GABINETE, "chapada", date(2026, 11, 30), date(2026, 12, 1)).ride_hailing
    assert ride.expiring == 3  # A2, A3 and A4 (its suspension over)
    assert summary.summary(known, GABINETE, "chapada", date(2026, 11, 1), date(2026, 11, 30)).ride_hailing.expiring == 0


def test_tables_show_small_cells_as_less_than_three_and_name_nobody(known):
    tables = report_tables.tables(summary.summary(known, GABINETE, "chapada", *MARCH))
    # issue 35 item 8: of the statuses, the decisions against a person (suspended, cassada) are hidden from
    # the gabinete; the register and the secretariat's work (awaiting inspection, requested) are shown
    assert {r["Situação"]: r["Quantidade"] for r in tables["Autorizações por situação"]} == {
        "Ativa": 3, "Suspensa": "< 3", "Cassada": "< 3", "Aguardando vistoria": 1, "Requerida": 1}
    kinds = {r["Receita"]: r for r in tables["Arrecadação por receita"]}
    # the revenue is public (LC 101/2000 art. 48-A II): two DAMs paid, March 2025's one DAM of R$ 120,00
    # and the one DAM overdue on 31/03 are shown whole (issue 23 had hidden them as small cells)
    assert kinds["Taxa de autorização"]["Pagos (qtd.)"] == 2
    assert kinds["Taxa de autorização"]["Pagos no mesmo período do ano anterior (R$)"] == Decimal("120.00")
    assert tables["Arrecadação por mês"] == [{
        "Mês": "mar/2026", "Emitidos (R$)": Decimal("491.00"), "Pagos (R$)": Decimal("690.00"),
        "Vencidos (R$)": Decimal("95.50"), "Pagos no mesmo mês do ano anterior (R$)": Decimal("120.00")}]
    text = repr(tables)
    assert "Fulano" not in text and "QBA" not in text and "0000000000" not in text


@pytest.mark.parametrize("count, shown", [(0, 0), (1, "< 3"), (2, "< 3"), (3, 3), (40, 40)])
def test_small_cells(count, shown):
    (mark,), _total = privacy.suppress([count], total_known=False)
    assert (mark or count) == shown


@pytest.mark.parametrize("cpf, masked", [("529.982.247-25", "***.982.247-**"), ("52998224725", "***.982.247-**"),
                                         ("123", "***"), ("", "***")])
def test_a_cpf_is_masked_to_its_middle_digits(cpf, masked):
    assert privacy.mask_cpf(cpf) == masked


@pytest.mark.parametrize("start, end, previous, year_before", [
    (date(2026, 3, 1), date(2026, 3, 31), (date(2026, 1, 29), date(2026, 2, 28)), (date(2025, 3, 1), date(2025, 3, 31))),
    (date(2028, 2, 29), date(2028, 2, 29), (date(2028, 2, 28), date(2028, 2, 28)), (date(2027, 2, 28), date(2027, 2, 28))),
], ids=["march", "leap-day"])
def test_previous_period_has_the_same_length_and_the_year_before_the_same_dates(start, end, previous, year_before):
    period = Period(start, end)
    assert period.previous() == Period(*previous)
    assert period.year_before() == Period(*year_before)


def test_a_period_ending_before_it_starts_is_refused(db):
    with pytest.raises(ValidationFailed):
        summary.summary(db, GABINETE, "chapada", date(2026, 3, 2), date(2026, 3, 1))


def test_summary_refuses_a_municipality_outside_the_user(db):
    with pytest.raises(PermissionDenied):
        summary.summary(db, SECRETARIA_MP, "chapada", *MARCH)


def test_the_data_version_moves_with_every_write_of_the_municipality_only(db, today):
    """The summary page keeps its figures under this version: a write anywhere in the municipality
    (it leaves an audit entry) makes the next view recompute them; another municipality's does not."""
    before = summary.data_version(db, GABINETE, "matupa")
    issue(db, amount=Decimal("80.50"))
    after = summary.data_version(db, GABINETE, "matupa")
    assert after != before
    entities.create(db, SECRETARIA_CG, "taxpayers", "chapada",
                    {"name": "B", "document": "52998224725", "kind": "pf", "address": "Rua 2"})
    assert summary.data_version(db, GABINETE, "matupa") == after


def test_the_report_is_one_page_with_the_kpis_and_both_charts(known):
    pdf = PdfReader(io.BytesIO(summary.report_pdf(known, GABINETE, "chapada", *MARCH)))
    assert len(pdf.pages) == 1
    text = pdf.pages[0].extract_text()
    for expected in ("PREFEITURA MUNICIPAL DE CHAPADA DOS GUIMARÃES", "RELATÓRIO GERENCIAL", "01/03/2026 a 31/03/2026",
                     "R$ 690,00", "Arrecadado por mês × mesmo mês do ano anterior", "DAM por receita no período",
                     "mar/2026", "diferença de -R$ 12,30"):
        assert expected in text, expected


# ---- the page ----

def page(actor, municipality="chapada", **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / "summary.py"), default_timeout=120)
    at.session_state["actor"] = actor
    at.session_state["municipality"] = municipality
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def rendered_text(at: AppTest) -> str:
    parts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption", "info") for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value} {m.delta}" for m in at.metric]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("actor", [GABINETE, SECRETARIA_CG, TI], ids=["gabinete", "secretaria", "ti"])
def test_the_page_shows_the_chosen_period_to_every_role(known, actor, today):
    today.set(date(2026, 4, 15))
    at = page(actor, summary_preset="Personalizado", summary_range=MARCH, summary_compare="previous")
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["Arrecadado (DAM pagos)"] == ("R$ 690,00", "+R$ 690,00")
    # issue 35 item 8: one DAM overdue on 31/03 and one on 28/02: revenue, shown whole to every role
    assert metrics["DAM vencidos no fim do período"] == ("R$ 95,50", "-R$ 306,80")
    assert metrics["Autorizações ativas"] == ("3", "0")
    text = rendered_text(at)
    assert "Gravações" not in text and "R$ 702,30 de valor emitido e R$ 690,00 recebidos" in text
    # issue 22 item 12: not fourteen buttons: the PDF report and every table in one workbook, and (issue 35
    # item 8) in one CSV beside it
    assert [b.proto.label for b in at.get("download_button")] == [
        "Relatório gerencial (PDF)", "Tabelas do resumo (XLSX, uma aba por tabela)",
        "Tabelas do resumo (CSV, uma linha por célula)"]


def test_by_default_the_period_is_compared_with_the_same_dates_of_the_year_before(known, today):
    """Issue 22 item 12: March 2026 beside March 2025 (a DAM of R$ 120,00 paid, one vistoria), not
    beside 29/01–28/02; the page says so."""
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    assert figures.previous == Period(date(2025, 3, 1), date(2025, 3, 31)) and not figures.compared_empty
    kpis = {k.key: (k.value, k.previous, k.change) for k in figures.kpis}
    assert kpis["paid"] == (Decimal("690.00"), Decimal("120.00"), Decimal("570.00"))
    assert kpis["inspections_done"] == (3, 1, 2)
    today.set(date(2026, 4, 15))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    assert "Comparação com o mesmo período do ano anterior: 01/03/2025 a 31/03/2025." in [c.value for c in at.caption]
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    # issue 35 item 8: March 2025's R$ 120,00 is one DAM, but revenue is public: the change is shown
    assert metrics["Arrecadado (DAM pagos)"] == ("R$ 690,00", "+R$ 570,00")


def test_the_workbook_has_one_sheet_per_table_with_typed_cells(known):
    import openpyxl

    from services.shared import exports

    tables = report_tables.tables(summary.summary(known, GABINETE, "chapada", *MARCH))
    book = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx_book({t: (r, None) for t, r in tables.items() if r})))
    assert book.sheetnames[:2] == ["Indicadores", "Arrecadação por receita"]
    months = book["Arrecadação por mês"]
    header = [c.value for c in months[1]]
    paid = months.cell(row=2, column=header.index("Pagos (R$)") + 1)
    assert isinstance(paid.value, (int, float)) and "R$" in paid.number_format  # a number, not text
    # issue 35 item 8: the fines' one DAM paid is revenue, a number in the workbook (issue 23 had hidden it)
    kinds = book["Arrecadação por receita"]
    assert kinds.cell(row=2, column=1).value == "Multa (auto de infração)"
    assert kinds.cell(row=2, column=[c.value for c in kinds[1]].index("Pagos (R$)") + 1).value == 410


def test_a_comparison_period_without_any_record_shows_no_change(known, today):
    """An empty year before is no base: no "+R$ 690,00" against nothing, and the page says why."""
    known["dams"].delete_many({"issued_on": {"$lt": encode(date(2026, 1, 1))}})
    known["inspections"].delete_many({"performed_on": {"$lt": encode(date(2026, 1, 1))}})
    views.rebuild(known, "chapada")  # the store edited by hand: its read models made again from it
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    assert figures.compared_empty and all(k.previous is None and k.change is None for k in figures.kpis)
    today.set(date(2026, 4, 15))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    assert any(c.value.startswith("Sem registros no mesmo período do ano anterior (01/03/2025 a 31/03/2025)")
               for c in at.caption)
    assert [m.delta or "" for m in at.metric if m.label == "Arrecadado (DAM pagos)"] == [""]


def test_gabinete_reaches_no_write_page_and_no_personal_datum_on_the_demo_data(demo_db):
    """Over every page the gabinete can open, in every municipality, and over the PDF report: no name,
    CPF/CNPJ of a person, plate or DAM number of the demo store (``seed_demo``, conftest) appears."""
    from ui.navigation import PAGES

    db = demo_db
    personal = set()
    for doc in db["drivers"].find({}, {"name": 1, "cpf": 1}):
        personal |= {doc["name"], doc["cpf"], f"{doc['cpf'][:3]}.{doc['cpf'][3:6]}.{doc['cpf'][6:9]}-{doc['cpf'][9:]}"}
    for doc in db["taxpayers"].find({"kind": "pf"}, {"name": 1, "document": 1}):
        personal |= {doc["name"], doc["document"]}
    personal |= {doc["plate"] for doc in db["vehicles"].find({}, {"plate": 1})}
    personal |= {doc["number"] for doc in db["dams"].find({}, {"number": 1})}
    for collection, keys in (("machinery_requesters", ("name", "document")), ("machinery_operators", ("name", "cpf")),
                             ("autos", ("offender_name", "driver_cpf", "plate", "number")),
                             ("booking_requests", ("protocol",))):
        for doc in db[collection].find({}, dict.fromkeys(keys, 1)):
            personal |= {doc[k] for k in keys if doc.get(k)}
    assert len(personal) > 50
    for municipality in GABINETE.municipalities:
        for listed in PAGES:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
            at.session_state["actor"] = GABINETE
            at.session_state["municipality"] = municipality
            at.run()
            if listed.permission != "summary":
                with pytest.raises(ValueError, match="Could not find a navigation page"):
                    at.switch_page(listed.path)
                continue
            at.switch_page(listed.path).run()
            assert not at.exception, at.exception
            text = rendered_text(at)
            assert not [p for p in personal if p in text], (listed.path, municipality)
        report = summary.report_pdf(db, GABINETE, municipality, date(clock.today().year, 1, 1), clock.today())
        text = PdfReader(io.BytesIO(report)).pages[0].extract_text()
        assert not [p for p in personal if p in text], municipality


# ---- autos (services.ridehailing.enforcement.autos) and bookings (services.machinery.booking_requests) ----

def test_autos_of_the_period_by_severity_and_stage(known):
    for n, (committed_on, severity, stage) in enumerate((
            (date(2026, 3, 3), "grave", "notificado"), (date(2026, 3, 9), "grave", "multa_paga"),
            (date(2026, 3, 20), "leve", "decidido"), (date(2026, 3, 21), "grave", "rascunho"),
            (date(2026, 2, 27), "gravíssima", "notificado")), start=1):
        insert_one(known["autos"], encode({"municipality": "chapada", "committed_on": committed_on, "severity": severity,
                                           "stage": stage, "year": 2026, "sequence": n, "driver_cpf": "52998224725"}))
    autos_view.rebuild(known, "chapada")  # autos written by hand: their figures made again from them
    fines = summary.summary(known, GABINETE, "chapada", *MARCH).fines
    assert fines.by_severity == {"Grave": 2, "Leve": 1}  # the draft and February's auto left out
    assert fines.by_stage == {"Notificado": 1, "Multa paga": 1, "Decidido": 1}
    rows = report_tables.tables(summary.summary(known, GABINETE, "chapada", *MARCH))["Multas"]
    assert {"Situação": "Autos — gravidade Grave", "Quantidade": "< 3", "Valor (R$)": None} in rows


def _request(db, n: int, **doc) -> None:
    insert_one(db["booking_requests"], encode({"municipality": "nova_lacerda", "year": 2026, "sequence": n,
                                                "protocol": f"{n:04d}/2026", **doc}))


def test_bookings_figures_of_the_period(db):
    d, asset = date, "a" * 24
    insert_one(db["machinery_assets"], encode({"_id": ObjectId(asset), "municipality": "nova_lacerda",
                                               "kind": "Retroescavadeira", "identifier": "PAT-0012"}))
    _request(db, 1, requested_on=d(2026, 3, 2), zone="Zona 1", services=[{"kind": "machine_hours"}], status="concluido",
             execution={"started_on": d(2026, 3, 12), "ended_on": d(2026, 3, 13),
                        "meters": [{"asset_id": asset, "start": Decimal("100"), "end": Decimal("108")}]},
             quote={"on": d(2026, 3, 3), "discount_total": Decimal("50.00"), "discount": {"criterion": "BPC"}},
             settlement={"amount_due": Decimal("0"), "credit_to_return": Decimal("30.00"), "completed_on": d(2026, 3, 13)})
    _request(db, 2, requested_on=d(2026, 3, 5), zone="Zona 1", services=[{"kind": "earth_loads"}, {"kind": "machine_hours"}],
             status="em_execucao", execution={"started_on": d(2026, 3, 25)},
             quote={"on": d(2026, 3, 6), "discount_total": Decimal("0.00")})
    _request(db, 3, requested_on=d(2026, 3, 1), zone="Zona 2", services=[{"kind": "dump_truck_day"}], status="concluido",
             execution={"started_on": d(2026, 3, 30), "ended_on": d(2026, 3, 30),
                        "meters": [{"asset_id": asset, "start": Decimal("108"), "end": Decimal("110.5")}]},
             settlement={"amount_due": Decimal("120.00"), "due": d(2026, 3, 30), "completed_on": d(2026, 3, 30)})
    _request(db, 4, requested_on=d(2026, 2, 10), zone="Zona 3", services=[{"kind": "lowboy_trip"}], status="concluido",
             execution={"started_on": d(2026, 3, 2)})
    for n, day in enumerate((d(2026, 3, 12), d(2026, 3, 13), d(2026, 3, 30), d(2026, 2, 27))):
        insert_one(db["machinery_bookings"], encode({"municipality": "nova_lacerda", "asset_id": asset, "day": day,
                                                     "operator_id": f"op{n}", "request_id": "x"}))
    bookings_view.rebuild(db, "nova_lacerda")  # requests written by hand: their figures made again from them
    bookings_view.rebuild_booked(db, "nova_lacerda")  # and their bookings' days
    figures = summary.summary(db, GABINETE, "nova_lacerda", *MARCH).bookings
    assert figures.by_zone == {"Zona 1": 2, "Zona 2": 1}
    assert figures.by_service == {"Horas-máquina": 2, "Cargas de terra/cascalho": 1, "Caminhão basculante": 1}
    assert figures.by_stage == {"Concluído": 2, "Em execução": 1}
    assert (figures.waiting_median_days, figures.waiting_p90_days) == (Decimal("20"), Decimal("29"))  # 10, 20, 20, 29
    assert figures.hours_per_asset == {"Retroescavadeira PAT-0012": Decimal("10.5")}
    assert figures.utilization_per_asset == {"Retroescavadeira PAT-0012": UTILIZATION}
    assert figures.discounts_count_by_criterion == {"Recebimento do Benefício de Prestação Continuada (BPC)": 1}
    assert (figures.discounts, figures.balances_overdue, figures.credits_to_return) == (
        Decimal("50.00"), Decimal("120.00"), Decimal("30.00"))
    kpis = {k.key: (k.value, k.previous) for k in summary.summary(db, GABINETE, "nova_lacerda", *MARCH, "previous").kpis}
    assert kpis["requests"] == (3, 1) and kpis["waiting"] == (Decimal("20"), None)
    assert kpis["balances_overdue"] == (Decimal("120.00"), Decimal("0.00"))


def test_a_chart_gridline_shows_half_the_peak_to_the_centavo():
    # the middle gridline of a R$ 919,27 peak read "R$ 459,63": the amount went through a float
    from fpdf import FPDF

    from services.shared.pdf.style import Fonts
    from services.summary.report_pdf import _bars

    pdf = FPDF(unit="mm", format="A4")
    pdf.add_page()
    _bars(pdf, Fonts(pdf), 20, 80, "Arrecadação por mês", ["jan/2026"], [("2026", [Decimal("919.27")])])
    text = PdfReader(io.BytesIO(bytes(pdf.output()))).pages[0].extract_text()
    assert "459,64" in text and "459,63" not in text


def test_a_service_with_nothing_in_the_comparison_period_shows_no_change(known, today):
    """Issue 22 item 12: the revenue has a year before, the ride-hailing has none (no authorization,
    no vistoria in March 2025): "+3 vistorias" against nothing is no change, and the page says why."""
    known["inspections"].delete_many({"performed_on": {"$lt": encode(date(2026, 1, 1))}})
    records_view.rebuild(known, "chapada")  # a removal by hand, followed as a service's would be
    figures = summary.summary(known, GABINETE, "chapada", *MARCH)
    kpis = {k.key: k for k in figures.kpis}
    assert kpis["paid"].change == Decimal("570.00") and not figures.compared_empty  # the DAMs keep their base
    assert kpis["inspections_done"].value == 3
    assert all(kpis[key].previous is None and kpis[key].change is None for key in (
        "active", "new", "renewed", "inspections_done", "inspections_overdue", "days_to_authorization"))
    assert figures.without_base == ("transporte por aplicativo",)
    today.set(date(2026, 4, 15))
    at = page(GABINETE, summary_preset="Personalizado", summary_range=MARCH)
    assert any("Sem registros de transporte por aplicativo no período comparado" in c.value for c in at.caption)
    assert [m.delta or "" for m in at.metric if m.label == "Vistorias realizadas"] == [""]
