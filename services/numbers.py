"""Document numbers: one atomic counter per municipality, kind and year ("0001/2026").

The counter is incremented with ``find_one_and_update`` + ``$inc`` + upsert, atomic on MongoDB.
The embedded store serialises writers within the process too; see ``_COUNTER_LOCK``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from pymongo import ReturnDocument
from pymongo.database import Database

# Workaround kept in one place: a process lock around the counter increment, so concurrent
# Streamlit sessions (threads of one process) never race on the embedded store. It is harmless
# on a real MongoDB server, where the increment is already atomic across processes.
_COUNTER_LOCK = threading.Lock()


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
    with _COUNTER_LOCK:
        doc = db["counters"].find_one_and_update(
            {"_id": key},
            {"$inc": {"seq": 1}},
            upsert=True,
            return_document=ReturnDocument.AFTER,
        )
    return DocumentNumber(int(doc["seq"]), year)
