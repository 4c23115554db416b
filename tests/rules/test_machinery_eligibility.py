"""Who may request and when a request is refused (Decreto 017/2026, Nova Lacerda, art. 2, 5, 6, 8 §4, 10)."""
from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from rules.machinery.eligibility import (
    Assessment,
    DebtStatus,
    RequesterKind,
    ServiceRequest,
    check_request,
)
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.machinery.payment import InstalmentStatus
from rules.machinery.quote import EarthLoads, MachineHours, PassengerTransport
from rules.params import ParameterBook

BOOK = ParameterBook(DEFAULT_PARAMETERS)
ON = date(2026, 4, 10)
HOURS = [MachineHours("01", Decimal(4))]
VALID = ServiceRequest(
    requested_on=ON, requester_kind=RequesterKind.PERSON, identification="Maria da Silva, CPF 123.456.789-09",
    residence_proof="Conta de energia 03/2026", services_and_justification="Limpeza de tanque",
    agrees_payment_terms=True, liability_declaration=True,
    requester_debts=DebtStatus.NONE, property_debts=DebtStatus.NONE,
)


def test_complete_request_is_accepted():
    decision = check_request(VALID, HOURS, BOOK)
    assert decision.ok and not decision.warnings


@pytest.mark.parametrize("changes, reference", [
    pytest.param({"requester_kind": RequesterKind.COMPANY}, "art. 2, caput", id="art. 2 caput: company refused"),
    pytest.param({"identification": ""}, "art. 2, §4, I", id="art. 2 §4 I: no identification"),
    pytest.param({"residence_proof": " "}, "art. 2, §4, II", id="art. 2 §4 II: no proof of residence"),
    pytest.param({"private_property": True, "technical_assessment": Assessment.APPROVED}, "art. 2, §4, III",
                 id="art. 2 §4 III: private property without ownership proof"),
    pytest.param({"services_and_justification": ""}, "art. 2, §4, IV", id="art. 2 §4 IV: no services stated"),
    pytest.param({"agrees_payment_terms": False}, "art. 2, §4, V", id="art. 2 §4 V: no payment declaration"),
    pytest.param({"liability_declaration": False}, "art. 2, §4, VI", id="art. 2 §4 VI: no liability declaration"),
    pytest.param({"requester_debts": DebtStatus.OUTSTANDING}, "art. 2, §1", id="art. 2 §1: requester owes the municipality"),
    pytest.param({"requester_debts": DebtStatus.PLAN_IN_ARREARS}, "art. 2, §1", id="art. 2 §1: requester plan in arrears"),
    pytest.param({"property_debts": DebtStatus.OUTSTANDING}, "art. 2, §1", id="art. 2 §1: property with tax debt"),
    pytest.param({"property_debts": DebtStatus.PLAN_IN_ARREARS}, "art. 2, §1", id="art. 2 §1: property plan in arrears"),
    pytest.param({"removes_natural_materials": True}, "art. 2, §2; art. 10, III", id="art. 10 III: natural materials without licence"),
    pytest.param({"difficult_access": True, "technical_assessment": Assessment.DENIED}, "art. 5",
                 id="art. 5: hard access, assessment against"),
    pytest.param({"harms_essential_activities": True}, "art. 10, I", id="art. 10 I: harms essential activities"),
    pytest.param({"requester_is_public_agent": True, "improper_benefit": True}, "art. 10, II",
                 id="art. 10 II: improper benefit to a public agent"),
])
def test_refusals(changes, reference):
    decision = check_request(replace(VALID, **changes), HOURS, BOOK)
    assert not decision.ok
    assert [f.reference.split("(Nova Lacerda), ")[1] for f in decision.failures] == [reference]


@pytest.mark.parametrize("changes", [
    pytest.param({"requester_kind": RequesterKind.NON_PROFIT}, id="art. 2 caput: non-profit entity accepted"),
    pytest.param({"requester_debts": DebtStatus.REGULAR_PLAN}, id="art. 2 §1: requester in a regular plan accepted"),
    pytest.param({"property_debts": DebtStatus.REGULAR_PLAN}, id="art. 2 §1: property in a regular plan accepted"),
    pytest.param({"private_property": True, "property_proof": "Matrícula 1.234",
                  "technical_assessment": Assessment.APPROVED}, id="art. 2 §4 III, art. 5: owned and assessed"),
    pytest.param({"removes_natural_materials": True, "environmental_licence": "LO SEMA 99/2026"},
                 id="art. 10 III: removal with licence accepted"),
    pytest.param({"desired_start": date(2026, 5, 10)}, id="art. 2 caput: 30 days of notice"),
])
def test_accepted_without_warnings(changes):
    decision = check_request(replace(VALID, **changes), HOURS, BOOK)
    assert decision.ok and not decision.warnings


@pytest.mark.parametrize("changes, services, reference", [
    pytest.param({"desired_start": date(2026, 5, 9)}, HOURS, "art. 2, caput", id="art. 2 caput: 29 days of notice only warns"),
    pytest.param({"desired_start": ON}, HOURS, "art. 2, caput", id="art. 2 caput: same-day request only warns"),
    pytest.param({"difficult_access": True}, HOURS, "art. 5", id="art. 5: assessment pending warns"),
    pytest.param({"requester_is_public_agent": True}, HOURS, "art. 10, II",
                 id="art. 10 II: public agent meeting the requirements goes to review"),
    pytest.param({}, [EarthLoads(2)], "art. 2, §2", id="art. 2 §2: earth loads, confirm the material's licence"),
    pytest.param({"requester_debts": DebtStatus.TO_CHECK}, HOURS, "art. 2, §1",
                 id="art. 2 §1: requester's standing still to be checked by the Secretaria warns"),
    pytest.param({"property_debts": DebtStatus.TO_CHECK}, HOURS, "art. 2, §1",
                 id="art. 2 §1: property's standing still to be checked by the Secretaria warns"),
])
def test_warnings_do_not_refuse(changes, services, reference):
    decision = check_request(replace(VALID, **changes), services, BOOK)
    assert decision.ok
    assert [w.reference.split("(Nova Lacerda), ")[1] for w in decision.warnings] == [reference]


def test_notice_message_counts_days():
    decision = check_request(replace(VALID, desired_start=date(2026, 5, 9)), HOURS, BOOK)
    assert decision.warnings[0].message == "Antecedência de 29 dias (preferencial: 30 dias)"


@pytest.mark.parametrize("responsible, ok", [
    pytest.param("", False, id="art. 6: bus hire without a responsible person refused"),
    pytest.param("João Souza, CPF 987.654.321-00", True, id="art. 6: bus hire with a responsible person"),
])
def test_bus_or_van_needs_a_responsible(responsible, ok):
    request = replace(VALID, trip_responsible=responsible)
    assert check_request(request, [PassengerTransport("11", Decimal(300))], BOOK).ok is ok


@pytest.mark.parametrize("due, ok", [
    pytest.param(date(2026, 4, 10), True, id="art. 8 §4: instalment due on the request day is not yet overdue"),
    pytest.param(date(2026, 4, 9), False, id="art. 8 §4: instalment overdue since yesterday suspends the request"),
])
def test_overdue_instalment_suspends_requests(due, ok):
    unpaid = InstalmentStatus("DAM 55/2026", Decimal("450.00"), due)
    assert check_request(VALID, HOURS, BOOK, [unpaid]).ok is ok


@pytest.mark.parametrize("services, ok", [
    pytest.param([EarthLoads(5)], True, id="art. 9 §1: 5 loads at once accepted"),
    pytest.param([EarthLoads(6)], False, id="art. 9 §1: 6 loads refused, the rest is a new request (§2)"),
    pytest.param([EarthLoads(4), EarthLoads(2)], False, id="art. 9 §1: 4 + 2 loads in one request refused"),
])
def test_five_loads_at_once(services, ok):
    decision = check_request(replace(VALID, environmental_licence="LO 12/2026"), services, BOOK)
    assert decision.ok is ok
    finding = next(f for f in decision.findings if "art. 9" in f.reference)
    assert finding.ok is ok
    if not ok:
        assert finding.reference.endswith("art. 9, §1 e §2") and "nova solicitação" in finding.message
