"""Municipalities (tenants): their data comes from ``services/setup/defaults.py`` and every business document carries one.

What TI sets per municipality on the Implantação page (``services/setup/deployment.py``) lives on the same
document: ``cnpj``, ``coat_of_arms`` (the sha256 of the image kept by ``store.put_file``) and
``signer`` (name and role of who signs its certificates). :func:`letterhead` gathers them for a PDF.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pymongo.database import Database

from services import store
from services.shared.auth import Actor

if TYPE_CHECKING:  # the PDF library is read on the first document, not on the login page's first paint
    from services.shared.pdf.letterhead import Letterhead


@dataclass(frozen=True)
class Municipality:
    code: str
    name: str
    secretariat: str
    address: str
    phone: str
    modules: tuple[str, ...]
    acts: dict
    cnpj: str = ""
    coat_of_arms: str = ""  # sha256 of the image in the store's files ("" when not uploaded)
    signer_name: str = ""
    signer_role: str = ""


def _from_doc(doc: dict) -> Municipality:
    arms = doc.get("coat_of_arms") or {}
    signer = doc.get("signer") or {}
    return Municipality(
        code=doc["code"],
        name=doc["name"],
        secretariat=doc["secretariat"],
        address=doc["address"],
        phone=doc.get("phone", ""),
        modules=tuple(doc.get("modules", [])),
        acts=doc.get("acts", {}),
        cnpj=doc.get("cnpj") or "",
        coat_of_arms=arms.get("sha256", "") if isinstance(arms, dict) else "",
        signer_name=signer.get("name", ""),
        signer_role=signer.get("role", ""),
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


def coat_of_arms(db: Database, code: str) -> bytes | None:
    """The image TI uploaded for the municipality (None before), without the documents' modules: the
    login page shows it on the first run after a start."""
    town = get(db, code)
    return store.get_file(db, town.coat_of_arms) if town.coat_of_arms else None


def letterhead(db: Database, code: str, with_phone: bool = False) -> Letterhead:
    """The letterhead of the municipality's documents: what TI set (coat of arms, CNPJ, signer) and
    the Prefeitura's secretariat and address; a value not set is left empty (a neutral letterhead)."""
    from services.shared.pdf.letterhead import Letterhead

    town = get(db, code)
    address = " · ".join(p for p in (town.address, town.phone if with_phone else "") if p)
    return Letterhead(
        municipality_name=town.name, secretariat=town.secretariat, address=address, cnpj=town.cnpj,
        coat_of_arms=store.get_file(db, town.coat_of_arms) if town.coat_of_arms else None,
        signer_name=town.signer_name, signer_role=town.signer_role,
    )
