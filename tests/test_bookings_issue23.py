"""Bookings of Nova Lacerda, issue 23 items 6, 7 and 10 (Decreto 017/2026): what the services refused
to carry or let through — inputs outside the request's own dates and places, a municipality without
the module, and cancelling, rescheduling and the credit returned."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from bson import Decimal128, ObjectId

from services.dam import charges
from services.machinery import (
    booking_requests,
    execution,
    ledger,
    localities,
    payment,
    protocol,
    quotes,
    schedule,
)
from services.machinery.booking_requests import ModuleOff
from services.machinery.execution import ExecutionInput
from services.shared.auth import Actor
from services.shared.errors import Conflict, ServiceError, ValidationFailed
from tests import test_bookings
from tests.test_bookings import CLERK, HOURS6, MONDAY, NL, TI_NL, form, pay, ready, upfront

nl = test_bookings.nl  # the Nova Lacerda fixture: zones, machines, operators and requesters

CHAPADA = "chapada"
EVERYWHERE = Actor("secretaria.geral", "Servidora de todos", "secretaria", ("*",))


# ---- item 10: the small validations ----

@pytest.mark.parametrize("desired, refused", [
    pytest.param(date(2026, 3, 1), True, id="art. 2 caput: a start 36 days before the request is refused"),
    pytest.param(date(2026, 4, 5), True, id="art. 2 caput: the day before the request is refused"),
    pytest.param(MONDAY, False, id="art. 2 caput: the request's own day only warns"),
])
def test_a_desired_start_before_the_request_is_refused_under_its_field(db, nl, desired, refused):
    values = form(nl["farmer"], HOURS6, desired_start=desired)
    if not refused:
        assert protocol.create_request(db, CLERK, NL, values)
        return
    with pytest.raises(ValidationFailed) as error:
        protocol.check(db, CLERK, NL, values)
    assert set(error.value.errors) == {"desired_start"} and "06/04/2026" in error.value.errors["desired_start"]
    assert db["booking_requests"].count_documents({}) == 0


@pytest.mark.parametrize("on, refused", [
    pytest.param(date(2030, 1, 7), True, id="a quote dated 2030 is refused"),
    pytest.param(date(2026, 4, 7), True, id="a quote dated tomorrow is refused"),
    pytest.param(date(2026, 4, 3), True, id="a quote before the request's date is refused"),
    pytest.param(MONDAY, False, id="a quote on the request's day, today, is made"),
])
def test_a_quote_is_dated_between_the_request_and_today(db, nl, on, refused):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    if not refused:
        assert quotes.make_quote(db, CLERK, NL, rid, on)["quote"]["on"] == on
        return
    with pytest.raises(ValidationFailed) as error:
        quotes.make_quote(db, CLERK, NL, rid, on)
    assert "06/04/2026" in error.value.errors["on"]
    assert booking_requests.get_request(db, CLERK, NL, rid)["quote"] is None


def test_a_requester_whose_zone_left_the_registered_list_is_refused_at_the_protocol(db, nl, today):
    """Art. 3 §1: a new list without Zona Norte leaves the farmer's place unregistered; the protocol
    asks to update the requester instead of queueing a request in a zone the schedule does not know."""
    localities.set_localities(db, TI_NL, NL, MONDAY, [
        {"zone": "Zona Urbana", "locality": "Centro", "area": "urbana"}], "Portaria SEMOBI 02/2026")
    with pytest.raises(ValidationFailed) as error:
        protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    assert "Zona Norte, Comunidade Pontal" in error.value.errors["requester_id"]
    assert protocol.create_request(db, CLERK, NL, form(nl["association"], HOURS6))  # Centro is registered


def test_the_bookings_services_refuse_a_municipality_without_the_module(db, nl):
    """Chapada runs ride-hailing only: a clerk who may act there cannot protocol, list or schedule bookings."""
    with pytest.raises(ModuleOff) as error:
        protocol.create_request(db, EVERYWHERE, CHAPADA, form(nl["farmer"], HOURS6))
    assert error.value.message == booking_requests.MODULE_OFF
    for call in (lambda: booking_requests.list_requests(db, EVERYWHERE, CHAPADA),
                 lambda: schedule.queue_page(db, EVERYWHERE, CHAPADA, MONDAY),
                 lambda: schedule.free_assets(db, EVERYWHERE, CHAPADA, MONDAY),
                 lambda: schedule.week_schedule(db, EVERYWHERE, CHAPADA, MONDAY)):
        with pytest.raises(ModuleOff):
            call()
    assert booking_requests.list_requests(db, EVERYWHERE, NL) == []


# ---- item 6: bookings over several days, the week board per machine ----

FRIDAY = date(2026, 4, 10)
NEXT_MONDAY = date(2026, 4, 13)


def test_a_forty_hour_job_books_a_period_of_working_days(db, nl):
    """A backhoe for 40 h: Monday to the next Monday is 5 working days (the weekend is not booked)."""
    rid = ready(db, nl, nl["farmer"], (protocol.ServiceAsked("machine_hours", item="01", hours=Decimal(40)),))
    doc = schedule.book(db, CLERK, NL, rid, date(2026, 4, 7), [(nl["backhoe"], nl["joao"])], until=NEXT_MONDAY)
    assert doc["status"] == "agendado"
    assert doc["schedule"]["days"] == [date(2026, 4, 7), date(2026, 4, 8), date(2026, 4, 9), FRIDAY, NEXT_MONDAY]
    assert (doc["schedule"]["day"], doc["schedule"]["until"]) == (date(2026, 4, 7), NEXT_MONDAY)
    assert db["machinery_bookings"].count_documents({"request_id": rid}) == 5
    assert nl["backhoe"] not in [a["id"] for a in schedule.free_assets(db, CLERK, NL, date(2026, 4, 9)).rows]
    assert nl["backhoe"] in [a["id"] for a in schedule.free_assets(db, CLERK, NL, date(2026, 4, 11)).rows]


def test_a_scheduled_job_gets_a_second_day(db, nl):
    """Issue 23 item 6: the job needs one more day; booking it again adds the day, status kept."""
    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    doc = schedule.book(db, CLERK, NL, rid, FRIDAY, [(nl["backhoe"], nl["joao"])])
    assert doc["status"] == "agendado" and doc["schedule"]["days"] == [MONDAY, FRIDAY]
    assert doc["schedule"]["bookings"] == [{"asset_id": nl["backhoe"], "asset": "PAT-0101",
                                            "operator_id": nl["joao"], "operator": "João Operador"}]


def test_periods_do_not_overlap_and_a_refused_period_books_nothing(db, nl):
    first = ready(db, nl, nl["farmer"], (HOURS6,))
    second = ready(db, nl, nl["family"], (HOURS6,))
    schedule.book(db, CLERK, NL, first, date(2026, 4, 8), [(nl["backhoe"], nl["joao"])], until=FRIDAY)
    with pytest.raises(Conflict) as refused:  # the backhoe is taken from Wednesday to Friday
        schedule.book(db, CLERK, NL, second, MONDAY, [(nl["backhoe"], nl["joao"])], until=date(2026, 4, 8))
    assert "08/04/2026" in refused.value.message
    assert db["machinery_bookings"].count_documents({"request_id": second}) == 0
    assert booking_requests.get_request(db, CLERK, NL, second)["status"] == "a_agendar"


@pytest.mark.parametrize("until, field", [
    pytest.param(date(2026, 4, 5), "until", id="a period ending before it starts is refused"),
    pytest.param(date(2026, 5, 7), "until", id="a period over 31 days is refused"),
])
def test_a_period_out_of_shape_is_refused_under_its_field(db, nl, until, field):
    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    with pytest.raises(ValidationFailed) as refused:
        schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])], until=until)
    assert set(refused.value.errors) == {field}


def test_the_week_board_shows_each_machines_free_and_taken_days(db, nl):
    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    schedule.book(db, CLERK, NL, rid, date(2026, 4, 7), [(nl["backhoe"], nl["joao"])], until=date(2026, 4, 8))
    board = schedule.week_board(db, CLERK, NL, MONDAY)
    assert board.days[0] == MONDAY and len(board.days) == 7
    backhoe, truck = board.machines
    assert backhoe.identifier == "PAT-0101" and truck.identifier == "QBA1D23"
    assert backhoe.taken == ("", "0001/2026 · João Operador", "0001/2026 · João Operador", "", "", "", "")
    assert truck.taken == ("",) * 7


# ---- item 7: cancel and reschedule ----

def test_a_reschedule_moves_the_days_with_the_same_machines_and_keeps_the_reason(db, nl):
    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])], until=date(2026, 4, 7))
    with pytest.raises(ValidationFailed):
        schedule.reschedule(db, CLERK, NL, rid, FRIDAY, " ")
    doc = schedule.reschedule(db, CLERK, NL, rid, FRIDAY, "Chuva: estrada intransitável", until=NEXT_MONDAY)
    assert doc["status"] == "agendado" and doc["schedule"]["days"] == [FRIDAY, NEXT_MONDAY]
    assert sorted(r["day"] for r in db["machinery_bookings"].find({"request_id": rid})) == ["2026-04-10", "2026-04-13"]
    entry = db["audit"].find_one({"action": "reschedule", "doc_id": rid})
    assert entry and "Chuva" in entry.get("note", "")


def test_a_reschedule_onto_a_taken_day_moves_nothing(db, nl):
    first, second = ready(db, nl, nl["farmer"], (HOURS6,)), ready(db, nl, nl["family"], (HOURS6,))
    schedule.book(db, CLERK, NL, first, MONDAY, [(nl["backhoe"], nl["joao"])])
    schedule.book(db, CLERK, NL, second, FRIDAY, [(nl["backhoe"], nl["joao"])])
    with pytest.raises(Conflict):
        schedule.reschedule(db, CLERK, NL, first, FRIDAY, "Pedido do solicitante")
    assert [r["day"] for r in db["machinery_bookings"].find({"request_id": first})] == ["2026-04-06"]


# ---- item 7: the credit returned, through the charge of the advance ----

def credit_of_300(db, nl, today):
    """The farmer paid the 50% advance of 6 h (R$ 900,00) and the backhoe worked 2 h (R$ 600,00)."""
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    pay(db, upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))[0]["dam_id"])
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"],
                                                               worked_hours=(("01", Decimal(2)),)))
    advance = next(i for i in done["payment"]["instalments"] if i["key"] == "adiantamento")
    return rid, advance["charge_id"]


def test_the_settlement_leaves_the_credit_on_the_advances_charge(db, nl, today):
    """Art. 8 §2: the advance's charge owes the executed R$ 600,00; the R$ 300,00 paid beyond is its credit."""
    rid, charge_id = credit_of_300(db, nl, today)
    charge = charges.load(db, charge_id)
    assert (charge["status"], charge["paid"], charge["abated"], charge["credit"]) == (
        "pago", Decimal("900.00"), Decimal("300.00"), Decimal("300.00"))
    assert "crédito de R$ 300,00 a restituir" in next(
        r.situation for r in ledger.request_rows(db, NL, booking_requests.get_request(db, CLERK, NL, rid)))


def test_the_credit_returned_is_a_refund_of_the_advances_charge(db, nl, today):
    rid, charge_id = credit_of_300(db, nl, today)
    with pytest.raises(ValidationFailed) as refused:
        execution.record_credit_returned(db, CLERK, NL, rid, MONDAY, " ")
    assert set(refused.value.errors) == {"note"}
    with pytest.raises(ValidationFailed) as refused:
        execution.record_credit_returned(db, CLERK, NL, rid, date(2026, 4, 3), "Ordem de pagamento 12/2026")
    assert set(refused.value.errors) == {"on"}
    doc = execution.record_credit_returned(db, CLERK, NL, rid, MONDAY, "Ordem de pagamento 12/2026")
    assert doc["settlement"]["credit_returned_on"] == MONDAY and doc["settlement_open"] is False
    charge = charges.load(db, charge_id)
    assert (charge["credit"], charge["paid"], charge["status"]) == (Decimal("0.00"), Decimal("600.00"), "pago")
    assert [(r["amount"], r["refunded_on"], r["note"]) for r in charge["refunds"]] == [
        (Decimal("300.00"), MONDAY, "Ordem de pagamento 12/2026")]
    assert db["audit"].find_one({"action": "refund", "collection": "charges", "doc_id": charge_id})
    with pytest.raises(ServiceError):  # once only
        execution.record_credit_returned(db, CLERK, NL, rid, MONDAY, "Ordem de pagamento 12/2026")


def test_a_credit_settled_before_the_charge_knew_it_is_refunded_all_the_same(db, nl, today):
    """A request completed by an earlier version left the advance's charge with no credit: the refund
    first abates the charge by the settlement's credit, so the money loop ends where the settlement does."""
    rid, charge_id = credit_of_300(db, nl, today)
    db["charges"].update_one({"_id": ObjectId(charge_id)}, {"$set": {"credit": Decimal128("0.00")},
                                                            "$unset": {"abated": "", "abatements": ""}})
    execution.record_credit_returned(db, CLERK, NL, rid, MONDAY, "Restituição 5/2026")
    charge = charges.load(db, charge_id)
    assert (charge["abated"], charge["credit"], charge["paid"]) == (Decimal("300.00"), Decimal("0.00"),
                                                                    Decimal("600.00"))


def test_the_service_order_and_the_request_say_the_whole_period(db, nl):
    import io

    from pypdf import PdfReader

    from services.machinery import documents

    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    doc = schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])], until=FRIDAY)
    assert booking_requests.describe_period(doc["schedule"]) == "06/04/2026 a 10/04/2026 (5 dias)"
    order = " ".join(" ".join(p.extract_text().split())
                     for p in PdfReader(io.BytesIO(documents.service_order_pdf(db, CLERK, NL, rid))).pages)
    assert "06/04/2026 a 10/04/2026 (5 dias)" in order
