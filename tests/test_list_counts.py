"""A list counts its records up to ten thousand and then says "mais de 10.000" (issue 21): an exact
count reads every index entry of the register, so the caption grew with the data. The pages go on up to
the cap; below it the count is exact."""
from __future__ import annotations

from datetime import datetime, timezone

from services.shared import entity_lists, list_counts
from services.shared.auth import Actor
from services.shared.schema import ListQuery

CLERK = Actor("teste", "Teste", "secretaria", ("chapada",))


def taxpayers(db, count: int) -> None:
    db["taxpayers"].insert_many([{"municipality": "chapada", "name": f"Contribuinte {i:05d}", "kind": "pf",
                                  "document": f"{10_000_000_000 + i}", "created_at": datetime(2026, 1, 1, tzinfo=timezone.utc)}
                                 for i in range(count)])


def test_past_the_cap_the_list_says_more_than_ten_thousand_and_pages_up_to_it(db):
    taxpayers(db, list_counts.CAP + 5)
    page = entity_lists.list_page(db, CLERK, "taxpayers", "chapada", ListQuery(per_page=25, page=10_000))
    assert page.total == list_counts.CAP + 1
    assert list_counts.text(page.total) == "mais de 10.000"
    assert page.pages == 400 and page.page == 400
    assert [r["name"] for r in page.rows][0] == "Contribuinte 09975"


def test_below_the_cap_the_count_is_exact(db):
    taxpayers(db, 1234)
    page = entity_lists.list_page(db, CLERK, "taxpayers", "chapada", ListQuery(per_page=25))
    assert (page.total, page.pages, list_counts.text(page.total)) == (1234, 50, "1.234")


def test_a_count_kept_as_data_is_shown_whole():
    assert list_counts.text(37_274, exact=True) == "37.274"
