"""Builders for ride-hailing tests: an eligible driver and vehicle of each municipality."""
from __future__ import annotations

from dataclasses import replace
from datetime import date

from rules.calendar import LegalCalendar
from rules.params import ParameterBook
from rules.ridehailing import chapada, matupa
from rules.ridehailing.concepts import (
    Authorization,
    AuthorizationEvent,
    Document,
    Driver,
    EventKind,
    Holder,
    Vehicle,
)

CAL = LegalCalendar()
CG = chapada.RULESET
MP = matupa.RULESET
CG_BOOK = ParameterBook(chapada.DEFAULT_PARAMETERS + chapada.DEMO_PARAMETERS)
MP_BOOK = ParameterBook(matupa.DEFAULT_PARAMETERS)
PROTOCOL = date(2026, 3, 10)


def documents(rules, issued: date = date(2026, 3, 1)) -> tuple[Document, ...]:
    return tuple(Document(req.code, issued) for req in rules.documents)


def driver(rules, **changes) -> Driver:
    base = Driver(
        cpf="52998224725", name="Maria da Silva", cnh_category="B",
        cnh_first_license=date(2015, 5, 4), cnh_valid_until=date(2030, 5, 4), cnh_ear=True,
        inss_enrolled=True, resides_in_municipality=True, exclusive_platform_declaration=True,
        documents=documents(rules),
    )
    return replace(base, **changes)


def vehicle(**changes) -> Vehicle:
    base = Vehicle(
        plate="QBC1D23", model_year=2020, doors=4, seats=5, air_conditioning=True,
        plated_in_municipality=True, holder=Holder.OWNER, dpvat_paid=True, licensing_valid=True,
        ipva_paid=True, garage_proof=True, first_registration=date(2020, 2, 1),
    )
    return replace(base, **changes)


def events(*pairs) -> tuple[AuthorizationEvent, ...]:
    result = []
    for pair in pairs:
        kind, on, *until = pair
        result.append(AuthorizationEvent(kind, on, until[0] if until else None))
    return tuple(result)


def authorization(*pairs) -> Authorization:
    return Authorization("0001/2026", "52998224725", "QBC1D23", events(*pairs))


ISSUED_2026 = (
    (EventKind.REQUESTED, date(2026, 2, 2)),
    (EventKind.APPROVED, date(2026, 2, 9)),
    (EventKind.INSPECTION_PASSED, date(2026, 2, 11)),
    (EventKind.FEE_PAID, date(2026, 2, 13)),
)


def failed_refs(decision) -> list[str]:
    return [f.reference for f in decision.failures]
