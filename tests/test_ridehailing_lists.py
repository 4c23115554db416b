"""The authorization list searched, counted and paginated in the store, and every ride-hailing
write refused to a role that may not write (issue 10, defect 12; issue 9, item 5)."""
from __future__ import annotations

from datetime import timedelta

import pytest

from rules.ridehailing.concepts import EventKind
from services.ridehailing import (
    authorization_lists,
    authorizations,
    changes,
    fees,
    inspections,
    platforms,
    registry,
)
from services.shared import clock, entities
from services.shared.errors import PermissionDenied
from tests.conftest import GABINETE, SECRETARIA_MP
from tests.ridehailing_data import ACTORS, requested

TODAY = clock.today()
ACTOR = ACTORS["chapada"]


def test_the_list_pages_and_searches_in_the_store(db):
    ids = [requested(db, "chapada", protocol=TODAY - timedelta(days=10 - i), seed=i + 1) for i in range(3)]
    first = authorization_lists.authorization_page(db, ACTOR, "chapada", TODAY, per_page=2)
    assert (first.total, first.pages, [r.id for r in first.rows]) == (3, 2, [ids[2], ids[1]])
    second = authorization_lists.authorization_page(db, ACTOR, "chapada", TODAY, page=2, per_page=2)
    assert [r.id for r in second.rows] == [ids[0]]
    target = authorizations.get_authorization(db, ACTOR, "chapada", ids[1])
    name = registry.driver_record(db, "chapada", target["driver_cpf"])["name"]
    for term in (name.split()[0].lower(), target["plate"].lower(), target["protocol"], target["driver_cpf"]):
        found = authorization_lists.authorization_page(db, ACTOR, "chapada", TODAY, search=term)
        assert ids[1] in [r.id for r in found.rows], term


@pytest.mark.parametrize("term, total", [
    ("(", 0), ("[a-", 0), (".*", 0), ("$ne", 0), ("😀" * 3, 0), ("x" * 10_000, 0),
    ("\x00", 1),  # a NUL is dropped: an empty search lists everything
])
def test_odd_searches_are_literal_text_and_raise_nothing(db, term, total):
    requested(db, "chapada")
    assert authorization_lists.authorization_page(db, ACTOR, "chapada", TODAY, search=term).total == total


def test_another_municipality_sees_nothing(db):
    requested(db, "chapada")
    with pytest.raises(PermissionDenied):
        authorization_lists.authorization_page(db, SECRETARIA_MP, "chapada", TODAY)


WRITES = {
    "request_authorization": lambda db, a, auth: authorizations.request_authorization(db, a, "chapada", "0", "X",
                                                                                      TODAY),
    "approve": lambda db, a, auth: authorizations.approve(db, a, "chapada", auth, TODAY),
    "refuse": lambda db, a, auth: authorizations.refuse(db, a, "chapada", auth, TODAY, "motivo"),
    "record_inspection": lambda db, a, auth: inspections.record_inspection(db, a, "chapada", auth, TODAY, {}),
    "call_inspection": lambda db, a, auth: inspections.call_inspection(db, a, "chapada", auth, TODAY),
    "substitute_vehicle": lambda db, a, auth: authorizations.substitute_vehicle(db, a, "chapada", auth, "X", TODAY, ""),
    "issue_fee_dam": lambda db, a, auth: fees.issue_fee_dam(db, a, "chapada", auth, TODAY),
    "request_renewal": lambda db, a, auth: fees.request_renewal(db, a, "chapada", auth, TODAY),
    "record_sanction": lambda db, a, auth: authorizations.record_sanction(db, a, "chapada", auth, EventKind.REVOKED,
                                                                       TODAY),
    "record_earlier_payment": lambda db, a, auth: fees.record_earlier_payment(db, a, "chapada", auth, TODAY),
    "record_change": lambda db, a, auth: changes.record_change(db, a, "chapada", "drivers", auth, {},
                                                                           TODAY, TODAY,
            expected_version=entities.get(db, a, "drivers", "chapada", auth)["version"]),
    "report_change": lambda db, a, auth: changes.report_change(db, a, "chapada", auth, TODAY),
    "close_change": lambda db, a, auth: changes.close_change(db, a, "chapada", auth, "auto"),
    "add_report": lambda db, a, auth: platforms.add_report(db, a, "chapada", "0", "lista", TODAY),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("actor", [GABINETE, SECRETARIA_MP], ids=["gabinete", "secretaria of another town"])
def test_every_write_is_refused_to_who_may_not_write_there(db, write, actor):
    auth = requested(db, "chapada")
    before = {name: db[name].count_documents({}) for name in ("authorizations", "audit", "counters", "dams")}
    with pytest.raises(PermissionDenied):
        WRITES[write](db, actor, auth)
    assert {name: db[name].count_documents({}) for name in before} == before
