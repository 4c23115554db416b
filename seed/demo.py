"""Demo store: demo users for each role and invented records for the three municipalities.

Every CPF, CNPJ and plate is generated with valid check digits from a fixed random seed; names
are invented. Demo users exist only in a store marked as demo.
"""
from __future__ import annotations

import random

from pymongo.database import Database

from seed.municipalities import seed_demo_parameters
from services.setup import bootstrap
from services.shared import entities
from services.shared.auth import SYSTEM, create_user
from services.shared.errors import Conflict

DEMO_PASSWORD = "painel2026"
ALL = ["chapada", "matupa", "nova_lacerda"]
DEMO_USERS = [
    ("secretaria.chapada", "Ana Paula Ribeiro (Secretaria - Chapada)", "secretaria", ["chapada"]),
    ("secretaria.matupa", "Carlos Henrique Dias (Secretaria - Matupá)", "secretaria", ["matupa"]),
    ("secretaria.novalacerda", "Juliana Moraes (Secretaria - Nova Lacerda)", "secretaria", ["nova_lacerda"]),
    ("gabinete", "Gabinete do Prefeito (demonstração)", "gabinete", ALL),
    ("ti", "TI Municipal (demonstração)", "ti", ALL),
]

FIRST = ["Maria", "José", "Antônio", "Francisca", "Luiz", "Adriana", "Marcos", "Patrícia", "Rafael", "Sandra",
         "Paulo", "Juliana", "Ricardo", "Aline", "Eduardo", "Cláudia", "Fernando", "Luciana", "Rodrigo", "Vanessa"]
LAST = ["Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima", "Gomes",
        "Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira", "Barbosa"]
STREETS = ["Rua das Palmeiras", "Avenida Brasil", "Rua Cuiabá", "Rua dos Ipês", "Avenida Mato Grosso",
           "Rua São Benedito", "Rua Sete de Setembro", "Travessa do Buriti"]
DISTRICTS = {
    "chapada": ["Centro", "Bom Jardim", "Vila Aurora", "Água Fria", "Cachoeira Rica"],
    "matupá".replace("á", "a"): ["Centro", "Jardim das Flores", "Bairro Industrial", "Vila Operária"],
    "nova_lacerda": ["Centro", "Assentamento Corixa", "Comunidade Vale do Guaporé", "Zona Rural Norte"],
}
PLATFORMS = [("MoveJá Mobilidade Ltda", "movejá"), ("Rota Certa Transportes Digitais S.A.", "rotacerta"),
             ("Chama Aí Tecnologia Ltda", "chamaai")]


def cpf(rng: random.Random) -> str:
    base = [rng.randint(0, 9) for _ in range(9)]
    for weight_start in (10, 11):
        total = sum(d * w for d, w in zip(base, range(weight_start, 1, -1)))
        base.append((total * 10 % 11) % 10)
    return "".join(map(str, base))


def cnpj(rng: random.Random) -> str:
    base = [rng.randint(0, 9) for _ in range(8)] + [0, 0, 0, 1]
    for weights in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        remainder = sum(d * w for d, w in zip(base, weights)) % 11
        base.append(0 if remainder < 2 else 11 - remainder)
    return "".join(map(str, base))


def phone(rng: random.Random, code: str) -> str:
    ddd = "66" if code == "matupa" else "65"
    return f"{ddd}9{rng.randint(8100, 9999)}{rng.randint(1000, 9999)}"


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)} {rng.choice(LAST)}"


def seed_demo(db: Database) -> list[tuple[str, str, str]]:
    """Fill a demo store (idempotent). Returns the demo users as (username, role, password)."""
    bootstrap.prepare(db)
    bootstrap.mark_store(db, "demo")
    if bootstrap.store_kind(db) != "demo":
        raise SystemExit("Este armazenamento é de produção: dados de demonstração não são carregados nele.")
    seed_demo_parameters(db)
    from seed.documents import seed_documents

    seed_documents(db)
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
    from seed.ridehailing import seed_ridehailing

    seed_ridehailing(db)
    from seed.forms import seed_corrections

    seed_corrections(db)
    from seed.enforcement import seed_enforcement

    seed_enforcement(db)
    from seed.platform_obligations import seed_platform_obligations

    seed_platform_obligations(db)
    from seed.bookings import seed_bookings

    seed_bookings(db)
    return [(u, r, DEMO_PASSWORD) for u, _n, r, _m in DEMO_USERS]


def _staff(code: str):
    from services.shared.auth import Actor

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
    from datetime import date
    from decimal import Decimal

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
    from datetime import date, timedelta
    from decimal import Decimal

    from rules.dam import parameters as dam_parameters
    from rules.params import ParameterVersion
    from seed.municipalities import DEMO_ACT
    from services.dam import dams, payments
    from services.shared import clock
    from services.shared.entities import ListQuery
    from services.store import exists

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
        people = entities.list_all(db, actor, "taxpayers", code, ListQuery(sort="name"))[:6]
        issued = []
        for index, person in enumerate(people):
            kind, description, basis, amount = DEMO_DAMS[code][index % 3]
            issued.append(dams.issue(
                db, actor, code, taxpayer_name=person["name"], taxpayer_document=person["document"],
                taxpayer_address=", ".join(p for p in (person["address"], person.get("district")) if p), revenue_kind=kind,
                description=description, legal_basis=basis, amount=Decimal(amount),
                due=today + timedelta(days=10 + 7 * index),
            ))
        if len(issued) >= 4:
            payments.record_payment(db, actor, code, issued[1]["id"], today, issued[1]["amount"], "Banco do Brasil (demonstração)")
            payments.record_payment(db, actor, code, issued[2]["id"], today, issued[2]["amount"] - Decimal("10.00"),
                                    "PIX (demonstração)")
            dams.cancel(db, actor, code, issued[3]["id"], "Emitido em duplicidade (demonstração)")
