"""Property tests: any input of the right types gives a result or one of the rule set's named errors."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.base import RuleError
from rules.params import ParameterVersion
from rules.ridehailing.concepts import (
    Authorization,
    AuthorizationEvent,
    DataRequest,
    Document,
    Driver,
    EventKind,
    Holder,
    InfractionProcess,
    InsurancePolicy,
    OffenceRecord,
    Platform,
    Severity,
    TrafficInfraction,
    Vehicle,
)
from rules.ridehailing.errors import FineAboveCap
from rules.ridehailing.lifecycle import Status
from tests.rules.ridehailing_support import CAL, CG, CG_BOOK, MP, MP_BOOK

RULES = [pytest.param(CG, CG_BOOK, id="Chapada"), pytest.param(MP, MP_BOOK, id="Matupá")]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

dates = st.dates(min_value=date(2015, 1, 1), max_value=date(2035, 12, 31))
any_dates = st.dates()
near = st.dates(min_value=date(2025, 9, 1), max_value=date(2028, 12, 31))
codes = st.sampled_from(["cnh", "inss", "criminal", "municipal_tax", "medical", "residence",
                         "platform_declaration", "vehicle_plate", "garage", "other"])
money = st.decimals(allow_nan=True, allow_infinity=True, places=2)

drivers = st.builds(
    Driver, cpf=st.text(max_size=14), name=st.text(max_size=20), cnh_category=st.text(max_size=3),
    cnh_first_license=dates, cnh_valid_until=dates, cnh_ear=st.booleans(),
    traffic_infractions=st.lists(st.builds(TrafficInfraction, dates, st.sampled_from(Severity)), max_size=3).map(tuple),
    documents=st.lists(st.builds(Document, codes, dates, st.none() | dates), max_size=10).map(tuple),
)
vehicles = st.builds(Vehicle, plate=st.text(max_size=8), model_year=st.integers(), doors=st.integers(),
                     seats=st.integers(), holder=st.sampled_from(Holder), relative_degree=st.integers(),
                     lessor_vehicle_count=st.integers(), first_registration=st.none() | dates)
FLOW = (EventKind.APPROVED, EventKind.INSPECTION_PASSED, EventKind.FEE_PAID)
random_events = st.lists(st.builds(AuthorizationEvent, st.sampled_from(EventKind), near, st.none() | near),
                         max_size=4)


@st.composite
def authorizations(draw):
    """A prefix of the usual flow, then arbitrary events: most histories are lawful, some are not."""
    day = draw(near)
    flow = [AuthorizationEvent(EventKind.REQUESTED, day)]
    for kind in FLOW[:draw(st.integers(0, len(FLOW)))]:
        day = day + timedelta(days=draw(st.integers(0, 20)))
        flow.append(AuthorizationEvent(kind, day))
    return Authorization("1/2026", "1", "A", tuple(flow + draw(random_events)))
infraction_codes = st.sampled_from([i.code for i in CG.catalogue + MP.catalogue] + ["XX-1"])
histories = st.lists(st.builds(OffenceRecord, infraction_codes, dates, st.booleans()), max_size=4)
policies = st.none() | st.builds(InsurancePolicy, st.text(max_size=5), money, dates, dates)
platforms = st.builds(Platform, name=st.text(max_size=5), cnpj=st.text(max_size=5), credentialed_on=near,
                      insurance=policies, lists_submitted=st.lists(dates, max_size=3).map(tuple),
                      issqn_paid_competences=st.lists(dates, max_size=3).map(tuple))
processes = st.builds(InfractionProcess, dates, st.none() | dates, st.none() | st.text(max_size=8),
                      st.none() | dates, st.none() | dates)
requests = st.builds(DataRequest, st.datetimes(), st.none() | st.datetimes(),
                     st.frozensets(st.sampled_from(["origin_destination", "route_map", "fare", "x"])))


def named_errors_only(call):
    try:
        return call()
    except RuleError:
        return None


@pytest.mark.parametrize("rules, book", RULES)
@SETTINGS
@given(person=drivers, car=vehicles, on=dates, others=st.lists(st.text(max_size=8), max_size=2))
def test_eligibility_never_crashes(rules, book, person, car, on, others):
    named_errors_only(lambda: rules.driver_eligibility(person, on, book, CAL))
    named_errors_only(lambda: rules.vehicle_eligibility(car, on, book, others))


@pytest.mark.parametrize("rules, book", RULES)
@SETTINGS
@given(authorization=authorizations(), on=near)
def test_status_is_a_status_or_a_named_error(rules, book, authorization, on):
    result = named_errors_only(lambda: rules.authorization_status(authorization, on, book, CAL))
    if result is not None:
        assert result.status in Status
        assert not result.can_operate or result.valid_until >= on


@pytest.mark.parametrize("rules, book", RULES)
@SETTINGS
@given(code=infraction_codes, on=dates, history=histories)
def test_sanctions_never_crash(rules, book, code, on, history):
    result = named_errors_only(lambda: rules.sanction(code, on, history, book))
    if result is not None:
        assert result.fine.amount >= 0
        assert result.severity.value in {s.value for s in Severity}


@pytest.mark.parametrize("rules, book", RULES)
@SETTINGS
@given(platform=platforms, process=processes, request=requests, on=dates, now=st.datetimes())
def test_process_and_platform_never_crash(rules, book, platform, process, request, on, now):
    named_errors_only(lambda: rules.platform_compliance(platform, on, book, CAL))
    named_errors_only(lambda: rules.process_status(process, on, book, CAL))
    named_errors_only(lambda: rules.data_request_check(request, now))


@SETTINGS
@given(upfm=st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100000"), places=4),
       code=st.sampled_from([i.code for i in CG.catalogue]))
def test_chapada_fine_is_units_times_upfm(upfm, code):
    book = CG_BOOK.with_versions([ParameterVersion("upfm_value", date(2026, 6, 1), upfm, "teste")])
    units = {Severity.LEVE: 10, Severity.MEDIA: 20, Severity.GRAVE: 30, Severity.GRAVISSIMA: 40}
    fine = CG.fine_amount(code, date(2026, 6, 2), book)
    assert fine.amount == (units[fine.severity] * upfm).quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")


@SETTINGS
@given(value=st.decimals(min_value=0, max_value=5000, places=2),
       code=st.sampled_from([i.code for i in MP.catalogue]))
def test_matupa_fine_never_above_its_cap(value, code):
    severity = MP.infraction(code).severity
    key = {Severity.LEVE: "leve", Severity.MEDIA: "media", Severity.GRAVE: "grave", Severity.GRAVISSIMA: "gravissima"}
    book = MP_BOOK.with_versions([ParameterVersion(f"fine_{key[severity]}", date(2026, 1, 1), value, "teste")])
    cap = MP_BOOK.get(f"fine_cap_{key[severity]}", date(2026, 2, 1))
    try:
        assert MP.fine_amount(code, date(2026, 2, 1), book).amount == value <= cap
    except FineAboveCap:
        assert value > cap


@pytest.mark.parametrize("rules, book", RULES)
@SETTINGS
@given(model_year=st.integers(1990, 2030), on=st.dates(min_value=date(2026, 1, 7), max_value=date(2028, 12, 31)))
def test_vehicle_age_refusal_is_final(rules, book, model_year, on):
    car = Vehicle("A", model_year, 4, 5, True, True, Holder.OWNER, dpvat_paid=True, licensing_valid=True,
                  ipva_paid=True, garage_proof=True)
    if not rules.vehicle_eligibility(car, on, book).ok:
        later = date(on.year + 1, 1, 1)
        assert not rules.vehicle_eligibility(car, later, book).ok


@pytest.mark.parametrize("rules, book", RULES)
@SETTINGS
@given(person=drivers, on=any_dates)
def test_any_date_at_all_is_a_result_or_named_error(rules, book, person, on):
    named_errors_only(lambda: rules.driver_eligibility(person, on, book, CAL))
    named_errors_only(lambda: rules.data_change_check(on, on, on, CAL))
