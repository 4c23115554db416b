"""Ride-hailing workflow services against a real embedded store: the whole flow of both laws,
refusals with their articles, the fee DAM and the issue on payment, the work queue."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from rules.fmt import brl
from rules.params import ParameterMissing
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from seed.ridehailing import passing
from services.dam import payments
from services.ridehailing import authorizations, fees, inspections, registry, work_queue
from services.shared import clock, entities, entity_lists, parameters, schema
from services.shared.errors import PermissionDenied, ValidationFailed
from tests.conftest import GABINETE
from tests.ridehailing_data import ACTORS, FEE, inspected, register, requested, set_fee

TODAY = clock.today()


def pay(db, municipality: str, auth: str) -> dict:
    actor = ACTORS[municipality]
    dam = fees.issue_fee_dam(db, actor, municipality, auth, TODAY)
    payments.record_payment(db, actor, municipality, dam["id"], TODAY, dam["amount"], "Banco do Brasil")
    return dam


@pytest.mark.parametrize("municipality, valid_until", [
    pytest.param("chapada", date(TODAY.year, 12, 31), id="CG art. 9 §1: valid to 31/12 of the payment year"),
    pytest.param("matupa", None, id="MP art. 3 §ú: valid 12 months from the payment"),
])
def test_whole_flow_issues_the_authorization_on_payment(db, municipality, valid_until):
    actor = ACTORS[municipality]
    set_fee(db, municipality)
    auth = requested(db, municipality)
    assert authorizations.status(db, actor, municipality, auth, TODAY).status is Status.REQUESTED
    assert authorizations.evaluate(db, actor, municipality, auth).ok
    state = authorizations.approve(db, actor, municipality, auth, TODAY - timedelta(days=4))
    assert state.status is Status.AWAITING_INSPECTION
    outcome = inspections.record_inspection(db, actor, municipality, auth, TODAY - timedelta(days=2),
                                            passing(municipality), "Vistoriador")
    assert outcome.decision.ok and outcome.state.status is Status.AWAITING_FEE
    dam = fees.issue_fee_dam(db, actor, municipality, auth, TODAY)
    assert dam["amount"] == FEE and dam["pays"]["id"] == auth
    assert authorizations.status(db, actor, municipality, auth, TODAY).status is Status.AWAITING_FEE
    payments.record_payment(db, actor, municipality, dam["id"], TODAY, dam["amount"], "Banco do Brasil")
    doc = authorizations.get_authorization(db, actor, municipality, auth)
    state = authorizations.status(db, actor, municipality, auth, TODAY)
    expected = valid_until or registry.rules_of(municipality).validity_end(TODAY)
    assert (doc["number"], state.status, state.valid_until) == (f"0001/{TODAY.year}", Status.ACTIVE, expected)
    assert doc["fee_dam"]["paid"] is True


def test_the_payment_handler_runs_once_per_dam(db):
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    dam = pay(db, "chapada", auth)
    fees.fee_paid(db, dam["charge_id"])  # handlers get the charge id (issue 19)
    doc = authorizations.get_authorization(db, ACTORS["chapada"], "chapada", auth)
    assert [e["kind"] for e in doc["events"]].count(EventKind.FEE_PAID.value) == 1


@pytest.mark.parametrize("municipality, changes, article", [
    pytest.param("chapada", {"vehicle": {"model_year": TODAY.year - 11}}, "art. 14, III",
                 id="CG art. 14 III: 11 years refused"),
    pytest.param("matupa", {"vehicle": {"model_year": TODAY.year - 11, "first_registration": date(TODAY.year - 11, 3, 1)}},
                 "art. 2º, §1º", id="MP art. 2 §1: 11 years refused"),
    pytest.param("chapada", {"vehicle": {"doors": 2}}, "art. 2º, c", id="CG art. 2 c: 2 doors refused"),
    pytest.param("chapada", {"driver": {"resides_in_municipality": False}}, "art. 10, VI",
                 id="CG art. 10 VI: not resident refused"),
    pytest.param("matupa", {"driver": {"cnh_ear": False}}, "art. 12, II", id="MP art. 12 II: CNH without EAR refused"),
    pytest.param("matupa", {"vehicle": {"holder": "spouse_or_relative", "relative_degree": 1}}, "art. 14, caput",
                 id="MP art. 14: relative's car refused"),
    pytest.param("chapada", {"missing": ("criminal",)}, "art. 12, III", id="CG art. 12 III: no criminal certificate"),
])
def test_refusals_carry_the_article(db, municipality, changes, article):
    actor = ACTORS[municipality]
    auth = requested(db, municipality, **changes)
    verdict = authorizations.evaluate(db, actor, municipality, auth)
    assert not verdict.ok and any(article in reason for reason in verdict.reasons())
    with pytest.raises(authorizations.NotEligible, match=article.replace("º", ".")):
        authorizations.approve(db, actor, municipality, auth, TODAY)
    reasons = authorizations.refuse(db, actor, municipality, auth, TODAY, "")
    assert any(article in r for r in reasons)
    assert authorizations.status(db, actor, municipality, auth, TODAY).status is Status.REFUSED


@pytest.mark.parametrize("age, ok", [pytest.param(10, True, id="CG art. 14 III: 10 years admitted"),
                                     pytest.param(11, False, id="CG art. 14 III: 11 years refused")])
def test_vehicle_age_both_sides(db, age, ok):
    _, plate = register(db, "chapada", vehicle={"model_year": TODAY.year - age})
    assert registry.vehicle_eligibility(db, ACTORS["chapada"], "chapada", plate, TODAY).ok is ok


def test_gravissima_infraction_in_the_12_months_refuses_the_driver(db):
    cpf, _ = register(db, "chapada")
    entities.create(db, ACTORS["chapada"], "traffic_infractions", "chapada",
                    {"driver_cpf": cpf, "committed_on": TODAY - timedelta(days=30), "severity": "gravissima"})
    decision = registry.driver_eligibility(db, ACTORS["chapada"], "chapada", cpf, TODAY)
    assert any("art. 10, VII" in r for r in decision.reasons())


def test_refusal_of_an_eligible_request_needs_a_written_reason(db):
    auth = requested(db, "chapada")
    with pytest.raises(ValidationFailed):
        authorizations.refuse(db, ACTORS["chapada"], "chapada", auth, TODAY, "  ")


@pytest.mark.parametrize("municipality, fee_item", [("chapada", "VIII"), ("matupa", "VII")])
def test_a_first_vistoria_passes_without_the_fee_that_only_comes_after_it(db, municipality, fee_item):
    """Issue 22 item 2 (LEITURAS §2 item 3): leaving "taxa recolhida" unticked never fails the vehicle;
    the vistoria passes and the fee DAM follows, with the authorization issued only when it is paid."""
    actor = ACTORS[municipality]
    auth = requested(db, municipality)
    authorizations.approve(db, actor, municipality, auth, TODAY - timedelta(days=4))
    ticked = {code: ok for code, ok in passing(municipality).items() if code != fee_item}
    outcome = inspections.record_inspection(db, actor, municipality, auth, TODAY - timedelta(days=1), ticked,
                                            "Vistoriador")
    assert outcome.decision.ok, outcome.decision.reasons()
    assert outcome.state.status.value == "awaiting_fee"


def test_failed_inspection_blocks_for_five_days(db):
    actor = ACTORS["chapada"]
    auth = requested(db, "chapada")
    authorizations.approve(db, actor, "chapada", auth, TODAY - timedelta(days=4))
    failed_on = TODAY - timedelta(days=1)
    outcome = inspections.record_inspection(db, actor, "chapada", auth, failed_on, {**passing("chapada"), "II": False},
                                            "Vistoriador")
    rules = registry.rules_of("chapada")
    assert not outcome.decision.ok
    assert outcome.fix_deadline == rules.fix_deadline(failed_on, parameters.calendar(db, "chapada"))
    assert any("art. 14, II" in r for r in outcome.decision.reasons())
    stored = entity_lists.list_all(db, actor, "inspections", "chapada", schema.ListQuery())
    assert [(i["result"], i["fix_deadline"]) for i in stored] == [("failed", outcome.fix_deadline)]


def test_fee_without_parameter_is_refused_never_zero(db):
    auth = inspected(db, "chapada")
    with pytest.raises(ParameterMissing, match="authorization_fee"):
        fees.issue_fee_dam(db, ACTORS["chapada"], "chapada", auth, TODAY)
    assert db["dams"].count_documents({}) == 0


def test_one_vehicle_per_driver(db):
    actor = ACTORS["chapada"]
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    pay(db, "chapada", auth)
    cpf = authorizations.get_authorization(db, actor, "chapada", auth)["driver_cpf"]
    import random

    from seed.ridehailing import vehicle_values

    second = vehicle_values(random.Random(9), cpf, TODAY)
    entities.create(db, actor, "vehicles", "chapada", second)
    decision = registry.vehicle_eligibility(db, actor, "chapada", second["plate"], TODAY)
    assert any("art. 12, §1º" in r for r in decision.reasons())


def test_renewal_fee_extends_the_validity(db):
    actor = ACTORS["matupa"]
    set_fee(db, "matupa")
    auth = inspected(db, "matupa")
    pay(db, "matupa", auth)
    first_end = authorizations.status(db, actor, "matupa", auth, TODAY).valid_until
    fees.request_renewal(db, actor, "matupa", auth, TODAY)
    pay(db, "matupa", auth)
    state = authorizations.status(db, actor, "matupa", auth, TODAY)
    assert state.valid_until == registry.rules_of("matupa").renewed_validity_end(first_end)


def test_sanctions_show_in_the_status(db):
    actor = ACTORS["chapada"]
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    pay(db, "chapada", auth)
    authorizations.record_sanction(db, actor, "chapada", auth, EventKind.SUSPENDED, TODAY, TODAY + timedelta(days=30))
    state = authorizations.status(db, actor, "chapada", auth, TODAY)
    assert (state.status, state.deadline) == (Status.SUSPENDED, TODAY + timedelta(days=30))


def test_queue_lists_deadlines_with_late_ones_flagged(db):
    actor = ACTORS["chapada"]
    auth = requested(db, "chapada", protocol=TODAY - timedelta(days=20))
    authorizations.approve(db, actor, "chapada", auth, TODAY - timedelta(days=15))
    queue = work_queue.pendencias(db, actor, "chapada", TODAY)
    assert [(p.kind, p.late) for p in queue] == [("Vistoria", True)]
    assert "art. 13" in queue[0].reference


def test_gabinete_cannot_write(db):
    cpf, plate = register(db, "chapada")
    with pytest.raises(PermissionDenied):
        authorizations.request_authorization(db, GABINETE, "chapada", cpf, plate, TODAY)


def test_data_changes_are_kept_with_dates(db):
    actor = ACTORS["chapada"]
    cpf, _ = register(db, "chapada")
    driver = registry.driver_record(db, "chapada", cpf)
    entities.update(db, actor, "drivers", "chapada", driver["id"], {"address": "Rua Nova, 10"},
            expected_version=entities.get(db, actor, "drivers", "chapada", driver["id"])["version"])
    history = registry.record_history(db, actor, "chapada", "drivers", driver["id"])
    assert [(h["Campo"], h["Depois"]) for h in history] == [("Endereço", "Rua Nova, 10")]


# ---- the fee paid short, in full, above or late (CG art. 9 §1 and art. 16 §ú; MP art. 3 §ú and art. 9) ----

def pay_amount(db, municipality: str, auth: str, amount: str, on=TODAY) -> dict:
    actor = ACTORS[municipality]
    dam = fees.issue_fee_dam(db, actor, municipality, auth, TODAY)
    payments.record_payment(db, actor, municipality, dam["id"], on, Decimal(amount), "Caixa")
    return dam


@pytest.mark.parametrize("municipality, amount, issued", [
    pytest.param("chapada", "179.99", False, id="CG art. 16 §ú: one centavo short stays awaiting the fee"),
    pytest.param("chapada", "180.00", True, id="CG art. 9 §1: the exact fee issues"),
    pytest.param("chapada", "180.01", True, id="CG art. 9 §1: one centavo above issues with the flag"),
    pytest.param("matupa", "150.00", False, id="MP art. 9: R$ 30,00 short stays awaiting the fee"),
    pytest.param("matupa", "200.00", True, id="MP art. 3 §ú: above the fee issues with the flag"),
])
def test_the_authorization_follows_the_full_payment_of_the_fee(db, municipality, amount, issued):
    actor = ACTORS[municipality]
    set_fee(db, municipality)
    auth = inspected(db, municipality)
    dam = pay_amount(db, municipality, auth, amount)
    doc = authorizations.get_authorization(db, actor, municipality, auth)
    state = authorizations.status(db, actor, municipality, auth, TODAY)
    assert (state.status is Status.ACTIVE) is issued
    assert bool(doc.get("number")) is issued
    if issued:
        above = Decimal(amount) > FEE
        note = doc["events"][-1]["note"]
        assert ("a maior" in note) is above and fees.open_shortfall(doc) is None
        return
    assert state.status is Status.AWAITING_FEE
    short = fees.open_shortfall(doc)
    assert (short["due"], short["paid"], short["difference"], short["dam_number"]) == (
        FEE, Decimal(amount), FEE - Decimal(amount), dam["number"])
    queue = work_queue.pendencias(db, actor, municipality, TODAY)
    [item] = [p for p in queue if p.authorization_id == auth]
    assert item.kind == "Taxa" and item.reference == registry.rules_of(municipality).ref("fee")
    assert (f"DAM {dam['number']} da taxa pago a menor" in item.message
            and f"devido R$ 180,00, pago {brl(Decimal(amount))}, falta {brl(FEE - Decimal(amount))}" in item.message)


def test_a_complementary_dam_charges_the_difference_and_its_payment_issues(db):
    actor = ACTORS["matupa"]
    set_fee(db, "matupa")
    auth = inspected(db, "matupa")
    first = pay_amount(db, "matupa", auth, "150.00")
    second = fees.issue_fee_dam(db, actor, "matupa", auth, TODAY)
    # the difference is a DAM of the same charge (débito), not a new charge of R$ 30,00
    assert second["amount"] == Decimal("30.00") and second["description"].startswith("Diferença — Taxa")
    assert second["charge_id"] == first["charge_id"] and any("pago a menor" in i for i in second["instructions"])
    [item] = work_queue.pendencias(db, actor, "matupa", TODAY)
    assert f"DAM complementar {second['number']}" in item.message and first["number"] in item.message
    payments.record_payment(db, actor, "matupa", second["id"], TODAY, Decimal("30.00"), "Caixa")
    doc = authorizations.get_authorization(db, actor, "matupa", auth)
    assert authorizations.status(db, actor, "matupa", auth, TODAY).status is Status.ACTIVE
    assert doc["number"] == f"0001/{TODAY.year}"
    assert [r["amount"] for r in doc["fee_dam"]["received"]] == [Decimal("150.00"), Decimal("30.00")]


@pytest.mark.parametrize("days_after_due, late", [
    pytest.param(0, False, id="CTN art. 210: paid on the due date, no flag"),
    pytest.param(30, True, id="CG art. 9 §1: paid late still issues, flag kept"),
])
def test_a_late_payment_still_issues_and_keeps_the_flag(db, monkeypatch, days_after_due, late):
    actor = ACTORS["chapada"]
    set_fee(db, "chapada")
    auth = inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, actor, "chapada", auth, TODAY)
    paid_on = dam["due_on"] + timedelta(days=days_after_due)
    monkeypatch.setattr(clock, "today", lambda: paid_on)
    payments.record_payment(db, actor, "chapada", dam["id"], paid_on, dam["amount"], "Caixa")
    doc = authorizations.get_authorization(db, actor, "chapada", auth)
    assert authorizations.status(db, actor, "chapada", auth, paid_on).status is Status.ACTIVE
    assert ("após o vencimento" in " ".join(doc["fee_dam"]["received"][0]["alerts"])) is late
    assert ("alertas do DAM" in doc["events"][-1]["note"]) is late
