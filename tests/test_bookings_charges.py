"""Bookings of Nova Lacerda on the charge core (issue 19, defects 1, 2, 3, 4 and 7): a booking asks its
charge (débito) whether it is paid — a paid 2ª via or a new DAM settles it, a short payment does not,
a cancelled DAM waits for a new one, the art. 8 §4 block reads overdue charges, and the documents
state what the charges say."""
from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader

from rules.dam.late import FINE_DAILY, FINE_MAX, INTEREST_MONTHLY
from rules.params import ParameterVersion
from services.dam import dams, payments, reissue
from services.machinery import (
    booking_requests,
    documents,
    execution,
    payment,
    pending,
    protocol,
    quotes,
    schedule,
)
from services.machinery.execution import ExecutionInput
from services.machinery.protocol import ServiceAsked
from services.setup import bootstrap
from services.shared.errors import ServiceError
from tests.test_bookings import BPC, CLERK, HOURS6, LOADS5, MONDAY, NL, form, nl, upfront  # noqa: F401

D = Decimal
DUE = date(2026, 4, 13)  # MONDAY + 5 days = Saturday 11/04 → Monday 13/04
LATE = date(2026, 4, 20)  # a week after the due date
CTM = "Código Tributário Municipal de Nova Lacerda (teste), multa e juros de mora"


@pytest.fixture
def rates(db):
    for name, value in ((FINE_DAILY, D("0.33")), (FINE_MAX, D("20")), (INTEREST_MONTHLY, D("1"))):
        bootstrap.ensure_parameter(db, NL, ParameterVersion(name, date(2025, 1, 1), value, CTM))


def pay(db, dam_id, amount=None, on=None):
    dam = dams.get(db, CLERK, NL, dam_id)
    return payments.record_payment(db, CLERK, NL, dam_id, on or dam["issued_on"],
                                   dam["amount"] if amount is None else amount, "Banco do Brasil")


def request(db, requester, *services, **changes):
    rid = protocol.create_request(db, CLERK, NL, form(requester, *services, **changes))
    quotes.make_quote(db, CLERK, NL, rid, changes.get("requested_on", MONDAY))
    return rid, payment.issue_payment(db, CLERK, NL, rid, changes.get("requested_on", MONDAY))


def get(db, rid):
    return booking_requests.get_request(db, CLERK, NL, rid)


def titles(db, rid, on):
    return [(p.title, p.detail) for p in pending.pending(db, CLERK, NL, on) if p.record_id == rid]


def pdf_text(data: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(data)).pages)


SEVEN = D(7)


def completed(db, nl, today, quoted=HOURS6, worked=SEVEN):
    """A farmer's machine hours: advance paid, worked ``worked`` hours on 08/04."""
    rid, doc = request(db, nl["farmer"], quoted)
    pay(db, upfront(doc)[0]["dam_id"])
    day = date(2026, 4, 8)
    schedule.book(db, CLERK, NL, rid, day, [(nl["backhoe"], nl["joao"])])
    today.set(day)
    execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["joao"], worked_hours=(("01", worked),)))
    return rid


# ---- defect 1: a paid 2ª via settles the booking ----

def test_defect_1_a_paid_2a_via_of_the_full_payment_sends_the_request_to_the_schedule(db, nl, today, rates):
    rid, doc = request(db, nl["farmer"], LOADS5)
    [full] = upfront(doc)
    today.set(LATE)
    via = reissue.reissue(db, CLERK, NL, full["dam_id"], date(2026, 4, 24))
    assert via["amount"] > D("750.00")  # 5 loads × R$ 150,00 (Anexo I, item 12) plus multa and juros
    pay(db, via["id"])
    doc = get(db, rid)
    assert doc["status"] == "a_agendar"
    [full] = upfront(doc)
    assert (full["paid_on"], full["dam_number"]) == (LATE, via["number"])
    assert titles(db, rid, LATE) == [("A agendar", f"Pedido {doc['protocol']} — Antônio Sitiante")]


def test_defect_1_a_paid_2a_via_of_the_balance_closes_the_settlement(db, nl, today, rates):
    rid = completed(db, nl, today)
    settlement = get(db, rid)["settlement"]
    assert (settlement["amount_due"], settlement["due"]) == (D("1200.00"), date(2026, 4, 23))
    today.set(date(2026, 4, 28))
    via = reissue.reissue(db, CLERK, NL, settlement["dam_id"], date(2026, 4, 30))
    pay(db, via["id"])
    doc = get(db, rid)
    assert doc["settlement"]["paid_on"] == date(2026, 4, 28) and doc["settlement_open"] is False
    assert titles(db, rid, date(2026, 4, 28)) == []


# ---- defect 2: an underpaid DAM does not free the schedule ----

def test_defect_2_a_short_payment_keeps_the_request_waiting_until_the_difference_is_paid(db, nl, today):
    rid, doc = request(db, nl["family"], LOADS5, claims=(BPC,))
    [full] = upfront(doc)
    assert full["amount"] == D("225.00")  # 5 loads × R$ 150,00 less 70% (Anexo II, BPC)
    pay(db, full["dam_id"], D("100.00"))
    doc = get(db, rid)
    assert doc["status"] == "aguardando_pagamento" and upfront(doc)[0]["paid_on"] is None
    [(title, detail)] = titles(db, rid, MONDAY)
    assert title == "Pago a menor" and "falta R$ 125,00" in detail
    assert schedule.queue_page(db, CLERK, NL, MONDAY).entries == ()
    charge_id = upfront(doc)[0]["charge_id"]
    doc = payment.issue_new_dam(db, CLERK, NL, rid, charge_id, date(2026, 4, 10))
    difference = dams.get(db, CLERK, NL, upfront(doc)[0]["dam_id"])
    assert difference["amount"] == D("125.00") and difference["charge_id"] == charge_id
    pay(db, difference["id"])
    assert get(db, rid)["status"] == "a_agendar"


# ---- defect 3: a cancelled DAM reopens its charge; the request keeps its place ----

def test_defect_3_a_cancelled_dam_gets_a_new_dam_and_the_request_keeps_its_place(db, nl, today):
    rid, doc = request(db, nl["family"], LOADS5, claims=(BPC,))
    _later, later_doc = request(db, nl["association"], LOADS5)
    [full] = upfront(doc)
    dams.cancel(db, CLERK, NL, full["dam_id"], "Endereço do contribuinte errado")
    [(title, detail)] = titles(db, rid, MONDAY)
    assert title == "DAM cancelado — emitir novo DAM" and full["dam_number"] in detail
    with pytest.raises(booking_requests.WrongStep):
        payment.issue_payment(db, CLERK, NL, rid, MONDAY)  # the plan stands; its charge needs a new DAM
    doc = payment.issue_new_dam(db, CLERK, NL, rid, full["charge_id"], date(2026, 4, 10))
    [again] = upfront(doc)
    assert again["dam_id"] != full["dam_id"] and again["charge_id"] == full["charge_id"]
    assert dams.get(db, CLERK, NL, again["dam_id"])["amount"] == D("225.00")
    with pytest.raises(ServiceError, match="já tem o DAM"):  # one live DAM per charge (rebill.NothingToIssue)
        payment.issue_new_dam(db, CLERK, NL, rid, full["charge_id"], date(2026, 4, 10))
    assert titles(db, rid, MONDAY)[0][0] == "Aguardando pagamento"
    pay(db, again["dam_id"])
    pay(db, upfront(later_doc)[0]["dam_id"])
    queue = schedule.queue_page(db, CLERK, NL, MONDAY).entries
    assert [(e.request_id, e.protocol) for e in queue if e.request_id == rid] == [(rid, "0001/2026")]
    assert db["booking_requests"].count_documents({}) == 2  # no new protocol was needed


def test_defect_3_a_dam_issued_for_the_charge_elsewhere_settles_the_request_too(db, nl, today):
    """The treasury may issue the charge's new DAM from the DAM room (rebill.issue_open): the booking
    is settled by its charge, whichever DAM paid it."""
    from services.dam import rebill  # the charge core (issue 19)

    rid, doc = request(db, nl["farmer"], LOADS5)
    [full] = upfront(doc)
    dams.cancel(db, CLERK, NL, full["dam_id"], "Valor digitado errado")
    new = rebill.issue_open(db, CLERK, NL, full["charge_id"], date(2026, 4, 10))
    pay(db, new["id"])
    doc = get(db, rid)
    assert doc["status"] == "a_agendar" and upfront(doc)[0]["dam_number"] == new["number"]


# ---- defect 4: the art. 8 §4 block reads overdue charges; a 2ª via does not lift it ----

def test_defect_4_a_2a_via_does_not_lift_the_block_and_paying_it_does(db, nl, today, rates):
    _rid, doc = request(db, nl["farmer"], LOADS5)
    [full] = upfront(doc)
    today.set(LATE)
    again = form(nl["farmer"], HOURS6, requested_on=LATE)
    with pytest.raises(protocol.RequestsSuspended):
        protocol.create_request(db, CLERK, NL, again)
    via = reissue.reissue(db, CLERK, NL, full["dam_id"], date(2026, 4, 24))
    with pytest.raises(protocol.RequestsSuspended) as blocked:  # nothing was paid: "até a regularização"
        protocol.create_request(db, CLERK, NL, again)
    assert via["number"] in blocked.value.message and "art. 8, §4" in blocked.value.message
    assert protocol.requester_block(db, CLERK, NL, "111.444.777-35", LATE)
    pay(db, via["id"])
    assert protocol.requester_block(db, CLERK, NL, "111.444.777-35", LATE) == []
    assert protocol.create_request(db, CLERK, NL, again)


def test_defect_4_a_short_payment_keeps_the_block(db, nl, today):
    _rid, doc = request(db, nl["farmer"], LOADS5)
    pay(db, upfront(doc)[0]["dam_id"], D("700.00"))
    today.set(LATE)
    with pytest.raises(protocol.RequestsSuspended) as blocked:
        protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, requested_on=LATE))
    assert "R$ 50,00" in blocked.value.message  # what is still owed of R$ 750,00


# ---- defect 7: the documents state what the charges say ----

def test_defect_7_seven_hours_on_a_six_hour_quote_leave_1200_open(db, nl, today):
    rid = completed(db, nl, today, worked=D(7))
    statement = pdf_text(documents.statement_pdf(db, CLERK, NL, rid))
    # 6 h × R$ 300,00 (Anexo I, item 01): advance 50% = R$ 900,00; 7 h = R$ 2.100,00, balance R$ 1.200,00
    assert "em aberto R$ 1.200,00" in statement and "em aberto R$ 2.100,00" not in statement
    assert "Cobrado R$ 2.100,00 · pago R$ 900,00 · em aberto R$ 1.200,00" in statement
    assert "saldo estimado" not in statement.lower()
    assert "23/04/2026" in statement  # art. 8 §2: 15 days after completion on 08/04


def test_defect_7_one_hour_worked_leaves_nothing_open_and_600_owed_back(db, nl, today):
    rid = completed(db, nl, today, worked=D(1))
    statement = pdf_text(documents.statement_pdf(db, CLERK, NL, rid))
    assert "em aberto R$ 0,00 · a devolver ao interessado R$ 600,00" in statement
    assert "crédito de R$ 600,00 a devolver ao interessado" in statement
    execution.record_credit_returned(db, CLERK, NL, rid, date(2026, 4, 8), "Restituição 7/2026")
    statement = pdf_text(documents.statement_pdf(db, CLERK, NL, rid))
    assert "a devolver ao interessado R$ 0,00" in statement and "devolvido em 08/04/2026" in statement


def test_defect_7_the_receipt_has_no_estimate_beside_the_real_balance(db, nl, today):
    rid = completed(db, nl, today, quoted=ServiceAsked("machine_hours", item="01", hours=D(4)), worked=D("4.5"))
    receipt = pdf_text(documents.receipt_pdf(db, CLERK, NL, rid))
    # 4 h: advance R$ 600,00; 4,5 h worked = R$ 1.350,00, balance R$ 750,00
    assert "saldo estimado" not in receipt.lower()
    assert "em aberto R$ 750,00" in receipt and "o total de R$ 600,00" in receipt


def test_defect_7_each_dam_describes_only_what_it_charges(db, nl, today):
    _rid, doc = request(db, nl["farmer"], LOADS5, HOURS6)
    by_key = {i["key"]: dams.get(db, CLERK, NL, i["dam_id"]) for i in upfront(doc)}
    full, advance = by_key["integral"]["description"], by_key["adiantamento"]["description"]
    assert full.startswith("Pagamento integral antecipado — pedido de serviço 0001/2026")
    assert "item 12" in full and "Retroescavadeira" not in full
    assert advance.startswith("Adiantamento de 50% das horas-máquina estimadas — pedido de serviço 0001/2026")
    assert "Retroescavadeira: 6 h estimadas, R$ 1.800,00" in advance and "carga" not in advance.lower()
    assert by_key["adiantamento"]["amount"] == D("900.00")


def test_defect_7_the_balance_dam_describes_the_hours_worked(db, nl, today):
    rid = completed(db, nl, today, worked=D(7))
    balance = dams.get(db, CLERK, NL, get(db, rid)["settlement"]["dam_id"])
    assert balance["description"] == ("Saldo das horas-máquina executadas — pedido de serviço 0001/2026: item 01 "
                                      "Retroescavadeira: 7 h executadas; executado R$ 2.100,00 menos adiantamento "
                                      "R$ 900,00 = R$ 1.200,00")


def test_defect_7_the_service_order_shows_the_amount_and_the_payment(db, nl, today):
    rid, doc = request(db, nl["farmer"], LOADS5)
    pay(db, upfront(doc)[0]["dam_id"], D("800.00"))  # R$ 50,00 beyond the R$ 750,00 charged
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["truck"], nl["pedro"])])
    order = pdf_text(documents.service_order_pdf(db, CLERK, NL, rid))
    assert "Valor do orçamento: R$ 750,00" in order
    assert "Pagamento antecipado confirmado: serviço liberado" in order
    assert "crédito de R$ 50,00 a restituir" in order
    statement = pdf_text(documents.statement_pdf(db, CLERK, NL, rid))
    assert "pago R$ 800,00 · em aberto R$ 0,00 · a devolver ao interessado R$ 50,00" in statement


def test_the_charge_keeps_its_due_date_and_the_handler_reads_only_the_store(db, nl, today):
    from services.dam import charges  # the charge core (issue 19)

    rid, doc = request(db, nl["farmer"], LOADS5)
    [full] = upfront(doc)
    assert full["charge_id"] == dams.get(db, CLERK, NL, full["dam_id"])["charge_id"]
    charge = charges.load(db, full["charge_id"])
    assert (charge["owner"]["collection"], charge["owner"]["id"], charge["due_on"]) == ("booking_requests", rid, DUE)
    payment.dam_paid(db, full["charge_id"])  # nothing paid: nothing changes
    payment.dam_paid(db, "not-a-charge")
    assert get(db, rid)["status"] == "aguardando_pagamento"


def test_a_request_from_before_charges_is_linked_to_its_charge_by_its_dam(db, nl, today):
    """A record written before charges names only its DAM: once the DAM's charge exists, the handler
    (or the move's reconcile) links the part by that DAM and settles it from the charge."""
    rid, doc = request(db, nl["family"], LOADS5, claims=(BPC,))
    [full] = upfront(doc)
    db["booking_requests"].update_one({}, {"$set": {"payment.instalments.0.charge_id": None}})
    assert payment.reconcile_all(db, NL) == 1 and upfront(get(db, rid))[0]["charge_id"] == full["charge_id"]
    assert payment.reconcile_all(db, NL) == 0
    db["booking_requests"].update_one({}, {"$set": {"payment.instalments.0.charge_id": None}})
    pay(db, full["dam_id"])
    doc = get(db, rid)
    assert doc["status"] == "a_agendar" and upfront(doc)[0]["charge_id"] == full["charge_id"]
