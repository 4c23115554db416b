"""Document numbers: atomic per municipality, kind and year; no duplicates and no gaps."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from services.shared.numbers import next_number
from tests import figures


def test_eight_threads_of_200_numbers_have_no_duplicate_and_no_gap(db):
    def take(_):
        return [next_number(db, "chapada", "dam", 2026).sequence for _ in range(200)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        taken = [n for batch in pool.map(take, range(8)) for n in batch]
    assert sorted(taken) == list(range(1, 1601))
    figures.concurrency("números", 1600, 0)


def test_counters_are_separate_per_municipality_kind_and_year(db):
    assert next_number(db, "chapada", "dam", 2026).text == "0001/2026"
    assert next_number(db, "chapada", "dam", 2026).text == "0002/2026"
    assert next_number(db, "matupa", "dam", 2026).text == "0001/2026"
    assert next_number(db, "chapada", "auto", 2026).text == "0001/2026"
    assert next_number(db, "chapada", "dam", 2027).text == "0001/2027"
