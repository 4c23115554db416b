"""Two years of the municipalities' other revenues collected by DAM (``outras``): licence fees
renewed at the start of the year, certificates all year round, and each town's own season (Chapada's
street trade of the Festival de Inverno in July and the summer holidays, Matupá's grain warehouses
at the soybean harvest, Nova Lacerda's cemetery fees before Finados). Each DAM is issued on its day
through the DAM service to a demo taxpayer, due 15 days later; most are paid in the days after, on
their day, and about one in twenty never is (it stays overdue, as real debts do). Each month is one
unit of work, so the two years cost a few seconds."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from seed.timeline import busy, history_start, month_starts, on, workdays
from services import store
from services.dam import dams, payments
from services.shared import entity_lists, parameters
from services.shared.auth import Actor
from services.shared.schema import ListQuery
from services.store import exists

BASIS = "Código Tributário Municipal (demonstração), {}"
BANKS = ("Banco do Brasil", "Caixa Econômica Federal", "Sicredi", "PIX")
FLAT = (1.0,) * 12
LICENCE = (1.2, 2.6, 2.2, 1.0, 0.8, 0.7, 0.7, 0.7, 0.7, 0.8, 0.7, 0.5)  # alvarás renewed in Feb and Mar
# (description, article, amount range in reais, monthly weights from January)
REVENUES = {
    "chapada": (
        ("Taxa de licença para localização e funcionamento", "art. 112", (180, 640), LICENCE),
        ("Taxa de licença para comércio eventual e ambulante", "art. 131", (60, 240),
         (1.6, 0.8, 0.6, 0.5, 0.5, 0.9, 3.4, 1.0, 0.5, 0.5, 0.6, 1.5)),  # Festival de Inverno, summer holidays
        ("Taxa de expediente: certidões e segunda via de documentos", "art. 160", (25, 90), FLAT),
    ),
    "matupa": (
        ("Taxa de licença para localização e funcionamento", "art. 98", (210, 780), LICENCE),
        ("Taxa de licença sanitária de armazéns e cerealistas", "art. 121", (320, 960),
         (1.4, 2.4, 2.2, 1.2, 0.6, 0.5, 0.5, 0.5, 0.5, 0.8, 0.9, 0.6)),  # soybean harvest
        ("Taxa de expediente: certidões e segunda via de documentos", "art. 143", (25, 90), FLAT),
    ),
    "nova_lacerda": (
        ("Taxa de licença para localização e funcionamento", "art. 87", (150, 520), LICENCE),
        ("Taxa de serviços de cemitério", "art. 109", (80, 350),
         (0.6, 0.6, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 2.6, 1.4, 0.6)),  # Finados, 2 November
        ("Taxa de expediente: certidões e segunda via de documentos", "art. 130", (25, 90), FLAT),
    ),
}
DAM_PARAMETERS_SINCE = date(2025, 1, 1)  # the demo's FEBRABAN code, revenue codes and late rates
PER_MONTH = 2.0  # DAMs of each revenue in an ordinary month
NEVER_PAID = 0.05


def loaded(db: Database, municipality: str) -> bool:
    """Whether the municipality's history is in the store (a DAM of these revenues)."""
    return exists(db[dams.COLLECTION], {"municipality": municipality, "legal_basis": {
        "$in": [BASIS.format(article) for _d, article, _a, _w in REVENUES[municipality]]}})


def seed_revenue_history(db: Database, actor: Actor, municipality: str, today: date) -> None:
    """The other revenues' DAMs of every month of the last two years before the current one (from the
    demo's DAM parameters on)."""
    rng = random.Random(f"revenue-{municipality}")
    people = entity_lists.list_all(db, actor, "taxpayers", municipality, ListQuery(sort="name"))
    if not people:
        return
    for month in month_starts(max(history_start(today), DAM_PARAMETERS_SINCE), today):
        calendar = parameters.calendar(db, municipality, month)
        with store.transaction(db):  # one unit of work per month
            for description, article, (low, high), weights in REVENUES[municipality]:
                for day in workdays(month, busy(weights, month, PER_MONTH, rng), rng, calendar):
                    _issue_and_pay(db, actor, municipality, rng, people, day, today,
                                   f"{description} (demonstração)", BASIS.format(article), (low, high))


def _issue_and_pay(db: Database, actor: Actor, municipality: str, rng: random.Random, people: list[dict],
                   day: date, today: date, description: str, basis: str, amounts: tuple[int, int]) -> None:
    payer = rng.choice(people)
    with on(day):
        dam = dams.issue(db, actor, municipality, taxpayer_name=payer["name"], taxpayer_document=payer["document"],
                         taxpayer_address=", ".join(p for p in (payer["address"], payer.get("district")) if p),
                         revenue_kind="outras", description=description, legal_basis=basis,
                         amount=Decimal(rng.randint(amounts[0] * 100, amounts[1] * 100)) / 100,
                         due=day + timedelta(days=15))
    paid_on = day + timedelta(days=rng.choice((0, 1, 2, 3, 5, 7, 9, 12)))
    if rng.random() < NEVER_PAID or paid_on >= today or paid_on > dam["due_on"]:
        return
    with on(paid_on):
        payments.record_payment(db, actor, municipality, dam["id"], paid_on, dam["amount"], rng.choice(BANKS))
