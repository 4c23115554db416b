"""Document numbers: one atomic counter per municipality, kind and year ("0001/2026").

The counter is incremented with ``find_one_and_update`` + ``$inc`` + upsert: atomic on MongoDB and
on the embedded store (one ``BEGIN IMMEDIATE`` transaction, across threads and processes). Reserve
a number inside the caller's ``store.transaction(db)`` so a failed write gives the number back.
"""
from __future__ import annotations

from dataclasses import dataclass

from pymongo import ReturnDocument
from pymongo.database import Database


@dataclass(frozen=True)
class DocumentNumber:
    sequence: int
    year: int

    @property
    def text(self) -> str:
        return f"{self.sequence:04d}/{self.year}"

    def __str__(self) -> str:
        return self.text


def next_number(db: Database, municipality: str, kind: str, year: int) -> DocumentNumber:
    """The next number of ``kind`` in ``municipality`` for ``year``: no duplicates, no gaps."""
    key = f"{municipality}/{kind}/{year}"
    doc = db["counters"].find_one_and_update(
        {"_id": key},
        {"$inc": {"seq": 1}},
        upsert=True,
        return_document=ReturnDocument.AFTER,
    )
    return DocumentNumber(int(doc["seq"]), year)
