"""Due date of a DAM: a non-business day moves to the next business day (CTN art. 210, p.u.;
Lei 9.784/1999 art. 66 §1); a payment is late only after that day."""
from __future__ import annotations

from datetime import date

import pytest

from rules.base import Level
from rules.calendar import LegalCalendar
from rules.dam.dates import due_date, due_date_finding, payment_on_time

CHAPADA_ANNIVERSARY = date(2026, 7, 15)  # a Wednesday, municipal holiday given as parameter
CALENDAR = LegalCalendar([(CHAPADA_ANNIVERSARY, "Aniversário do município")])


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        pytest.param(date(2026, 4, 6), date(2026, 4, 6), id="CTN art. 210 p.u.: Monday stays"),
        pytest.param(date(2026, 4, 4), date(2026, 4, 6), id="CTN art. 210 p.u.: Saturday -> Monday"),
        pytest.param(date(2026, 4, 5), date(2026, 4, 6), id="CTN art. 210 p.u.: Sunday -> Monday"),
        pytest.param(date(2026, 4, 3), date(2026, 4, 6), id="Good Friday -> Monday after the weekend"),
        pytest.param(date(2026, 4, 21), date(2026, 4, 22), id="Tiradentes (Tuesday) -> Wednesday"),
        pytest.param(date(2026, 4, 20), date(2026, 4, 20), id="the day before Tiradentes stays"),
        pytest.param(CHAPADA_ANNIVERSARY, date(2026, 7, 16), id="municipal holiday -> next day"),
        pytest.param(date(2026, 12, 25), date(2026, 12, 28), id="Christmas (Friday) -> Monday"),
    ],
)
def test_due_date(requested, expected):
    assert due_date(requested, CALENDAR) == expected


def test_finding_says_why_the_due_date_moved():
    finding = due_date_finding(date(2026, 4, 21), CALENDAR)
    assert finding.ok and finding.level is Level.INFO
    assert "21/04/2026" in finding.message and "22/04/2026" in finding.message
    assert "art. 210" in finding.reference


def test_finding_for_a_weekend_names_the_day():
    assert "sábado" in due_date_finding(date(2026, 4, 4), CALENDAR).message
    assert "domingo" in due_date_finding(date(2026, 4, 5), CALENDAR).message


def test_finding_when_not_moved():
    assert "dia útil" in due_date_finding(date(2026, 4, 6), CALENDAR).message


@pytest.mark.parametrize(
    ("due", "paid_on", "on_time"),
    [
        pytest.param(date(2026, 4, 6), date(2026, 4, 6), True, id="paid on the due date"),
        pytest.param(date(2026, 4, 6), date(2026, 4, 5), True, id="paid the day before"),
        pytest.param(date(2026, 4, 6), date(2026, 4, 7), False, id="paid the day after: late"),
        pytest.param(CHAPADA_ANNIVERSARY, date(2026, 7, 16), True,
                     id="due on a holiday decreed later: next business day still on time"),
        pytest.param(CHAPADA_ANNIVERSARY, date(2026, 7, 17), False, id="two days after the holiday: late"),
    ],
)
def test_payment_on_time(due, paid_on, on_time):
    finding = payment_on_time(due, paid_on, CALENDAR)
    assert finding.ok is on_time
    assert finding.level is (Level.INFO if on_time else Level.WARNING)


def test_late_payment_says_how_many_days():
    assert "3 dias" in payment_on_time(date(2026, 4, 6), date(2026, 4, 9), CALENDAR).message
