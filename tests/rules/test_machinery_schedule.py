"""Loads per stage (art. 9) and order of service (art. 3) of Decreto 017/2026 (Nova Lacerda)."""
from datetime import date, datetime, timedelta

import pytest

from rules.calendar import LegalCalendar
from rules.machinery.nova_lacerda import DEFAULT_PARAMETERS
from rules.machinery.quote import InvalidQuantity, QuantityNotPositive
from rules.machinery.schedule import (
    ITEMS_OF_KIND,
    MAX_PERIOD_DAYS,
    LoadRecord,
    PeriodRefused,
    QueuedRequest,
    SkippedDay,
    assets_fit,
    booking_days,
    skipped_days,
    loads_allowance,
    order_of_service,
)
from rules.params import ParameterBook, ParameterVersion

BOOK = ParameterBook(DEFAULT_PARAMETERS)
PAIR = BOOK.with_versions([ParameterVersion("load_limit_counting", date(2026, 4, 1), "property_and_requester", "x")])
ON = date(2026, 4, 10)


def record(loads, requester="ana", prop="sítio 1", stage="2026-1"):
    return LoadRecord(requester, prop, stage, loads)


@pytest.mark.parametrize("requested, history, granted, deferred, ok", [
    pytest.param(5, [], 5, 0, True, id="art. 9 §1: 5 loads in the stage accepted"),
    pytest.param(6, [], 5, 1, True, id="art. 9 §1-§2: 6 loads, 5 now and 1 needs a new request"),
    pytest.param(2, [record(3)], 2, 0, True, id="art. 9 §1: 3 served + 2 = 5 accepted"),
    pytest.param(3, [record(3)], 2, 1, True, id="art. 9 §1-§2: 3 served + 3, one waits"),
    pytest.param(1, [record(5)], 0, 1, False, id="art. 9 §1-§2: 5 served, the 6th refused for this stage"),
    pytest.param(5, [record(5, stage="2025-4")], 5, 0, True, id="art. 9 §2: loads of an earlier stage do not count"),
    pytest.param(1, [record(5, requester="bia")], 0, 1, False, id="art. 9 §1: same property, other requester counts"),
    pytest.param(1, [record(5, prop="sítio 2")], 0, 1, False, id="art. 9 §1: same requester, other property counts"),
    pytest.param(5, [record(4, requester="bia", prop="sítio 2")], 5, 0, True, id="art. 9 §1: other requester and property"),
])
def test_loads_per_stage(requested, history, granted, deferred, ok):
    allowance = loads_allowance("ana", "sítio 1", "2026-1", requested, history, ON, BOOK)
    assert (allowance.granted, allowance.deferred, allowance.decision.ok) == (granted, deferred, ok)
    if deferred:
        assert any("nova solicitação para a próxima etapa" in f.message for f in allowance.decision.findings)


@pytest.mark.parametrize("history, granted", [
    pytest.param([record(5, requester="bia")], 5, id="art. 9 §1 pair counting: other requester on the same property"),
    pytest.param([record(5, prop="sítio 2")], 5, id="art. 9 §1 pair counting: same requester on another property"),
    pytest.param([record(5)], 0, id="art. 9 §1 pair counting: the same pair is limited"),
])
def test_pair_counting_parameter(history, granted):
    assert loads_allowance("ana", "sítio 1", "2026-1", 5, history, ON, PAIR).granted == granted


@pytest.mark.parametrize("requested, error", [
    pytest.param(0, QuantityNotPositive, id="art. 9: zero loads refused"),
    pytest.param(-1, QuantityNotPositive, id="art. 9: negative loads refused"),
    pytest.param(2.0, InvalidQuantity, id="art. 9: loads must be whole"),
])
def test_loads_must_be_positive_integers(requested, error):
    with pytest.raises(error):
        loads_allowance("ana", "sítio 1", "2026-1", requested, [], ON, BOOK)


def at(day, hour=9):
    return datetime(2026, 4, day, hour)


def queued(protocol, day, zone, locality, **extra):
    return QueuedRequest(protocol, at(day), zone, locality, **extra)


def protocols(order):
    return [entry.request.protocol for entry in order.sequence]


def test_protocol_order_inside_a_locality():
    requests = [queued("3", 3, "Norte", "Vila A"), queued("1", 1, "Norte", "Vila A"), queued("2", 2, "Norte", "Vila A")]
    order = order_of_service(requests)
    assert protocols(order) == ["1", "2", "3"]
    assert [e.position for e in order.sequence] == [1, 2, 3]


def test_locality_finished_before_the_next():
    # Art. 3, §2: Vila A (first protocol) is finished, even its later protocol, before Vila B
    requests = [queued("1", 1, "Norte", "Vila A"), queued("2", 2, "Norte", "Vila B"), queued("3", 3, "Norte", "Vila A")]
    assert protocols(order_of_service(requests)) == ["1", "3", "2"]


@pytest.mark.parametrize("zone_order, expected", [
    pytest.param(("Sul", "Norte"), ["2", "1", "3"], id="art. 3 §1: the regional schedule puts Sul first"),
    pytest.param((), ["1", "3", "2"], id="art. 3 §1: without a schedule, zones by their first protocol"),
    pytest.param(("Sul",), ["2", "1", "3"], id="art. 3 §1: zones outside the schedule come after it"),
])
def test_zones_follow_the_regional_schedule(zone_order, expected):
    requests = [queued("1", 1, "Norte", "Vila A"), queued("2", 2, "Sul", "Gleba"), queued("3", 3, "Norte", "Vila A")]
    assert protocols(order_of_service(requests, zone_order)) == expected


def test_justified_urgency_moves_ahead():
    requests = [queued("1", 1, "Norte", "Vila A"), queued("2", 2, "Sul", "Gleba", urgent=True,
                                                          justification="Ponte caída, acesso à escola")]
    order = order_of_service(requests, ("Norte", "Sul"))
    assert protocols(order) == ["2", "1"]
    assert order.sequence[0].reason.endswith("Ponte caída, acesso à escola")
    assert order.sequence[0].reference.endswith("art. 3, §2")


def test_urgency_without_justification_keeps_its_place():
    requests = [queued("1", 1, "Norte", "Vila A"), queued("2", 2, "Sul", "Gleba", urgent=True)]
    order = order_of_service(requests, ("Norte", "Sul"))
    assert protocols(order) == ["1", "2"]
    assert "sem justificativa registrada" in order.sequence[1].reason


def test_unavailable_machines_or_staff_hold_the_request():
    requests = [queued("1", 1, "Norte", "Vila A", resources_available=False), queued("2", 2, "Norte", "Vila A")]
    order = order_of_service(requests)
    assert protocols(order) == ["2"]
    assert [(e.request.protocol, e.reference.endswith("art. 3, III")) for e in order.held] == [("1", True)]


def test_same_day_protocols_ordered_by_time():
    requests = [QueuedRequest("B", at(1, 15), "Norte", "Vila A"), QueuedRequest("A", at(1, 8), "Norte", "Vila A")]
    assert protocols(order_of_service(requests)) == ["A", "B"]


@pytest.mark.parametrize("items, kind, ok", [
    pytest.param(("01",), "retroescavadeira", True, id="Anexo I item 01: a backhoe for backhoe hours"),
    pytest.param(("01",), "onibus", False, id="Anexo I item 01: a bus is not a backhoe"),
    pytest.param(("01",), "escavadeira", False, id="Anexo I items 01/04: an excavator is not the backhoe quoted"),
    pytest.param(("12",), "caminhao_basculante", True, id="Anexo I item 12 obs. 3: the dump truck carries the loads"),
    pytest.param(("12",), "prancha", False, id="Anexo I item 12: a lowboy does not carry earth"),
    pytest.param(("05", "07"), "caminhao_basculante", True, id="Anexo I items 05/07: dump truck day and km"),
    pytest.param(("08",), "prancha", True, id="Anexo I item 08: lowboy trip"),
    pytest.param(("10",), "micro_onibus_van", False, id="Anexo I items 10/11: a van is not the bus quoted"),
    pytest.param(("11",), "micro_onibus_van", True, id="Anexo I item 11: minibus or van"),
    pytest.param(("01", "04"), "escavadeira", True, id="Anexo I: one of two items quoted is enough"),
    pytest.param((), "retroescavadeira", False, id="Anexo I: nothing quoted, no machine fits"),
])
def test_a_booked_machine_serves_one_of_the_quoted_items(items, kind, ok):
    """Issue 23 item 8: a bus booked for a backhoe job is refused, naming the items quoted."""
    decision = assets_fit(items, [("PAT-1", kind)])
    assert decision.ok is ok
    if not ok:
        assert decision.failures[0].message.startswith("PAT-1 não serve para este pedido")
        assert decision.failures[0].reference.endswith("Anexo I")


def test_every_kind_of_the_register_serves_some_item():
    from services.shared.specs.maquinas import ASSET_KINDS

    assert {kind for kind, _ in ASSET_KINDS} == set(ITEMS_OF_KIND)
    assert sorted(code for codes in ITEMS_OF_KIND.values() for code in codes) == [f"{n:02}" for n in range(1, 13)]


MON, TUE, FRI, SAT, SUN = date(2026, 4, 13), date(2026, 4, 14), date(2026, 4, 17), date(2026, 4, 18), date(2026, 4, 19)


@pytest.mark.parametrize("first, last, days", [
    pytest.param(MON, MON, (MON,), id="art. 3 III: one day"),
    pytest.param(MON, FRI, tuple(MON + timedelta(days=n) for n in range(5)), id="art. 3 III: Monday to Friday, 5 days"),
    pytest.param(FRI, date(2026, 4, 20), (FRI, date(2026, 4, 20)), id="art. 3 III: the weekend is not booked"),
    pytest.param(SAT, SUN, (SAT,), id="art. 3 III: a Saturday chosen as first day is kept, Sunday is not"),
    pytest.param(date(2026, 4, 20), date(2026, 4, 22), (date(2026, 4, 20), date(2026, 4, 22)),
                 id="Lei 9.784 art. 66: Tiradentes (21/04) is not booked"),
    pytest.param(MON, MON + timedelta(days=MAX_PERIOD_DAYS - 1), None, id="art. 3 III: 31 days is the longest period"),
])
def test_the_days_of_a_booking_period(first, last, days):
    found = booking_days(first, last, LegalCalendar())
    if days is None:
        assert found[0] == first and found[-1] == last and len(found) == 21  # 23 weekdays less 21/04 and 01/05
    else:
        assert found == days


@pytest.mark.parametrize("first, last", [
    pytest.param(TUE, MON, id="art. 3 III: a period ending before it starts"),
    pytest.param(MON, MON + timedelta(days=MAX_PERIOD_DAYS), id="art. 3 III: 32 days is over the guard"),
])
def test_a_period_out_of_shape_is_refused(first, last):
    with pytest.raises(PeriodRefused) as refused:
        booking_days(first, last, LegalCalendar())
    assert refused.value.reference.endswith("art. 3, III")


CORPUS_CHRISTI = LegalCalendar([(date(2026, 6, 4), "Corpus Christi")])  # Nova Lacerda's municipal holiday (demo)


@pytest.mark.parametrize("first, last, skipped", [
    pytest.param(date(2026, 4, 17), date(2026, 4, 22), [
        (date(2026, 4, 18), "sábado"), (date(2026, 4, 19), "domingo"),
        (date(2026, 4, 21), "feriado nacional: Tiradentes")],
        id="art. 3 III: Friday to Wednesday skips the weekend and Tiradentes"),
    pytest.param(date(2026, 6, 3), date(2026, 6, 5), [(date(2026, 6, 4), "feriado municipal: Corpus Christi")],
                 id="art. 3 III: a municipal holiday of the parameters is skipped with its name"),
    pytest.param(date(2026, 4, 30), date(2026, 5, 4), [
        (date(2026, 5, 1), "feriado nacional: Dia do Trabalhador"), (date(2026, 5, 2), "sábado"),
        (date(2026, 5, 3), "domingo")], id="art. 3 III: 1º de maio and the weekend after it"),
    pytest.param(date(2026, 4, 6), date(2026, 4, 10), [], id="art. 3 III: Monday to Friday skips nothing"),
    pytest.param(date(2026, 4, 11), date(2026, 4, 11), [], id="art. 3 III: one day, as chosen, skips nothing"),
])
def test_a_period_says_which_days_it_skips_and_why(first, last, skipped):
    found = skipped_days(first, last, CORPUS_CHRISTI)
    assert found == tuple(SkippedDay(day, reason) for day, reason in skipped)
    taken = booking_days(first, last, CORPUS_CHRISTI)
    assert not set(taken) & {s.day for s in found}
    assert len(taken) + len(found) == (last - first).days + 1
