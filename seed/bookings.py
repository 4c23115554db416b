"""Demo data of the machinery module of Nova Lacerda (issue 13): zones and localities, municipal
machines and vehicles, operators and drivers, requesters, and requests in every stage.

All names are invented; CPF/CNPJ have valid check digits (generated from a fixed seed). The
requests are made through the services of ``services.machinery`` (protocol, quotes, payment, schedule,
execution, trips) as a clerk would; the stories that began weeks ago
(a balance now overdue) are replayed on their own days by setting the panel's "today" for the
duration of each step (``_on``), so every date the services check holds.
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.machinery.nova_lacerda import DECREE_IN_FORCE
from rules.params import ParameterVersion
from seed.people import cnpj, cpf, person, phone
from services.dam import payments
from services.machinery import (
    execution,
    localities,
    payment,
    protocol,
    quotes,
    schedule,
    trips,
)
from services.machinery.execution import ExecutionInput
from services.machinery.payment import ExtensionInput
from services.machinery.protocol import ClaimInput, RequestInput, ServiceAsked
from services.setup import bootstrap
from services.shared import clock, entities
from services.shared.auth import Actor

NL = "nova_lacerda"
CLERK = Actor("carga.nova_lacerda", "Carga de demonstração", "secretaria", (NL,))
LOCALITIES = [
    {"zone": "Zona Norte", "locality": "Assentamento Corixa", "area": "rural"},
    {"zone": "Zona Norte", "locality": "Comunidade Vale do Guaporé", "area": "rural"},
    {"zone": "Zona Sul", "locality": "Comunidade Pontal do Guaporé", "area": "rural"},
    {"zone": "Zona Sul", "locality": "Linha 04", "area": "rural"},
    {"zone": "Zona Urbana", "locality": "Centro", "area": "urbana"},
    {"zone": "Zona Urbana", "locality": "Jardim Primavera", "area": "urbana"},
]
ASSETS = [
    ("PAT-0101", "retroescavadeira", "JCB 3CX 2019", "horimetro", 4210),
    ("PAT-0102", "motoniveladora", "Caterpillar 120K 2016", "horimetro", 9120),
    ("PAT-0103", "pa_carregadeira", "New Holland W130 2018", "horimetro", 6330),
    ("PAT-0104", "escavadeira", "Komatsu PC160 2021", "horimetro", 2280),
    ("QBF2A17", "caminhao_basculante", "VW Constellation 26.280 2020", "odometro", 118400),
    ("QBF7C42", "caminhao_basculante", "Mercedes Atego 2426 2017", "odometro", 201300),
    ("QBG3E08", "prancha", "Scania P310 com semirreboque 2015", "odometro", 302100),
    ("QBH1J55", "onibus", "Mercedes OF-1721 Marcopolo 2014", "odometro", 401800),
    ("QBH9K21", "micro_onibus_van", "Renault Master 2022", "odometro", 61200),
]


@contextmanager
def _on(day: date) -> Iterator[None]:
    """The panel's "today" is ``day`` while the block runs (demo history only)."""
    real = clock.today
    clock.today = lambda: day
    try:
        yield
    finally:
        clock.today = real


def _registers(db: Database, rng: random.Random, today: date) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {"assets": [], "operators": [], "drivers": [], "people": [], "entities": []}
    for identifier, kind, description, meter, reading in ASSETS:
        ids["assets"].append(entities.create(db, CLERK, "machinery_assets", NL, {
            "identifier": identifier, "kind": kind, "description": description,
            "status": "em_manutencao" if identifier == "PAT-0103" else "disponivel",
            "meter_kind": meter, "meter_reading": reading}))
    for n in range(6):
        duty = "operador" if n < 4 else "motorista"
        ids["operators" if duty == "operador" else "drivers"].append(entities.create(
            db, CLERK, "machinery_operators", NL, {
                "name": person(rng), "cpf": cpf(rng), "registration": f"{2100 + n}", "duty": duty,
                "licence_category": "D" if duty == "operador" else "E",
                "licence_valid_until": date(2028, rng.randint(1, 12), 15), "active": True}))
    for n in range(10):
        place = LOCALITIES[n % len(LOCALITIES)]
        ids["people"].append(entities.create(db, CLERK, "machinery_requesters", NL, {
            "name": person(rng), "document": cpf(rng), "kind": "pf",
            "address": f"Lote {rng.randint(1, 300)}, {place['locality']}", "zone": place["zone"],
            "locality": place["locality"], "phone": phone(rng, NL),
            "standing": "em_debito" if n == 9 else "nada_deve", "standing_checked_on": today}))
    for name, place in (("Associação dos Pequenos Produtores do Corixa", LOCALITIES[0]),
                        ("Associação de Moradores do Jardim Primavera", LOCALITIES[5])):
        ids["entities"].append(entities.create(db, CLERK, "machinery_requesters", NL, {
            "name": name, "document": cnpj(rng), "kind": "entidade",
            "constitution_proof": "Estatuto registrado no Cartório de Nova Lacerda; cartão CNPJ",
            "address": f"Sede, {place['locality']}", "zone": place["zone"], "locality": place["locality"],
            "phone": phone(rng, NL), "standing": "nada_deve", "standing_checked_on": today}))
    return ids


def request_form(requester: str, on: date, *services: ServiceAsked, **changes) -> RequestInput:
    values = dict(requester_id=requester, requested_on=on, services=services,
                  justification="Conforme requerimento protocolado", identification="RG e CPF apresentados",
                  residence_proof="Conta de energia elétrica", agrees_payment_terms=True,
                  liability_declaration=True, environmental_licence="Cascalheira municipal, LO SEMA 0412/2025")
    values.update(changes)
    return RequestInput(**values)


def pay_upfront(db: Database, doc: dict, on: date) -> None:
    for inst in doc["payment"]["instalments"]:
        if inst["dam_id"] and not inst["paid_on"]:
            payments.record_payment(db, CLERK, NL, inst["dam_id"], on, inst["amount"], "Banco do Brasil")


def _requests(db: Database, ids: dict[str, list[str]], today: date) -> None:
    people, assets, ops, drivers = ids["people"], ids["assets"], ids["operators"], ids["drivers"]
    loads = ServiceAsked("earth_loads", loads=5)
    hours = ServiceAsked("machine_hours", item="01", hours=Decimal(6))
    bpc = ClaimInput("BPC", "BPC_RECEIPT", "NB 704.118.552-3")
    past = max(today - timedelta(days=40), DECREE_IN_FORCE)  # no price table before the decree
    with _on(past):  # a farmer's backhoe hours: advance paid, 7 h worked, balance now overdue
        rid = protocol.create_request(db, CLERK, NL, request_form(people[1], past, hours))
        quotes.make_quote(db, CLERK, NL, rid, past)
        pay_upfront(db, payment.issue_payment(db, CLERK, NL, rid, past), past)
        schedule.book(db, CLERK, NL, rid, past + timedelta(days=2), [(assets[0], ops[0])])
    with _on(past + timedelta(days=2)):
        day = past + timedelta(days=2)
        execution.complete(db, CLERK, NL, rid, ExecutionInput(day, day, ops[0], ((assets[0], Decimal(4203),
                                                                                 Decimal(4210)),),
                                                              worked_hours=(("01", Decimal(7)),)))
    recent = max(today - timedelta(days=10), DECREE_IN_FORCE)
    with _on(recent):  # a BPC family's 5 loads with 70% off, paid and delivered
        on = recent
        rid = protocol.create_request(db, CLERK, NL, request_form(people[0], on, loads, claims=(bpc,)))
        quotes.make_quote(db, CLERK, NL, rid, on)
        pay_upfront(db, payment.issue_payment(db, CLERK, NL, rid, on), on)
        schedule.book(db, CLERK, NL, rid, on + timedelta(days=1), [(assets[4], drivers[0])])
    with _on(recent + timedelta(days=1)):
        on = recent + timedelta(days=1)
        execution.complete(db, CLERK, NL, rid, ExecutionInput(on, on, drivers[0], loads_delivered=5))
    # awaiting the technical visit: private property
    protocol.create_request(db, CLERK, NL, request_form(people[2], today, ServiceAsked("machine_hours", item="04",
                                                                                 hours=Decimal(8)),
                                                 private_property=True, property_proof="Matrícula 3.118",
                                                 property_description="Sítio Santa Luzia"))
    # awaiting the social report
    rid = protocol.create_request(db, CLERK, NL, request_form(people[3], today, ServiceAsked("earth_loads", loads=3)))
    quotes.request_social_report(db, CLERK, NL, rid, today, "Família sem comprovante de renda")
    # awaiting quote and awaiting payment
    protocol.create_request(db, CLERK, NL, request_form(people[4], today, ServiceAsked("machine_hours", item="02",
                                                                                 hours=Decimal(5))))
    rid = protocol.create_request(db, CLERK, NL, request_form(people[5], today, ServiceAsked("earth_loads", loads=4)))
    quotes.make_quote(db, CLERK, NL, rid, today)
    payment.issue_payment(db, CLERK, NL, rid, today)
    # paid or deferred, waiting on the board (one urgent); one scheduled for tomorrow
    for n, requester in enumerate((people[6], people[7], ids["entities"][0])):
        rid = protocol.create_request(db, CLERK, NL, request_form(requester, today, ServiceAsked("earth_loads", loads=2 + n)))
        quotes.make_quote(db, CLERK, NL, rid, today)
        if requester == ids["entities"][0]:
            payment.issue_payment(db, CLERK, NL, rid, today, extension=ExtensionInput(
                "NON_PROFIT_OR_VULNERABLE", "Associação sem liquidez imediata; ofício 12/2026", 30))
        else:
            pay_upfront(db, payment.issue_payment(db, CLERK, NL, rid, today), today)
        if n == 1:
            schedule.mark_urgent(db, CLERK, NL, rid, "Estrada vicinal interditada após chuva")
    rid = protocol.create_request(db, CLERK, NL, request_form(people[8], today, ServiceAsked("machine_hours", item="02",
                                                                                       hours=Decimal(3))))
    quotes.make_quote(db, CLERK, NL, rid, today)
    pay_upfront(db, payment.issue_payment(db, CLERK, NL, rid, today), today)
    schedule.book(db, CLERK, NL, rid, today + timedelta(days=1), [(assets[1], ops[1])])
    # in execution today
    rid = protocol.create_request(db, CLERK, NL, request_form(people[2], today, ServiceAsked("machine_hours", item="01",
                                                                                       hours=Decimal(4))))
    quotes.make_quote(db, CLERK, NL, rid, today)
    pay_upfront(db, payment.issue_payment(db, CLERK, NL, rid, today), today)
    schedule.book(db, CLERK, NL, rid, today, [(assets[0], ops[2])])
    execution.start_execution(db, CLERK, NL, rid, today)
    # a bus hire with its responsible person and driver
    rid = protocol.create_request(db, CLERK, NL, request_form(ids["entities"][1], today, ServiceAsked(
        "passenger_transport", item="10", distance_km=Decimal(480)), trip_responsible="Presidente da associação",
        route="Nova Lacerda – Vila Bela da Santíssima Trindade"))
    trips.record_trip(db, CLERK, NL, rid, "Rosana Prado Lima", "52998224725", drivers[1],
                      ["Rosana Prado Lima", "Grupo de dança (28 pessoas)"], "Nova Lacerda – Vila Bela (ida e volta)")
    # a requester in debt (art. 2 §1), refused with the reason
    rid = protocol.create_request(db, CLERK, NL, request_form(people[9], today, ServiceAsked("earth_loads", loads=2)))
    payment.refuse_request(db, CLERK, NL, rid, "Solicitante em débito com o Município (Decreto 017/2026, art. 2, §1)")


def seed_bookings(db: Database) -> None:
    """Load the machinery demo of Nova Lacerda once (skipped when assets already exist)."""
    bootstrap.ensure_parameter(db, NL, ParameterVersion(
        localities.LOCALITIES, date(2026, 3, 24), LOCALITIES, "Demonstração (zonas do cronograma regionalizado)",
        "Zonas e localidades fictícias — a TI cadastra as reais"))
    if db["machinery_assets"].count_documents({"municipality": NL}) > 0:
        return
    today = clock.today()
    _requests(db, _registers(db, random.Random(17), today), today)
