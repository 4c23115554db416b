"""Débitos (services.dam.debts): the owed charges by "vencido há" bucket, filters, paging, totals per
bucket and revenue, exports, and store calls that do not grow with the data."""
from __future__ import annotations

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from bson import ObjectId
from openpyxl import load_workbook

from rules.dam import charges as charge_rules
from rules.params import ParameterVersion
from services.dam import aging_view, dams, debts, payments, rebill
from services.dam.debts import DebtQuery
from services.setup import bootstrap
from services.shared.errors import PermissionDenied
from services.store import encode, insert_one
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP, TI
from tests.test_ridehailing_page_queries import CountingDatabase

TODAY = date(2026, 3, 2)
D = Decimal
MARIA, JOAO = ("Maria da Silva Souza", "529.982.247-25"), ("João Pereira Lima", "111.444.777-35")


def issue(db, on: date, due: date, amount="150.00", who=MARIA, kind="taxa_autorizacao", mun="matupa",
          actor=SECRETARIA_MP, pays=None, today=None) -> dict:
    """A DAM (and its charge) issued on ``on`` by the DAM service; ``today`` is put back after."""
    today.set(on)
    dam = dams.issue(db, actor, mun, taxpayer_name=who[0], taxpayer_document=who[1],
                     taxpayer_address="Rua dos Ipês, 120, Centro", revenue_kind=kind, description=f"{kind} de teste",
                     legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º", amount=D(amount), due=due, pays=pays)
    today.set(TODAY)
    return dam


def charge_doc(db, due: date, status=charge_rules.OPEN, open_="100.00", code="1121.01.01", kind="multa",
               mun="matupa", name="Maria da Silva Souza", document="52998224725") -> str:
    """A charge stored as services.dam.charges keeps it, due on ``due`` (boundaries need exact dates,
    which a DAM moves to a business day)."""
    charge_id = str(insert_one(db["charges"], encode({
        "municipality": mun, "owner": {"collection": "autos", "id": "a1", "label": "Auto nº 0007/2026"},
        "taxpayer": {"name": name, "document": document, "address": "Rua A, 1"}, "revenue_kind": kind,
        "revenue_code": code, "description": "Multa", "legal_basis": "Lei 1.552/2025, art. 30", "reference": "2026",
        "principal": D(open_), "discount": D("0"), "issued_on": due - timedelta(days=10), "due_on": due,
        "late": D("0"), "paid": D("0"), "open": D(open_), "credit": D("0"), "status": status, "paid_on": None,
        "live_dam": None, "dams": [], "payments": [], "inscription": None, "version": 1})))
    aging_view.follow(db, charge_id)  # as the charge writer does: the aging kept as data counts it
    return charge_id


def ids(page) -> list[str]:
    return [row["id"] for row in page.rows]


@pytest.mark.parametrize("days_overdue, bucket", [
    (-5, "a_vencer"), (0, "a_vencer"), (1, "1_30"), (30, "1_30"), (31, "31_90"), (90, "31_90"), (91, "91_365"),
    (365, "91_365"), (366, "mais_365"), (900, "mais_365"),
], ids=lambda v: str(v))
def test_each_charge_is_listed_in_its_bucket_and_no_other(db, today, days_overdue, bucket):
    today.set(TODAY)
    charge_id = charge_doc(db, TODAY - timedelta(days=days_overdue))
    for key, *_rest in charge_rules.BUCKETS:
        found = ids(debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery(bucket=key)))
        assert found == ([charge_id] if key == bucket else []), key
    row = debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery()).rows[0]
    assert row["bucket"] == bucket and row["days_overdue"] == max(days_overdue, 0)


def test_owed_charges_are_listed_oldest_first_and_paid_ones_are_not(db, today):
    overdue = issue(db, date(2025, 11, 3), date(2025, 11, 20), today=today)
    short = issue(db, date(2026, 1, 5), date(2026, 1, 20), amount="225.00", who=JOAO, today=today)
    paid = issue(db, date(2026, 2, 2), date(2026, 2, 20), today=today)
    due_later = issue(db, TODAY, TODAY + timedelta(days=20), today=today)
    payments.record_payment(db, SECRETARIA_MP, "matupa", short["id"], TODAY, D("100.00"), "Caixa")
    payments.record_payment(db, SECRETARIA_MP, "matupa", paid["id"], TODAY, D("150.00"), "Caixa")
    page = debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery())
    assert [r["live_dam"] and r["live_dam"]["number"] for r in page.rows] == [overdue["number"], None, due_later["number"]]
    assert [(r["status"], r["open"]) for r in page.rows] == [
        (charge_rules.OPEN, D("150.00")), (charge_rules.SHORT, D("125.00")), (charge_rules.OPEN, D("150.00"))]
    assert [r["bucket"] for r in page.rows] == ["91_365", "31_90", "a_vencer"]
    assert ids(debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery(status=charge_rules.SHORT))) == [
        page.rows[1]["id"]]


def test_a_cancelled_dam_leaves_its_charge_listed_and_a_new_dam_can_be_issued(db, today):
    dam = issue(db, date(2026, 1, 5), date(2026, 1, 20), today=today)
    dams.cancel(db, SECRETARIA_MP, "matupa", dam["id"], "Endereço errado", withdraw=False)
    row = debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery()).rows[0]
    assert row["live_dam"] is None and rebill.issuable(row)
    new = rebill.issue_open(db, SECRETARIA_MP, "matupa", row["id"], TODAY + timedelta(days=10))
    again = debts.get(db, SECRETARIA_MP, "matupa", row["id"])
    assert again["live_dam"]["number"] == new["number"] and not rebill.issuable(again)
    assert again["due_on"] == row["due_on"]  # the charge's due date never moves


@pytest.mark.parametrize("search", ["maria", "529.982.247-25", "52998224725", "Auto nº 0007"])
def test_the_search_finds_a_taxpayer_by_name_cpf_or_record(db, today, search):
    today.set(TODAY)
    mine = charge_doc(db, TODAY - timedelta(days=3))
    charge_doc(db, TODAY - timedelta(days=3), name="João Pereira Lima", document="11144477735")
    db["charges"].update_many({"_id": {"$ne": ObjectId(mine)}}, {"$set": {"owner.label": "Autorização MP-1"}})
    assert ids(debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery(search=search))) == [mine]


def test_the_revenue_filter_and_another_municipality(db, today):
    today.set(TODAY)
    fine = charge_doc(db, TODAY, kind="multa")
    fee = charge_doc(db, TODAY, kind="taxa_autorizacao")
    charge_doc(db, TODAY, mun="chapada")
    assert ids(debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery(revenue_kind="multa"))) == [fine]
    assert sorted(ids(debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery()))) == sorted([fine, fee])


def test_pages_are_counted_and_read_in_the_store(db, today):
    today.set(TODAY)
    made = [charge_doc(db, TODAY - timedelta(days=n)) for n in range(5, 0, -1)]  # oldest first
    pages = [debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery(page=n, per_page=2)) for n in (1, 2, 3, 9)]
    assert [ids(p) for p in pages] == [made[:2], made[2:4], made[4:], made[4:]]
    assert (pages[0].total, pages[0].pages, pages[3].page) == (5, 3, 3)


def test_the_totals_per_bucket_and_revenue(db, today):
    today.set(TODAY)
    for days, amount, code, kind in ((-1, "10.00", "1121.01.01", "multa"), (10, "20.00", "1121.01.01", "multa"),
                                     (15, "5.50", "1121.01.01", "multa"), (400, "30.00", "", "taxa_autorizacao")):
        charge_doc(db, TODAY - timedelta(days=days), open_=amount, code=code, kind=kind)
    charge_doc(db, TODAY - timedelta(days=10), status=charge_rules.PAID, open_="999.00")
    aging = debts.aging(db, SECRETARIA_MP, "matupa")
    buckets = aging.by_bucket()
    assert list(buckets) == [key for key, *_r in charge_rules.BUCKETS]
    assert {k: (c.count, c.amount) for k, c in buckets.items() if c.count} == {
        "a_vencer": (1, D("10.00")), "1_30": (2, D("25.50")), "mais_365": (1, D("30.00"))}
    assert aging.total() == debts.AgingCell(4, D("65.50"))
    rows = aging.rows()
    assert [(r["Código da receita"], r["Receita"], r["Total (R$)"], r["Débitos (qtd.)"]) for r in rows] == [
        ("—", "Taxa de autorização", D("30.00"), 1), ("1121.01.01", "Multa (auto de infração)", D("35.50"), 3),
        ("", "Total", D("65.50"), 4)]
    assert rows[1]["Vencido há 1–30 dias (R$)"] == D("25.50") and rows[1]["A vencer (R$)"] == D("10.00")
    only_fines = debts.aging(db, SECRETARIA_MP, "matupa", DebtQuery(revenue_kind="multa"))
    assert only_fines.total() == debts.AgingCell(3, D("35.50"))


def test_the_revenue_code_in_force_is_kept_on_the_charge(db, today):
    bootstrap.ensure_parameter(db, "matupa", ParameterVersion("dam_revenue_code_taxa_autorizacao", date(2025, 1, 1),
                                                              "1121.01.07", "teste"))
    issue(db, date(2026, 1, 5), date(2026, 1, 20), today=today)
    row = debts.list_page(db, SECRETARIA_MP, "matupa", DebtQuery()).rows[0]
    assert debts.revenue_label(row["revenue_code"], row["revenue_kind"]) == "1121.01.07 — Taxa de autorização"


def test_the_exports_have_exactly_the_filter_in_pt_br(db, today):
    issue(db, date(2026, 1, 5), date(2026, 1, 20), today=today)
    issue(db, date(2026, 1, 5), date(2026, 1, 20), kind="multa", who=JOAO, today=today)
    query = DebtQuery(revenue_kind="taxa_autorizacao")
    text = debts.export_csv(db, SECRETARIA_MP, "matupa", query).decode("utf-8-sig")
    header, *lines = text.strip().splitlines()
    assert header.split(";") == list(debts.EXPORT_COLUMNS) and len(lines) == 1
    cells = dict(zip(debts.EXPORT_COLUMNS, lines[0].split(";")))
    assert cells["CPF/CNPJ"] == "529.982.247-25" and cells["Em aberto"] == "150,00"
    assert cells["Vencimento"] == "20/01/2026" and cells["Dias de atraso"] == "41"
    assert cells["Vencido há"] == "Vencido há 31–90 dias" and cells["Situação"] == "Em aberto"
    sheet = load_workbook(io.BytesIO(debts.export_xlsx(db, SECRETARIA_MP, "matupa", query))).active
    assert [c.value for c in sheet[1]] == list(debts.EXPORT_COLUMNS) and sheet.max_row == 2
    totals = debts.aging_csv(db, SECRETARIA_MP, "matupa", DebtQuery()).decode("utf-8-sig").splitlines()
    assert totals[0].split(";") == list(debts.AGING_COLUMNS) and totals[-1].startswith(";Total;")


@pytest.mark.parametrize("actor, mun", [(GABINETE, "matupa"), (SECRETARIA_CG, "matupa")], ids=["gabinete", "outro"])
def test_only_who_reads_the_municipality_sees_its_debts(db, actor, mun):
    for call in (debts.list_page, debts.aging, debts.export_csv):
        with pytest.raises(PermissionDenied):
            call(db, actor, mun, DebtQuery())
    with pytest.raises(PermissionDenied):
        debts.get(db, actor, mun, "0" * 24)


def test_ti_reads_debts_and_another_municipalitys_charge_is_not_found(db, today):
    from services.shared.errors import NotFound

    today.set(TODAY)
    other = charge_doc(db, TODAY, mun="chapada")
    assert debts.list_page(db, TI, "matupa", DebtQuery()).total == 0
    with pytest.raises(NotFound):
        debts.get(db, SECRETARIA_MP, "matupa", other)


def test_the_list_and_the_totals_make_the_same_store_calls_with_three_times_the_charges(db, today):
    today.set(TODAY)

    def calls() -> int:
        counting = CountingDatabase(db)
        debts.list_page(counting, SECRETARIA_MP, "matupa", DebtQuery(bucket="1_30", search="maria"))
        debts.list_page(counting, SECRETARIA_MP, "matupa", DebtQuery(page=2, per_page=2))
        debts.aging(counting, SECRETARIA_MP, "matupa")
        return sum(counting.calls.values())

    for n in range(4):
        charge_doc(db, TODAY - timedelta(days=n * 40))
    before = calls()
    for n in range(8):
        charge_doc(db, TODAY - timedelta(days=n * 13 + 1))
    assert calls() == before
