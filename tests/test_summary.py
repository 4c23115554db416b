"""The mayor's office summary: figures computed in Python from the store, read-only."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from services import dams, entities, summary
from services.errors import PermissionDenied
from tests.conftest import GABINETE, SECRETARIA_CG, SECRETARIA_MP
from tests.test_dams import issue


def test_summary_counts_dams_by_situation_and_what_was_paid_this_year(db, today):
    paid = issue(db, amount=Decimal("150.00"))
    issue(db, amount=Decimal("80.50"))
    cancelled = issue(db, amount=Decimal("10.00"))
    today.set(date(2026, 3, 3))
    dams.record_payment(db, SECRETARIA_MP, "matupa", paid["id"], date(2026, 3, 3), Decimal("150.00"), "001")
    dams.cancel(db, SECRETARIA_MP, "matupa", cancelled["id"], "Emitido em duplicidade")
    today.set(date(2026, 4, 1))
    figures = summary.overview(db, GABINETE, "matupa")
    assert figures.dams_by_situation == {
        "Pago": (1, Decimal("150.00")), "Vencido": (1, Decimal("80.50")), "Cancelado": (1, Decimal("10.00"))}
    assert figures.paid_this_year == Decimal("150.00")


def test_activity_is_per_local_day_in_date_order(db, today):
    today.set(date(2026, 3, 2))
    entities.create(db, SECRETARIA_MP, "taxpayers", "matupa",
                    {"name": "A", "document": "52998224725", "kind": "pf", "address": "Rua 1"})
    days = [day for day, _ in summary.overview(db, GABINETE, "matupa").activity]
    assert days == sorted(days) and len(days) == 30 and days[-1] == date(2026, 3, 2)


def test_summary_refuses_a_municipality_outside_the_user(db):
    with pytest.raises(PermissionDenied):
        summary.overview(db, SECRETARIA_MP, "chapada")


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
