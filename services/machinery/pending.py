"""What awaits action in the machinery module (pendências, Decreto 017/2026, Nova Lacerda): requests
awaiting visit, social report, quote, payment or schedule; balances due or overdue (art. 8 §2);
credits to return. What is owed comes from the charges (débitos) of the requests (:mod:`.ledger`):
a cancelled DAM asks for a new one, a short payment for the difference. The items are kept as data
by :mod:`.queue_view` (issue 21), in the unit of work of each write that moves them; a render reads
them with one indexed query, whatever the number of requests, and decides on the day asked which
parts still owed are overdue."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from pymongo.database import Database

from services.machinery import booking_requests, queue_view
from services.shared.auth import Actor


@dataclass(frozen=True)
class PendingItem:
    """One thing awaiting action in the module (pendências)."""

    on: date
    title: str
    detail: str
    record_id: str
    overdue: bool = False


def _item(row: dict, on: date) -> PendingItem:
    """A stored item as shown on ``on``: a part still owed is overdue after its due date (art. 8 §4)."""
    overdue = row["due"] is not None and row["due"] < on
    return PendingItem(row["on"], row["late_title"] if overdue else row["title"], row["detail"], row["request_id"],
                       overdue)


@booking_requests.module_service("read")
def pending(db: Database, actor: Actor, municipality: str, on: date) -> list[PendingItem]:
    """Awaiting visit, social report, quote, payment (a new DAM, a difference), schedule; balances
    due/overdue; credits to return — earliest first. One indexed query of the kept items: a part still
    owed is overdue when its due date is before ``on`` (art. 8 §4)."""
    return sorted((_item(row, on) for row in queue_view.stored_items(db, municipality)), key=lambda i: (i.on, i.title))


@dataclass(frozen=True)
class PendingPage:
    rows: tuple[PendingItem, ...]
    total: int
    overdue: int


@booking_requests.module_service("read")
def page(db: Database, actor: Actor, municipality: str, on: date, skip: int = 0, limit: int = 25) -> PendingPage:
    """One page of the module's pendências on ``on``, earliest first, with how many there are and how
    many are overdue: two counts and the first rows of an index, whatever the number of requests."""
    rows = queue_view.first(db, municipality, on, limit, skip)
    return PendingPage(tuple(_item(row, on) for row in rows), queue_view.count(db, municipality, on),
                       queue_view.count(db, municipality, on, overdue=True))


@dataclass(frozen=True)
class Overview:
    """What the Início shows of the module: counts and the first urgent items (overdue first)."""
    total: int
    overdue: int
    open_today: int  # not overdue, dated today or before
    this_week: int  # not overdue, dated after today, up to a week
    urgent: tuple[PendingItem, ...]


@booking_requests.module_service("read")
def overview(db: Database, actor: Actor, municipality: str, on: date, week_days: int = 7,
             shown: int = 10) -> Overview:
    """The Início's view of the module's pendências on ``on``: four counts on an index and the first
    ``shown`` urgent items (overdue first, then dated up to a week), whatever the number of requests."""
    week = on + timedelta(days=week_days)
    late = [_item(row, on) for row in queue_view.first(db, municipality, on, shown, overdue=True)]
    soon = [_item(row, on) for row in queue_view.first(db, municipality, on, shown - len(late), overdue=False,
                                                       until=week)]
    up_to_today = queue_view.count(db, municipality, on, overdue=False, until=on)
    return Overview(queue_view.count(db, municipality, on), queue_view.count(db, municipality, on, overdue=True),
                    up_to_today, queue_view.count(db, municipality, on, overdue=False, until=week) - up_to_today,
                    tuple(late + soon))
