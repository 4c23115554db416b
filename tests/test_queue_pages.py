"""Pendências, the Vistorias and the Início read the queue kept as data a page at a time (issue 21):
each page, count and urgent list is what the whole queue (``work_queue.pendencias``) sorted and
counted in Python gives — for every order, both directions, the filters of the page, pages after the
first, and the items computed on each read (platforms' lists) merged in."""
from __future__ import annotations

from datetime import timedelta

import pytest

from services import store
from services.ridehailing import queue_pages, work_queue
from services.ridehailing.queue_item import KEPT_KINDS, KINDS
from services.shared import clock
from services.shared.auth import Actor
from services.shared.errors import ValidationFailed
from tests.conftest import copy_store

ACTOR = Actor("teste", "Teste", "secretaria", ("chapada", "matupa"))


@pytest.fixture(scope="module")
def db(tmp_path_factory, demo_store):
    folder = copy_store(demo_store, tmp_path_factory.mktemp("pages") / "store")
    return store.connect(data_dir=str(folder))


def keys(rows, order):
    return [queue_pages.key(order)(p) for p in rows]


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
@pytest.mark.parametrize("order", list(queue_pages.ORDERS))
@pytest.mark.parametrize("descending", [False, True])
def test_each_page_is_the_whole_queue_sorted_and_cut(db, municipality, order, descending):
    today = clock.today()
    queue = work_queue.pendencias(db, ACTOR, municipality, today)
    assert {p.kind for p in queue} <= set(KINDS), "every kind the queue holds is offered in the filter"
    for kinds, only_late in (((), False), ((), True), (("Vistoria anual", "Renovação"), False),
                             (("Relação da plataforma", "Multa", "Decidir auto"), False)):
        wanted = sorted((p for p in queue if (not kinds or p.kind in kinds) and (p.late or not only_late)),
                        key=queue_pages.key(order), reverse=descending)
        for skip in (0, 5, 25):
            found = work_queue.page(db, ACTOR, municipality, today, kinds=kinds, only_late=only_late, order=order,
                                    descending=descending, skip=skip, limit=7)
            assert keys(found.rows, order) == keys(wanted[skip:skip + 7], order), (kinds, only_late, skip)
            assert set(found.rows) <= set(wanted)
            assert found.total == len(wanted)
        assert found.everything == len(queue)
        assert found.late == sum(p.late for p in queue)
        assert found.within_week == sum(1 for p in queue if not p.late and p.due <= today + timedelta(days=7))


@pytest.mark.parametrize("municipality", ["chapada", "matupa"])
def test_the_inicio_counts_and_urgent_items_are_the_whole_queues(db, municipality):
    today = clock.today()
    week = today + timedelta(days=7)
    queue = work_queue.pendencias(db, ACTOR, municipality, today)
    found = work_queue.overview(db, ACTOR, municipality, today, week_days=7, shown=10)
    urgent = sorted((p for p in queue if p.late or p.due <= week), key=lambda p: (not p.late, p.due, p.protocol))
    assert urgent, "the demo has late and near items"
    assert [(p.late, p.due, p.protocol) for p in found.urgent] == [(p.late, p.due, p.protocol) for p in urgent[:10]]
    assert found.total == len(queue)
    assert found.late == sum(p.late for p in queue)
    assert found.open_today == sum(1 for p in queue if not p.late and p.due <= today)
    assert found.this_week == sum(1 for p in queue if not p.late and today < p.due <= week)
    per_kind = {}
    for p in urgent:
        per_kind.setdefault(p.kind, [0, 0])[0 if p.late else 1] += 1
    assert found.per_kind == {kind: tuple(pair) for kind, pair in per_kind.items()}


def test_the_computed_items_join_the_pages(db):
    today = clock.today()
    computed = [p for p in work_queue.pendencias(db, ACTOR, "chapada", today) if p.kind not in KEPT_KINDS]
    assert computed, "the demo has a platform list due or late"
    found = work_queue.page(db, ACTOR, "chapada", today, kinds=tuple({p.kind for p in computed}), limit=100)
    assert sorted(found.rows, key=queue_pages.key("due")) == sorted(computed, key=queue_pages.key("due"))


def test_an_unknown_order_is_refused(db):
    with pytest.raises(ValidationFailed):
        work_queue.page(db, ACTOR, "chapada", clock.today(), order="message")


def test_a_page_asks_the_store_for_no_more_rows_than_the_counts_say_pass(db):
    """Issue 21 (Vistorias 2,2x from scale 1 to 100): the annual vistorias not yet shown lie after the shown
    ones in the index; a page that asked for 25 of a kind with fewer shown made the store read every one
    of them. With the counts, a kind with none shown is not asked for, and the others for what passes."""
    from collections import Counter

    from tests.test_ridehailing_page_queries import CountingDatabase

    today = clock.today()
    cells = queue_pages.tally(db, "chapada")
    kinds = ("Vistoria", "Vistoria anual", "Vistoria extraordinária", "Pendências da vistoria")
    shown = {kind: queue_pages.count(cells, today, queue_pages.Filter((kind,))) for kind in kinds}
    hidden = [kind for kind in kinds if not shown[kind] and db[queue_pages.ITEMS].count_documents(
        {"municipality": "chapada", "kind": kind})]
    assert hidden, f"the demo keeps items of a kind not shown yet: {shown}"
    asked: list[int] = []

    class Spy(CountingDatabase):
        def __getitem__(self, name):
            collection = super().__getitem__(name)
            find = collection.find

            def spied(*args, **kwargs):
                cursor = find(*args, **kwargs)
                limit = cursor.limit
                cursor.limit = lambda n: asked.append(n) or limit(n)
                return cursor
            collection.find = spied
            return collection

    spy = Spy(db)
    found = work_queue.page(spy, ACTOR, "chapada", today, kinds=kinds, limit=25)
    assert len(found.rows) == min(25, sum(shown.values()))
    assert Counter(asked) == Counter(min(25, shown[k]) for k in kinds if shown[k]), (asked, shown)
