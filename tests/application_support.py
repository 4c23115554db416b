"""A driver candidate's application filled through the service (issue 38 item 1): typed values as a form
sends them (texts), for the service, page and browser tests."""
from __future__ import annotations

import random
from datetime import date, timedelta

from seed import people
from seed import ridehailing as demo
from services.ridehailing import applications, authorizations, registry
from services.shared import clock, entities, entity_lists
from services.shared.regulated_accounts import DRIVER, Person

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


def candidate(municipality: str, seed: int = 11) -> Person:
    """A driver candidate (not in the register) logged in on the portal."""
    rng = random.Random(seed)
    return Person(municipality, DRIVER, people.cpf(rng), "", people.person(rng))


def typed(values: dict) -> dict[str, str]:
    """Values as an HTML form sends them: dates dd/mm/aaaa, booleans "sim"/"nao", the rest as text."""
    out = {}
    for key, value in values.items():
        if isinstance(value, bool):
            out[key] = "sim" if value else "nao"
        elif isinstance(value, date):
            out[key] = f"{value:%d/%m/%Y}"
        elif value is not None:
            out[key] = str(value)
    return out


def driver_form(person: Person, seed: int = 11, **changes) -> dict[str, str]:
    values = demo.driver_values(random.Random(seed), person.municipality, clock.today(), cpf=person.document,
                                name=person.name, **changes)
    return typed(values)


def vehicle_form(person: Person, seed: int = 11, **changes) -> dict[str, str]:
    values = demo.vehicle_values(random.Random(seed), person.document, clock.today(), **changes)
    return typed(values)


def documents_form(municipality: str, missing: tuple[str, ...] = (), issued: date | None = None
                   ) -> tuple[dict[str, str], dict[str, tuple[bytes, str]]]:
    """The dates and one PDF per document the act asks, but ``missing``."""
    issued = issued or clock.today() - timedelta(days=3)
    texts, files = {}, {}
    for req in registry.rules_of(municipality).documents:
        texts[f"{req.code}-issued_on"] = f"{issued:%d/%m/%Y}"
        if req.code not in missing:
            files[f"{req.code}-file"] = (PDF, f"{req.code}.pdf")
    return texts, files


def fill(db, person: Person, missing: tuple[str, ...] = (), seed: int = 11, driver: dict | None = None,
         vehicle: dict | None = None) -> applications.Application:
    actor = person.actor
    applications.save_part(db, actor, "condutor", driver_form(person, seed, **(driver or {})))
    applications.save_part(db, actor, "veiculo", vehicle_form(person, seed, **(vehicle or {})))
    texts, files = documents_form(person.municipality, missing)
    return applications.save_documents(db, actor, texts, files)


def approve(db, clerk, municipality: str, protocol: str, on: date) -> str:
    """The clerk reads the medical certificate (sets the aptitude the candidate does not type) and approves the
    request, through the clerk's services; returns the authorization's id."""
    auth = db["authorizations"].find_one({"protocol": protocol, "municipality": municipality})
    driver = entity_lists.referenced(db, clerk, "drivers", municipality, "cpf", auth["driver_cpf"])
    entities.update(db, clerk, "drivers", municipality, driver["id"], {"fit_for_duty": True},
                    expected_version=driver["version"])
    authorizations.approve(db, clerk, municipality, str(auth["_id"]), on)
    return str(auth["_id"])
