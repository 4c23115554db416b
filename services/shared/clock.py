"""Time: the store keeps UTC; "today", deadlines and every time shown use America/Cuiaba."""
from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

LOCAL_TZ = ZoneInfo("America/Cuiaba")


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def to_local(moment: datetime) -> datetime:
    """A stored instant (aware, or naive meaning UTC) in Cuiabá time."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(LOCAL_TZ)


def local_date(moment: datetime) -> date:
    """The Cuiabá calendar date of an instant: a DAM issued at 21:00 is dated that day."""
    return to_local(moment).date()


def today() -> date:
    return local_date(now_utc())
