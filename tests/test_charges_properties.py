"""The money invariants of a charge (issue 19), over random sequences of what happens to it: issue, 2ª via,
payments short, exact or beyond (by hand or by return file, of the live DAM or of one it superseded),
cancellation, a new DAM for what is open, days passing.

After every step, for the charge and its DAMs as stored:
- paid = the sum of the charge's payments = the sum of the payments its DAMs received;
- open - credit = principal + late charges - paid, and the status is the standing of those amounts;
- at most one DAM of the charge is still issued, and it is the charge's live DAM;
- the record the charge belongs to is marked paid only when a stored payment settled the charge, and once.
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.dam import charges as charge_rules
from rules.dam.bank_return import ReturnPayment, build_return_file
from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.params import ParameterVersion
from services.dam import bank_import, charges, dams, payments, rebill, reissue
from services.setup import bootstrap
from services.shared import events
from services.shared.errors import ServiceError
from tests.conftest import SECRETARIA_MP
from tests.dams_support import MONDAY

RECORDS = "test_charge_records"
CTM = "Lei Complementar 10/2003 (Código Tributário de Matupá), art. 200"

steps = st.lists(st.one_of(
    st.tuples(st.just("pay"), st.sampled_from(["0.40", "1", "1.25"]), st.booleans()),
    st.tuples(st.just("pay_superseded"), st.sampled_from(["0.40", "1"]), st.just(True)),
    st.tuples(st.just("days"), st.integers(1, 40), st.just(False)),
    st.tuples(st.just("reissue"), st.integers(1, 10), st.just(False)),
    st.tuples(st.just("cancel"), st.just(0), st.just(False)),
    st.tuples(st.just("rebill"), st.integers(0, 10), st.just(False)),
), min_size=1, max_size=8)


class World:
    """One store for all examples; each example is a new charge of its own record."""

    def __init__(self, db, today) -> None:
        self.db, self.today, self.examples, self.files = db, today, 0, 0

    def new_charge(self) -> tuple[str, str]:
        self.examples += 1
        self.today.set(MONDAY)
        key = f"r{self.examples}"
        self.db[RECORDS].insert_one({"key": key, "paid": False, "settled": 0})
        dam = dams.issue(
            self.db, SECRETARIA_MP, "matupa", taxpayer_name="Maria da Silva Souza",
            taxpayer_document="529.982.247-25", taxpayer_address="Rua dos Ipês, 120", revenue_kind="taxa_vistoria",
            description="Taxa de vistoria", legal_basis="Lei Municipal 1.552/2025 (Matupá), art. 15",
            amount=Decimal("225.00"), due=MONDAY + timedelta(days=10),
            pays={"collection": RECORDS, "id": key, "label": f"Registro {key}"})
        return dam["charge_id"], key

    def pay(self, dam: dict, share: str, by_file: bool) -> None:
        amount = (dam["amount"] * Decimal(share)).quantize(Decimal("0.01"))
        if by_file:
            self.files += 1
            content = build_return_file([ReturnPayment(dam["barcode"], self.today.value, amount)],
                                        generated_on=self.today.value, file_sequence=self.files)
            bank_import.import_return_file(self.db, SECRETARIA_MP, "matupa", content.encode("latin-1"))
        else:
            payments.record_payment(self.db, SECRETARIA_MP, "matupa", dam["id"], self.today.value, amount, "Caixa")


def record_handler(db, charge_id: str) -> None:
    """The record's rule, as every module's: act only on a charge the store says is paid in full, once."""
    charge = charges.load(db, charge_id)
    if charge_rules.settled(charge["status"]):
        db[RECORDS].update_one({"key": charge["owner"]["id"], "paid": False},
                               {"$set": {"paid": True}, "$inc": {"settled": 1}})


def stored_dams(db, charge: dict) -> list[dict]:
    return [dams.get(db, SECRETARIA_MP, "matupa", entry["id"]) for entry in charge["dams"]]


def check(db, charge_id: str, key: str) -> None:
    charge = charges.load(db, charge_id)
    documents = stored_dams(db, charge)
    assert charge["paid"] == sum((p["amount"] for p in charge["payments"]), Decimal("0"))
    assert charge["paid"] == sum((d["payment"]["amount"] for d in documents if d.get("payment")), Decimal("0"))
    assert charge["late"] == sum((p["late"] for p in charge["payments"]), Decimal("0"))
    assert charge["open"] - charge["credit"] == charge["principal"] + charge["late"] - charge["paid"]
    state = charge_rules.standing(charge["principal"], charge["late"], charge["paid"])
    assert (charge["status"], charge["open"], charge["credit"]) == (state.status, state.open, state.credit)
    issued = [d for d in documents if d["status"] == dams.ISSUED]
    assert len(issued) <= 1
    assert (charge.get("live_dam") or {}).get("id") == (issued[0]["id"] if issued else None)
    record = db[RECORDS].find_one({"key": key})
    assert record["settled"] <= 1
    assert record["paid"] == (charge["status"] == charge_rules.PAID)
    if charge["status"] == charge_rules.PAID:
        assert charge["paid"] >= charge["principal"] + charge["late"] and charge["paid_on"] is not None


def test_money_invariants_hold_over_any_sequence(db, today, monkeypatch):
    for name, value in ((FINE_DAILY, Decimal("0.33")), (FINE_MAX, Decimal("20")), (INTEREST_MONTHLY, Decimal("1"))):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, CTM))
    monkeypatch.setitem(events._PAID_HANDLERS, RECORDS, [record_handler])
    world = World(db, today)

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(steps)
    def run(sequence):
        charge_id, key = world.new_charge()
        for action, value, flag in sequence:
            charge = charges.load(db, charge_id)
            live = charge.get("live_dam")
            try:
                if action == "pay" and live:
                    world.pay(dams.get(db, SECRETARIA_MP, "matupa", live["id"]), value, flag)
                elif action == "pay_superseded":
                    spent = [d for d in stored_dams(db, charge) if d["status"] == dams.CANCELLED and not d.get("payment")]
                    if spent:
                        world.pay(spent[0], value, True)
                elif action == "days":
                    today.set(today.value + timedelta(days=value))
                elif action == "reissue" and live:
                    reissue.reissue(db, SECRETARIA_MP, "matupa", live["id"], today.value + timedelta(days=value))
                elif action == "cancel" and live:
                    dams.cancel(db, SECRETARIA_MP, "matupa", live["id"], "Emitido com erro")
                elif action == "rebill" and rebill.issuable(charge):
                    rebill.issue_open(db, SECRETARIA_MP, "matupa", charge_id, today.value + timedelta(days=value))
            except ServiceError:
                pass  # refused with a message (e.g. a 2ª via of a DAM not yet overdue): nothing may change
            check(db, charge_id, key)

    run()
