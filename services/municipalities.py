"""Municipalities (tenants): their data comes from ``services/setup_data.py`` and every business document carries one."""
from __future__ import annotations

from dataclasses import dataclass

from pymongo.database import Database

from services.auth import Actor


@dataclass(frozen=True)
class Municipality:
    code: str
    name: str
    secretariat: str
    address: str
    phone: str
    modules: tuple[str, ...]
    acts: dict


def _from_doc(doc: dict) -> Municipality:
    return Municipality(
        code=doc["code"],
        name=doc["name"],
        secretariat=doc["secretariat"],
        address=doc["address"],
        phone=doc.get("phone", ""),
        modules=tuple(doc.get("modules", [])),
        acts=doc.get("acts", {}),
    )


def all_municipalities(db: Database) -> list[Municipality]:
    return [_from_doc(d) for d in db["municipalities"].find({}).sort("name", 1)]


def of_actor(db: Database, actor: Actor) -> list[Municipality]:
    """The municipalities the user may act in."""
    return [m for m in all_municipalities(db) if "*" in actor.municipalities or m.code in actor.municipalities]


def get(db: Database, code: str) -> Municipality:
    doc = db["municipalities"].find_one({"code": code})
    if doc is None:
        raise LookupError(f"Município '{code}' não cadastrado")
    return _from_doc(doc)
