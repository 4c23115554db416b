"""Demo corrections of the ride-hailing registry: what a clerk undoes when something was entered by
mistake — a protocol typed twice, cancelled with its reason, and a certificate entered for the wrong
driver, removed with its reason (both kept in the store and in the audit log)."""
from __future__ import annotations

import random
from datetime import timedelta

from pymongo.database import Database

from seed import ridehailing as demo
from services.ridehailing import authorizations
from services.shared import clock, entities, entity_lists
from services.shared.auth import Actor
from services.shared.schema import ListQuery


def seed_corrections(db: Database) -> None:
    """Once, in Chapada dos Guimarães, beside the ride-hailing demo (skipped without it, or when a
    correction is already there)."""
    if db["authorizations"].count_documents({"municipality": "chapada"}) == 0:
        return
    if db["audit"].count_documents({"action": {"$in": ["cancelled", "remove"]}}) > 0:
        return
    actor = Actor("carga.chapada", "Carga de demonstração", "secretaria", ("chapada",))
    today = clock.today()
    cpf, plate = demo.register(db, actor, "chapada", random.Random(61), today - timedelta(days=1),
                               driver={"name": "Márcio Protocolo Duplicado (demonstração)"})
    twice = authorizations.request_authorization(db, actor, "chapada", cpf, plate, today - timedelta(days=1))
    authorizations.cancel_request(db, actor, "chapada", twice, "Protocolado em duplicidade (demonstração)")
    authorizations.request_authorization(db, actor, "chapada", cpf, plate, today)
    wrong = entity_lists.list_all(db, actor, "driver_documents", "chapada", ListQuery(filters={"driver_cpf": cpf}))[0]
    entities.remove(db, actor, "driver_documents", "chapada", wrong["id"],
                    "Certidão de outro condutor lançada por engano (demonstração)",
            expected_version=entities.get(db, actor, "driver_documents", "chapada", wrong["id"])["version"])
    demo.add_documents(db, actor, "chapada", cpf, today - timedelta(days=2),
                       missing=tuple(c for c in demo.DOCUMENTS["chapada"] if c != wrong["code"]))
