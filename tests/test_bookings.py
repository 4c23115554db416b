"""Service bookings of Nova Lacerda (issue 13; Decreto 017/2026): each step of a request, the two
stories of the issue, the art. 8 §4 block and two clerks booking one machine at once."""
from __future__ import annotations

import threading
from datetime import date, timedelta
from decimal import Decimal

import pytest

from services.dam import dams, outbox, payments
from services.machinery import (
    booking_requests,
    execution,
    ledger,
    localities,
    payment,
    pending,
    price_tables,
    protocol,
    quotes,
    schedule,
    trips,
)
from services.machinery.execution import ExecutionInput
from services.machinery.payment import ExtensionInput
from services.machinery.protocol import ClaimInput, RequestInput, ServiceAsked
from services.shared import entities
from services.shared.auth import Actor
from services.shared.errors import (
    Conflict,
    PermissionDenied,
    ServiceError,
    ValidationFailed,
)
from tests import figures

NL = "nova_lacerda"
CLERK = Actor("secretaria.novalacerda", "Servidora de Nova Lacerda", "secretaria", (NL,))
TI_NL = Actor("ti.novalacerda", "TI de Nova Lacerda", "ti", (NL,))
MONDAY = date(2026, 4, 6)
D = Decimal


@pytest.fixture
def nl(db, today):
    """Nova Lacerda with zones, two machines, a truck, two operators and three requesters."""
    today.set(MONDAY)
    localities.set_localities(db, TI_NL, NL, date(2026, 3, 24), [
        {"zone": "Zona Norte", "locality": "Assentamento Bandeira", "area": "rural"},
        {"zone": "Zona Norte", "locality": "Comunidade Pontal", "area": "rural"},
        {"zone": "Zona Urbana", "locality": "Centro", "area": "urbana"},
    ], "Portaria SEMOBI 01/2026")

    def make(entity, values):
        return entities.create(db, CLERK, entity, NL, values)

    ids = {
        "backhoe": make("machinery_assets", {"identifier": "PAT-0101", "kind": "retroescavadeira",
                                             "description": "JCB 3CX", "status": "disponivel",
                                             "meter_kind": "horimetro", "meter_reading": 1200}),
        "truck": make("machinery_assets", {"identifier": "QBA1D23", "kind": "caminhao_basculante",
                                           "description": "VW 26.280", "status": "disponivel",
                                           "meter_kind": "odometro", "meter_reading": 80000}),
        "joao": make("machinery_operators", {"name": "João Operador", "cpf": "39053344705", "registration": "1001",
                                             "duty": "operador", "licence_category": "D", "active": True}),
        "pedro": make("machinery_operators", {"name": "Pedro Motorista", "cpf": "15350946056", "registration": "1002",
                                              "duty": "motorista", "licence_category": "E", "active": True}),
        "family": make("machinery_requesters", {"name": "Maria BPC", "document": "52998224725", "kind": "pf",
                                                "address": "Lote 12", "zone": "Zona Norte",
                                                "locality": "Assentamento Bandeira", "standing": "nada_deve",
                                                "standing_checked_on": MONDAY}),
        "farmer": make("machinery_requesters", {"name": "Antônio Sitiante", "document": "11144477735", "kind": "pf",
                                                "address": "Sítio Boa Vista", "zone": "Zona Norte",
                                                "locality": "Comunidade Pontal", "standing": "nada_deve",
                                                "standing_checked_on": MONDAY}),
        "association": make("machinery_requesters", {
            "name": "Associação dos Produtores do Pontal", "document": "11222333000181", "kind": "entidade",
            "constitution_proof": "Estatuto registrado no cartório, livro A-3", "address": "Rua 1",
            "zone": "Zona Urbana", "locality": "Centro", "standing": "nada_deve", "standing_checked_on": MONDAY}),
    }
    return ids


def form(requester_id, *services, **changes) -> RequestInput:
    values = dict(requester_id=requester_id, requested_on=MONDAY, services=tuple(services),
                  justification="Serviço pedido no protocolo", identification="Documento apresentado",
                  residence_proof="Conta de energia", agrees_payment_terms=True, liability_declaration=True,
                  environmental_licence="Cascalheira municipal, LO 12/2026")
    values.update(changes)
    return RequestInput(**values)


LOADS5 = ServiceAsked("earth_loads", loads=5)
HOURS6 = ServiceAsked("machine_hours", item="01", hours=D(6))
BPC = ClaimInput("BPC", "BPC_RECEIPT", "NB 123.456.789-0")


def pay(db, dam_id):
    dam = dams.get(db, CLERK, NL, dam_id)
    payments.record_payment(db, CLERK, NL, dam_id, dam["issued_on"], dam["amount"], "Banco do Brasil")


def upfront(doc):
    return [i for i in doc["payment"]["instalments"] if i["dam_id"]]


# ---- the two stories of the issue ----

def test_bpc_family_five_loads_seventy_percent_paid_scheduled_executed(db, nl, today):
    rid = protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5, claims=(BPC,)))
    doc = quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    line = doc["quote"]["lines"][0]
    assert (line["item"], line["amount"], line["discount"], doc["quote"]["total"]) == ("12", D("750.00"), D("525.00"),
                                                                                        D("225.00"))
    assert doc["quote"]["price_table"]["version_id"] == "2026-03-24"
    doc = payment.issue_payment(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(doc)
    assert (full["key"], full["amount"], doc["status"]) == ("integral", D("225.00"), "aguardando_pagamento")
    assert dams.get(db, CLERK, NL, full["dam_id"])["pays"]["collection"] == "booking_requests"
    pay(db, full["dam_id"])
    assert booking_requests.get_request(db, CLERK, NL, rid)["status"] == "a_agendar"
    day = MONDAY + timedelta(days=2)
    queue = schedule.queue_page(db, CLERK, NL, day).entries
    assert [(e.protocol, e.zone, e.locality) for e in queue] == [(doc["protocol"], "Zona Norte",
                                                                 "Assentamento Bandeira")]
    schedule.book(db, CLERK, NL, rid, day, [(nl["truck"], nl["pedro"])])
    assert schedule.queue_page(db, CLERK, NL, day).entries == ()
    assert [b["asset"] for b in schedule.booked_page(db, CLERK, NL, day).rows] == ["QBA1D23"]
    assert "QBA1D23" not in [a["identifier"] for a in schedule.free_assets(db, CLERK, NL, day).rows]
    today.set(day)
    execution.start_execution(db, CLERK, NL, rid, day)
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["pedro"], ((nl["truck"], D(80000), D(80060)),),
                                                               loads_delivered=5))
    assert done["status"] == "concluido" and done["settlement"] is None
    assert entities.get(db, CLERK, "machinery_assets", NL, nl["truck"])["meter_reading"] == 80060


def test_farmer_six_hours_advance_seven_worked_balance_due_and_next_request_blocked(db, nl, today):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, NL, rid, MONDAY)
    [advance] = upfront(doc)
    assert (advance["key"], advance["amount"]) == ("adiantamento", D("900.00"))  # art. 8 §2: 50% of 6 h × R$ 300
    pay(db, advance["dam_id"])
    day = date(2026, 4, 8)
    schedule.book(db, CLERK, NL, rid, day, [(nl["backhoe"], nl["joao"])])
    today.set(day)
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["joao"], ((nl["backhoe"], D(1200), D(1207)),),
                                                               worked_hours=(("01", D(7)),)))
    settlement = done["settlement"]
    assert (settlement["executed"], settlement["amount_due"]) == (D("2100.00"), D("1200.00"))
    assert settlement["due"] == date(2026, 4, 23)  # art. 8 §2: 15 days after completion on 08/04
    balance = dams.get(db, CLERK, NL, settlement["dam_id"])
    assert balance["amount"] == D("1200.00") and balance["due_on"] == date(2026, 4, 23)
    titles = [(p.title, p.overdue) for p in pending.pending(db, CLERK, NL, date(2026, 4, 10)) if p.record_id == rid]
    assert titles == [("Saldo a pagar", False)]
    today.set(date(2026, 4, 24))  # the balance is overdue
    assert [(p.title, p.overdue) for p in pending.pending(db, CLERK, NL, date(2026, 4, 24))
            if p.record_id == rid] == [("Saldo vencido", True)]
    with pytest.raises(protocol.RequestsSuspended) as blocked:
        protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, requested_on=date(2026, 4, 24)))
    assert "Antônio Sitiante tem DAM vencido" in blocked.value.message
    assert balance["number"] in blocked.value.message and "art. 8, §4" in blocked.value.message
    pay(db, balance["id"])
    assert protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, requested_on=date(2026, 4, 24)))


def test_a_completion_reported_after_the_balance_term_gets_a_payable_dam_15_days_from_issue(db, nl, today):
    """Art. 8 §2 gives 15 days to pay the balance; when the team reports the completion after those
    days, the DAM cannot be due in the past: the requester gets the 15 days from the issue."""
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [advance] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    pay(db, advance["dam_id"])
    day = date(2026, 4, 8)
    schedule.book(db, CLERK, NL, rid, day, [(nl["backhoe"], nl["joao"])])
    today.set(date(2026, 4, 28))  # reported 20 days after the work ended
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["joao"], ((nl["backhoe"], D(1200), D(1207)),),
                                                               worked_hours=(("01", D(7)),)))
    balance = dams.get(db, CLERK, NL, done["settlement"]["dam_id"])
    assert balance["due_on"] == date(2026, 5, 13) and balance["amount"] == D("1200.00")
    assert any("23/04/2026" in line for line in balance["instructions"])


def test_a_dam_due_today_does_not_block_yet(db, nl, today):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    due = dams.get(db, CLERK, NL, full["dam_id"])["due_on"]
    today.set(due)  # art. 8 §4: paying on the due date is on time
    assert protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, requested_on=due))
    today.set(due + timedelta(days=1))
    with pytest.raises(protocol.RequestsSuspended):
        protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, requested_on=due + timedelta(days=1)))


# ---- steps ----

def test_six_loads_are_refused_at_the_protocol_with_the_next_stage(db, nl):
    with pytest.raises(ValidationFailed) as refused:
        protocol.create_request(db, CLERK, NL, form(nl["family"], ServiceAsked("earth_loads", loads=6)))
    assert "art. 9, §1 e §2" in refused.value.errors["services"]
    assert db["booking_requests"].count_documents({}) == 0


def test_protocol_numbers_run_per_year(db, nl):
    first = booking_requests.get_request(db, CLERK, NL,
                                         protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5)))
    second = booking_requests.get_request(db, CLERK, NL,
                                          protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6)))
    assert (first["protocol"], second["protocol"]) == ("0001/2026", "0002/2026")


def test_short_notice_is_a_warning_not_a_refusal(db, nl):
    findings = protocol.check(db, CLERK, NL, form(nl["farmer"], HOURS6, desired_start=MONDAY + timedelta(days=10)))
    notice = next(f for f in findings if f.reference.endswith("art. 2, caput") and "Antecedência" in f.message)
    assert not notice.ok and not notice.blocking


def test_private_property_waits_for_the_visit_and_an_unviable_visit_refuses(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, private_property=True,
                                                      property_proof="Matrícula 4.321"))
    assert booking_requests.get_request(db, CLERK, NL, rid)["status"] == "aguardando_vistoria"
    with pytest.raises(booking_requests.WrongStep):
        quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    doc = quotes.record_technical_visit(db, CLERK, NL, rid, MONDAY, False, "Encosta instável, risco à máquina")
    assert doc["status"] == "recusado" and "art. 5" in doc["refusal"]["reason"]


def test_natural_materials_need_the_licence_at_the_visit(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, removes_natural_materials=True,
                                                      environmental_licence=""))
    with pytest.raises(ValidationFailed) as refused:
        quotes.record_technical_visit(db, CLERK, NL, rid, MONDAY, True, "Acesso bom")
    assert "art. 10, III" in refused.value.errors["environmental_licence"]
    doc = quotes.record_technical_visit(db, CLERK, NL, rid, MONDAY, True, "Acesso bom", "LO SEMA 77/2026")
    assert doc["status"] == "aguardando_orcamento"
    assert quotes.make_quote(db, CLERK, NL, rid, MONDAY)["quote"]["total"] == D("1800.00")


def test_favourable_social_report_gives_seventy_percent(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], ServiceAsked("earth_loads", loads=2)))
    assert quotes.request_social_report(db, CLERK, NL, rid, MONDAY)["status"] == "aguardando_parecer"
    assert "Aguardando parecer social" in [p.title for p in pending.pending(db, CLERK, NL, MONDAY)]
    doc = quotes.record_social_report(db, CLERK, NL, rid, MONDAY, True, "Parecer SMAS 14/2026")
    assert doc["status"] == "aguardando_orcamento"
    assert quotes.make_quote(db, CLERK, NL, rid, MONDAY)["quote"]["total"] == D("90.00")  # 300 - 70%


def test_unproven_discount_keeps_the_full_price_with_a_warning(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5, claims=(ClaimInput("BPC"),)))
    q = quotes.make_quote(db, CLERK, NL, rid, MONDAY)["quote"]
    assert q["total"] == D("750.00") and not q["discount"]["findings"][0]["ok"]


def test_non_profit_deferral_goes_to_schedule_and_gets_its_dam_after_completion(db, nl, today):
    charter = ClaimInput("NON_PROFIT", "NON_PROFIT_CHARTER", "Estatuto livro A-3; CNPJ 11.222.333/0001-81")
    rid = protocol.create_request(db, CLERK, NL, form(nl["association"], LOADS5, claims=(charter,)))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    with pytest.raises(ValidationFailed):  # art. 8 §3: express justification required
        payment.issue_payment(db, CLERK, NL, rid, MONDAY,
                              extension=ExtensionInput("NON_PROFIT_OR_VULNERABLE", " ", 30))
    doc = payment.issue_payment(db, CLERK, NL, rid, MONDAY, extension=ExtensionInput(
        "NON_PROFIT_OR_VULNERABLE", "Entidade sem liquidez imediata", 30))
    assert doc["status"] == "a_agendar" and upfront(doc) == []
    day = date(2026, 4, 9)
    schedule.book(db, CLERK, NL, rid, day, [(nl["truck"], nl["pedro"])])
    today.set(day)
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, nl["pedro"], loads_delivered=5))
    [full] = upfront(done)
    assert full["amount"] == D("525.00")  # Anexo II: 5 loads × R$ 150,00 less 30% for the non-profit
    assert full["due"] == date(2026, 5, 11)  # 30 days after 09/04 = 09/05 (Sat) → Monday 11/05


def test_fewer_hours_than_the_advance_give_a_credit_to_return(db, nl, today):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    pay(db, upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))[0]["dam_id"])
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"],
                                                               worked_hours=(("01", D(2)),)))
    assert done["settlement"]["credit_to_return"] == D("300.00") and done["settlement"]["dam_id"] is None
    assert [p.title for p in pending.pending(db, CLERK, NL, MONDAY) if p.record_id == rid] == ["Crédito a devolver"]
    execution.record_credit_returned(db, CLERK, NL, rid, MONDAY, "Restituição 5/2026")
    assert [p for p in pending.pending(db, CLERK, NL, MONDAY) if p.record_id == rid] == []


def test_paid_handler_runs_once_whatever_the_retries(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    pay(db, full["dam_id"])
    version = booking_requests.get_request(db, CLERK, NL, rid)["version"]
    # the handler gets the charge's id (issue 19) and re-reads the stored charge: reruns change nothing
    payment.dam_paid(db, full["charge_id"])
    outbox.dam_paid(db, full["dam_id"])
    payment.dam_paid(db, full["charge_id"])
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    assert doc["version"] == version and doc["status"] == "a_agendar"
    assert upfront(doc)[0]["paid_on"] == MONDAY


def test_an_unpaid_dam_is_never_taken_as_paid_by_the_handler(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    payment.dam_paid(db, full["charge_id"])  # issue 19: the handler reads the stored, unpaid charge
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    assert doc["status"] == "aguardando_pagamento" and upfront(doc)[0]["paid_on"] is None


def test_unpaid_request_is_not_on_the_board_and_cannot_be_booked(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["family"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    payment.issue_payment(db, CLERK, NL, rid, MONDAY)
    assert schedule.queue_page(db, CLERK, NL, MONDAY).entries == ()
    with pytest.raises(booking_requests.WrongStep):
        schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["truck"], nl["pedro"])])


def ready(db, nl, requester, services=(LOADS5,)):
    rid = protocol.create_request(db, CLERK, NL, form(requester, *services))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    doc = payment.issue_payment(db, CLERK, NL, rid, MONDAY, extension=ExtensionInput(
        "NON_PROFIT_OR_VULNERABLE", "Família sem liquidez imediata", 30))
    assert doc["status"] == "a_agendar"
    return rid


def test_board_follows_zone_and_locality_and_a_justified_urgency_moves_ahead(db, nl):
    urban = ready(db, nl, nl["association"])
    north = ready(db, nl, nl["family"])
    assert [e.request_id for e in schedule.queue_page(db, CLERK, NL, MONDAY).entries] == [north, urban]
    with pytest.raises(ValidationFailed):
        schedule.mark_urgent(db, CLERK, NL, urban, "  ")
    schedule.mark_urgent(db, CLERK, NL, urban, "Ponte caída na estrada da escola")
    queue = schedule.queue_page(db, CLERK, NL, MONDAY).entries
    assert [e.request_id for e in queue] == [urban, north] and "art. 3, §2" in queue[0].reference


def test_a_machine_or_operator_is_not_booked_twice_on_a_day(db, nl):
    first, second = ready(db, nl, nl["family"]), ready(db, nl, nl["association"])
    schedule.book(db, CLERK, NL, first, MONDAY, [(nl["truck"], nl["pedro"])])
    with pytest.raises(Conflict):
        schedule.book(db, CLERK, NL, second, MONDAY, [(nl["truck"], nl["joao"])])
    hours = ready(db, nl, nl["farmer"], (HOURS6,))  # the operator's conflict with a machine that fits
    with pytest.raises(Conflict):
        schedule.book(db, CLERK, NL, hours, MONDAY, [(nl["backhoe"], nl["pedro"])])
    assert booking_requests.get_request(db, CLERK, NL, second)["status"] == "a_agendar"
    assert schedule.book(db, CLERK, NL, second, MONDAY + timedelta(days=1),
                         [(nl["truck"], nl["pedro"])])["status"] == "agendado"
    assert [r["protocol"] for r in schedule.week_schedule(db, CLERK, NL, MONDAY)] == ["0001/2026", "0002/2026"]


def test_a_machine_that_does_not_serve_the_quoted_item_is_not_booked(db, nl):
    """Issue 23 item 8 (Anexo I): a dump truck is refused for backhoe hours, under the assignments."""
    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    with pytest.raises(ValidationFailed) as refused:
        schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["truck"], nl["pedro"])])
    assert "QBA1D23 não serve para este pedido" in refused.value.errors["assignments"]
    assert "01 (retroescavadeira)" in refused.value.errors["assignments"]
    assert booking_requests.get_request(db, CLERK, NL, rid)["status"] == "a_agendar"
    assert db["machinery_bookings"].count_documents({"request_id": rid}) == 0
    assert schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])["status"] == "agendado"


def test_two_clerks_booking_one_machine_for_one_day_at_once_get_one_conflict(db, nl):
    first, second = ready(db, nl, nl["family"]), ready(db, nl, nl["association"])
    start, results = threading.Barrier(2), {}

    def run(rid, operator):
        start.wait()
        try:
            results[rid] = schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["truck"], operator)])
        except Exception as exc:  # noqa: BLE001 — the test inspects what each clerk got
            results[rid] = exc

    threads = [threading.Thread(target=run, args=a) for a in ((first, nl["pedro"]), (second, nl["joao"]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    conflicts = [r for r in results.values() if isinstance(r, Conflict)]
    assert len(conflicts) == 1 and len([r for r in results.values() if isinstance(r, dict)]) == 1
    assert db["machinery_bookings"].count_documents({"asset_id": nl["truck"], "day": MONDAY.isoformat()}) == 1
    figures.concurrency("agendamentos de uma máquina no dia", 2, 1)


def test_bus_hire_records_the_responsible_driver_and_incidents(db, nl):
    rid = protocol.create_request(db, CLERK, NL, form(nl["association"], ServiceAsked(
        "passenger_transport", item="10", distance_km=D(300)), trip_responsible="Ana Responsável"))
    with pytest.raises(ValidationFailed):  # the driver must be municipal staff on duty as a driver
        trips.record_trip(db, CLERK, NL, rid, "Ana Responsável", "52998224725", nl["joao"], ["A"], "Nova Lacerda–Cuiabá")
    trips.record_trip(db, CLERK, NL, rid, "Ana Responsável", "52998224725", nl["pedro"], ["Ana", "Bia"],
                      "Nova Lacerda – Vila Bela")
    doc = trips.record_incident(db, CLERK, NL, rid, MONDAY, "lotacao", "46 passageiros em 44 lugares")
    incident = doc["trip"]["incidents"][0]
    assert incident["responsible"] == "Ana Responsável" and doc["trip"]["driver"] == "Pedro Motorista"


def test_incidents_recorded_by_two_clerks_at_once_are_both_kept(db, nl):
    """Art. 6: every incident answers against the responsible person; none may be lost to a race."""
    import threading

    rid = protocol.create_request(db, CLERK, NL, form(nl["association"], ServiceAsked(
        "passenger_transport", item="10", distance_km=D(300)), trip_responsible="Ana Responsável"))
    trips.record_trip(db, CLERK, NL, rid, "Ana Responsável", "52998224725", nl["pedro"], ["Ana"], "Nova Lacerda")
    errors = []

    def add(n: int) -> None:
        try:
            trips.record_incident(db, CLERK, NL, rid, MONDAY, "dano", f"Avaria {n}")
        except Exception as exc:  # noqa: BLE001 — a refusal is what this test looks for
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    assert errors == [] and sorted(i["description"] for i in doc["trip"]["incidents"]) == [f"Avaria {n}" for n in range(6)]


def test_price_update_previews_every_price_and_old_quotes_keep_their_version(db, nl, today):
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    preview = price_tables.preview_update(db, TI_NL, NL, "IPCA", "4,50", "03/2026", date(2026, 5, 1), "Decreto 030/2026")
    assert len(preview.rows) == 12 and (preview.rows[0].current, preview.rows[0].new) == (D("300.00"), D("313.50"))
    with pytest.raises(PermissionDenied):
        price_tables.save_update(db, CLERK, NL, preview)
    price_tables.save_update(db, TI_NL, NL, preview)
    assert [t.effective for t in price_tables.versions(db, CLERK, NL)] == [date(2026, 5, 1), date(2026, 3, 24)]
    assert booking_requests.get_request(db, CLERK, NL, rid)["quote"]["price_table"]["version_id"] == "2026-03-24"
    today.set(date(2026, 5, 4))
    later = protocol.create_request(db, CLERK, NL, form(nl["family"], HOURS6, requested_on=date(2026, 5, 4)))
    q = quotes.make_quote(db, CLERK, NL, later, date(2026, 5, 4))["quote"]
    assert q["price_table"]["version_id"] == "2026-05-01" and q["total"] == D("1881.00")


def test_a_clerk_of_another_municipality_is_refused(db, nl):
    other = Actor("sec.cg", "Chapada", "secretaria", ("chapada",))
    with pytest.raises(PermissionDenied):
        protocol.create_request(db, other, NL, form(nl["family"], LOADS5))


def test_a_second_request_of_loads_in_the_same_stage_waits_for_the_next(db, nl):
    ready(db, nl, nl["family"])
    again = protocol.create_request(db, CLERK, NL, form(nl["family"], ServiceAsked("earth_loads", loads=2)))
    with pytest.raises(ServiceError) as refused:  # art. 9 §1-§2: 5 already granted in stage 2026
        quotes.make_quote(db, CLERK, NL, again, MONDAY)
    assert "art. 9, §1 e §2" in refused.value.message
    later = protocol.create_request(db, CLERK, NL, form(nl["family"], ServiceAsked("earth_loads", loads=2),
                                                        stage="2026-2"))
    assert quotes.make_quote(db, CLERK, NL, later, MONDAY)["quote"]["total"] == D("300.00")


def test_a_refused_request_frees_its_machines_and_keeps_the_reason(db, nl):
    rid = ready(db, nl, nl["family"])
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["truck"], nl["pedro"])])
    with pytest.raises(ValidationFailed):
        payment.refuse_request(db, CLERK, NL, rid, " ")
    doc = payment.refuse_request(db, CLERK, NL, rid, "Desistência do solicitante")
    assert (doc["status"], doc["refusal"]["reason"]) == ("recusado", "Desistência do solicitante")
    assert "QBA1D23" in [a["identifier"] for a in schedule.free_assets(db, CLERK, NL, MONDAY).rows]


def test_completion_requires_the_executed_hours_and_keeps_the_advance(db, nl, today):
    """Issue 23 item 9 (art. 8 §2): completing without the hours worked is refused under its field,
    instead of settling 0 h and crediting back the whole advance."""
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    pay(db, upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))[0]["dam_id"])
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    with pytest.raises(ValidationFailed) as refused:
        execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"]))
    assert "item 01" in refused.value.errors["worked_hours"] and "art. 8, §2" in refused.value.errors["worked_hours"]
    doc = booking_requests.get_request(db, CLERK, NL, rid)
    assert doc["status"] == "agendado" and not doc.get("settlement")
    done = execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"],
                                                               worked_hours=(("01", D(0)),)))
    assert done["settlement"]["credit_to_return"] == D("900.00")  # 0 h stated: the whole advance returns


def test_machines_are_in_service_while_the_team_works(db, nl):
    rid = ready(db, nl, nl["farmer"], (HOURS6,))
    schedule.book(db, CLERK, NL, rid, MONDAY, [(nl["backhoe"], nl["joao"])])
    execution.start_execution(db, CLERK, NL, rid, MONDAY)
    assert entities.get(db, CLERK, "machinery_assets", NL, nl["backhoe"])["status"] == "em_servico"
    execution.complete(db, CLERK, NL, rid, ExecutionInput(MONDAY, MONDAY, nl["joao"], worked_hours=(("01", D(6)),)))
    assert entities.get(db, CLERK, "machinery_assets", NL, nl["backhoe"])["status"] == "disponivel"


def test_demo_seed_has_requests_in_every_stage(db, today):
    from seed.bookings import seed_bookings

    today.set(date(2026, 6, 1))
    seed_bookings(db)
    assert {d["status"] for d in db["booking_requests"].find({"municipality": NL})} == set(booking_requests.STATUS)
    titles = {p.title for p in pending.pending(db, CLERK, NL, date(2026, 6, 1))}
    assert {"Saldo vencido", "Aguardando vistoria técnica", "Aguardando parecer social", "A agendar"} <= titles


def test_a_requesters_zone_and_locality_are_chosen_among_the_registered_ones(db, nl):
    """Issue 22 item 6: the schedule is organised by the registered zones (art. 3, §1): "Rural" typed
    by hand is refused under its field, and the form offers the zones and localities in force."""
    from services.shared.specs import maquinas

    assert maquinas.LOCALITIES == localities.LOCALITIES
    spec = entities.spec_for(db, "machinery_requesters", NL)
    assert [v for v, _ in spec.field("zone").choices] == ["Zona Norte", "Zona Urbana"]
    assert [v for v, _ in spec.field("locality").choices] == ["Assentamento Bandeira", "Comunidade Pontal", "Centro"]
    with pytest.raises(ValidationFailed) as refused:
        entities.create(db, CLERK, "machinery_requesters", NL, {
            "name": "José Digitado", "document": "39053344705", "kind": "pf", "address": "Lote 3", "zone": "Rural",
            "locality": "Sítio do José", "standing": "nada_deve", "standing_checked_on": MONDAY})
    assert set(refused.value.errors) == {"zone", "locality"}


def test_a_refused_request_cancels_its_unpaid_dams_and_never_suspends_the_requester(db, nl, today):
    """A refused request is a service the municipality will not provide, so its price is not owed
    (art. 7: preço público of a service; LEITURAS §8): its unpaid DAMs are cancelled with the refusal's
    reason, and their due date passing never suspends the requester (art. 8 §4 speaks of a parcela
    owed). Before, the DAM stayed "emitido" and the requester was suspended the day after it fell due."""
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    payment.refuse_request(db, CLERK, NL, rid, "Estrada interditada pela Defesa Civil")
    dam = dams.get(db, CLERK, NL, full["dam_id"])
    assert dam["status"] == dams.CANCELLED and "Estrada interditada" in dam["cancel_reason"]
    today.set(dam["due_on"] + timedelta(days=1))
    assert protocol.create_request(db, CLERK, NL, form(nl["farmer"], HOURS6, requested_on=dam["due_on"] + timedelta(days=1)))
    assert [p for p in pending.pending(db, CLERK, NL, dam["due_on"] + timedelta(days=1)) if p.record_id == rid] == []


def test_a_refused_request_already_paid_keeps_the_payment_as_a_credit_to_return(db, nl):
    """Refused after its DAM was paid (LEITURAS NL 8): nothing is owed and the payment is a credit."""
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    pay(db, full["dam_id"])
    doc = payment.refuse_request(db, CLERK, NL, rid, "Máquina em manutenção por tempo indeterminado")
    [row] = ledger.request_rows(db, NL, doc)
    assert (row.open, row.credit, row.paid) == (D("0.00"), full["amount"], full["amount"])
    assert dams.get(db, CLERK, NL, full["dam_id"])["status"] == dams.PAID


def test_the_credit_of_a_refused_request_is_returned_once_and_recorded_on_its_charge(db, nl, today):
    """The credit a paid refusal leaves (LEITURAS NL 8) goes back to the requester: a refund of the
    charge (the money loop), with its day and document on the refusal; never twice, never before it."""
    rid = protocol.create_request(db, CLERK, NL, form(nl["farmer"], LOADS5))
    quotes.make_quote(db, CLERK, NL, rid, MONDAY)
    [full] = upfront(payment.issue_payment(db, CLERK, NL, rid, MONDAY))
    pay(db, full["dam_id"])
    doc = payment.refuse_request(db, CLERK, NL, rid, "Máquina em manutenção por tempo indeterminado")
    assert payment.refusal_credit(ledger.request_rows(db, NL, doc), doc) == full["amount"]
    with pytest.raises(ValidationFailed) as refused:
        payment.record_refusal_refund(db, CLERK, NL, rid, today.value, " ")
    assert "documento da devolução" in refused.value.errors["note"]
    with pytest.raises(ValidationFailed):
        payment.record_refusal_refund(db, CLERK, NL, rid, today.value - timedelta(days=1), "OP 12/2026")
    doc = payment.record_refusal_refund(db, CLERK, NL, rid, today.value, "Ordem de pagamento 12/2026")
    [row] = ledger.request_rows(db, NL, doc)
    assert (row.credit, row.paid) == (D("0.00"), D("0.00"))
    assert doc["refusal"]["credit_returned"] == full["amount"] and payment.refusal_credit([row], doc) == 0
    assert db["audit"].count_documents({"action": "refund", "note": {"$regex": "crédito devolvido"}}) == 1
    with pytest.raises(ServiceError, match="já foi devolvido"):
        payment.record_refusal_refund(db, CLERK, NL, rid, today.value, "Ordem de pagamento 12/2026")
