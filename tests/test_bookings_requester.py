"""Issue 38 item 3: a resident or entity of Nova Lacerda asks for a service on the portal through the clerk's
own services (Decreto 017/2026 art. 2 §4, 3, 7, 8): the form with its declarations and the discount claim,
the register entry, the quote, the DAM among the person's DAMs, the place in the zone's queue, the
statement; another person's protocol is the same NotFound as an unknown one; what blocks a new request."""
from __future__ import annotations

from datetime import date, timedelta

import pytest

from services.dam import dams, own_dams
from services.machinery import (
    attachments,
    booking_requests,
    documents,
    payment,
    protocol,
    quotes,
    requesters,
    schedule,
)
from services.machinery.protocol import RequestsSuspended
from services.shared import entities
from services.shared.errors import NotFound, PermissionDenied, ValidationFailed
from services.shared.regulated_accounts import Person
from tests.test_bookings import BPC, CLERK, LOADS5, MONDAY, NL, D, form, nl, pay, upfront  # noqa: F401

MARIA = Person(NL, "requerente", "52998224725", "52998224725", "Maria BPC").actor
ANTONIO = Person(NL, "requerente", "11144477735", "11144477735", "Antônio Sitiante").actor
NEWCOMER = Person(NL, "requerente", "98765432100", "98765432100", "Joana Nova").actor
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def asked(db, nl, actor=MARIA, who="family", **changes) -> str:
    return protocol.create_request(db, actor, NL, form(nl[who], LOADS5, claims=(BPC,), **changes))


def test_the_resident_files_the_form_and_it_lands_in_the_clerks_list(db, nl, today):
    rid = asked(db, nl)
    attachments.add_attachment(db, MARIA, NL, rid, PNG, "bpc.png", "Comprovante do BPC")
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    assert doc["status"] == "aguardando_orcamento" and doc["created_by"] == "requerente:52998224725"
    assert doc["declarations"] == {"payment_terms": True, "liability": True}
    assert doc["discount_claims"][0]["criterion"] == "BPC" and doc["attachments"][0]["name"] == "bpc.png"
    assert [r["protocol"] for r in booking_requests.list_requests(db, CLERK, NL)] == [doc["protocol"]]
    assert requesters.request_id_of(db, MARIA, NL, doc["protocol"]) == rid


def test_the_same_validation_answers_field_by_field(db, nl, today):
    with pytest.raises(ValidationFailed) as refused:
        protocol.create_request(db, MARIA, NL, form(nl["family"], requested_on=MONDAY + timedelta(days=1)))
    assert set(refused.value.errors) == {"services", "requested_on"}
    with pytest.raises(ValidationFailed) as refused:
        protocol.create_request(db, MARIA, NL, form(nl["family"], LOADS5, desired_start=MONDAY - timedelta(days=1)))
    assert set(refused.value.errors) == {"desired_start"}
    findings = protocol.check(db, MARIA, NL, form(nl["family"], LOADS5, agrees_payment_terms=False))
    assert [f.reference for f in findings if not f.ok and f.level.value == "error"] == [
        "Decreto 017/2026 (Nova Lacerda), art. 2, §4, V"]
    # with no clerk to complete it, the person's form of art. 2 §4 is refused item by item
    with pytest.raises(ValidationFailed) as refused:
        protocol.create_request(db, MARIA, NL, form(nl["family"], LOADS5, agrees_payment_terms=False,
                                                    liability_declaration=False, residence_proof=" ",
                                                    private_property=True))
    assert set(refused.value.errors) == {"agrees_payment_terms", "liability_declaration", "residence_proof",
                                         "property_proof"}
    assert "art. 2, §4, VI" in refused.value.errors["liability_declaration"]
    with pytest.raises(ValidationFailed) as refused:  # every field's answer at once
        protocol.create_request(db, MARIA, NL, form(nl["family"], identification=""))
    assert set(refused.value.errors) == {"services", "identification"}
    assert booking_requests.list_requests(db, CLERK, NL) == []


def test_another_persons_protocol_quote_and_statement_are_the_same_not_found_as_unknown_ones(db, nl, today):
    rid = asked(db, nl)
    doc = quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    calls = [
        lambda who: booking_requests.get_request(db, who, NL, rid),
        lambda who: requesters.request_id_of(db, who, NL, doc["protocol"]),
        lambda who: documents.quote_pdf(db, who, NL, rid),
        lambda who: documents.statement_pdf(db, who, NL, rid),
        lambda who: schedule.queue_place(db, who, NL, rid, MONDAY),
        lambda who: attachments.add_attachment(db, who, NL, rid, PNG, "x.png"),
        lambda who: protocol.create_request(db, who, NL, form(nl["family"], LOADS5)),
        lambda who: requesters.requester_of(db, who, NL, "52998224725"),
        lambda who: requesters.save_requester(db, who, NL, "52998224725", {"phone": "65999990000"}),
    ]
    unknown = [
        lambda who: booking_requests.get_request(db, who, NL, "0" * 24),
        lambda who: requesters.request_id_of(db, who, NL, "0999/2026"),
    ]
    messages = set()
    for call in calls + unknown:
        with pytest.raises(NotFound) as missing:
            call(ANTONIO)
        messages.add(missing.value.message)
    assert messages <= {"Pedido não encontrado.", "Solicitante não encontrado."}
    assert booking_requests.list_requests(db, ANTONIO, NL) == []
    assert documents.quote_pdf(db, MARIA, NL, rid)[:4] == b"%PDF"
    assert booking_requests.get_request(db, MARIA, NL, rid)["quote"]["total"] == D("225.00")


def test_the_resident_cannot_do_the_clerks_steps(db, nl, today):
    rid = asked(db, nl)
    for call in (lambda: quotes.make_quote(db, MARIA, NL, rid, MONDAY),
                 lambda: payment.refuse_request(db, MARIA, NL, rid, "não"),
                 lambda: schedule.mark_urgent(db, MARIA, NL, rid, "urgente"),
                 lambda: entities.get(db, MARIA, "machinery_requesters", NL, nl["family"])):
        with pytest.raises(PermissionDenied):
            call()


def test_a_new_resident_enters_the_register_with_the_standing_to_be_checked(db, nl, today):
    rid_entry = requesters.save_requester(db, NEWCOMER, NL, "98765432100", {
        "name": "Joana Nova", "address": "Rua 3, 45", "zone": "Zona Urbana", "locality": "Centro",
        "phone": "65999990000", "standing": "nada_deve"})
    entry = entities.get(db, CLERK, "machinery_requesters", NL, rid_entry)
    assert (entry["kind"], entry["standing"], entry["standing_checked_on"]) == ("pf", "a_verificar", MONDAY)
    rid = protocol.create_request(db, NEWCOMER, NL, form(rid_entry, LOADS5))
    findings = booking_requests.get_request(db, CLERK, NL, rid)["findings"]
    assert [(f["ok"], f["level"]) for f in findings if f["message"].startswith("Interessado: Situação")] == [
        (False, "warning")]
    # an update keeps the clerk's standing and changes only what the person may change
    entities.update(db, CLERK, "machinery_requesters", NL, rid_entry, {"standing": "nada_deve"}, expected_version=1)
    requesters.save_requester(db, NEWCOMER, NL, "98765432100", {"address": "Rua 4, 10", "standing": "em_debito"})
    entry = entities.get(db, CLERK, "machinery_requesters", NL, rid_entry)
    assert (entry["address"], entry["standing"]) == ("Rua 4, 10", "nada_deve")
    with pytest.raises(ValidationFailed) as refused:
        requesters.save_requester(db, NEWCOMER, NL, "98765432100", {"locality": "Comunidade Pontal"})
    assert set(refused.value.errors) == {"locality"}


def test_the_quote_the_dam_among_own_dams_the_queue_and_the_urgency_moved_ahead(db, nl, today):
    rid = asked(db, nl)
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    listed = own_dams.my_dams(db, MARIA, "")["items"]
    assert [(d["number"], d["amount"]) for d in listed] == [(full["dam_number"], "R$ 225,00")]
    assert own_dams.my_dams(db, ANTONIO, "")["items"] == []
    pay(db, full["dam_id"])
    later = protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, NL, later, MONDAY)
    [other] = upfront(payment.issue_payment(db, CLERK, NL, later, MONDAY))
    pay(db, other["dam_id"])
    place = schedule.queue_place(db, MARIA, NL, rid, MONDAY)
    assert (place.zone, place.position, place.total, place.moved_ahead) == ("Zona Norte", 1, 2, ())
    schedule.mark_urgent(db, CLERK, NL, later, "Acesso à escola interrompido pela erosão")
    place = schedule.queue_place(db, MARIA, NL, rid, MONDAY)
    assert (place.position, place.total, place.moved_ahead) == (2, 2, ("Acesso à escola interrompido pela erosão",))
    schedule.book(db, CLERK, NL, rid, MONDAY + timedelta(days=2), [(nl["truck"], nl["pedro"])])
    assert schedule.queue_place(db, MARIA, NL, rid, MONDAY) is None
    assert booking_requests.get_request(db, MARIA, NL, rid)["schedule"]["days"] == [date(2026, 4, 8)]


def test_an_overdue_dam_blocks_a_new_request_and_says_which_dam_unblocks_it(db, nl, today):
    rid = asked(db, nl)
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    today.set(full["due"] + timedelta(days=1))
    [block] = requesters.requester_blocks(db, MARIA, NL, "52998224725", today.value)
    assert block.reference.endswith("art. 8, §4") and [d.number for d in block.dams] == [full["dam_number"]]
    with pytest.raises(RequestsSuspended) as refused:
        asked(db, nl, requested_on=today.value)
    assert full["dam_number"] in refused.value.message
    pay(db, full["dam_id"])
    assert requesters.requester_blocks(db, MARIA, NL, "52998224725", today.value) == []


def test_a_debt_the_secretaria_recorded_blocks_the_residents_request(db, nl, today):
    entry = entities.get(db, CLERK, "machinery_requesters", NL, nl["farmer"])
    entities.update(db, CLERK, "machinery_requesters", NL, nl["farmer"], {"standing": "em_debito"},
                    expected_version=entry["version"])
    [block] = requesters.requester_blocks(db, ANTONIO, NL, "11144477735", MONDAY)
    assert block.reference.endswith("art. 2, §1") and block.dams == ()
    with pytest.raises(RequestsSuspended):
        asked(db, nl, ANTONIO, "farmer")
    assert protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))  # the clerk still protocols it


def test_an_overdue_dam_of_another_charge_blocks_by_art_2_par_1(db, nl, today):
    today.set(MONDAY - timedelta(days=14))
    dam = dams.issue(db, CLERK, NL, taxpayer_name="Maria BPC", taxpayer_document="52998224725",
                     taxpayer_address="Lote 12", revenue_kind="outras", description="Taxa de licença: alvará",
                     legal_basis="CTM", amount=D("50.00"), due=MONDAY - timedelta(days=7))
    today.set(MONDAY)
    [block] = requesters.requester_blocks(db, MARIA, NL, "52998224725", MONDAY)
    assert block.reference.endswith("art. 2, §1") and [d.number for d in block.dams] == [dam["number"]]


def test_an_entity_acts_by_its_cnpj_through_its_representative(db, nl, today):
    entity = Person(NL, "requerente", "11444777000161", "98765432100", "Associação Nova Esperança").actor
    entry = requesters.save_requester(db, entity, NL, "11444777000161", {
        "name": "Associação Nova Esperança", "address": "Rua 1", "zone": "Zona Urbana", "locality": "Centro",
        "constitution_proof": "Estatuto registrado, livro B-2"})
    assert entities.get(db, CLERK, "machinery_requesters", NL, entry)["kind"] == "entidade"
    rid = protocol.create_request(db, entity, NL, form(entry, LOADS5))
    assert booking_requests.get_request(db, entity, NL, rid)["requester"]["document"] == "11444777000161"
    representative_alone = Person(NL, "requerente", "98765432100", "98765432100", "Joana Nova").actor
    with pytest.raises(NotFound):  # the person's own CPF account does not reach the entity's requests
        booking_requests.get_request(db, representative_alone, NL, rid)
