"""Demo accounts of the public portal (``python -m portal``): the first driver registered in Chapada, a
person authorized by the first demo platform there, and a resident of Nova Lacerda who asked for machinery
(a requerente), each with a known password (demo store only)."""
from __future__ import annotations

import contextlib
from datetime import timedelta
from decimal import Decimal

from pymongo.database import Database

from seed.public_register import seed_public_register
from seed.timeline import on
from services.dam import dams, own_dams
from services.ridehailing import renewal_reminders, trip_data
from services.shared import clock, domicile, regulated_accounts
from services.shared.auth import Actor
from services.shared.errors import NotFound

PORTAL_PASSWORD = "portal2026"
AGENT_CPF = "50041082346"  # invented, valid check digits (seed.people.cpf(random.Random(36)))
AGENT_NAME = "Renata Duarte Campos (agente autorizada, demonstração)"
AGENT_EMAIL = "agente.demonstracao@moveja.invalid"  # fictitious: the .invalid domain never resolves
PLATFORM_NAME = "MoveJá Mobilidade Ltda"
RESIDENT_EMAIL = "morador.demonstracao@novalacerda.invalid"  # fictitious: the .invalid domain never resolves


def seed_portal_accounts(db: Database) -> list[tuple[str, str, str]]:
    """The demo driver and platform person accounts (idempotent): (who, identification, password)."""
    staff = Actor("carga.chapada", "Carga de demonstração", "secretaria", ("chapada",))
    made = []
    driver = db["drivers"].find_one({"municipality": "chapada", "removed": {"$exists": False}}, sort=[("_id", 1)])
    if driver is not None:
        regulated_accounts.create_demo_account(db, "chapada", "condutor", driver["cpf"], driver["cpf"], PORTAL_PASSWORD)
        _domicile(db, staff, "condutor", driver["cpf"], driver.get("email") or "")
        _driver_dams(db, staff, driver)
        renewal_reminders.send_reminders(db, staff, "chapada", clock.today())  # once a year: idempotent
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
        _data_request(db, staff, platform)
        made.append(("plataforma", f"CNPJ {platform['cnpj']} + CPF {AGENT_CPF}", PORTAL_PASSWORD))
    seed_public_register(db)  # a register TI opened to the public: its form is on every Chapada account's Início
    asked = db["booking_requests"].find_one({"municipality": "nova_lacerda", "requester.kind": "pf"}, sort=[("_id", 1)])
    if asked is not None:  # a resident who asked for machinery: the portal shows their requests
        resident = asked["requester"]
        regulated_accounts.create_demo_account(db, "nova_lacerda", "requerente", resident["document"],
                                               resident["document"], PORTAL_PASSWORD, resident["name"],
                                               RESIDENT_EMAIL)
        made.append(("requerente", f"CPF {resident['document']} (Nova Lacerda)", PORTAL_PASSWORD))
    return made


def _domicile(db: Database, staff: Actor, kind: str, document: str, email: str) -> None:
    """The demo account's electronic domicile, as an activation opens it (once)."""
    if not domicile.active(db, "chapada", kind, document):
        domicile.open_domicile(db, staff, "chapada", kind, document, email)


def _driver_dams(db: Database, staff: Actor, driver: dict) -> None:
    """The demo driver's "Meus DAMs": at least one DAM open and one overdue (issued 40 days ago, due 30 days
    ago: its 2ª via can be asked on the portal), each issued once."""
    shown = own_dams.my_dams(db, regulated_accounts.Person("chapada", "condutor", driver["cpf"], "", "").actor,
                             limit=50)["items"]
    today = clock.today()
    act = "Decreto Municipal 06/2026 (Chapada dos Guimarães)"
    wanted = (("vencido", today - timedelta(days=40), today - timedelta(days=30), "taxa_vistoria",
               "Taxa de vistoria anual do veículo (demonstração)", f"{act}, art. 17", "95.50"),
              ("em_aberto", today, today + timedelta(days=20), "multa", "Multa por auto de infração (demonstração)",
               act, "412.30"))
    for status, issued_on, due, kind, description, basis, amount in wanted:
        if any(d["status"] == status for d in shown):
            continue
        with on(issued_on) if issued_on < today else contextlib.nullcontext():  # today's: at the real now
            dams.issue(db, staff, "chapada", taxpayer_name=driver["name"], taxpayer_document=driver["cpf"],
                       taxpayer_address=driver.get("address") or "Chapada dos Guimarães", revenue_kind=kind,
                       description=description, legal_basis=basis, amount=Decimal(amount), due=due)


def _data_request(db: Database, staff: Actor, platform: dict) -> None:
    """A trip-data request delivered to the demo platform's domicile (its 24 hours run from now), once."""
    if db[trip_data.REQUESTS].count_documents({"municipality": "chapada", "platform_id": str(platform["_id"]),
                                               "channel": trip_data.DOMICILE_CHANNEL}):
        return
    today = clock.today()
    trip_data.request_data(db, staff, "chapada", str(platform["_id"]),
                           "Apuração de denúncia de cobrança acima da tarifa anunciada (demonstração)",
                           period_from=today - timedelta(days=7), period_to=today - timedelta(days=1))
