"""Nova Lacerda's machinery months since Decreto 017/2026 came into force (24/03/2026), replayed day
by day through the machinery services: every month its requests for gravel loads and grader hours on
the rural roads and properties (few in the rains, most in the dry season, May to September), each
quoted (one in five with the BPC discount), paid upfront, booked from five days to three weeks later
and executed on its day with the meters read (each machine's last reading is the one in its register);
the balance of the hours is paid in the days after.

Runs after the demo's scenario of today (``seed.bookings``), on the same registers; each month is one
unit of work."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.machinery.nova_lacerda import DECREE_IN_FORCE
from seed.bookings import CLERK, NL, pay_upfront, request_form
from seed.timeline import busy, month_starts, on, workdays
from services import store
from services.dam import payments
from services.machinery import execution, payment, protocol, quotes, schedule
from services.machinery.execution import ExecutionInput
from services.machinery.protocol import ClaimInput, ServiceAsked
from services.shared import clock, entity_lists, parameters
from services.shared.schema import ListQuery

DRY_SEASON = (0.3, 0.3, 0.5, 0.8, 1.2, 1.5, 1.6, 1.6, 1.3, 0.9, 0.5, 0.3)  # requests per month from January
HOURS_ASSETS = ("PAT-0102", "PAT-0104")  # grader (item 02) and excavator (item 04): hours with the meter
LOADS_ASSETS = ("QBF2A17", "QBF7C42")  # dump trucks (item 12, gravel loads)
ITEM = {"PAT-0102": "02", "PAT-0104": "04"}
BPC = ClaimInput("BPC", "BPC_RECEIPT", "NB 704.118.552-3")


def _registers(db: Database) -> tuple[list[dict], dict[str, dict], list[dict], list[dict]]:
    def rows(collection: str, sort: str = "name") -> list[dict]:
        return entity_lists.list_all(db, CLERK, collection, NL, ListQuery(sort=sort))

    requesters = [r for r in rows("machinery_requesters") if r.get("standing") != "em_debito"]
    assets = {a["identifier"]: a for a in rows("machinery_assets", "identifier")}
    operators = rows("machinery_operators")
    return (requesters, assets, [o for o in operators if o["duty"] == "operador"],
            [o for o in operators if o["duty"] == "motorista"])


def _plan(db: Database, rng: random.Random, today: date) -> list[tuple[date, date, str, int]]:
    """(request day, execution day, asset identifier, hours or loads) of every month's requests."""
    jobs = []
    for month in month_starts(DECREE_IN_FORCE, today):
        calendar = parameters.calendar(db, NL, month)
        for asked in workdays(month, busy(DRY_SEASON, month, 5, rng), rng, calendar, not_before=DECREE_IN_FORCE):
            done = calendar.next_business_day(asked + timedelta(days=rng.randint(5, 21)))
            if done >= today:
                continue
            asset = rng.choice(HOURS_ASSETS + LOADS_ASSETS)
            jobs.append((asked, done, asset, rng.randint(3, 8) if asset in ITEM else rng.randint(2, 5)))
    return jobs


def seed_bookings_history(db: Database, today: date) -> None:
    """The requests of every month from the decree's to the one before today's (skipped without the
    machinery registers)."""
    requesters, assets, operators, drivers = _registers(db)
    if not requesters or not set(HOURS_ASSETS + LOADS_ASSETS) <= set(assets):
        return
    rng = random.Random("bookings-nova_lacerda")
    jobs = _plan(db, rng, today)
    readings = {code: Decimal(assets[code]["meter_reading"]) for code in HOURS_ASSETS}
    for _asked, _done, code, amount in jobs:  # backwards from the register's reading
        if code in readings:
            readings[code] -= amount
    taken = {(date.fromisoformat(row["day"]), key)  # the scenario's bookings hold their machines and crews
             for row in db[schedule.BOOKINGS].find({"municipality": NL}, {"day": 1, "asset": 1, "operator_id": 1})
             for key in (row["asset"], row["operator_id"])}
    for month in month_starts(DECREE_IN_FORCE, today):
        loaded: set[str] = set()  # art. 9 §1: up to 5 loads a stage (here a month of the schedule) per requester
        with store.transaction(db):  # one unit of work per month
            for asked, done, code, amount in (job for job in jobs if job[0].replace(day=1) == month):
                crew = rng.choice(operators if code in ITEM else drivers)
                while (done, code) in taken or (done, crew["id"]) in taken:
                    done = parameters.calendar(db, NL, done).next_business_day(done + timedelta(days=1))
                if done >= today:
                    continue
                taken |= {(done, code), (done, crew["id"])}
                start = readings.get(code)
                if start is not None:
                    readings[code] = start + amount
                requester = rng.choice([r["id"] for r in requesters if code in ITEM or r["id"] not in loaded])
                if code not in ITEM:
                    loaded.add(requester)
                _job(db, rng, requester, asked, done, assets[code]["id"], crew["id"], code, amount, start)


def _job(db: Database, rng: random.Random, requester: str, asked: date, done: date, asset: str, crew: str,
         code: str, amount: int, start: Decimal | None) -> None:
    service = (ServiceAsked("machine_hours", item=ITEM[code], hours=Decimal(amount)) if code in ITEM
               else ServiceAsked("earth_loads", loads=amount))
    claims = (BPC,) if rng.random() < 0.2 else ()
    with on(asked):
        rid = protocol.create_request(db, CLERK, NL, request_form(requester, asked, service, claims=claims,
                                                                  stage=f"Cronograma de {asked:%m/%Y}"))
        quotes.make_quote(db, CLERK, NL, rid, asked)
        doc = payment.issue_payment(db, CLERK, NL, rid, asked)
    paid = asked + timedelta(days=rng.randint(0, 3))
    with on(paid):
        pay_upfront(db, doc, paid)
        schedule.book(db, CLERK, NL, rid, done, [(asset, crew)])
    with on(done):
        if start is None:
            report = ExecutionInput(done, done, crew, loads_delivered=amount)
        else:
            report = ExecutionInput(done, done, crew, meters=((asset, start, start + amount),),
                                    worked_hours=((ITEM[code], Decimal(amount)),))
        doc = execution.complete(db, CLERK, NL, rid, report)
    settled = done + timedelta(days=rng.randint(1, 10))  # the balance of the hours (art. 8, §2), due in 15 days
    balance = doc.get("settlement") or {}
    if balance.get("dam_id") and settled < clock.today():
        with on(settled):
            payments.record_payment(db, CLERK, NL, balance["dam_id"], settled, balance["amount_due"], "Banco do Brasil")
