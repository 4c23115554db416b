"""Demo store: demo users for each role and invented records for the three municipalities.

Every CPF, CNPJ and plate is generated with valid check digits from a fixed random seed; names
are invented (``seed.people``). Demo users exist only in a store marked as demo. This module runs
the others: documents, ride-hailing, forms, enforcement, platform obligations and bookings (the
scenario of today), then the two years before it (``revenue_history``, ``ridehailing_history``,
``bookings_history``).
"""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from pymongo.database import Database

from rules.dam import parameters as dam_parameters
from rules.params import ParameterVersion
from seed import (
    bookings,
    bookings_history,
    documents,
    enforcement,
    forms,
    platform_obligations,
    portal_accounts,
    revenue_history,
    ridehailing,
    ridehailing_history,
)
from seed.municipalities import DEMO_ACT, seed_demo_parameters
from seed.people import DISTRICTS, STREETS, cnpj, cpf, person, phone
from services.dam import dams, payments
from services.setup import bootstrap
from services.shared import clock, entities, entity_lists, views
from services.shared.accounts import create_user
from services.shared.auth import SYSTEM, Actor
from services.shared.errors import Conflict
from services.shared.schema import ListQuery
from services.store import exists

DEMO_PASSWORD = "painel2026"
ALL = ["chapada", "matupa", "nova_lacerda"]
DEMO_USERS = [
    ("secretaria.chapada", "Ana Paula Ribeiro (Secretaria - Chapada)", "secretaria", ["chapada"]),
    ("secretaria.matupa", "Carlos Henrique Dias (Secretaria - Matupá)", "secretaria", ["matupa"]),
    ("secretaria.novalacerda", "Juliana Moraes (Secretaria - Nova Lacerda)", "secretaria", ["nova_lacerda"]),
    ("gabinete", "Gabinete do Prefeito (demonstração)", "gabinete", ALL),
    ("ti", "TI Municipal (demonstração)", "ti", ALL),
]

PLATFORMS = [("MoveJá Mobilidade Ltda", "movejá"), ("Rota Certa Transportes Digitais S.A.", "rotacerta"),
             ("Chama Aí Tecnologia Ltda", "chamaai")]


def seed_demo(db: Database) -> list[tuple[str, str, str]]:
    """Fill a demo store (idempotent). Returns the demo users as (username, role, password)."""
    bootstrap.prepare(db)
    bootstrap.mark_store(db, "demo")
    if bootstrap.store_kind(db) != "demo":
        raise SystemExit("Este armazenamento é de produção: dados de demonstração não são carregados nele.")
    seed_demo_parameters(db)
    documents.seed_documents(db)
    for username, name, role, municipalities in DEMO_USERS:
        try:
            create_user(db, SYSTEM, username, name, role, municipalities, DEMO_PASSWORD)
        except Conflict:
            pass
    staff = {code: _staff(code) for code in ALL}
    if db["taxpayers"].count_documents({}) == 0:
        rng = random.Random(2026)
        for code in ALL:
            _taxpayers(db, staff[code], code, rng)
        for code in ("chapada", "matupa"):
            _platforms(db, staff[code], code, rng)
    _dams(db, staff)
    ridehailing.seed_ridehailing(db)
    forms.seed_corrections(db)
    enforcement.seed_enforcement(db)
    platform_obligations.seed_platform_obligations(db)
    bookings.seed_bookings(db)
    portal_accounts.seed_portal_accounts(db)
    _history(db, staff)
    for code in ALL:  # the history is loaded in bulk, without the audit that feeds the read models
        views.rebuild(db, code)
    return [(u, r, DEMO_PASSWORD) for u, _n, r, _m in DEMO_USERS]


def _history(db: Database, staff: dict[str, Actor]) -> None:
    """Two years of activity before today's month, month by month, beside the scenario of today
    (once per municipality: skipped when its other revenues' history is there)."""
    today = clock.today()
    for code in ALL:
        if revenue_history.loaded(db, code):
            continue
        revenue_history.seed_revenue_history(db, staff[code], code, today)
        if code in ridehailing_history.FIRST_DAYS and exists(db["authorizations"], {"municipality": code}):
            ridehailing_history.seed_ridehailing_history(db, staff[code], code, today)
        if code == bookings.NL:
            bookings_history.seed_bookings_history(db, today)


def _staff(code: str) -> Actor:
    return Actor(f"carga.{code}", "Carga de demonstração", "secretaria", (code,))


def _taxpayers(db: Database, actor, code: str, rng: random.Random) -> None:
    for _ in range(12):
        entities.create(db, actor, "taxpayers", code, {
            "name": person(rng),
            "document": cpf(rng),
            "kind": "pf",
            "address": f"{rng.choice(STREETS)}, {rng.randint(10, 1999)}",
            "district": rng.choice(DISTRICTS[code]),
            "phone": phone(rng, code),
        })
    entities.create(db, actor, "taxpayers", code, {
        "name": "Associação dos Produtores Rurais do Vale (demonstração)",
        "document": cnpj(rng),
        "kind": "entidade",
        "address": f"{rng.choice(STREETS)}, {rng.randint(10, 999)}",
        "district": rng.choice(DISTRICTS[code]),
        "phone": phone(rng, code),
    })


def _platforms(db: Database, actor, code: str, rng: random.Random) -> None:
    for index, (name, slug) in enumerate(PLATFORMS):
        entities.create(db, actor, "platforms", code, {
            "name": name,
            "cnpj": cnpj(rng),
            "contact_name": person(rng),
            "phone": phone(rng, code),
            "email": f"regulatorio@{slug.replace('á', 'a')}.com.br",
            "insurer": rng.choice(["Porto Seguro", "Tokio Marine", "Mapfre"]),
            "policy_number": f"{rng.randint(10**9, 10**10 - 1)}",
            "insurance_coverage": Decimal(["100000.00", "50000.00", "30000.00"][index]),
            "insurance_valid_until": date(2027, rng.randint(1, 12), 28),
            "status": ["ativo", "ativo", "pendente"][index],
        })


DEMO_PIX_KEY = "pix.demonstracao@matupa.invalid"  # fictitious: the .invalid domain never resolves
DEMO_DAMS = {
    "chapada": [
        ("taxa_autorizacao", "Taxa de autorização do transporte por aplicativo (demonstração)",
         "Decreto Municipal 06/2026 (Chapada dos Guimarães), art. 14, VIII e art. 16", "180.00"),
        ("taxa_vistoria", "Taxa de vistoria anual do veículo (demonstração)",
         "Decreto Municipal 06/2026 (Chapada dos Guimarães), art. 17", "95.50"),
        ("multa", "Multa por auto de infração (demonstração)", "Decreto Municipal 06/2026 (Chapada dos Guimarães)",
         "412.30"),
    ],
    "matupa": [
        ("taxa_autorizacao", "Taxa de autorização do transporte por aplicativo (demonstração)",
         "Lei Municipal 1.552/2025 (Matupá), art. 9º e art. 14, §1º, VII", "150.00"),
        ("taxa_vistoria", "Taxa de vistoria anual do veículo (demonstração)", "Lei Municipal 1.552/2025 (Matupá), art. 15",
         "80.00"),
        ("multa", "Multa por auto de infração (demonstração)", "Lei Municipal 1.552/2025 (Matupá), art. 25", "620.00"),
    ],
    "nova_lacerda": [
        ("preco_publico", "Horas de máquina: patrol, 4 h (demonstração)",
         "Decreto Municipal 017/2026 (Nova Lacerda), Anexo I", "1240.00"),
        ("parcela", "Parcela 1/2 do preço público de serviço de máquinas (demonstração)",
         "Decreto Municipal 017/2026 (Nova Lacerda), Anexo I", "310.00"),
        ("preco_publico", "Horas de caminhão-caçamba, 2 h (demonstração)",
         "Decreto Municipal 017/2026 (Nova Lacerda), Anexo I", "520.00"),
    ],
}


def _dams(db: Database, staff: dict) -> None:
    """PIX for Matupá with a fictitious key, then six demo DAMs per municipality (once): issued,
    paid in full, paid with a different amount (flagged) and one cancelled."""
    note = "Chave PIX fictícia de demonstração; substituir pela chave do município"
    for name, value in ((dam_parameters.PIX_ENABLED, True), (dam_parameters.PIX_KEY, DEMO_PIX_KEY),
                        (dam_parameters.PIX_MERCHANT_NAME, "Prefeitura de Matupa"),
                        (dam_parameters.PIX_MERCHANT_CITY, "Matupa")):
        bootstrap.ensure_parameter(db, "matupa", ParameterVersion(name, date(2025, 1, 1), value, DEMO_ACT, note))
    today = clock.today()
    for code in ALL:
        if exists(db["dams"], {"municipality": code}):
            continue
        actor = staff[code]
        people = entity_lists.list_all(db, actor, "taxpayers", code, ListQuery(sort="name"))[:6]
        issued = []
        for index, payer in enumerate(people):
            kind, description, basis, amount = DEMO_DAMS[code][index % 3]
            issued.append(dams.issue(
                db, actor, code, taxpayer_name=payer["name"], taxpayer_document=payer["document"],
                taxpayer_address=", ".join(p for p in (payer["address"], payer.get("district")) if p), revenue_kind=kind,
                description=description, legal_basis=basis, amount=Decimal(amount),
                due=today + timedelta(days=10 + 7 * index),
            ))
        if len(issued) >= 4:
            payments.record_payment(db, actor, code, issued[1]["id"], today, issued[1]["amount"], "Banco do Brasil (demonstração)")
            payments.record_payment(db, actor, code, issued[2]["id"], today, issued[2]["amount"] - Decimal("10.00"),
                                    "PIX (demonstração)")
            dams.cancel(db, actor, code, issued[3]["id"], "Emitido em duplicidade (demonstração)")
