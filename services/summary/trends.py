"""The services month by month and what waits for a decision (issue 23 item 11; see
``services.summary.figures``): authorizations active at each month's end, autos by stage, bookings
served and waiting, each beside the same month of the year before; defences and appeals waiting for a
decision and requests waiting for a visit, a social report or a quote, with their ages.

Each month, and what waits now, is read from the views kept per day (``authorization_view.Levels``, the
``Days`` of ``autos_view`` and ``bookings_view``), whatever the number of months or of records.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from pymongo.database import Database

from rules.ridehailing.lifecycle import Status
from services.summary import authorization_view, bookings_view
from services.summary.days import Days
from services.summary.figures import Trend, Waiting
from services.summary.periods import Period, day_a_year_before

AUTO_STAGES = {"notificacao": "Autos em notificação ou prazo de defesa", "defesa": "Autos com defesa a decidir",
               "recurso": "Autos com recurso a decidir"}
REQUEST_STEPS = dict(zip(bookings_view.STEPS, ("Pedidos aguardando vistoria técnica",
                                                "Pedidos aguardando parecer social",
                                                "Pedidos aguardando orçamento"), strict=True))


def month_ends(period: Period) -> list[tuple[date, date]]:
    """(first day, last day counted) of each month of the period: the period's last day for its last."""
    ends = []
    for month in period.months():
        last = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        ends.append((month, min(last, period.end)))
    return ends


def _trend(key: str, label: str, ends: list[tuple[date, date]], count: Callable[[date, date], int],
           flow: bool = False) -> Trend:
    """``count(first, last)`` of each month and of the same days of the year before."""
    return Trend(key, label, tuple(first for first, _last in ends),
                 tuple(count(first, last) for first, last in ends),
                 tuple(count(day_a_year_before(first), day_a_year_before(last)) for first, last in ends), flow)


def ride_hailing(db: Database, municipality: str, period: Period, autos_days: Days) -> list[Trend]:
    """Authorizations active at each month's end, and the autos' trends from the stored days of
    ``autos_view``."""
    levels = authorization_view.Levels(db, municipality)
    ends = month_ends(period)

    def active(_first: date, last: date) -> int:
        return levels.on(last)[f"s|{Status.ACTIVE.value}"]

    def standing(stage: str) -> Callable[[date, date], int]:
        return lambda _first, last: sum(autos_days.on(last, prefix=f"at|{stage}").values())

    trends = [
        _trend("active", "Autorizações ativas no fim do mês", ends, active),
        _trend("autos_lavrados", "Autos lavrados no mês", ends, lambda a, b: autos_days.within(a, b)["lav"], True),
        _trend("autos_decided", "Autos decididos no mês", ends, lambda a, b: autos_days.within(a, b)["dec"], True),
    ]
    for stage, label in AUTO_STAGES.items():
        trends.append(_trend(f"autos_{stage}", label + " no fim do mês", ends, standing(stage)))
    return trends


def machinery(days: Days, period: Period) -> list[Trend]:
    """Requests served (execution ended) in each month and waiting at its end, from the stored days of
    ``bookings_view``."""
    ends = month_ends(period)
    return [_trend("served", "Pedidos atendidos no mês", ends, lambda a, b: days.within(a, b)["served"], True),
            _trend("waiting", "Pedidos aguardando no fim do mês", ends,
                   lambda _first, last: days.on(last, "waiting")["waiting"])]


def waiting_row(key: str, label: str, since: list[date], today: date) -> Waiting:
    """How many wait, the oldest and the average age in calendar days on ``today``."""
    ages = [(today - day).days for day in since]
    if not ages:
        return Waiting(key, label)
    average = (Decimal(sum(ages)) / len(ages)).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return Waiting(key, label, len(ages), max(ages), average)


def waiting_autos(autos_days: Days, today: date) -> list[Waiting]:
    """Defences and appeals filed and not decided on ``today``, aged from their filing (the filing day
    is in the state's key)."""
    states = autos_days.on(today, prefix="at|")

    def filed(stage: str) -> list[date]:
        return [date.fromisoformat(key.split("|")[2]) for key, n in sorted(states.items())
                if key.startswith(f"at|{stage}|") for _ in range(max(n, 0))]
    return [waiting_row("defences", "Defesas aguardando decisão", filed("defesa"), today),
            waiting_row("appeals", "Recursos aguardando decisão", filed("recurso"), today)]


def waiting_requests(booking_days: Days, today: date) -> list[Waiting]:
    """Requests waiting for the technical visit, the social report or the quote on ``today``, aged from
    their last step up to then (``bookings_view``'s ``step|`` states; ``booking_days`` read up to today)."""
    states = booking_days.on(today, prefix="step|")

    def since(status: str) -> list[date]:
        return [date.fromisoformat(key.split("|")[2]) for key, n in sorted(states.items())
                if key.startswith(f"step|{status}|") for _ in range(max(n, 0))]
    return [waiting_row(status, label, since(status), today) for status, label in REQUEST_STEPS.items()]
