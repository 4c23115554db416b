"""Price table of Nova Lacerda (Decreto 017/2026, Anexo I; art. 12): versions, update by index, preview."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from rules.machinery.nova_lacerda import RULESET
from rules.machinery.prices import ANEXO_I
from rules.machinery.quote import EarthLoads
from services.machinery import price_tables
from services.shared import clock, parameters
from services.shared.errors import Conflict, PermissionDenied, ValidationFailed
from tests.conftest import TI

MUN = "nova_lacerda"


@pytest.fixture
def today(monkeypatch):
    day = date(2026, 12, 1)
    monkeypatch.setattr(clock, "today", lambda: day)
    return day


def preview(db, effective, variation="4,62", index="IPCA", period="12/2025 a 11/2026",
            act="Decreto Municipal 90/2026"):
    return price_tables.preview_update(db, TI, MUN, index, variation, period, effective, act)


def test_the_store_starts_with_anexo_i(db, today):
    table = price_tables.in_force(db, TI, MUN, today)
    assert table.effective == date(2026, 3, 24) and table.act == ANEXO_I
    assert table.price("01") == D("300.00") and table.price("12") == D("150.00")


def test_preview_shows_every_new_price_and_saves_nothing(db, today):
    before = list(db["parameters"].find({"municipality": MUN, "name": "public_price_table"}))
    update = preview(db, today + timedelta(days=30))
    assert len(update.rows) == 12
    by_code = {row.code: row for row in update.rows}
    assert (by_code["01"].current, by_code["01"].new) == (D("300.00"), D("313.86"))
    assert (by_code["11"].current, by_code["11"].new) == (D("4.50"), D("4.71"))  # 4,7079 rounded half up
    assert "IPCA" in update.note and "12/2025 a 11/2026" in update.note and "art. 12" in update.note
    assert list(db["parameters"].find({"municipality": MUN, "name": "public_price_table"})) == before


def test_saved_version_prices_quotes_from_its_date_and_older_quotes_keep_theirs(db, today):
    effective = today + timedelta(days=30)
    saved = price_tables.save_update(db, TI, MUN, preview(db, effective))
    assert saved.effective == effective and saved.price("12") == D("156.93")
    book = parameters.book(db, MUN)
    before = RULESET.quote([EarthLoads(5)], effective - timedelta(days=1), book)
    after = RULESET.quote([EarthLoads(5)], effective, book)
    assert before.total == D("750.00") and before.price_table.effective == date(2026, 3, 24)
    assert after.total == D("784.65") and after.price_table.effective == effective
    assert [t.effective for t in price_tables.versions(db, TI, MUN)] == [effective, date(2026, 3, 24)]
    entry = db["audit"].find_one({"municipality": MUN, "action": "price_table_update"})
    assert entry is not None and entry["username"] == TI.username


def test_a_preview_made_before_another_version_was_saved_is_refused(db, today):
    first = preview(db, today + timedelta(days=60))
    price_tables.save_update(db, TI, MUN, preview(db, today + timedelta(days=30), variation="2"))
    with pytest.raises(Conflict, match="refaça a prévia"):
        price_tables.save_update(db, TI, MUN, first)


def test_second_version_on_the_same_date_is_refused(db, today):
    effective = today + timedelta(days=10)
    price_tables.save_update(db, TI, MUN, preview(db, effective))
    with pytest.raises(Conflict, match="Já existe uma versão"):
        preview(db, effective)


@pytest.mark.parametrize("field, kwargs", [
    ("variation", {"variation": "abc"}),
    ("variation", {"variation": "0"}),
    ("variation", {"variation": "-100"}),
    ("index", {"index": "IGP-M"}),
    ("reference_period", {"period": " "}),
    ("act", {"act": ""}),
], ids=["not-a-number", "zero", "minus-100", "unknown-index", "no-period", "no-act"])
def test_bad_update_names_the_field(db, today, field, kwargs):
    with pytest.raises(ValidationFailed) as refused:
        preview(db, today + timedelta(days=1), **kwargs)
    assert field in refused.value.errors


@pytest.mark.parametrize("offset, ok", [(-1, False), (0, True)], ids=["yesterday", "today"])
def test_effective_date_is_today_or_later(db, today, offset, ok):
    if ok:
        assert preview(db, today + timedelta(days=offset)).effective == today
    else:
        with pytest.raises(ValidationFailed) as refused:
            preview(db, today + timedelta(days=offset))
        assert "effective" in refused.value.errors


def test_deflation_lowers_prices(db, today):
    update = preview(db, today + timedelta(days=1), variation="-0,5")
    assert {r.code: r.new for r in update.rows}["04"] == D("447.75")


def test_a_clerk_cannot_update_the_table(db, today):
    from services.shared.auth import Actor

    clerk = Actor("sec.nl", "Servidora de Nova Lacerda", "secretaria", (MUN,))
    assert price_tables.in_force(db, clerk, MUN, today).price("01") == D("300.00")
    with pytest.raises(PermissionDenied):
        price_tables.preview_update(db, clerk, MUN, "IPCA", "4", "2026", today, "Decreto 1/2026")


def test_export_lists_every_item_with_its_price(db, today):
    text = price_tables.export_csv(db, TI, MUN, today).decode("utf-8-sig")
    assert "Retroescavadeira" in text and "300,00" in text and len(text.strip().splitlines()) == 13
