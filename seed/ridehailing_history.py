"""The ride-hailing months since each act came into force (Matupá: Lei 1.552/2025, from 28/08/2025;
Chapada: Decreto 06/2026, from 07/01/2026), replayed day by day through the services: every month
its requests (a wave in the first months, then a few a month, more in July's tourist season and the
summer holidays), each approved, inspected (one in eight fails and comes back fixed five days later)
and issued once its fee DAM is paid; one in ten refused. In Matupá, where an authorization lasts 12
months, the annual vistoria and the renewal with its fee DAM at each anniversary (one in eight lets it
expire); in Chapada, valid until 31 December, the renewals requested in November. Every month from the
second, a few autos on authorized drivers, each on a different one: notified, decided after the
defence period (one in six annulled) and its fine DAM issued, most of them paid.

Runs after the demo's scenario of today (``seed.ridehailing``, ``seed.enforcement``), on drivers of its
own, so the scenario's stories stay as they are. Each month is one unit of work."""
from __future__ import annotations

import random
from datetime import date, timedelta

from pymongo.database import Database

from rules.calendar import add_months
from rules.ridehailing.lifecycle import Status
from seed.ridehailing import passing, register
from seed.timeline import busy, month_starts, on, workdays
from services import store
from services.dam import payments
from services.ridehailing import authorizations, fees, inspections, registry
from services.ridehailing.enforcement import lavratura, penalties, process
from services.ridehailing.enforcement.auto_input import AutoInput
from services.shared import parameters
from services.shared.auth import Actor

FIRST_DAYS = {"chapada": date(2026, 1, 8), "matupa": date(2025, 8, 29)}
# requests per month from January (tourist season in July, summer holidays) and the wave after the act
REQUESTS = (1.3, 1.0, 1.0, 0.9, 0.8, 0.9, 1.5, 1.1, 0.9, 0.9, 1.0, 1.3)
WAVE = (5, 3, 2)  # more requests in the act's first three months
AUTOS = (1.2, 1.0, 1.0, 0.9, 0.9, 1.0, 1.6, 1.2, 0.9, 0.9, 1.0, 1.3)
CODES = {"chapada": ("CG-18-VI", "CG-18-XIV", "CG-18-VIII", "CG-29-VI", "CG-18-XI", "CG-29-I"),
         "matupa": ("MP-12-VII", "MP-12-XV", "MP-12-XII", "MP-12-VI", "MP-12-IX", "MP-12-XX")}
PLACES = ("Avenida principal, em frente à rodoviária", "Praça da Matriz", "Rua do Comércio, 210", "Posto de combustíveis da saída norte")
BANKS = ("Banco do Brasil", "Caixa Econômica Federal", "Sicredi", "PIX")
INSPECTOR = "Vistoriador de demonstração"
AUTHORITY = "Secretário(a) Municipal de Finanças"


def _business(calendar, day: date) -> date:
    return calendar.next_business_day(day)


def _pay(db: Database, actor: Actor, municipality: str, dam: dict, day: date, rng: random.Random) -> None:
    with on(day):
        payments.record_payment(db, actor, municipality, dam["id"], day, dam["amount"], rng.choice(BANKS))


def _request(db: Database, actor: Actor, municipality: str, rng: random.Random, protocol: date, last: date,
             calendar) -> str | None:
    """One request from its protocol to the authorization issued by the fee paid, each step on its day
    (stops at the step whose day is after ``last``); None when refused."""
    refused = rng.random() < 0.1
    with on(protocol):
        driver, plate = register(db, actor, municipality, rng, protocol,
                                 driver={"resides_in_municipality": False} if refused else None)
        auth = authorizations.request_authorization(db, actor, municipality, driver, plate, protocol)
    decided = _business(calendar, protocol + timedelta(days=2))
    with on(decided):
        if refused:
            authorizations.refuse(db, actor, municipality, auth, decided)
            return None
        authorizations.approve(db, actor, municipality, auth, decided)
    inspected = _business(calendar, decided + timedelta(days=2))
    if rng.random() < 0.125 and inspected + timedelta(days=5) <= last:
        with on(inspected):
            inspections.record_inspection(db, actor, municipality, auth, inspected,
                                          {**passing(municipality), "I": False}, INSPECTOR, "Pneus desgastados")
        inspected = _business(calendar, inspected + timedelta(days=5))
    if inspected > last:
        return None
    with on(inspected):
        inspections.record_inspection(db, actor, municipality, auth, inspected, passing(municipality), INSPECTOR)
        dam = fees.issue_fee_dam(db, actor, municipality, auth, inspected)
    paid = inspected + timedelta(days=rng.choice((0, 1, 2, 3, 5, 8)))
    if paid <= last:
        _pay(db, actor, municipality, dam, paid, rng)
    return auth


def _anniversaries(db: Database, actor: Actor, municipality: str, rng: random.Random, month: date, last: date,
                   issued: list[str], calendar) -> None:
    """The month's annual vistorias and renewals of the authorizations issued earlier (their fee paid)."""
    scope = registry.Scope(db, municipality)
    for auth in issued:
        doc = authorizations.get_authorization(db, actor, municipality, auth)
        state = scope.state(doc, month)
        if state.status is not Status.ACTIVE or not state.valid_until or fees.pending_renewal(doc):
            continue
        if municipality == "chapada":
            if month.month != 11 or rng.random() < 0.4:
                continue
            ask = _business(calendar, month + timedelta(days=rng.randint(2, 20)))
        else:
            expiry = state.valid_until
            if not month <= expiry - timedelta(days=20) < add_months(month, 1) or rng.random() < 0.125:
                continue
            ask = _business(calendar, expiry - timedelta(days=20))
            with on(ask):  # the annual vistoria falls due a year after the first one: done with the renewal
                inspections.record_inspection(db, actor, municipality, auth, ask, passing(municipality), INSPECTOR)
        if ask > last:
            continue
        with on(ask):
            fees.request_renewal(db, actor, municipality, auth, ask)
            dam = fees.issue_fee_dam(db, actor, municipality, auth, ask)
        paid = ask + timedelta(days=rng.choice((1, 2, 4, 6)))
        if paid <= last:
            _pay(db, actor, municipality, dam, paid, rng)


def _auto(db: Database, actor: Actor, municipality: str, rng: random.Random, driver: str, day: date, last: date,
          calendar) -> None:
    """An auto lavrado on ``day``: notified, decided after the defence period, its fine DAM issued and
    (most) paid, each on its day up to ``last``."""
    with on(day):
        auto = lavratura.lavrar(db, actor, municipality, AutoInput(
            target_kind="driver", driver_cpf=driver, infraction_code=rng.choice(CODES[municipality]),
            facts="Constatado pelo agente em fiscalização de rotina (demonstração)", committed_on=day, auto_on=day,
            time=f"{rng.randint(7, 21):02d}:{rng.choice(('05', '20', '40'))}", place=rng.choice(PLACES),
            agent_registration=f"AF-{rng.randint(40, 44):04d}", agent_name="Agente Fiscal (demonstração)"))
    juntada = day + timedelta(days=6)
    if juntada > last:
        return
    with on(juntada):
        process.notify(db, actor, municipality, auto, method="post", sent_on=day + timedelta(days=2),
                       received_on=day + timedelta(days=5), juntada_on=juntada)
    decided = _business(calendar, calendar.add_days(juntada, 30) + timedelta(days=1))
    if decided > last:
        return
    annulled = rng.random() < 1 / 6
    with on(decided):
        process.decide(db, actor, municipality, auto, outcome="anulado" if annulled else "mantido",
                       decided_on=decided, authority=AUTHORITY,
                       reasons="Identificação do veículo divergente no auto (demonstração)" if annulled
                       else "Fatos comprovados pelo relatório e pelas fotos do agente (demonstração)")
    if annulled:
        return
    for extra in range(0, 40):  # the fine is due once the decision may be applied (its appeal term)
        issued = _business(calendar, decided + timedelta(days=extra))
        if issued > last:
            return
        with on(issued):
            try:
                dam = penalties.issue_fine_dam(db, actor, municipality, auto)
                break
            except penalties.PenaltyNotYet:
                continue
    else:
        return
    paid = issued + timedelta(days=rng.choice((2, 5, 9, 14)))
    if rng.random() < 0.8 and paid <= last and paid <= dam["due_on"]:
        _pay(db, actor, municipality, dam, paid, rng)


def seed_ridehailing_history(db: Database, actor: Actor, municipality: str, today: date) -> None:
    """Every month from the act's first to the one before today's (once: skipped without the scenario)."""
    rng = random.Random(f"ridehailing-{municipality}")
    first = FIRST_DAYS[municipality]
    last = today - timedelta(days=1)
    issued: list[str] = []
    fined: set[str] = set()
    for index, month in enumerate(month_starts(first, today)):
        calendar = parameters.calendar(db, municipality, month)
        with store.transaction(db):  # one unit of work per month
            _anniversaries(db, actor, municipality, rng, month, last, issued, calendar)
            count = busy(REQUESTS, month, 2.5, rng) + (WAVE[index] if index < len(WAVE) else 0)
            for day in workdays(month, count, rng, calendar, not_before=first):
                auth = _request(db, actor, municipality, rng, day, last, calendar)
                if auth:
                    issued.append(auth)
            if index == 0:
                continue
            scope = registry.Scope(db, municipality)
            for day in workdays(month, busy(AUTOS, month, 3, rng), rng, calendar):
                drivers = [doc["driver_cpf"] for doc in (authorizations.get_authorization(db, actor, municipality, a)
                                                         for a in issued)
                           if doc["driver_cpf"] not in fined and scope.state(doc, day).status is Status.ACTIVE]
                if drivers:
                    fined.add(driver := rng.choice(drivers))
                    _auto(db, actor, municipality, rng, driver, day, last, calendar)
