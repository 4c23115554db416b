"""Issue 38 item 1: the driver asks the renewal of their own authorization on the portal through the clerk's
services (``fees.request_renewal`` and ``fees.issue_fee_dam``), from the day the window opens (30 days
before the last day the act sets: CG Decreto 06/2026 art. 9 §2; MP Lei 1.552/2025 art. 3 §ú); the fee DAM
is then in "Meus DAMs"; another driver's account gets NotFound with the first one's protocol."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services.dam import own_dams
from services.ridehailing import authorizations, fees, own_authorizations, renewal_window
from services.shared.errors import NotFound
from services.shared.regulated_accounts import Person
from tests.enforcement_support import active_authorization
from tests.ridehailing_data import ACTORS, register

ISSUED = date(2026, 2, 23)


def person(municipality: str, cpf: str) -> Person:
    return Person(municipality, "condutor", cpf, cpf, "Condutor Titular")


@pytest.mark.parametrize("municipality, opens, last, article", [
    # valid until 31/12/2026 (art. 9 §1); 15 business days before it in the store's calendar, which has
    # Chapada's municipal holidays (the rules' table without them: tests/rules/test_ridehailing_lifecycle.py)
    ("chapada", date(2026, 11, 8), date(2026, 12, 8), "art. 9, §2º"),
    ("matupa", date(2027, 1, 24), date(2027, 2, 23), "art. 3º, parágrafo único"),  # 12 months, no lead
])
def test_the_renewal_opens_on_its_day_and_its_dam_shows_in_my_dams(db, today, municipality, opens, last, article):
    auth_id, cpf, _plate = active_authorization(db, today, municipality, ISSUED)
    me = person(municipality, cpf).actor
    protocol = authorizations.get_authorization(db, ACTORS[municipality], municipality, auth_id)["protocol"]
    today.set(opens - timedelta(days=1))
    shown = own_authorizations.own_authorization(db, me, protocol)
    assert (shown["window"].opens, shown["window"].last_day) == (opens, last)
    closed = f"a partir de {opens:%d/%m/%Y}.*{last:%d/%m/%Y}.*{article}"
    with pytest.raises(renewal_window.RenewalNotOpen, match=closed):
        own_authorizations.renew(db, me, protocol)
    assert not fees.pending_renewal(authorizations.get_authorization(db, ACTORS[municipality], municipality, auth_id))
    today.set(opens)
    after = own_authorizations.renew(db, me, protocol)
    assert after["pending_renewal"] and after["fee"] is not None
    doc = authorizations.get_authorization(db, ACTORS[municipality], municipality, auth_id)
    asked = [e for e in doc["events"] if e["kind"] == "renewal_requested"][-1]
    assert asked["by"] == f"condutor:{cpf}" and "portal" in asked["note"]
    mine = own_dams.my_dams(db, me)["items"]
    assert after["fee"]["number"] in [d["number"] for d in mine]
    again = own_authorizations.renew(db, me, protocol)  # a submit repeated: no second DAM
    assert again["fee"]["number"] == after["fee"]["number"] and len(own_dams.my_dams(db, me)["items"]) == len(mine)


def test_a_late_request_is_still_taken_and_flagged_as_the_clerks(db, today):
    auth_id, cpf, _plate = active_authorization(db, today, "chapada", ISSUED)
    protocol = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth_id)["protocol"]
    today.set(date(2026, 12, 10))
    own_authorizations.renew(db, person("chapada", cpf).actor, protocol)
    state = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth_id)
    assert fees.pending_renewal(state)


def test_another_drivers_account_gets_not_found_with_the_first_ones_protocol(db, today):
    auth_id, cpf, _plate = active_authorization(db, today, "chapada", ISSUED)
    protocol = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth_id)["protocol"]
    other_cpf, _ = register(db, "chapada", ISSUED, seed=9)
    other = person("chapada", other_cpf).actor
    today.set(date(2026, 11, 20))
    with pytest.raises(NotFound) as unknown:
        own_authorizations.own_authorization(db, other, "9999/2026")
    with pytest.raises(NotFound) as anothers:
        own_authorizations.own_authorization(db, other, protocol)
    assert str(anothers.value) == str(unknown.value)
    with pytest.raises(NotFound) as asked:
        fees.request_renewal(db, other, "chapada", auth_id, today.value)
    assert str(asked.value) == str(unknown.value)
    with pytest.raises(NotFound):
        fees.issue_fee_dam(db, other, "chapada", auth_id, today.value)
    assert own_authorizations.own_authorizations(db, other) == []
    mine = own_authorizations.own_authorizations(db, person("chapada", cpf).actor)
    assert [a["protocol"] for a in mine] == [protocol]
