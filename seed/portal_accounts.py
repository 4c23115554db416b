"""Demo accounts of the public portal (``python -m portal``): the first driver registered in Chapada and
a person authorized by the first demo platform there, each with a known password (demo store only)."""
from __future__ import annotations

from pymongo.database import Database

from services.shared import domicile, regulated_accounts
from services.shared.auth import Actor
from services.shared.errors import NotFound

PORTAL_PASSWORD = "portal2026"
AGENT_CPF = "50041082346"  # invented, valid check digits (seed.people.cpf(random.Random(36)))
AGENT_NAME = "Renata Duarte Campos (agente autorizada, demonstração)"
AGENT_EMAIL = "agente.demonstracao@moveja.invalid"  # fictitious: the .invalid domain never resolves
PLATFORM_NAME = "MoveJá Mobilidade Ltda"


def seed_portal_accounts(db: Database) -> list[tuple[str, str, str]]:
    """The demo driver and platform person accounts (idempotent): (who, identification, password)."""
    staff = Actor("carga.chapada", "Carga de demonstração", "secretaria", ("chapada",))
    made = []
    driver = db["drivers"].find_one({"municipality": "chapada", "removed": {"$exists": False}}, sort=[("_id", 1)])
    if driver is not None:
        regulated_accounts.create_demo_account(db, "chapada", "condutor", driver["cpf"], driver["cpf"], PORTAL_PASSWORD)
        _domicile(db, staff, "condutor", driver["cpf"], driver.get("email") or "")
        made.append(("condutor", f"CPF {driver['cpf']}", PORTAL_PASSWORD))
    platform = db["platforms"].find_one({"municipality": "chapada", "name": PLATFORM_NAME})
    if platform is not None:
        if regulated_accounts.register_entry(db, "chapada", "plataforma", platform["cnpj"], AGENT_CPF) is None:
            regulated_accounts.authorize_agent(db, staff, "chapada", platform["cnpj"], AGENT_CPF, AGENT_NAME,
                                               AGENT_EMAIL)
        try:
            regulated_accounts.create_demo_account(db, "chapada", "plataforma", platform["cnpj"], AGENT_CPF,
                                                   PORTAL_PASSWORD)
        except NotFound:
            return made
        _domicile(db, staff, "plataforma", platform["cnpj"], AGENT_EMAIL)
        made.append(("plataforma", f"CNPJ {platform['cnpj']} + CPF {AGENT_CPF}", PORTAL_PASSWORD))
    return made


def _domicile(db: Database, staff: Actor, kind: str, document: str, email: str) -> None:
    """The demo account's electronic domicile, as an activation opens it (once)."""
    if not domicile.active(db, "chapada", kind, document):
        domicile.open_domicile(db, staff, "chapada", kind, document, email)
