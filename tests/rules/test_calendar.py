"""Table tests of the shared legal calendar (Lei 9.784/1999, art. 66) with MT and municipal holidays."""
from __future__ import annotations

from datetime import date, datetime

import pytest

from rules.calendar import LegalCalendar, add_hours, add_months

ANIVERSARIO = date(2026, 3, 10)
CAL = LegalCalendar([(ANIVERSARIO, "Aniversário do Município")])


@pytest.mark.parametrize("day, business", [
    pytest.param(date(2026, 3, 6), True, id="friday is a business day"),
    pytest.param(date(2026, 3, 7), False, id="saturday"),
    pytest.param(date(2026, 3, 8), False, id="sunday"),
    pytest.param(date(2026, 1, 1), False, id="Confraternização Universal"),
    pytest.param(date(2026, 4, 3), False, id="Sexta-feira Santa"),
    pytest.param(date(2026, 4, 21), False, id="Tiradentes"),
    pytest.param(date(2026, 9, 7), False, id="Independência"),
    pytest.param(date(2026, 11, 20), False, id="Consciência Negra (national since 2024)"),
    pytest.param(date(2026, 12, 25), False, id="Natal"),
    pytest.param(date(2026, 12, 31), True, id="31 December is a business day"),
    pytest.param(ANIVERSARIO, False, id="municipal holiday from parameters"),
    pytest.param(date(2026, 3, 11), True, id="day after the municipal holiday"),
])
def test_business_days(day, business):
    assert CAL.is_business_day(day) is business


def test_municipal_holiday_only_in_its_calendar():
    assert LegalCalendar().is_business_day(ANIVERSARIO)
    assert CAL.holiday_name(ANIVERSARIO) == "Aniversário do Município"


@pytest.mark.parametrize("start, days, end", [
    pytest.param(date(2026, 3, 4), 1, date(2026, 3, 5), id="art. 66: start excluded, ends next day"),
    pytest.param(date(2026, 3, 5), 1, date(2026, 3, 6), id="art. 66: ends on a friday"),
    pytest.param(date(2026, 3, 6), 1, date(2026, 3, 9), id="art. 66 §1: saturday moves to monday"),
    pytest.param(date(2026, 3, 2), 5, date(2026, 3, 9), id="art. 66 §1: 5 days ending saturday"),
    pytest.param(date(2026, 3, 4), 5, date(2026, 3, 9), id="art. 66 §2: 5 days run over the weekend"),
    pytest.param(date(2026, 3, 9), 1, date(2026, 3, 11), id="municipal holiday moves the end"),
    pytest.param(date(2026, 4, 20), 1, date(2026, 4, 22), id="Tiradentes moves the end"),
    pytest.param(date(2026, 4, 2), 1, date(2026, 4, 6), id="Sexta-feira Santa and weekend"),
    pytest.param(date(2026, 12, 24), 1, date(2026, 12, 28), id="Natal on friday"),
    pytest.param(date(2026, 12, 30), 2, date(2027, 1, 4), id="year end: 1 January and weekend"),
    pytest.param(date(2026, 12, 26), 5, date(2026, 12, 31), id="year end: 31 December counts"),
    pytest.param(date(2028, 2, 24), 5, date(2028, 2, 29), id="29 February of a leap year"),
    pytest.param(date(2026, 1, 1), 90, date(2026, 4, 1), id="90 days"),
])
def test_add_days(start, days, end):
    assert CAL.add_days(start, days) == end


@pytest.mark.parametrize("start, days, end", [
    pytest.param(date(2026, 3, 5), 1, date(2026, 3, 6), id="one business day"),
    pytest.param(date(2026, 3, 6), 1, date(2026, 3, 9), id="skips the weekend"),
    pytest.param(date(2026, 4, 1), 2, date(2026, 4, 6), id="skips Sexta-feira Santa"),
    pytest.param(date(2026, 12, 23), 2, date(2026, 12, 28), id="skips Natal"),
    pytest.param(date(2026, 3, 9), 1, date(2026, 3, 11), id="skips the municipal holiday"),
    pytest.param(date(2026, 12, 31), -15, date(2026, 12, 9), id="15 business days before 31/12/2026"),
])
def test_add_business_days(start, days, end):
    assert CAL.add_business_days(start, days) == end


def test_business_days_between_over_year_end():
    assert CAL.business_days_between(date(2026, 12, 24), date(2027, 1, 4)) == 5


@pytest.mark.parametrize("start, months, end", [
    pytest.param(date(2026, 3, 10), 12, date(2027, 3, 10), id="art. 66 §3: date to date"),
    pytest.param(date(2026, 1, 31), 1, date(2026, 2, 28), id="art. 66 §3: 31 Jan + 1 month, no 31 Feb"),
    pytest.param(date(2024, 1, 31), 1, date(2024, 2, 29), id="art. 66 §3: leap February"),
    pytest.param(date(2024, 2, 29), 12, date(2025, 2, 28), id="art. 66 §3: 29 Feb + 12 months"),
    pytest.param(date(2026, 5, 31), 1, date(2026, 6, 30), id="art. 66 §3: 31 May + 1 month"),
    pytest.param(date(2026, 12, 15), 1, date(2027, 1, 15), id="over the year end"),
    pytest.param(date(2026, 3, 31), -1, date(2026, 2, 28), id="backwards to a short month"),
])
def test_add_months_plain(start, months, end):
    assert add_months(start, months) == end
    assert CAL.add_months(start, months, move_to_business_day=False) == end


@pytest.mark.parametrize("start, months, end", [
    pytest.param(date(2026, 1, 31), 1, date(2026, 3, 2), id="28 Feb 2026 is saturday: moves to monday"),
    pytest.param(date(2025, 11, 20), 12, date(2026, 11, 23), id="ends on Consciência Negra: moves"),
    pytest.param(date(2026, 3, 10), 12, date(2027, 3, 10), id="business day: unchanged"),
])
def test_add_months_moves_to_business_day(start, months, end):
    assert CAL.add_months(start, months) == end


def test_add_years_on_29_february():
    assert CAL.add_years(date(2024, 2, 29), 2, move_to_business_day=False) == date(2026, 2, 28)


@pytest.mark.parametrize("moment, end", [
    pytest.param(datetime(2026, 3, 6, 10, 30), datetime(2026, 3, 7, 10, 30), id="24 h run into saturday"),
    pytest.param(datetime(2026, 12, 31, 23, 59), datetime(2027, 1, 1, 23, 59), id="24 h over the year end"),
])
def test_hours_run_from_the_timestamp(moment, end):
    assert add_hours(moment, 24) == end
