"""The 2ª via of an overdue DAM (issue 11, item 14): principal plus multa and juros de mora of the
municipality's Código Tributário up to the new due date, linked to the original, which is cancelled in
the same unit of work. Both are DAMs of one charge: paying either pays the charge, a second payment is a
credit to refund, never a second settlement (docs/LEITURAS.md, seções 9 e 19)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from rules.dam import charges as charge_rules
from rules.dam.bank_return import ReturnPayment, build_return_file
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.params import ParameterVersion
from services.dam import bank_import, bank_report, charges, dams, payments, reissue
from services.setup import bootstrap
from services.shared import events
from services.shared.errors import ValidationFailed
from tests.conftest import SECRETARIA_MP
from tests.dams_support import last_paid_dam

CTM = "Lei Complementar 10/2003 (Código Tributário de Matupá), art. 200"
DUE = date(2026, 3, 10)          # a Tuesday
LATER = date(2026, 4, 15)        # the day the 2ª via is asked for
NEW_DUE = date(2026, 4, 20)      # a Monday
# 41 days × 0,33 % = 13,53 % of R$ 100,00; 10/03 → 20/04 is a month and a fraction: 2 × 1 %
FINE, INTEREST = Decimal("13.53"), Decimal("2.00")


@pytest.fixture
def rates(db):
    for name, value in ((FINE_DAILY, Decimal("0.33")), (FINE_MAX, Decimal("20")), (INTEREST_MONTHLY, Decimal("1"))):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, CTM))


@pytest.fixture
def told(monkeypatch):
    """The numbers of the DAMs whose payment the record they pay was told of."""
    calls: list[str] = []
    monkeypatch.setitem(events._PAID_HANDLERS, "test_records",
                        [lambda db, charge_id: calls.append(last_paid_dam(db, charge_id))])
    return calls


def issue(db):
    return dams.issue(
        db, SECRETARIA_MP, "matupa", taxpayer_name="João Pereira Lima", taxpayer_document="529.982.247-25",
        taxpayer_address="Avenida Brasil, 45", revenue_kind="taxa_vistoria", description="Taxa de vistoria",
        legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 15", amount=Decimal("100.00"), due=DUE,
        pays={"collection": "test_records", "id": "r1", "label": "Registro r1"},
    )


def get(db, dam):
    return dams.get(db, SECRETARIA_MP, "matupa", dam["id"])


def import_file(db, *payments: tuple[dict, date, str], sequence: int = 1):
    content = build_return_file([ReturnPayment(d["barcode"], on, Decimal(amount)) for d, on, amount in payments],
                                generated_on=max(on for _, on, _ in payments), file_sequence=sequence)
    return bank_import.import_return_file(db, SECRETARIA_MP, "matupa", content.encode("latin-1"))


@pytest.fixture
def second(db, today, rates):
    """An overdue DAM and its 2ª via, asked on LATER for NEW_DUE."""
    original = issue(db)
    today.set(LATER)
    return original, reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], NEW_DUE)


def test_the_2a_via_charges_multa_and_juros_and_cancels_the_original(db, second):
    original, via = second
    assert (via["principal"], via["fine"], via["interest"], via["amount"]) == (
        Decimal("100.00"), FINE, INTEREST, Decimal("115.53"))
    assert via["due_on"] == NEW_DUE and via["issued_on"] == LATER
    assert via["replaces"]["number"] == original["number"] and via["replaces"]["via"] == 2
    assert via["pays"] == original["pays"]
    assert any("Multa de mora: 41 dias" in line for line in via["instructions"])
    stored = get(db, original)
    assert stored["status"] == dams.CANCELLED and stored["replaced_by"]["number"] == via["number"]
    assert "Substituído pela 2ª via" in stored["cancel_reason"]
    assert db["audit"].count_documents({"collection": "dams", "doc_id": original["id"], "action": "cancel"}) == 1
    assert db["audit"].count_documents({"collection": "dams", "doc_id": via["id"], "action": "create"}) == 1


def test_the_quote_shows_the_same_amount_before_anything_is_written(db, today, rates):
    original = issue(db)
    today.set(LATER)
    quote = reissue.quote_reissue(db, SECRETARIA_MP, "matupa", original["id"], NEW_DUE)
    assert (quote.fine, quote.interest, quote.total) == (FINE, INTEREST, Decimal("115.53"))
    assert get(db, original)["status"] == dams.ISSUED and db["dams"].count_documents({}) == 1


@pytest.mark.parametrize("asked_on, allowed", [(DUE, False), (date(2026, 3, 11), True)],
                         ids=["on-the-due-date", "day-after"])
def test_only_an_overdue_dam_has_a_2a_via(db, today, rates, asked_on, allowed):
    original = issue(db)
    today.set(asked_on)
    if allowed:
        assert reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], asked_on)["replaces"]["via"] == 2
    else:
        with pytest.raises(reissue.DamNotReissuable, match="ainda não venceu"):
            reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], asked_on)


def test_a_new_due_date_in_the_past_is_refused_under_its_field(db, today, rates):
    original = issue(db)
    today.set(LATER)
    with pytest.raises(ValidationFailed) as refused:
        reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], date(2026, 4, 14))
    assert set(refused.value.errors) == {"due"}
    assert get(db, original)["status"] == dams.ISSUED


def test_without_the_rates_of_the_codigo_tributario_there_is_no_2a_via(db, today):
    original = issue(db)
    today.set(LATER)
    with pytest.raises(dams.DamParametersMissing, match="Código Tributário"):
        reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], NEW_DUE)
    assert get(db, original)["status"] == dams.ISSUED and db["dams"].count_documents({}) == 1


def test_a_paid_or_cancelled_dam_has_no_2a_via(db, second, today):
    original, _via = second
    with pytest.raises(reissue.DamNotReissuable, match="cancelado"):
        reissue.reissue(db, SECRETARIA_MP, "matupa", original["id"], NEW_DUE)


def test_the_return_file_pays_the_2a_via(db, second, told):
    original, via = second
    report = import_file(db, (via, date(2026, 4, 17), "115.53"))
    assert [line.outcome for line in report.lines] == [bank_report.PAID]
    assert get(db, via)["status"] == dams.PAID and get(db, original)["status"] == dams.CANCELLED
    assert told == [via["number"]]


def charge_of(db, dam):
    return charges.load(db, dam["charge_id"])


def test_both_dams_are_documents_of_one_charge_whose_due_date_does_not_move(db, second):
    original, via = second
    charge = charge_of(db, via)
    assert via["charge_id"] == original["charge_id"]
    assert [d["number"] for d in charge["dams"]] == [original["number"], via["number"]]
    assert charge["live_dam"]["id"] == via["id"] and charge["due_on"] == original["due_on"]
    assert (charge["status"], charge["open"]) == (charge_rules.OPEN, Decimal("100.00"))


def test_the_original_paid_late_after_the_2a_via_pays_the_charge_and_cancels_the_2a_via(db, second, told):
    original, via = second
    report = import_file(db, (original, date(2026, 4, 16), "100.00"))
    (line,) = report.lines
    assert line.outcome == bank_report.PAID
    assert set(line.flags) == {payments.FLAG_LATE, payments.FLAG_REPLACED}
    assert get(db, original)["status"] == dams.PAID
    cancelled = get(db, via)
    assert cancelled["status"] == dams.CANCELLED and "quitado pelo DAM" in cancelled["cancel_reason"]
    charge = charge_of(db, original)
    assert (charge["status"], charge["paid"], charge["open"], charge["paid_on"]) == (
        charge_rules.PAID, Decimal("100.00"), Decimal("0"), date(2026, 4, 16))
    assert told == [original["number"]]
    # the taxpayer then pays the 2ª via too: the DAM stays cancelled, the charge keeps it as a credit
    again = import_file(db, (via, date(2026, 4, 17), "115.53"), sequence=2)
    assert [(x.outcome, payments.FLAG_CANCELLED in x.flags) for x in again.lines] == [(bank_report.CANCELLED, True)]
    assert payments.FLAG_CREDIT in again.lines[0].flags
    charge = charge_of(db, original)
    assert (charge["status"], charge["paid"], charge["credit"], charge["paid_on"]) == (
        charge_rules.PAID, Decimal("215.53"), Decimal("115.53"), date(2026, 4, 16))
    assert db["dams"].count_documents({"status": dams.PAID}) == 1


def test_the_original_paid_after_the_2a_via_was_paid_is_a_credit_to_refund(db, second, told):
    original, via = second
    import_file(db, (via, date(2026, 4, 17), "115.53"))
    settled = charge_of(db, via)
    assert (settled["status"], settled["late"], settled["paid"]) == (charge_rules.PAID, FINE + INTEREST,
                                                                     Decimal("115.53"))
    report = import_file(db, (original, date(2026, 4, 18), "100.00"), sequence=2)
    assert [line.outcome for line in report.lines] == [bank_report.CANCELLED]
    assert {payments.FLAG_CANCELLED, payments.FLAG_CREDIT} <= set(report.lines[0].flags)
    assert get(db, original)["status"] == dams.CANCELLED and get(db, via)["status"] == dams.PAID
    charge = charge_of(db, via)
    assert (charge["paid_on"], charge["credit"], charge["open"]) == (date(2026, 4, 17), Decimal("100.00"), Decimal("0"))


def test_both_in_the_same_file_pay_the_charge_once_and_keep_the_other_as_a_credit(db, second, told):
    original, via = second
    report = import_file(db, (original, date(2026, 4, 16), "100.00"), (via, date(2026, 4, 17), "115.53"))
    assert [line.outcome for line in report.lines] == [bank_report.PAID, bank_report.CANCELLED]
    assert db["dams"].count_documents({"status": dams.PAID}) == 1
    charge = charge_of(db, original)
    assert [p["dam_number"] for p in charge["payments"]] == [original["number"], via["number"]]
    assert (charge["paid"], charge["credit"]) == (Decimal("215.53"), Decimal("115.53"))


def test_a_3a_via_counts_from_the_first_due_date(db, second, today):
    _original, via = second
    today.set(date(2026, 5, 5))
    third = reissue.reissue(db, SECRETARIA_MP, "matupa", via["id"], date(2026, 5, 11))  # a Monday
    # 62 days × 0,33 % = 20,46 %, capped at 20 %; 10/03 → 11/05: 3 months (2 and a fraction)
    assert (third["principal"], third["fine"], third["interest"]) == (Decimal("100.00"), Decimal("20.00"),
                                                                     Decimal("3.00"))
    assert third["replaces"]["via"] == 3 and third["chain_root"] == via["chain_root"]
    assert get(db, via)["status"] == dams.CANCELLED


def test_the_2a_via_of_an_authorization_fee_issues_the_authorization_once(db, today, rates):
    from services.ridehailing import authorizations, fees
    from tests.ridehailing_data import inspected, set_fee

    set_fee(db, "matupa")
    auth = inspected(db, "matupa")
    fee = fees.issue_fee_dam(db, SECRETARIA_MP, "matupa", auth, today.value)
    today.set(fee["due_on"] + timedelta(days=10))
    via = reissue.reissue(db, SECRETARIA_MP, "matupa", fee["id"], today.value + timedelta(days=3))
    assert via["pays"] == fee["pays"] and via["amount"] > fee["amount"]
    import_file(db, (via, today.value, str(via["amount"])))
    doc = authorizations.get_authorization(db, SECRETARIA_MP, "matupa", auth)
    assert doc.get("number") and [r["number"] for r in doc["fee_dam"]["received"]] == [via["number"]]
    import_file(db, (fee, today.value, str(fee["amount"])), sequence=2)  # the old slip paid too: refund
    again = authorizations.get_authorization(db, SECRETARIA_MP, "matupa", auth)
    assert again["number"] == doc["number"] and len(again["fee_dam"]["received"]) == 1
