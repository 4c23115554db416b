"""A datetime where a service expects a date (issue 35, item 18): a datetime is a date subclass, so it
passed the boundary and ended in a raw ValueError/TypeError of the codec or the rules. The boundary
refuses it under the field, in pt-BR, before anything is read or written (docs/DESENVOLVIMENTO.md,
"The one input boundary"): a legal date is a calendar day, and a datetime's day depends on a time
zone it may not carry (a naive one is UTC in the store's convention, midnight of a local day in a
spreadsheet), so the panel never guesses it."""
from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

from services.dam import payments
from services.ridehailing.enforcement import lavratura, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import boundary
from tests.enforcement_support import active_authorization, lavrado
from tests.ridehailing_data import ACTORS
from tests.test_boundary import refused

CUIABA = ZoneInfo("America/Cuiaba")
DATETIMES = [
    pytest.param(datetime(2026, 3, 9, 10, 30), id="naive"),
    pytest.param(datetime(2026, 3, 9, 1, 30, tzinfo=timezone.utc), id="utc"),  # 8 March in Cuiabá
    pytest.param(datetime(2026, 3, 9, 10, 30, tzinfo=CUIABA), id="cuiaba"),
    pytest.param(pd.Timestamp("2026-03-09"), id="pandas-midnight"),
]
NO_TIME = "informe uma data, sem hora"


@pytest.mark.parametrize("moment", DATETIMES)
def test_lavrar_refuses_a_datetime_as_the_day_of_the_infraction_or_of_the_auto(db, today, moment):
    auth, cpf, plate = active_authorization(db, today, "chapada")
    today.set(date(2026, 3, 10))
    values = dict(target_kind="driver", driver_cpf=cpf, plate=plate, infraction_code="CG-29-I",
                  facts="Embarque fora do ponto", time="10:30", place="Praça Dom Wunibaldo",
                  agent_registration="AF-0042", agent_name="Agente Fiscal")
    for field in ("committed_on", "auto_on"):
        days = {"committed_on": date(2026, 3, 9), "auto_on": date(2026, 3, 9), field: moment}
        message = refused(db, lambda: lavratura.lavrar(db, ACTORS["chapada"], "chapada", AutoInput(**values, **days)), field)
        assert NO_TIME in message
    assert lavratura.lavrar(db, ACTORS["chapada"], "chapada", AutoInput(**values, committed_on=date(2026, 3, 9),
                                                                        auto_on=date(2026, 3, 9)))


@pytest.mark.parametrize("moment", DATETIMES)
def test_notify_refuses_a_datetime_as_any_of_its_days(db, today, moment):
    _, cpf, plate = active_authorization(db, today, "chapada")
    auto_id = lavrado(db, today, "chapada", "CG-29-I", date(2026, 3, 2), cpf, plate)
    today.set(date(2026, 3, 12))
    days = dict(sent_on=date(2026, 3, 4), received_on=date(2026, 3, 6), juntada_on=date(2026, 3, 7))
    for field in days:
        message = refused(db, lambda: process.notify(db, ACTORS["chapada"], "chapada", auto_id, method="post",
                                                     **{**days, field: moment}), field)
        assert NO_TIME in message
    assert process.notify(db, ACTORS["chapada"], "chapada", auto_id, method="post", **days)


@pytest.mark.parametrize("moment", DATETIMES)
def test_record_payment_refuses_a_datetime_as_the_day_paid(db, today, moment):
    from services.ridehailing import authorizations, fees
    from tests.ridehailing_data import inspected, set_fee

    set_fee(db, "chapada")
    today.set(date(2026, 3, 9))
    auth = inspected(db, "chapada")
    authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)
    dam = fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, date(2026, 3, 9))
    today.set(date(2026, 3, 10))
    message = refused(db, lambda: payments.record_payment(db, ACTORS["chapada"], "chapada", dam["id"], moment,
                                                          dam["amount"], "Banco do Brasil"), "paid_on")
    assert message == f"Data do pagamento: {NO_TIME}."
    assert payments.record_payment(db, ACTORS["chapada"], "chapada", dam["id"], date(2026, 3, 9), dam["amount"],
                                   "Banco do Brasil")


def test_a_date_is_taken_and_a_datetime_keeps_its_own_hint():
    assert boundary.check_value("due", date, date(2026, 3, 9)) == date(2026, 3, 9)
    assert boundary.check_value("due", date | None, None) is None
    moment = datetime(2026, 3, 9, 10, 30, tzinfo=timezone.utc)
    assert boundary.check_value("at", datetime, moment) is moment
