"""The one boundary (issue 20, defects 1–3 and deliverable 1): every public service refuses a wrong
value with a pt-BR message under its field before it reads or writes anything.

Operator dicts where a text is expected, wrong types, a megabyte of text, NUL and ten thousand
service lines each reach a service as an attacker would send them; the answer is ``ValidationFailed``
naming the field, and the store is byte for byte what it was.
"""
from __future__ import annotations

import inspect
import time
from datetime import date
from decimal import Decimal

import pytest

from services.dam import lists as dam_lists
from services.machinery import protocol
from services.machinery.protocol import RequestInput, ServiceAsked
from services.ridehailing.enforcement import lavratura, lists, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import audit_log, boundary
from services.shared.errors import ValidationFailed
from tests.conftest import SECRETARIA_CG, SECRETARIA_MP, TI
from tests.test_permission_matrix import digest, public_services

MEGABYTE = "a" * 1_000_000
OPERATOR = {"$ne": None}


def refused(db, call, field: str) -> str:
    """Run ``call``; it must be refused under ``field`` with nothing stored changed. Returns the message."""
    before = digest(db)
    with pytest.raises(ValidationFailed) as caught:
        call()
    assert field in caught.value.errors, caught.value.errors
    message = caught.value.errors[field]
    assert message and "Traceback" not in message and "Error" not in message
    assert digest(db) == before
    return message


def request(**changes) -> RequestInput:
    values = dict(requester_id="0" * 24, requested_on=date(2026, 4, 6),
                  services=(ServiceAsked("earth_loads", loads=5),), justification="Cascalhamento do acesso",
                  identification="RG apresentado", residence_proof="Conta de energia", agrees_payment_terms=True,
                  liability_declaration=True)
    values.update(changes)
    return RequestInput(**values)


# ---- defect 1: operator injection where a scalar is expected ----

@pytest.mark.parametrize("call, field", [
    (lambda db: lavratura.lavrar(db, SECRETARIA_CG, "chapada", AutoInput(
        target_kind="driver", driver_cpf=OPERATOR, infraction_code="CG-29-I", facts="Ponto",
        committed_on=date(2026, 3, 9), time="08:00", place="Praça", agent_registration="AF-1")), "driver_cpf"),
    (lambda db: lists.history(db, SECRETARIA_CG, "chapada", driver_cpf=OPERATOR), "driver_cpf"),
    (lambda db: lists.history(db, SECRETARIA_CG, "chapada", driver_cpf=dict), "driver_cpf"),
    (lambda db: lists.list_autos(db, SECRETARIA_CG, "chapada", stage=OPERATOR), "stage"),
    (lambda db: audit_log.search(db, TI, "chapada", username=OPERATOR), "username"),
    (lambda db: lavratura.draft_auto(db, SECRETARIA_CG, "chapada", AutoInput(
        target_kind="driver", plate={"$gt": ""}, infraction_code="CG-29-I", facts="x")), "plate"),
], ids=["lavrar", "history-operator", "history-type", "list_autos-stage", "audit-search", "draft-plate"])
def test_an_operator_where_a_text_is_expected_is_refused_under_its_field(db, call, field):
    message = refused(db, lambda: call(db), field)
    assert message == f"{boundary._label(field)}: informe um texto."


# ---- defect 2: wrong types answer in pt-BR, not with AttributeError/TypeError ----

@pytest.mark.parametrize("call, field", [
    (lambda db: lavratura.lavrar(db, SECRETARIA_CG, "chapada", AutoInput(facts=123)), "facts"),
    (lambda db: lavratura.lavrar(db, SECRETARIA_CG, "chapada", AutoInput(committed_on="09/03/2026")), "committed_on"),
    (lambda db: lavratura.lavrar(db, SECRETARIA_CG, "chapada", AutoInput(evidence="foto.jpg")), "evidence"),
    (lambda db: protocol.create_request(db, SECRETARIA_CG, "chapada", {"requester_id": "x"}), "values"),
    (lambda db: protocol.create_request(db, SECRETARIA_CG, "chapada", request(requested_on="2026-04-06")),
     "requested_on"),
    (lambda db: process.notify(db, SECRETARIA_CG, "chapada", "0" * 24, method=dict, sent_on=date(2026, 3, 9)),
     "method"),
    (lambda db: lists.list_autos(db, SECRETARIA_CG, "chapada", search={"x": 1}), "search"),
    (lambda db: lists.list_autos(db, SECRETARIA_CG, "chapada", limit="200"), "limit"),
], ids=["facts-int", "date-text", "evidence-text", "request-dict", "request-date-text", "notify-method",
        "search-dict", "limit-text"])
def test_a_wrong_type_is_a_pt_br_refusal(db, call, field):
    refused(db, lambda: call(db), field)


# ---- defect 3 (texts): length and NUL limits on autos, booking requests and searches ----

@pytest.mark.parametrize("field", ["facts", "place"])
def test_a_megabyte_of_text_in_an_auto_is_refused_with_the_limit(db, field):
    values = {"facts": "Ponto irregular", "place": "Praça", field: MEGABYTE}
    message = refused(db, lambda: lavratura.lavrar(db, SECRETARIA_CG, "chapada", AutoInput(
        target_kind="driver", driver_cpf="52998224725", infraction_code="CG-29-I", committed_on=date(2026, 3, 9),
        time="08:00", agent_registration="AF-1", **values)), field)
    limit = boundary.TEXT_LIMITS["long" if field in boundary.LONG_TEXTS else "medium"]
    assert message == f"{boundary._label(field)}: tem 1.000.000 caracteres; o limite é {limit:,}.".replace(",", ".")


def test_nul_in_the_facts_is_refused_and_line_breaks_are_kept(db):
    message = refused(db, lambda: lavratura.draft_auto(db, SECRETARIA_CG, "chapada", AutoInput(
        target_kind="driver", driver_cpf="52998224725", infraction_code="CG-29-I", facts="Ponto\x00irregular")),
        "facts")
    assert "NUL" in message
    check = boundary._checker("facts", str)
    assert check("facts", "Linha 1\nLinha 2\tcom tab") == "Linha 1\nLinha 2\tcom tab"
    with pytest.raises(boundary._Refused):
        boundary._checker("driver_cpf", str)("driver_cpf", "529\n98224725")


def test_a_booking_request_with_a_megabyte_justification_or_ten_thousand_lines_is_refused(db):
    refused(db, lambda: protocol.create_request(db, SECRETARIA_CG, "chapada", request(justification=MEGABYTE)),
            "justification")
    lines = tuple(ServiceAsked("machine_hours", item="01", hours=Decimal(1)) for _ in range(10_000))
    message = refused(db, lambda: protocol.create_request(db, SECRETARIA_CG, "chapada", request(services=lines)),
                      "services")
    assert message == f"Serviços: tem 10.000 itens; o limite é {boundary.DEFAULT_ITEMS}."
    refused(db, lambda: protocol.create_request(db, SECRETARIA_CG, "chapada",
                                                request(services=(ServiceAsked("machine_hours", hours=1.5),))),
            "hours")


def test_a_megabyte_in_the_dam_search_is_read_as_its_first_characters_at_once(db):
    """A search term is not stored: like the register's search (issue 10) it is cut, not refused."""
    started = time.perf_counter()
    page = dam_lists.list_page(db, SECRETARIA_MP, "matupa", dam_lists.DamQuery(search=MEGABYTE + "\x00"))
    assert page.total == 0 and time.perf_counter() - started < 0.5
    refused(db, lambda: dam_lists.list_page(db, SECRETARIA_MP, "matupa", dam_lists.DamQuery(search={"$ne": ""})),
            "search")


# ---- the mechanism ----

def test_every_public_service_goes_through_the_boundary_and_keeps_its_signature():
    services = public_services()
    unchecked = [name for name, fn in services.items() if not hasattr(fn, "__wrapped__")]
    assert unchecked == []
    for name, fn in services.items():
        assert fn.__module__ == name.rsplit(".", 1)[0]
        assert inspect.signature(fn) == inspect.signature(fn.__wrapped__)


def test_money_is_decimal_an_int_is_converted_and_a_float_refused():
    money = boundary._checker("amount", Decimal)
    assert money("amount", 10) == Decimal(10) and isinstance(money("amount", 10), Decimal)
    for wrong in (10.5, "10,50", Decimal("NaN"), Decimal("Infinity"), True):
        with pytest.raises(boundary._Refused):
            money("amount", wrong)
    with pytest.raises(boundary._Refused):
        boundary._checker("limit", int)("limit", True)


def test_plain_data_refuses_operator_keys_and_deep_nesting():
    data = boundary._checker("values", dict[str, object])
    assert data("values", {"name": "Rosa", "tags": ["a", "b"], "amount": Decimal("1.00")})
    for wrong in ({"$where": "1"}, {"name": {"$ne": None}}, {"a": [[[[["fundo"]]]]]}, {"name": "x\x00"}):
        with pytest.raises(boundary._Refused):
            data("values", wrong)


@pytest.mark.parametrize("value", [10**33, -10**33])
def test_a_whole_number_past_what_the_store_keeps_is_refused_in_portuguese_and_writes_nothing(db, value):
    """A parameter's value is plain data (``Any``): an integer past 8 bytes reached the store's codec as an
    English OverflowError (found by test_boundary_properties on the tacit receipt's days)."""
    from rules import notice
    from services.shared import parameters

    before = digest(db)
    with pytest.raises(ValidationFailed) as refused:
        parameters.add_version(db, TI, "chapada", notice.TACIT_DAYS, date(2027, 1, 1), value, "Decreto 1/2027")
    assert "fora do limite" in str(refused.value.errors) and digest(db) == before
