"""Demo ride-hailing data for Chapada dos Guimarães and Matupá: drivers, vehicles, authorizations.

Every record goes through the services, so each authorization reaches its state by the same
events a clerk would record: requested, refused with the law's reasons, awaiting inspection
(in time and late), blocked after a failed vistoria, awaiting the fee (with and without a DAM, and
one paid R$ 30,00 short), active (issued by a paid DAM), called to an extraordinary vistoria, renewal requested, suspended, cassada, revoked and expired, plus
drivers and vehicles the law does not admit (11-year-old car, two doors, CNH expired, gravíssima
infraction, no residence, expired certificate, relative's car in Matupá), and the platforms'
credentialing dates, lists and monthly ISSQN (one list late, one month unpaid), and changes of
data reported in time, late and never.

Authorizations paid before today are loaded as history: their fee payment is told to the same
handler a paid DAM calls (the DAM module issues DAMs dated today only). Dates count back from
today, so the work queue always has something due. CPFs, plates and RENAVAMs have valid check digits.
"""
from __future__ import annotations

import random
import string
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.params import ParameterVersion
from rules.ridehailing.concepts import EventKind
from seed.people import DISTRICTS, STREETS, cpf, person, phone
from seed.timeline import on
from services.dam import payments
from services.ridehailing import authorizations, fees, inspections, registry
from services.ridehailing import changes as ridehailing_changes
from services.ridehailing import platforms as ridehailing_platforms
from services.setup import bootstrap
from services.shared import clock, entities, entity_lists, parameters, schema
from services.shared.auth import Actor

FEE = Decimal("180.00")
DEMO_ACT = "Valor fictício para demonstração"
CREDENTIALED_DAYS_AGO = 100  # demo platforms: a few months of lists and ISSQN keep the seed quick
CARS = [("Chevrolet", "Onix Plus", 5), ("Fiat", "Cronos", 5), ("Hyundai", "HB20S", 5), ("Volkswagen", "Virtus", 5),
        ("Toyota", "Corolla", 5), ("Renault", "Logan", 5), ("Nissan", "Versa", 5), ("Chevrolet", "Spin", 7)]
COLORS = ["Prata", "Branco", "Preto", "Cinza", "Vermelho"]
DOCUMENTS = {
    "chapada": ("cnh", "inss", "criminal", "municipal_tax", "medical", "residence", "platform_declaration",
                "vehicle_plate"),
    "matupa": ("cnh", "platform_declaration", "inss", "criminal", "medical", "residence", "vehicle_plate",
               "municipal_tax", "garage"),
}


def plate(rng: random.Random) -> str:
    """A Mercosul plate (AAA9A99)."""
    letters = string.ascii_uppercase
    return (f"{''.join(rng.choice(letters) for _ in range(3))}{rng.randint(0, 9)}"
            f"{rng.choice(letters)}{rng.randint(10, 99)}")


def renavam(rng: random.Random) -> str:
    """An 11-digit RENAVAM with its check digit."""
    base = f"{rng.randint(1, 9)}{rng.randint(0, 10**9 - 1):09d}"
    total = sum(int(d) * w for d, w in zip(reversed(base), [2, 3, 4, 5, 6, 7, 8, 9, 2, 3]))
    check = 11 - total % 11
    return base + str(0 if check >= 10 else check)


def driver_values(rng: random.Random, municipality: str, on: date, **changes) -> dict:
    """An eligible driver on ``on``; ``changes`` make him fail one requirement."""
    return {
        "name": person(rng), "cpf": cpf(rng),
        "address": f"{rng.choice(STREETS)}, {rng.randint(10, 1999)}",
        "district": rng.choice(DISTRICTS[municipality]), "resides_in_municipality": True,
        "phone": phone(rng, municipality), "cnh_number": f"0{rng.randint(10**9, 10**10 - 1)}",
        "cnh_category": rng.choice(["B", "AB", "B", "AB", "D"]),
        "cnh_first_license": date(on.year - rng.randint(3, 20), rng.randint(1, 12), rng.randint(1, 28)),
        "cnh_valid_until": on + timedelta(days=rng.randint(200, 1500)), "cnh_ear": True,
        "inss_number": f"{rng.randint(10**10, 10**11 - 1)}", "inss_enrolled": True,
        "exclusive_platform_declaration": True, "fit_for_duty": True,
        "disqualifying_criminal_record": False, "ctb_303_306_record": False, **changes,
    }


def vehicle_values(rng: random.Random, driver_cpf: str, on: date, **changes) -> dict:
    make, model, seats = rng.choice(CARS)
    year = on.year - rng.randint(0, 8)
    return {
        "plate": plate(rng), "renavam": renavam(rng), "make": make, "model": model, "model_year": year,
        "color": rng.choice(COLORS), "doors": 4, "seats": seats, "air_conditioning": True,
        "plated_in_municipality": True, "driver_cpf": driver_cpf, "holder": "owner",
        "first_registration": min(on, date(year - 1, 12, 1) if rng.random() < 0.3  # licensed by the request
                                  else date(year, rng.randint(1, 12), 5)),
        "dpvat_paid": True, "licensing_valid": True, "ipva_paid": True, "garage_proof": True,
        "garage_address": "Garagem da residência", **changes,
    }


def add_documents(db: Database, actor: Actor, municipality: str, driver_cpf: str, issued_on: date,
                  missing: tuple[str, ...] = ()) -> None:
    """The documents of the municipality's checklist, issued on ``issued_on``."""
    for code in DOCUMENTS[municipality]:
        if code not in missing:
            entities.create(db, actor, "driver_documents", municipality,
                            {"driver_cpf": driver_cpf, "code": code, "issued_on": issued_on})


def register(db: Database, actor: Actor, municipality: str, rng: random.Random, protocol: date,
             driver: dict | None = None, vehicle: dict | None = None, missing: tuple[str, ...] = ()) -> tuple[str, str]:
    """A driver with his documents and his vehicle; returns (CPF, plate)."""
    platforms = [r["cnpj"] for r in db["platforms"].find({"municipality": municipality, "status": "ativo"})]
    platform = {"platform_cnpj": rng.choice(sorted(platforms))} if platforms else {}
    values = driver_values(rng, municipality, protocol, **{**platform, **(driver or {})})
    entities.create(db, actor, "drivers", municipality, values)
    add_documents(db, actor, municipality, values["cpf"], protocol - timedelta(days=10), missing)
    car = vehicle_values(rng, values["cpf"], protocol, **(vehicle or {}))
    entities.create(db, actor, "vehicles", municipality, car)
    return values["cpf"], car["plate"]


def passing(municipality: str) -> dict[str, bool]:
    return {item.code: True for item in registry.rules_of(municipality).inspection_items}


def paid_earlier(db: Database, actor: Actor, municipality: str, auth_id: str, paid_on: date) -> None:
    """History loaded into the panel: the fee paid on ``paid_on``, before the panel, issues it."""
    fees.record_earlier_payment(db, actor, municipality, auth_id, paid_on)


def _flow(db: Database, actor: Actor, municipality: str, rng: random.Random, protocol: date, until: str,
          **register_args) -> str:
    """A request taken through the flow up to ``until`` with plausible dates after ``protocol``: "active"
    is issued and kept in force by its renewals, "expired" is issued and left to lapse."""
    driver_cpf, car = register(db, actor, municipality, rng, protocol, **register_args)
    auth = authorizations.request_authorization(db, actor, municipality, driver_cpf, car, protocol)
    if until == "requested":
        return auth
    if until == "refused":
        authorizations.refuse(db, actor, municipality, auth, protocol + timedelta(days=3))
        return auth
    authorizations.approve(db, actor, municipality, auth, protocol + timedelta(days=2))
    if until == "approved":
        return auth
    inspected = protocol + timedelta(days=4)
    if until == "failed":
        answers = {**passing(municipality), "I": False}
        inspections.record_inspection(db, actor, municipality, auth, inspected, answers, "Vistoriador de demonstração",
                                      "Pneus dianteiros desgastados")
        return auth
    inspections.record_inspection(db, actor, municipality, auth, inspected, passing(municipality),
                                  "Vistoriador de demonstração")
    if until == "inspected":
        return auth
    paid_earlier(db, actor, municipality, auth, protocol + timedelta(days=6))
    if until != "expired":
        _kept_in_force(db, actor, municipality, auth, protocol + timedelta(days=6))
    return auth


def _kept_in_force(db: Database, actor: Actor, municipality: str, auth_id: str, paid_on: date) -> None:
    """An authorization whose validity ended before today (in Chapada, one paid in an earlier year ends on
    31 December: art. 9 §1) was renewed by its holder in time (art. 9 §2): asked up to 30 days before the
    end, on a business day, its DAM issued and paid that day, each on its own day."""
    scope, today = registry.Scope(db, municipality), clock.today()
    while (end := scope.state(authorizations.get_authorization(db, actor, municipality, auth_id),
                              paid_on).valid_until) is not None and end < today:
        earliest = max(paid_on, end - timedelta(days=30))
        ask = parameters.calendar(db, municipality, earliest).next_business_day(earliest)
        ask = ask if ask <= end else earliest
        with on(ask):
            fees.request_renewal(db, actor, municipality, auth_id, ask)
            dam = fees.issue_fee_dam(db, actor, municipality, auth_id, ask)
            payments.record_payment(db, actor, municipality, dam["id"], ask, dam["amount"], "Banco do Brasil")
        paid_on = ask


def _seed_changes(db: Database, actor: Actor, municipality: str, rng: random.Random, today: date,
                  auth_ids: list[str]) -> None:
    """Data changes of drivers already in the flow: reported in time, reported late, never reported."""
    for auth_id, days_ago, reported_after in zip(auth_ids, (12, 40, 20), (3, 15, None)):
        doc = authorizations.get_authorization(db, actor, municipality, auth_id)
        changed_on = today - timedelta(days=days_ago)
        reported_on = changed_on + timedelta(days=reported_after) if reported_after is not None else None
        if days_ago == 40:
            vehicle = registry.vehicle_record(db, municipality, doc["plate"])
            ridehailing_changes.record_change(db, actor, municipality, "vehicles", vehicle["id"],
                                              {"color": "Azul"}, changed_on, reported_on,
            expected_version=entities.get(db, actor, "vehicles", municipality, vehicle["id"])["version"])
            continue
        driver = registry.driver_record(db, municipality, doc["driver_cpf"])
        ridehailing_changes.record_change(db, actor, municipality, "drivers", driver["id"],
                                          {"address": f"{rng.choice(STREETS)}, {rng.randint(10, 1999)}"},
                                          changed_on, reported_on,
            expected_version=entities.get(db, actor, "drivers", municipality, driver["id"])["version"])


def _seed_municipality(db: Database, actor: Actor, municipality: str, rng: random.Random, today: date,
                       first_day: date) -> None:
    def back(days: int) -> date:
        return max(today - timedelta(days=days), first_day)

    active = [_flow(db, actor, municipality, rng, back(days), "active") for days in (200, 150, 120, 90, 60, 45)]
    renewing = _flow(db, actor, municipality, rng, back(100), "active")
    fees.request_renewal(db, actor, municipality, renewing, today)
    fees.issue_fee_dam(db, actor, municipality, renewing, today)
    paid_now = _flow(db, actor, municipality, rng, back(12), "inspected")
    dam = fees.issue_fee_dam(db, actor, municipality, paid_now, today)
    payments.record_payment(db, actor, municipality, dam["id"], today, dam["amount"], "Banco do Brasil")
    awaiting_fee = _flow(db, actor, municipality, rng, back(9), "inspected")
    fees.issue_fee_dam(db, actor, municipality, awaiting_fee, today)
    paid_short = _flow(db, actor, municipality, rng, back(10), "inspected")
    dam = fees.issue_fee_dam(db, actor, municipality, paid_short, today)
    payments.record_payment(db, actor, municipality, dam["id"], today, dam["amount"] - Decimal("30.00"), "Caixa")
    _flow(db, actor, municipality, rng, back(7), "inspected")
    _flow(db, actor, municipality, rng, back(3), "approved")
    _flow(db, actor, municipality, rng, back(15), "approved")
    _flow(db, actor, municipality, rng, back(6), "failed")
    _flow(db, actor, municipality, rng, back(1), "requested")
    _flow(db, actor, municipality, rng, back(2), "requested", vehicle={"model_year": today.year - 11})
    _flow(db, actor, municipality, rng, back(20), "refused", driver={"resides_in_municipality": False})
    _flow(db, actor, municipality, rng, back(25), "refused", vehicle={"doors": 2, "air_conditioning": False})
    infraction = back(40)
    cpf_grav, _ = register(db, actor, municipality, rng, back(30))
    entities.create(db, actor, "traffic_infractions", municipality, {
        "driver_cpf": cpf_grav, "committed_on": infraction, "severity": "gravissima",
        "description": "Avançar o sinal vermelho (CTB art. 208)"})
    called = _flow(db, actor, municipality, rng, back(110), "active")
    inspections.call_inspection(db, actor, municipality, called, today - timedelta(days=2),
                                "Denúncia de passageiro sobre o estado dos pneus (demonstração)")
    suspended = _flow(db, actor, municipality, rng, back(130), "active")
    authorizations.record_sanction(db, actor, municipality, suspended, EventKind.SUSPENDED, today - timedelta(days=10),
                                today + timedelta(days=19), "Suspensão de 30 dias (demonstração)")  # 30 days, both ends counted
    cassada = _flow(db, actor, municipality, rng, back(140), "active")
    authorizations.record_sanction(db, actor, municipality, cassada, EventKind.CASSADA, today - timedelta(days=20),
                                note="Cassação após processo administrativo (demonstração)")
    _seed_changes(db, actor, municipality, rng, today, active[:3])
    register(db, actor, municipality, rng, today, driver={"cnh_valid_until": today - timedelta(days=15)})
    register(db, actor, municipality, rng, today, missing=("criminal",))
    if municipality == "matupa":
        _flow(db, actor, municipality, rng, back(5), "requested", vehicle={"holder": "spouse_or_relative",
                                                                           "relative_degree": 1})
        _flow(db, actor, municipality, rng, back(8), "requested", driver={"cnh_ear": False})
        _flow(db, actor, municipality, rng, date(2025, 9, 10), "expired")  # 12 months ended


def _seed_platforms(db: Database, actor: Actor, municipality: str, today: date, first_day: date) -> None:
    """Credentialing dates, lists and ISSQN of the demo platforms (by name): the first up to date, the
    second with its list late, the third with its first month of ISSQN missing."""
    rules = registry.rules_of(municipality)
    calendar = parameters.calendar(db, municipality, today)
    rows = entity_lists.list_all(db, actor, "platforms", municipality, schema.ListQuery(sort="name"))
    credentialed = max(first_day, today - timedelta(days=CREDENTIALED_DAYS_AGO))
    for index, row in enumerate(rows):
        entities.update(db, actor, "platforms", municipality, row["id"],
                        {"credentialed_on": credentialed, "insurance_valid_from": credentialed},
            expected_version=entities.get(db, actor, "platforms", municipality, row["id"])["version"])
        sent, lists = credentialed, []
        while True:
            sent = rules.list_period.next_due(sent, calendar) - timedelta(days=2)
            if sent > today - timedelta(days=(90 if index == 1 else 0)):
                break
            lists.append(sent)
        for day in lists:
            ridehailing_platforms.add_report(db, actor, municipality, row["cnpj"], "lista", day, "Protocolo digital")
        month = credentialed.replace(day=1)
        while month < today.replace(day=1):
            if not (index == 2 and month == credentialed.replace(day=1)):
                ridehailing_platforms.add_report(db, actor, municipality, row["cnpj"], "issqn", month,
                                                 "Guia de ISSQN")
            month = (month + timedelta(days=32)).replace(day=1)


def seed_fee(db: Database) -> None:
    """The fictitious demo fee of both municipalities (idempotent)."""
    for code in ("chapada", "matupa"):
        bootstrap.ensure_parameter(db, code, ParameterVersion(
            fees.FEE_PARAMETER, date(2025, 1, 1), FEE, DEMO_ACT,
            "Taxa de autorização do transporte por aplicativo — substituir pelo valor do Código Tributário"))


def seed_ridehailing(db: Database) -> None:
    """Load the demo fee and, once (skipped when drivers already exist), the demo ride-hailing records."""
    seed_fee(db)
    if db["drivers"].count_documents({}) > 0:
        return
    rng = random.Random(5)
    today = clock.today()
    first_days = {"chapada": date(2026, 1, 8), "matupa": date(2025, 8, 29)}
    for code in ("chapada", "matupa"):
        actor = Actor(f"carga.{code}", "Carga de demonstração", "secretaria", (code,))
        _seed_municipality(db, actor, code, rng, today, first_days[code])
        _seed_platforms(db, actor, code, today, first_days[code])
