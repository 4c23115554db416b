"""What is owed, by age bucket, kept as data (issue 21): the Débitos totals read from the month cells
equal the fold of every owed charge — on every day (charges age without any write), under every
filter, after the writes of the money loop (a DAM issued, paid, cancelled) and after a rebuild — and
read the days of only the months a bucket's boundary cuts."""
from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from decimal import Decimal

import pytest

from docstore import projections
from docstore.collection import Collection
from rules.dam import charges as charge_rules
from services import store
from services.dam import aging_view, dams, debts, payments
from services.dam.debts import DebtQuery
from services.shared import clock
from services.shared.auth import Actor
from tests.conftest import copy_store

ACTOR = Actor("teste", "Teste", "secretaria", ("chapada", "matupa", "nova_lacerda"))


@pytest.fixture()
def db(tmp_path, demo_store, monkeypatch):
    monkeypatch.delenv("MONGODB_URI", raising=False)
    return store.connect(data_dir=str(copy_store(demo_store, tmp_path / "store")))


def folded(db, municipality: str, query: DebtQuery):
    """The oracle: every owed charge of the filter read and folded, as the page did on each render."""
    today = clock.today()
    return debts.fold(debts.owed_figures(db, debts.mongo_query(municipality, query, today)), today)


def same(a, b) -> bool:
    def plain(aging):
        return {line: {k: (c.count, c.amount) for k, c in cells.items() if c.count} for line, cells in aging.lines.items()
                if any(c.count for c in cells.values())}
    return plain(a) == plain(b)


QUERIES = [DebtQuery()] + [DebtQuery(bucket=key) for key, *_r in charge_rules.BUCKETS] + [
    DebtQuery(status=s) for s in charge_rules.OWING] + [DebtQuery(revenue_kind="multa"),
                                                       DebtQuery(revenue_kind="taxa_autorizacao", bucket="1_30")]


@pytest.mark.parametrize("municipality", ["chapada", "matupa", "nova_lacerda"])
def test_the_kept_aging_is_the_folded_one_on_every_day_and_filter(db, municipality, monkeypatch):
    start = clock.today()
    assert folded(db, municipality, DebtQuery()).total().count, "the demo owes something"
    for days in (0, 1, 29, 30, 31, 89, 91, 200, 365, 366, 700):
        on = start + timedelta(days=days)
        monkeypatch.setattr(clock, "today", lambda on=on: on)
        for query in QUERIES:
            assert same(debts.aging(db, ACTOR, municipality, query), folded(db, municipality, query)), (days, query)


def test_issue_pay_and_cancel_move_the_kept_aging(db):
    today = clock.today()
    common = dict(taxpayer_name="Maria da Silva Souza", taxpayer_document="529.982.247-25",
                  taxpayer_address="Rua dos Ipês, 120, Centro", revenue_kind="taxa_autorizacao",
                  description="Taxa de teste", legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 9º")
    first = dams.issue(db, ACTOR, "matupa", amount=Decimal("150.00"), due=today + timedelta(days=10), **common)
    second = dams.issue(db, ACTOR, "matupa", amount=Decimal("80.00"), due=today + timedelta(days=12), **common)
    assert same(debts.aging(db, ACTOR, "matupa"), folded(db, "matupa", DebtQuery()))
    payments.record_payment(db, ACTOR, "matupa", first["id"], today, Decimal("100.00"), "PIX")  # paid short
    assert same(debts.aging(db, ACTOR, "matupa"), folded(db, "matupa", DebtQuery()))
    payments.record_payment(db, ACTOR, "matupa", second["id"], today, Decimal("80.00"), "PIX")
    assert same(debts.aging(db, ACTOR, "matupa"), folded(db, "matupa", DebtQuery()))
    kept = {(d["_id"], d["n"], str(d["open"])) for d in db[aging_view.CELLS].find({"municipality": "matupa"})}
    with store.transaction(db):
        aging_view.rebuild(db, "matupa")
    rebuilt = {(d["_id"], d["n"], str(d["open"])) for d in db[aging_view.CELLS].find({"municipality": "matupa"})
               if d["n"]}
    assert {cell for cell in kept if cell[1]} == rebuilt


def test_a_search_folds_the_charges_it_finds(db):
    query = DebtQuery(search="a")
    assert same(debts.aging(db, ACTOR, "chapada", query), folded(db, "chapada", query))


def test_a_month_counts_whole_only_inside_one_bucket():
    today = date(2026, 12, 2)
    assert aging_view._whole("2026-12", today) is None  # today falls inside: read by day
    assert aging_view._whole("2027-01", today) == "a_vencer"
    assert aging_view._whole("2026-11", today) is None  # 1 Nov is 31 days overdue, 30 Nov is 2: two buckets
    assert aging_view._whole("2026-10", today) == "31_90"  # 62 to 32 days overdue
    assert aging_view._whole("2024-01", today) == "mais_365"


def test_the_totals_decode_the_days_of_only_the_months_a_boundary_cuts(db, monkeypatch):
    """The month totals are read by name: the embedded store decodes a whole document to drop a field,
    so ``{"days": 0}`` decoded every day of every month on each render (Débitos after a save grew with
    the data: 1.234 days at scale 1, 2.945 at 100 for Chapada); only the cut months are read by day."""
    today = clock.today()
    cells = list(db[aging_view.CELLS].find({"municipality": "chapada"}))
    cut = sum(len(c.get("days") or {}) for c in cells if aging_view._whole(c["month"], today) is None)
    assert 0 < cut < sum(len(c.get("days") or {}) for c in cells), "the demo has whole months and cut ones"
    decoded = Counter()

    def counting(decode_one):
        def counted(*args):
            doc = decode_one(*args)
            decoded["days"] += len(doc.get("days") or {})
            return doc
        return counted

    monkeypatch.setattr(Collection, "_load", counting(Collection._load))  # a whole document
    monkeypatch.setattr(projections, "projected", counting(projections.projected))  # the fields named
    debts.aging(db, ACTOR, "chapada")
    assert decoded["days"] == cut
