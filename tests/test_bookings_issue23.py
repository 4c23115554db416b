"""Bookings of Nova Lacerda, issue 23 items 6, 7 and 10 (Decreto 017/2026): what the services refused
to carry or let through — inputs outside the request's own dates and places, a municipality without
the module, and cancelling, rescheduling and the credit returned."""
from __future__ import annotations

from datetime import date

import pytest

from services.machinery import (
    booking_requests,
    localities,
    protocol,
    quotes,
    schedule,
)
from services.machinery.booking_requests import ModuleOff
from services.shared.auth import Actor
from services.shared.errors import ValidationFailed
from tests import test_bookings
from tests.test_bookings import CLERK, HOURS6, LOADS5, MONDAY, NL, TI_NL, form, ready  # noqa: F401

nl = test_bookings.nl  # the Nova Lacerda fixture: zones, machines, operators and requesters

CHAPADA = "chapada"
EVERYWHERE = Actor("secretaria.geral", "Servidora de todos", "secretaria", ("*",))


# ---- item 10: the small validations ----

@pytest.mark.parametrize("desired, refused", [
    pytest.param(date(2026, 3, 1), True, id="art. 2 caput: a start 36 days before the request is refused"),
    pytest.param(date(2026, 4, 5), True, id="art. 2 caput: the day before the request is refused"),
    pytest.param(MONDAY, False, id="art. 2 caput: the request's own day only warns"),
])
def test_a_desired_start_before_the_request_is_refused_under_its_field(db, nl, desired, refused):
    values = form(nl["farmer"], HOURS6, desired_start=desired)
    if not refused:
        assert protocol.create_request(db, CLERK, NL, values)
        return
    with pytest.raises(ValidationFailed) as error:
        protocol.check(db, CLERK, NL, values)
    assert set(error.value.errors) == {"desired_start"} and "06/04/2026" in error.value.errors["desired_start"]
    assert db["booking_requests"].count_documents({}) == 0


@pytest.mark.parametrize("on, refused", [
    pytest.param(date(2030, 1, 7), True, id="a quote dated 2030 is refused"),
    pytest.param(date(2026, 4, 7), True, id="a quote dated tomorrow is refused"),
    pytest.param(date(2026, 4, 3), True, id="a quote before the request's date is refused"),
    pytest.param(MONDAY, False, id="a quote on the request's day, today, is made"),
])
def test_a_quote_is_dated_between_the_request_and_today(db, nl, on, refused):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    if not refused:
        assert quotes.make_quote(db, CLERK, NL, rid, on)["quote"]["on"] == on
        return
    with pytest.raises(ValidationFailed) as error:
        quotes.make_quote(db, CLERK, NL, rid, on)
    assert "06/04/2026" in error.value.errors["on"]
    assert booking_requests.get_request(db, CLERK, NL, rid)["quote"] is None


def test_a_requester_whose_zone_left_the_registered_list_is_refused_at_the_protocol(db, nl, today):
    """Art. 3 §1: a new list without Zona Norte leaves the farmer's place unregistered; the protocol
    asks to update the requester instead of queueing a request in a zone the schedule does not know."""
    localities.set_localities(db, TI_NL, NL, MONDAY, [
        {"zone": "Zona Urbana", "locality": "Centro", "area": "urbana"}], "Portaria SEMOBI 02/2026")
    with pytest.raises(ValidationFailed) as error:
        protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    assert "Zona Norte, Comunidade Pontal" in error.value.errors["requester_id"]
    assert protocol.create_request(db, CLERK, NL, form(nl["association"], HOURS6))  # Centro is registered


def test_the_bookings_services_refuse_a_municipality_without_the_module(db, nl):
    """Chapada runs ride-hailing only: a clerk who may act there cannot protocol, list or schedule bookings."""
    with pytest.raises(ModuleOff) as error:
        protocol.create_request(db, EVERYWHERE, CHAPADA, form(nl["farmer"], HOURS6))
    assert error.value.message == booking_requests.MODULE_OFF
    for call in (lambda: booking_requests.list_requests(db, EVERYWHERE, CHAPADA),
                 lambda: schedule.schedule_board(db, EVERYWHERE, CHAPADA, MONDAY),
                 lambda: schedule.week_schedule(db, EVERYWHERE, CHAPADA, MONDAY)):
        with pytest.raises(ModuleOff):
            call()
    assert booking_requests.list_requests(db, EVERYWHERE, NL) == []
