"""Ride-hailing money on the charge (débito) core (issue 19): the authorization's fee, the auto's fine
and the ISSQN of a vehicle-month each follow their stored charge — paid in full by the original, by a
2ª via or by the DAM of a difference, settled once; a short payment waits; an excess changes nothing;
a handler given a forged dict, an unknown id or an unpaid charge's id changes nothing (defect 5)."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

import pytest
from bson import ObjectId

from rules.dam import charges as charge_rules
from rules.dam.bank_return import ReturnPayment, build_return_file
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.params import ParameterVersion
from rules.ridehailing import settlement
from rules.ridehailing.concepts import EventKind
from rules.ridehailing.lifecycle import Status
from seed.people import cnpj, cpf
from services.dam import bank_import, charges, dams, payments, rebill, reissue
from services.ridehailing import authorizations, fees, issqn, trip_data, work_queue
from services.ridehailing.enforcement import autos, lists, penalties
from services.setup import bootstrap
from services.shared import clock, entities
from services.store import parse_date
from tests.enforcement_support import definitive, driver, lavrado
from tests.ridehailing_data import ACTORS, FEE, inspected, set_fee
from tests.test_page_ridehailing import page, texts
from tests.test_platform_obligations import csv_file, set_rate, trips

CTM = "Código Tributário Municipal (ato de teste)"


@pytest.fixture
def rates(db):
    """Multa and juros de mora in force, so an overdue DAM has a 2ª via."""
    for municipality in ACTORS:
        for name, value in ((FINE_DAILY, Decimal("0.33")), (FINE_MAX, Decimal("20")), (INTEREST_MONTHLY, Decimal("1"))):
            bootstrap.ensure_parameter(db, municipality, ParameterVersion(name, date(2025, 1, 1), value, CTM))


def pay(db, municipality: str, dam: dict, on: date, amount: Decimal | None = None) -> None:
    payments.record_payment(db, ACTORS[municipality], municipality, dam["id"], on,
                            dam["amount"] if amount is None else amount, "Caixa")


def second_via(db, today, municipality: str, dam: dict) -> dict:
    """The 2ª via of ``dam`` asked 20 days after its due date (the original is cancelled)."""
    today.set(dam["due_on"] + timedelta(days=20))
    return reissue.reissue(db, ACTORS[municipality], municipality, dam["id"], today.value + timedelta(days=5))


def bank_pays(db, municipality: str, dam: dict, on: date) -> None:
    """The bank's return file pays ``dam`` (the taxpayer paid the old slip too)."""
    content = build_return_file([ReturnPayment(dam["barcode"], on, dam["amount"])], generated_on=on, file_sequence=1)
    bank_import.import_return_file(db, ACTORS[municipality], municipality, content.encode("latin-1"))


@pytest.mark.parametrize("rule", [settlement.fee_settled, settlement.fine_settled, settlement.issqn_settled],
                         ids=["fee: CG art. 9 §1, MP art. 3 §ú", "fine: CG art. 18 XXII, MP art. 12 XXIII",
                              "ISSQN: CG art. 19, MP art. 10"])
def test_a_record_acts_only_on_its_charge_paid_in_full(rule):
    assert [status for status in charge_rules.STATUSES if rule(status)] == [charge_rules.PAID]


# ---- the authorization fee ----

def fee_events(db, municipality: str, auth: str) -> list[str]:
    doc = authorizations.get_authorization(db, ACTORS[municipality], municipality, auth)
    return [e["kind"] for e in doc["events"]]


def test_the_fee_paid_by_a_2a_via_issues_the_authorization_once(db, today, rates):
    set_fee(db, "chapada")
    actor, auth = ACTORS["chapada"], inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, actor, "chapada", auth, today.value)
    via = second_via(db, today, "chapada", dam)
    assert via["charge_id"] == dam["charge_id"] and via["amount"] > FEE
    [item] = [p for p in work_queue.pendencias(db, actor, "chapada", today.value) if p.authorization_id == auth]
    assert f"DAM {via['number']} da taxa aguardando pagamento" in item.message and item.late  # due date kept
    pay(db, "chapada", via, today.value)
    doc = authorizations.get_authorization(db, actor, "chapada", auth)
    assert authorizations.status(db, actor, "chapada", auth, today.value).status is Status.ACTIVE
    assert (doc["fee_dam"]["paid"], doc["fee_dam"]["dam_id"], doc["fee_dam"]["charge_id"]) == (
        True, via["id"], dam["charge_id"])
    assert parse_date(doc["fee_dam"]["paid_on"]) == today.value and parse_date(doc["issued_on"]) == today.value
    fees.fee_paid(db, dam["charge_id"])
    assert fee_events(db, "chapada", auth).count(EventKind.FEE_PAID.value) == 1
    assert db["counters"].find_one({"_id": f"chapada/{fees.NUMBER_KIND}/{today.value.year}"})["seq"] == 1


def test_the_fee_paid_by_the_bank_return_file_issues_the_authorization(db, today):
    set_fee(db, "chapada")
    actor, auth = ACTORS["chapada"], inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, actor, "chapada", auth, today.value)
    bank_pays(db, "chapada", dam, today.value)
    assert charges.load(db, dam["charge_id"])["status"] == charge_rules.PAID
    assert authorizations.status(db, actor, "chapada", auth, today.value).status is Status.ACTIVE


def test_the_old_slip_paid_at_the_bank_after_its_2a_via_is_a_credit_and_issues_nothing_more(db, today, rates):
    set_fee(db, "chapada")
    actor, auth = ACTORS["chapada"], inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, actor, "chapada", auth, today.value)
    via = second_via(db, today, "chapada", dam)
    pay(db, "chapada", via, today.value)
    bank_pays(db, "chapada", dam, today.value)  # the superseded original, paid at the bank as well
    charge = charges.load(db, dam["charge_id"])
    assert fee_events(db, "chapada", auth).count(EventKind.FEE_PAID.value) == 1
    assert charge["status"] == charge_rules.PAID and charge["credit"] == dam["amount"]


def test_a_short_fee_waits_and_the_difference_dam_of_its_charge_issues_it_once(db, today):
    set_fee(db, "matupa")
    actor, auth = ACTORS["matupa"], inspected(db, "matupa")
    dam = fees.issue_fee_dam(db, actor, "matupa", auth, today.value)
    pay(db, "matupa", dam, today.value, Decimal("150.00"))
    assert authorizations.status(db, actor, "matupa", auth, today.value).status is Status.AWAITING_FEE
    short = fees.open_shortfall(authorizations.get_authorization(db, actor, "matupa", auth))
    assert (short["due"], short["paid"], short["difference"]) == (FEE, Decimal("150.00"), Decimal("30.00"))
    fees.fee_paid(db, dam["charge_id"])  # a re-run of the short payment changes nothing
    assert db["audit"].count_documents({"collection": "authorizations", "action": "fee_short"}) == 1
    # the treasury bills the difference from the charge itself (Débitos), not from the fee screen
    difference = rebill.issue_open(db, actor, "matupa", dam["charge_id"], today.value + timedelta(days=5))
    [item] = [p for p in work_queue.pendencias(db, actor, "matupa", today.value) if p.authorization_id == auth]
    assert f"DAM complementar {difference['number']}" in item.message and dam["number"] in item.message
    pay(db, "matupa", difference, today.value, Decimal("40.00"))  # R$ 10,00 beyond: a credit
    doc = authorizations.get_authorization(db, actor, "matupa", auth)
    assert authorizations.status(db, actor, "matupa", auth, today.value).status is Status.ACTIVE
    assert [r["amount"] for r in doc["fee_dam"]["received"]] == [Decimal("150.00"), Decimal("40.00")]
    assert charges.load(db, dam["charge_id"])["credit"] == Decimal("10.00")
    fees.fee_paid(db, dam["charge_id"])
    assert fee_events(db, "matupa", auth).count(EventKind.FEE_PAID.value) == 1


def test_a_cancelled_fee_dam_is_reissued_on_the_same_charge_and_an_open_one_is_not_doubled(db, today):
    set_fee(db, "chapada")
    actor, auth = ACTORS["chapada"], inspected(db, "chapada")
    dam = fees.issue_fee_dam(db, actor, "chapada", auth, today.value)
    with pytest.raises(rebill.NothingToIssue):
        fees.issue_fee_dam(db, actor, "chapada", auth, today.value)  # its DAM is still to be paid
    dams.cancel(db, actor, "chapada", dam["id"], "Endereço do condutor errado")
    [item] = [p for p in work_queue.pendencias(db, actor, "chapada", today.value) if p.authorization_id == auth]
    assert "cancelado: emitir novo DAM (R$ 180,00 em aberto)" in item.message
    again = fees.issue_fee_dam(db, actor, "chapada", auth, today.value)
    assert (again["charge_id"], again["amount"]) == (dam["charge_id"], FEE)
    pay(db, "chapada", again, today.value)
    assert authorizations.status(db, actor, "chapada", auth, today.value).status is Status.ACTIVE
    assert db[charges.COLLECTION].count_documents({"owner.id": auth}) == 1


# ---- the auto's fine (defect 5) ----

def fined(db, today) -> tuple[str, dict]:
    cpf_, _ = driver(db, "chapada", seed=2)
    auto_id = lavrado(db, today, "chapada", "CG-18-III", date(2026, 3, 4), cpf_)
    definitive(db, today, "chapada", auto_id, date(2026, 3, 4))  # the fine only once final (LEITURAS §7)
    return auto_id, penalties.issue_fine_dam(db, ACTORS["chapada"], "chapada", auto_id)


def auto(db, auto_id: str) -> dict:
    return autos.get(db, ACTORS["chapada"], "chapada", auto_id)


def fine_still_open(db, auto_id: str, dam: dict) -> None:
    shown = auto(db, auto_id)
    assert shown["fine_dam"]["paid"] is False and shown["stage"] == "penalidade"
    assert dams.get(db, ACTORS["chapada"], "chapada", dam["id"])["status"] == dams.ISSUED
    assert db["audit"].count_documents({"collection": "autos", "action": "fine_paid"}) == 0


def test_defect_5_a_forged_paid_dict_closes_no_fine(db, today):
    auto_id, dam = fined(db, today)
    forged = {**dam, "status": dams.PAID, "payment": {"paid_on": today.value, "amount": Decimal("0.01"), "flags": []}}
    penalties.fine_paid(db, forged)  # the old handler believed it: fine paid with R$ 0,01, its DAM "emitido"
    fine_still_open(db, auto_id, dam)


def test_an_unknown_id_a_dam_id_or_the_id_of_an_unpaid_charge_closes_no_fine(db, today):
    auto_id, dam = fined(db, today)
    for fake in (str(ObjectId()), "não-é-id", dam["id"], dam["charge_id"]):
        penalties.fine_paid(db, fake)
    fine_still_open(db, auto_id, dam)


def test_the_fine_paid_by_a_2a_via_is_closed_with_the_charge_amounts_once(db, today, rates):
    auto_id, dam = fined(db, today)
    assert auto(db, auto_id)["fine_dam"]["charge_id"] == dam["charge_id"]
    via = second_via(db, today, "chapada", dam)
    [row] = lists.list_autos(db, ACTORS["chapada"], "chapada")
    assert row.payment.startswith(f"DAM {via['number']} vence")  # the screens follow the charge's live DAM
    pay(db, "chapada", via, today.value)
    fine = auto(db, auto_id)["fine_dam"]
    assert (fine["paid"], fine["paid_on"], fine["paid_amount"], fine["id"]) == (True, today.value, via["amount"],
                                                                                 via["id"])
    penalties.fine_paid(db, dam["charge_id"])
    assert auto(db, auto_id)["fine_dam"]["paid_amount"] == via["amount"]
    assert db["audit"].count_documents({"collection": "autos", "action": "fine_paid"}) == 1


def test_a_short_fine_stays_open_until_the_dam_of_its_difference_is_paid(db, today):
    auto_id, dam = fined(db, today)
    pay(db, "chapada", dam, today.value, Decimal("1500.00"))
    shown = auto(db, auto_id)
    assert shown["fine_dam"]["paid"] is False and shown["stage"] == "penalidade"
    standing, reissuable = penalties.fine_standing(db, shown)
    assert standing.startswith("Pago a menor: falta R$ 500,00") and reissuable
    today.set(dam["due_on"])  # inside the queue's horizon
    [item] = [p for p in lists.pending(db, ACTORS["chapada"], "chapada", today.value) if p.kind == "Multa"]
    assert f"DAM {dam['number']}" not in item.message and "falta R$ 500,00" in item.message
    difference = penalties.issue_fine_dam(db, ACTORS["chapada"], "chapada", auto_id)
    assert (difference["charge_id"], difference["amount"]) == (dam["charge_id"], Decimal("500.00"))
    pay(db, "chapada", difference, today.value)
    fine = auto(db, auto_id)["fine_dam"]
    assert (fine["paid"], fine["paid_amount"], auto(db, auto_id)["stage"]) == (True, Decimal("2000.00"), "multa_paga")
    penalties.fine_paid(db, dam["charge_id"])
    assert db["audit"].count_documents({"collection": "autos", "action": "fine_paid"}) == 1


# ---- the ISSQN of a vehicle-month ----

def issqn_dam(db, today) -> tuple[str, dict]:
    """February's ISSQN of one vehicle (3 trips of R$ 20,00 at 5 %: R$ 3,00) and its DAM."""
    mun, actor = "chapada", ACTORS["chapada"]
    set_rate(db, mun)
    pid = entities.create(db, actor, "platforms", mun, {"name": "Rodaí Mobilidade", "cnpj": cnpj(random.Random(3)),
                                                        "status": "ativo", "credentialed_on": date(2025, 10, 1)})
    data = csv_file(trips(cpf(random.Random(4)), "QBC1D23", date(2026, 2, 5), 3))
    trip_data.import_trips(db, actor, mun, pid, data, "v.csv", commit=True)
    issqn.assess_issqn(db, actor, mun, pid, date(2026, 2, 5))
    [month] = issqn.issqn_months(db, actor, mun, today.value)
    return month.id, issqn.issue_issqn_dam(db, actor, mun, month.id, address="Av. Paulista, 1000, São Paulo - SP")


def month_of(db, today, month_id: str) -> issqn.IssqnMonth:
    return next(m for m in issqn.issqn_months(db, ACTORS["chapada"], "chapada", today.value) if m.id == month_id)


def test_the_issqn_paid_by_a_2a_via_marks_the_month_paid_once(db, today, rates):
    month_id, dam = issqn_dam(db, today)
    assert db[issqn.ISSQN].find_one({"_id": ObjectId(month_id)})["charge_id"] == dam["charge_id"]
    issqn.issqn_paid(db, dam["charge_id"])  # its DAM unpaid: nothing
    assert month_of(db, today, month_id).paid_on is None
    via = second_via(db, today, "chapada", dam)
    assert month_of(db, today, month_id).dam_number == via["number"]
    pay(db, "chapada", via, today.value)
    paid = month_of(db, today, month_id)
    assert (paid.situation, paid.paid_on, paid.dam_number) == ("pago", today.value, via["number"])
    issqn.issqn_paid(db, dam["charge_id"])
    assert db["audit"].count_documents({"collection": issqn.ISSQN, "note": f"DAM {via['number']} pago"}) == 1


def test_a_short_issqn_stays_unpaid_until_the_dam_of_its_difference_is_paid(db, today):
    month_id, dam = issqn_dam(db, today)
    pay(db, "chapada", dam, today.value, Decimal("1.00"))
    waiting = month_of(db, today, month_id)
    assert waiting.paid_on is None and waiting.needs_dam and waiting.payment.startswith("Pago a menor: falta R$ 2,00")
    difference = issqn.issue_issqn_dam(db, ACTORS["chapada"], "chapada", month_id)
    assert (difference["charge_id"], difference["amount"]) == (dam["charge_id"], Decimal("2.00"))
    with pytest.raises(issqn.Conflict):
        issqn.issue_issqn_dam(db, ACTORS["chapada"], "chapada", month_id)  # its DAM is still to be paid
    pay(db, "chapada", difference, today.value)
    paid = month_of(db, today, month_id)
    assert (paid.situation, paid.dam_number, paid.needs_dam) == ("pago", difference["number"], False)
    issqn.issqn_paid(db, dam["charge_id"])
    assert db["audit"].count_documents({"collection": issqn.ISSQN, "note": {"$regex": "pago$"}}) == 1


def test_the_authorization_page_offers_a_new_dam_of_the_charge_after_a_cancellation(db):
    set_fee(db, "chapada")
    actor, auth, on = ACTORS["chapada"], inspected(db, "chapada"), clock.today()
    dam = fees.issue_fee_dam(db, actor, "chapada", auth, on)
    dams.cancel(db, actor, "chapada", dam["id"], "Endereço do condutor errado")
    at = page("authorizations.py")
    at.selectbox(key="auth_open").set_value(auth).run()
    assert not at.exception
    assert f"O DAM {dam['number']} da taxa foi cancelado" in texts(at, "warning")
    assert at.button(key="auth_issue_dam").label == "Emitir novo DAM da taxa de R$ 180,00"
    at.button(key="auth_issue_dam").click().run()
    [again] = [d for d in db[dams.COLLECTION].find({"charge_id": dam["charge_id"], "status": dams.ISSUED})]
    assert f"DAM nº {again['number']} de R$ 180,00" in texts(at, "info")
