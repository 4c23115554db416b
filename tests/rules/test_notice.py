"""When a notice counts as received, per channel (rules/notice.py), each row naming its article."""
from __future__ import annotations

from datetime import date

import pytest

from rules import notice
from rules.calendar import LegalCalendar

DELIVERED = date(2026, 3, 2)  # a Monday
CAL = LegalCalendar()

ELECTRONIC_ROWS = [
    # opened_on, days, on → state, received_on
    pytest.param(date(2026, 3, 5), 15, date(2026, 3, 5), notice.OPENED, date(2026, 3, 5),
                 id="Decreto 70.235 art. 23 §2 III b: opened on day 3, notified on day 3"),
    pytest.param(date(2026, 3, 2), 15, date(2026, 3, 2), notice.OPENED, date(2026, 3, 2),
                 id="Decreto 70.235 art. 23 §2 III b: opened on the day of delivery"),
    pytest.param(date(2026, 3, 17), 15, date(2026, 3, 20), notice.OPENED, date(2026, 3, 17),
                 id="Decreto 70.235 art. 23 §2 III a/b: opened on the tacit day itself, same date"),
    pytest.param(None, 15, date(2026, 3, 16), notice.WAITING, None,
                 id="Decreto 70.235 art. 23 §2 III a: day 14, not opened: waiting"),
    pytest.param(None, 15, date(2026, 3, 17), notice.TACIT, date(2026, 3, 17),
                 id="Decreto 70.235 art. 23 §2 III a: never opened, tacit on day 15"),
    pytest.param(None, 15, date(2026, 5, 1), notice.TACIT, date(2026, 3, 17),
                 id="Decreto 70.235 art. 23 §2 III a: tacit date stays the 15th day"),
    pytest.param(date(2026, 3, 20), 15, date(2026, 3, 20), notice.TACIT, date(2026, 3, 17),
                 id="Decreto 70.235 art. 23 §2 III a: opened after the tacit day does not move it"),
    pytest.param(date(2026, 3, 5), 15, date(2026, 3, 4), notice.WAITING, None,
                 id="Decreto 70.235 art. 23 §2 III b: an opening after 'on' is not known on 'on'"),
    pytest.param(None, 10, date(2026, 3, 12), notice.TACIT, date(2026, 3, 12),
                 id="CG art. 25 §1 IV: the municipality's N (parameter) = 10 days"),
    pytest.param(None, 15, date(2026, 3, 17), notice.TACIT, date(2026, 3, 17),
                 id="Lei 9.784 art. 66: calendar days; 17/03 is a Tuesday"),
]


@pytest.mark.parametrize("opened_on, days, on, state, received", ELECTRONIC_ROWS)
def test_electronic_receipt(opened_on, days, on, state, received):
    receipt = notice.electronic_receipt(DELIVERED, opened_on, days, on)
    assert (receipt.state, receipt.received_on) == (state, received)
    assert receipt.tacit_on == notice.tacit_on(DELIVERED, days)


def test_tacit_day_not_moved_to_a_business_day():
    """Decreto 70.235 art. 23 §2 III a: the 15th day after a Thursday delivery is a Friday; after a
    Friday's, a Saturday — the deemed receipt is not a term to act, it stays on the Saturday."""
    assert notice.tacit_on(date(2026, 3, 6), 15) == date(2026, 3, 21)  # Saturday
    assert date(2026, 3, 21).weekday() == 5


CHANNEL_ROWS = [
    pytest.param("postal", {"ar_on": date(2026, 3, 9)}, date(2026, 3, 20), date(2026, 3, 9),
                 id="CG art. 25 §1 III; MP art. 21 §1: the AR's date"),
    pytest.param("postal", {}, date(2026, 3, 20), None, id="CG art. 25 §1 III: AR not back, not received"),
    pytest.param("edital", {"published_on": date(2026, 3, 10)}, date(2026, 3, 20), date(2026, 3, 10),
                 id="CG art. 25 §1 II; MP art. 21 §1: the publication date, no added term"),
    pytest.param("edital", {"published_on": date(2026, 3, 25)}, date(2026, 3, 20), None,
                 id="CG art. 25 §1 II: not yet published on 'on'"),
    pytest.param("pessoal", {"signed_on": date(2026, 3, 3)}, date(2026, 3, 20), date(2026, 3, 3),
                 id="CG art. 25 §1 I: the signature date"),
    pytest.param("eletronico", {"delivered_on": DELIVERED, "opened_on": date(2026, 3, 4)}, date(2026, 3, 20),
                 date(2026, 3, 4), id="CG art. 25 §1 IV: opened"),
    pytest.param("eletronico", {"delivered_on": DELIVERED, "tacit_days": 15}, date(2026, 3, 20),
                 date(2026, 3, 17), id="MP art. 21 §1 (via eletrônica): tacit"),
]


@pytest.mark.parametrize("channel, given, on, expected", CHANNEL_ROWS)
def test_received_on_per_channel(channel, given, on, expected):
    assert notice.received_on(channel, on, **given) == expected


def test_unknown_channel_refused():
    with pytest.raises(ValueError):
        notice.received_on("telegrama", DELIVERED)


LIMIT_ROWS = [
    pytest.param(date(2026, 3, 2), date(2026, 5, 29), True, id="MP art. 21 §1: received on day 88"),
    pytest.param(date(2026, 3, 2), date(2026, 6, 1), True,
                 id="MP art. 21 §1 + Lei 9.784 art. 66 §1: day 90 a Sunday, limit the Monday"),
    pytest.param(date(2026, 3, 2), date(2026, 6, 2), False, id="MP art. 21 §1: received after the limit"),
    pytest.param(date(2026, 3, 2), notice.tacit_on(date(2026, 5, 20), 15), False,
                 id="MP art. 21 §1: delivered on day 79, tacit on day 94: late, whatever the channel"),
]


@pytest.mark.parametrize("auto_on, received, ok", LIMIT_ROWS)
def test_matupa_limit_whatever_the_channel(auto_on, received, ok):
    finding = notice.within_limit(auto_on, received, 90, CAL, "Lei 1.552/2025 (Matupá), art. 21, §1º")
    assert finding.ok is ok
    assert "art. 21" in finding.reference


def test_default_parameter_is_fifteen_days_with_its_reference():
    (version,) = notice.DEFAULT_PARAMETERS
    assert (version.name, version.value) == (notice.TACIT_DAYS, 15)
    assert "70.235" in version.act
